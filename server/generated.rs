//! The catalog generated at build time from `openapi/v1.yaml` and `templates/` by `codegen`
//! (see `build.rs`): the `/v1` routes are registered from `TOOLS`, and `CATALOG` is what the
//! MCP endpoint serves; and `models`, the document's types (`mcpgen::Output::models`).

#![allow(clippy::all)]

use mcpgen_catalog::*;

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// The document's types: per operation its path, query, body and response types (see
/// `codegen/X-MCP.md`, "The models"), which every `/v1` handler reads and answers. Read them
/// without a build with `cargo run -p mcpgen -- models openapi/v1.yaml` (the tables: `source`);
/// some of the response types are not used yet (`dead_code` allowed for them).
#[allow(dead_code, clippy::all)]
pub mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
