//! The catalog generated at build time from `openapi/v1.yaml` and `templates/` by `codegen`
//! (see `build.rs`): the `/v1` routes are registered from `TOOLS`, and `CATALOG` is what the
//! MCP endpoint serves; and `models`, the document's types (the `dunning-models` crate).

#![allow(clippy::all)]

use mcpgen_catalog::*;

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// The document's types (`dunning-models`, generated from the same document): per operation
/// its path, query, body and response types, which every `/v1` handler reads and answers.
pub use dunning_models as models;
