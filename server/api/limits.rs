//! Rate limits per token: `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` on
//! every authenticated response, and 429 with `Retry-After` once the window is spent.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode};

use super::problem::ApiError;
use crate::auth::Principal;
use crate::state::AppState;
use crate::store::limits::{self, WindowState};

/// Count the request against its token's window; refuse it when the window is spent.
pub async fn rate_limit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(principal) = request.extensions().get::<Principal>() else {
        return next.run(request).await;
    };
    let (limit, period) = principal
        .rate_limit
        .unwrap_or(state.config.default_rate_limit);
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let window = match limits::hit(&state.db, &principal.token_id, limit, period, now).await {
        Ok(window) => window,
        // Storage that cannot count now (read-only, full, gone) may still serve the request
        // (reads on a read-only database): let it through, and the storage itself refuses
        // what it cannot do, with its own 503.
        Err(e) if e.storage_fault().is_some() => {
            tracing::debug!("rate limit not counted: {e}");
            return next.run(request).await;
        }
        Err(e) => return ApiError::from(e).into_response(),
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
        next.run(request).await
    };
    add_headers(&mut response, &window);
    response
}

fn add_headers(response: &mut Response, window: &WindowState) {
    let h = response.headers_mut();
    h.insert("ratelimit-limit", HeaderValue::from(window.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(window.remaining()));
    h.insert("ratelimit-reset", HeaderValue::from(window.reset.max(0)));
}
