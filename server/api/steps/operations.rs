//! Find the generated operation behind a request (method + matched path template), and name
//! it on the response for the metrics.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::extract::{MatchedPath, Request};
use axum::response::Response;

use crate::generated::OperationId;
use crate::ops::metrics::OperationName;

/// The first step of the `/v1` middleware (`api::steps::checks`): find the request's operation once,
/// keep it in the request for the steps and extractors after this one ([`of`]), and say on the
/// response which operation answered (its `operationId`), so requests are counted by
/// operation, never by raw path.
pub async fn name_response<F: Future<Output = Response>>(
    mut request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let operation = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|path| find_id(request.method(), path.as_str()));
    let Some(operation) = operation else {
        return next(request).await;
    };
    request.extensions_mut().insert(operation);
    let mut response = next(request).await;
    let name = operation.tool().name;
    response
        .extensions_mut()
        .insert(OperationName(name.strip_prefix("dunning_").unwrap_or(name)));
    response
}

/// The operation of a routed `/v1` request, as [`name_response`] found it.
pub fn of(extensions: &http::Extensions) -> Option<OperationId> {
    extensions.get::<OperationId>().copied()
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
