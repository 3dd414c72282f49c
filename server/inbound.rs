//! The unauthenticated inbound doors, and what one client address may cost each of them: the
//! PSPs' Pix callbacks (`/pix/webhook/…`, `pix_webhook`), Twilio's status callbacks
//! (`/callbacks/…`, `callbacks`) and the one-click unsubscribe links (`/unsubscribe/…`,
//! `unsubscribe`). Anyone may knock on them, and each refusal costs something: a database
//! lookup for a Pix secret, a signature or an HMAC, a log line. [`guard`], laid on the doors'
//! routes (`app` in `lib.rs`), keeps a budget per door and client address
//! (`http::address_budget`, `--bad-request-budget`):
//!
//! - **Only refusals spend it**: an answer 400, 403, 404, 408, 413, 415 or any other 4xx but
//!   409 (our own contention, not the client's fault) and 429. A good request spends nothing,
//!   so a PSP sending many valid callbacks is never refused for their number.
//! - **Past it**, the door answers 429 with `Retry-After` (the end of the address's window)
//!   before its handler runs: no lookup, no access-log line (the budget writes one line when an
//!   address is first refused in a window and one when the window ends). That includes a good
//!   request from the same address: telling it apart would cost the lookup the budget saves.
//!   A PSP retries a 429 (BACEN's manual: callbacks are retried) and the Pix worker's sweep
//!   reads back every Pix no callback brought, so no payment is lost, only delayed by at most
//!   the window. The 429 is a problem document on every door, the unsubscribe pages' included:
//!   a person meets it only from an address that sent the budget's worth of bad links.
//! - **A budget per door**: an address flooding the unsubscribe links is not refused Pix
//!   callbacks.
//! - **Counted** in `dunning_inbound_refusals_total{door, reason}`: every refusal of a door, by
//!   its reason (`not_found`, `unsupported_media_type`, …, and `over_budget` for the 429s).
//!
//! The address is the socket's peer, or behind a `--trusted-proxy` the address the proxy
//! forwarded for (`http::client_address`). Behind a proxy that is not named, every request
//! comes from the proxy: each door then has one budget for everyone, and a flood of refusals
//! delays everyone's requests to that door for a window.
//!
//! A request under a door's prefix that no route takes (a method the route does not take, a
//! path with no secret or token) is answered by the server's fallbacks like any unknown path:
//! it costs no lookup, and it neither spends nor is refused. Guarding those too would mean a
//! middleware over the whole server, paid by every `/v1` and MCP request.
//!
//! A request spends when its answer is known, so requests already in flight when an address
//! spends its budget are answered: one address passes its budget by at most the requests it
//! has in flight, which `--max-connections` bounds.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use crate::http::address_budget::{AddressBudget, Budget, OverBudget, now_ms};
use crate::http::client_address::{self, Network};
use crate::http::problem::ApiError;
use crate::ops::metrics::Metrics;

/// One of the unauthenticated inbound doors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    PixWebhook,
    Callbacks,
    Unsubscribe,
}

impl Door {
    /// The door a path knocks on, if any.
    pub fn of(path: &str) -> Option<Door> {
        if path.starts_with("/pix/webhook/") {
            Some(Door::PixWebhook)
        } else if path.starts_with("/callbacks/") {
            Some(Door::Callbacks)
        } else if path.starts_with("/unsubscribe/") {
            Some(Door::Unsubscribe)
        } else {
            None
        }
    }

    /// The door's name in metrics and logs.
    pub fn name(self) -> &'static str {
        match self {
            Door::PixWebhook => "pix_webhook",
            Door::Callbacks => "callbacks",
            Door::Unsubscribe => "unsubscribe",
        }
    }
}

/// The doors' budgets, the proxies whose `X-Forwarded-For` is believed, and the metrics the
/// refusals are counted in.
#[derive(Debug)]
pub struct Doors {
    pix_webhook: Arc<AddressBudget>,
    callbacks: Arc<AddressBudget>,
    unsubscribe: Arc<AddressBudget>,
    trusted_proxies: Vec<Network>,
    metrics: Arc<Metrics>,
}

impl Doors {
    pub fn new(budget: Budget, trusted_proxies: Vec<Network>, metrics: Arc<Metrics>) -> Doors {
        Doors {
            pix_webhook: AddressBudget::new(Door::PixWebhook.name(), budget),
            callbacks: AddressBudget::new(Door::Callbacks.name(), budget),
            unsubscribe: AddressBudget::new(Door::Unsubscribe.name(), budget),
            trusted_proxies,
            metrics,
        }
    }

    fn budget(&self, door: Door) -> &Arc<AddressBudget> {
        match door {
            Door::PixWebhook => &self.pix_webhook,
            Door::Callbacks => &self.callbacks,
            Door::Unsubscribe => &self.unsubscribe,
        }
    }
}

/// The middleware: other paths pass untouched.
pub async fn guard(State(doors): State<Arc<Doors>>, request: Request, next: Next) -> Response {
    let Some(door) = Door::of(request.uri().path()) else {
        return next.run(request).await;
    };
    let budget = doors.budget(door);
    let address: Option<IpAddr> = client_address::client(
        client_address::peer(request.extensions()),
        request.headers(),
        &doors.trusted_proxies,
    );
    if let Err(over) = budget.check(address, now_ms()) {
        doors.metrics.inbound_refusal(door.name(), "over_budget");
        return over_budget(over);
    }
    let response = next.run(request).await;
    if let Some(reason) = refusal(response.status()) {
        budget.spend(address, now_ms());
        doors.metrics.inbound_refusal(door.name(), reason);
    }
    response
}

/// The reason a door's answer is a refusal that spends the address's budget, if it is one.
fn refusal(status: StatusCode) -> Option<&'static str> {
    Some(match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        // Ours (contention on the same row), and our own 429s, counted apart.
        StatusCode::CONFLICT | StatusCode::TOO_MANY_REQUESTS => return None,
        other if other.is_client_error() => "other_client_error",
        _ => return None,
    })
}

/// 429 with `Retry-After`, marked so that the access log leaves it out.
fn over_budget(over: OverBudget) -> Response {
    let mut problem = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        format!(
            "Too many refused requests from this address: retry in {} seconds",
            over.retry_after
        ),
    );
    problem.retry_after = Some(over.retry_after);
    let mut response = problem.into_response();
    response.extensions_mut().insert(over);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doors_are_told_by_their_paths_and_nothing_else_is_one() {
        assert_eq!(Door::of("/pix/webhook/abc/pix"), Some(Door::PixWebhook));
        assert_eq!(Door::of("/callbacks/twilio/org_1"), Some(Door::Callbacks));
        assert_eq!(Door::of("/unsubscribe/u1.x"), Some(Door::Unsubscribe));
        for other in [
            "/v1/charges",
            "/mcp",
            "/pix/webhook",
            "/oauth/register",
            "/",
        ] {
            assert_eq!(Door::of(other), None, "{other}");
        }
    }

    #[test]
    fn refusals_are_the_clients_4xx_but_conflicts_and_our_own_429() {
        assert_eq!(refusal(StatusCode::NOT_FOUND), Some("not_found"));
        assert_eq!(
            refusal(StatusCode::UNSUPPORTED_MEDIA_TYPE),
            Some("unsupported_media_type")
        );
        assert_eq!(refusal(StatusCode::GONE), Some("other_client_error"));
        for served in [
            StatusCode::OK,
            StatusCode::NO_CONTENT,
            StatusCode::CONFLICT,
            StatusCode::TOO_MANY_REQUESTS,
            StatusCode::SERVICE_UNAVAILABLE,
        ] {
            assert_eq!(refusal(served), None, "{served}");
        }
    }
}
