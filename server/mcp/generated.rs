//! Where `crate::api` and the integration tests still look for the dunning server's generated
//! catalog. It lives in `crate::generated`; the MCP layer itself never reads it (it serves the
//! [`super::Catalog`] handed to [`super::router`]). Remove once those imports name
//! `crate::generated`.

pub use crate::generated::*;
