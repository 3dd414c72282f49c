//! The catalog generated at build time from `openapi/v1.yaml` by `codegen` (see `build.rs`).

#![allow(clippy::all)]

use super::catalog::*;

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));
