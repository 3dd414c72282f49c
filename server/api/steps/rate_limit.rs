//! Rate limits per token: `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` on
//! every authenticated response, and 429 with `Retry-After` once the window is spent.

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderName, HeaderValue, StatusCode};

use crate::auth::Principal;
use crate::http::problem::ApiError;
use crate::state::AppState;
use dunning_store::rate_windows::WindowState;

/// A request already counted against its token's window — by the MCP endpoint, which counts
/// every MCP request before dispatching tools in-process. Extensions cannot come from the
/// network, so only the server itself can say so; the API then does not count the request a
/// second time, and reports this window in its headers.
#[derive(Debug, Clone, Copy)]
pub struct Counted(pub WindowState);

/// Count one request of `principal` in its token's current window: in memory, against the
/// budget this replica claimed (see [`crate::rate_limiter`]), so a read does not write.
pub async fn count(state: &AppState, principal: &Principal) -> dunning_store::Result<WindowState> {
    let (limit, period) = principal
        .rate_limit
        .unwrap_or(state.config.default_rate_limit);
    state.limits.hit(&principal.token_id, limit, period).await
}

/// Count the request against its token's window (unless it was [`Counted`] already); refuse
/// it when the window is spent.
pub async fn rate_limit<F: Future<Output = Response>>(
    state: &AppState,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let Some(principal) = request.extensions().get::<Principal>() else {
        return next(request).await;
    };
    let counted = request.extensions().get::<Counted>().map(|c| c.0);
    let window = match counted {
        Some(window) => window,
        // Boxed: see `authenticate_v1`.
        None => match Box::pin(count(state, principal)).await {
            Ok(window) => window,
            Err(e) => return ApiError::from(e).into_response(),
        },
    };
    let mut response = if window.exceeded() {
        let retry = window.reset.max(1) as u64;
        let mut error = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("Rate limit exceeded: retry in {retry} seconds"),
        );
        error.retry_after = Some(retry);
        error.into_response()
    } else {
        next(request).await
    };
    add_headers(&mut response, &window);
    response
}

// Named once: a header name given as `&str` is parsed again on every insert (three names
// were 1.8k instructions of every `/v1` request).
const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

fn add_headers(response: &mut Response, window: &WindowState) {
    let h = response.headers_mut();
    h.insert(RATELIMIT_LIMIT, HeaderValue::from(window.limit));
    h.insert(RATELIMIT_REMAINING, HeaderValue::from(window.remaining()));
    h.insert(RATELIMIT_RESET, HeaderValue::from(window.reset.max(0)));
}
