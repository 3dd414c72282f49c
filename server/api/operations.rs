//! Find the generated operation behind a request (method + matched path template).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::generated;
use crate::mcp::catalog::ToolSpec;

/// The operation for `method` on the route template `path` (e.g. `/v1/charges/{id}`).
pub fn find(method: &http::Method, path: &str) -> Option<&'static ToolSpec> {
    static INDEX: OnceLock<HashMap<(http::Method, &'static str), &'static ToolSpec>> =
        OnceLock::new();
    let index = INDEX.get_or_init(|| {
        generated::TOOLS
            .iter()
            .map(|t| ((t.method.as_http(), t.path), t))
            .collect()
    });
    index.get(&(method.clone(), path)).copied()
}
