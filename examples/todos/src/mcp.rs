//! The MCP endpoint: the only code of this service that knows about MCP. `build.rs` generated
//! the catalog (one tool per operation of `openapi.json`); `mcpgen-axum` serves it at `/mcp`
//! and runs each tool as an in-process request through the REST router, copying the
//! `X-API-Key` header the document declares from the MCP request, so the service's own key
//! check and handlers answer it. The MCP layer asks for no credential of its own, and (the
//! service binds 127.0.0.1 only) refuses a `Host` that is not a loopback name.

use std::sync::Arc;

use axum::Router;

mod generated {
    use mcpgen_axum::catalog::*;
    include!(concat!(env!("OUT_DIR"), "/catalog.rs"));
}

struct NoTokens;
impl mcpgen_axum::Host for NoTokens {}

/// `/mcp`, dispatching to `api`.
pub fn router(api: &Router) -> Router {
    let settings = mcpgen_axum::Settings::new("todos", env!("CARGO_PKG_VERSION"))
        .authentication(mcpgen_axum::Authentication::None)
        .loopback_only(true);
    let host = Arc::new(NoTokens);
    mcpgen_axum::router(generated::CATALOG, host, api.clone(), settings)
}
