//! The catalog generated at build time from `openapi/v1.yaml` and `templates/` by `codegen`
//! (see `build.rs`): the `/v1` routes are registered from `TOOLS`, and `CATALOG` is what the
//! MCP endpoint serves.

#![allow(clippy::all)]

use catalog::*;

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));
