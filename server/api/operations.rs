//! Find the generated operation behind a request (method + matched path template).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::generated::{self, OperationId};
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

/// The identity of the operation for `method` on the route template `path`.
pub fn find_id(method: &http::Method, path: &str) -> Option<OperationId> {
    static INDEX: OnceLock<HashMap<(http::Method, &'static str), OperationId>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        OperationId::ALL
            .iter()
            .map(|op| ((op.tool().method.as_http(), op.tool().path), *op))
            .collect()
    });
    index.get(&(method.clone(), path)).copied()
}
