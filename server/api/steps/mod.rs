//! The `/v1` steps and extractors: what every request goes through before its handler runs,
//! and how the handler reads what they found.
//!
//! [`checks`] runs the steps in their order, outermost first: `operations` (the request's
//! operation, found once), `authenticate` (the bearer token, then the operation's scopes),
//! `rate_limit`, `well_formed` (path, body size and time, media type), `idempotency`
//! (replayed or recorded writes; a handler ends with its `commit`), `schema_check` (query
//! string and body judged against the document, the faults carried to the handler), `fields`
//! (a list's `fields=`, applied to the answer on the way back). A handler then takes its input
//! through the extractors: `caller` (the state and the authenticated caller, and `find`, the
//! one find-or-404) and `typed_input` (the operation's body and query as generated models,
//! with every fault of the request in one 400, the `text_rule`'s among them); what no schema
//! can say it checks with `server_rules`.

mod authenticate;
pub(super) mod caller;
mod fields;
pub(super) mod idempotency;
pub mod operations;
pub mod rate_limit;
pub mod schema_check;
pub mod server_rules;
pub mod text_rule;
pub(super) mod typed_input;
pub mod well_formed;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use self::authenticate::{authenticate_v1, require_operation_scopes};
use crate::state::AppState;

/// The `/v1` middleware, outermost first: name the response's operation, authenticate, count
/// against the rate limit, check scopes, then refuse malformed requests (path, body size and
/// time, media type), then replay or record idempotent writes, then judge the query string
/// and body against the document (faults left for the handler's input reader to report with
/// its own), then the handler. Authorization comes before any look at the input, so a caller
/// without the scope learns nothing about what it sent.
///
/// One layer whose steps are plain async functions, each handed the rest as a closure: as
/// seven `from_fn` layers, each step cloned the whole stack below it and boxed it and its
/// future on every request (a fifth of a detail read's instructions, paid again by each
/// tool call's in-process request).
pub(super) async fn checks(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    steps(&state, request, |request| next.run(request)).await
}

/// [`checks`]' steps in their order, then `handler`.
async fn steps<F: Future<Output = Response>>(
    state: &AppState,
    request: Request,
    handler: impl FnOnce(Request) -> F,
) -> Response {
    operations::name_response(request, |request| {
        authenticate_v1(state, request, |request| {
            rate_limit::rate_limit(state, request, |request| {
                require_operation_scopes(request, |request| {
                    well_formed::well_formed(request, |request| {
                        idempotency::idempotency(state, request, |request| {
                            schema_check::checked(request, |request| {
                                fields::select(request, handler)
                            })
                        })
                    })
                })
            })
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of the future `make` returns, without running it.
    fn future_size<F: Future>(_make: fn(&'static AppState, Request) -> F) -> usize {
        std::mem::size_of::<F>()
    }

    /// Each step holds the future of the steps after it, and each level moves it once more as
    /// it starts: a large rare path inline (a token looked up, a window claimed, a keyed
    /// write) made every request copy it several times (`memcpy` was 10k instructions of a
    /// tool call's 158k, bench/RESULTS.md). Those paths are boxed.
    #[test]
    fn the_v1_checks_future_stays_small_because_their_rare_paths_are_boxed() {
        let size = future_size(|state, request| {
            steps(state, request, |_| std::future::ready(Response::default()))
        });
        // 4 688 bytes in a test build (8 776 with the three paths inline).
        assert!(size <= 6144, "the /v1 checks' future is {size} bytes");
    }
}
