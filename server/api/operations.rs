//! Find the generated operation behind a request (method + matched path template), and name
//! it on the response for the metrics.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use catalog::ToolSpec;

use crate::generated::{self, OperationId};
use crate::ops::metrics::OperationName;

/// Middleware (outermost of the `/v1` route layers): the response says which operation
/// answered (its `operationId`), so requests are counted by operation, never by raw path.
pub async fn name_response(request: Request, next: Next) -> Response {
    let operation = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|path| find(request.method(), path.as_str()))
        .map(|tool| tool.name.strip_prefix("dunning_").unwrap_or(tool.name));
    let mut response = next.run(request).await;
    if let Some(operation) = operation {
        response.extensions_mut().insert(OperationName(operation));
    }
    response
}

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
