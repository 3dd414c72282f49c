//! Rate limits at the endpoint: every authenticated request counts once against its
//! credential's window, through [`Host::admit`](super::Host::admit), before it does anything.
//!
//! Counting here, and not only where tools reach the API, is what limits `tools/list`,
//! `prompts/get`, `completion/complete` and the rest. A `tools/call` is counted here too and
//! not again by the API: the host marks the caller as counted, and the in-process request
//! carries the mark. A refused request answers with `Retry-After`; what the body says depends
//! on the method (see [`refusal`]). Requests without a credential (the public catalog) are not
//! counted: there is no window to count them in.

use http::{HeaderValue, header};
use serde_json::{Value, json};

use super::jsonrpc::{ErrorCode, RpcError};
use super::protocol::Context;
use super::{Admission, Caller, Endpoint, lifecycle, results};

/// Count the request of `caller` (anonymous requests are not counted). `Ok(Some(seconds))`:
/// the window is spent, retry after that long. `Err`: the host could not count.
pub async fn admit(endpoint: &Endpoint, caller: Option<&mut Caller>) -> Result<Option<u64>, ()> {
    let Some(caller) = caller else {
        return Ok(None);
    };
    match endpoint.host.admit(caller).await {
        Ok(Admission::Admitted) => Ok(None),
        Ok(Admission::Limited { retry_after }) => Ok(Some(retry_after.max(1))),
        Err(story) => {
            tracing::error!("rate limit could not be counted: {story}");
            Err(())
        }
    }
}

/// The answer to a refused request, always in an HTTP 200 with `Retry-After`. `tools/call`
/// answers what a 429 of its operation would have been — an `isError` result with the
/// problem — since SDKs throw on anything else and the contract promises they do not. Every
/// other method answers a JSON-RPC error (`-32000`, `data.retry_after`). Not an HTTP 429: the
/// Python SDK 1.27 turns a non-2xx answer into an exception that ends the whole session,
/// where a JSON-RPC error fails only the one request.
pub fn refusal(
    endpoint: &Endpoint,
    context: &Context,
    method: &str,
    retry_after: u64,
) -> Result<Value, RpcError> {
    let detail = format!("Rate limit exceeded: retry in {retry_after} seconds");
    if method != "tools/call" {
        return Err(RpcError::new(ErrorCode::SERVER_ERROR, detail)
            .with_data(json!({ "retry_after": retry_after })));
    }
    let result = results::error(&json!({
        "type": endpoint.settings.problem_type("rate-limited"),
        "title": "Too Many Requests",
        "status": 429,
        "detail": detail,
        "code": "rate_limited",
        "errors": [],
        "retry_after": retry_after,
    }));
    Ok(if context.version.is_stateless() {
        lifecycle::stateless_result(&endpoint.settings, method, result)
    } else {
        result
    })
}

/// `Retry-After` on the HTTP response of a refused request, so that HTTP clients and proxies
/// back off too.
pub fn retry_after_header(seconds: u64) -> (header::HeaderName, HeaderValue) {
    (header::RETRY_AFTER, HeaderValue::from(seconds))
}
