//! One log line per request: request id (taken from `X-Request-Id` or `Request-Id` when the
//! client sends one, else made here, and returned in both headers), method, path without
//! its query (queries may carry a CPF), status, duration, the organization when a token
//! named one, and for `/mcp` the MCP method and tool (from `mcpgen_axum::observe`: names the server
//! knows, never the client's text). Never a token, a secret, arguments or a body.
//!
//! Except for requests refused because their client address spent its budget
//! (`http::address_budget`, marked `OverBudget`: the inbound doors, OAuth registration): a flood
//! of them would be a flood of lines, so they are left out here, counted in the metrics, and
//! stood for by the budget's own lines (one when an address is first refused in its window,
//! one with the count when the window ends).

use std::cell::RefCell;
use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderName, HeaderValue};
use mcpgen_axum::observe::Exchanges;

use dunning_store::ids;

use crate::http::address_budget::OverBudget;

/// The organization a request acted for, set on the response by authentication so that the
/// access log can name it.
#[derive(Debug, Clone)]
pub struct OrganizationId(pub String);

tokio::task_local! {
    /// The organization a request acts for, as noted where its credential was found. A
    /// request is served on one task (the MCP endpoint included: it spawns nothing), so what
    /// the MCP host notes while authenticating reaches this request's line.
    static NOTED_ORGANIZATION: RefCell<Option<String>>;
}

/// Name `organization_id` in the access line of the request being served (no effect outside
/// one, e.g. in a background worker).
pub fn note_organization(organization_id: &str) {
    let _ = NOTED_ORGANIZATION.try_with(|noted| {
        *noted.borrow_mut() = Some(organization_id.to_string());
    });
}

/// The id a request is known by in logs and in its answer.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

// Named once: a header name given as `&str` is parsed again on every use.
const REQUEST_ID: HeaderName = HeaderName::from_static("request-id");
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The middleware: outermost, so it sees every request, routed or not.
pub async fn access_log(mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = [&X_REQUEST_ID, &REQUEST_ID]
        .iter()
        .find_map(|name| request.headers().get(*name))
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(|| ids::new_id("req"));
    // What runs below reads the id from here (`RequestId`), not from a header.
    request.extensions_mut().insert(RequestId(id.clone()));
    let method = request.method().clone();
    let path = shown_path(request.uri().path()).to_string();
    let (mut response, noted) = NOTED_ORGANIZATION
        .scope(RefCell::new(None), async move {
            let response = next.run(request).await;
            let noted = NOTED_ORGANIZATION.with(|noted| noted.borrow_mut().take());
            (response, noted)
        })
        .await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value.clone());
        response.headers_mut().insert(X_REQUEST_ID, value);
    }
    if response.extensions().get::<OverBudget>().is_some() {
        return response;
    }
    let organization = response
        .extensions()
        .get::<OrganizationId>()
        .map(|o| o.0.clone())
        .or(noted)
        .unwrap_or_else(|| "-".to_string());
    let (mcp_method, mcp_tool) = mcp_names(response.extensions().get::<Exchanges>());
    tracing::info!(
        target: "access",
        request_id = %id,
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        duration_ms = started.elapsed().as_secs_f64() * 1000.0,
        organization = %organization,
        mcp_method,
        mcp_tool,
        "request"
    );
    response
}

/// A request's path as logs and traces show it. An unsubscribe link's token is a capability
/// (whoever holds it opts a customer out), and so is a Pix callback's secret: both are left
/// out.
pub fn shown_path(path: &str) -> &str {
    if path.starts_with("/unsubscribe/") {
        "/unsubscribe/…"
    } else if path.starts_with("/pix/webhook/") {
        // The callback's secret is the path.
        "/pix/webhook/…"
    } else {
        path
    }
}

/// The MCP method and tool of a `/mcp` request (`-` when it is not one); a batch is
/// `batch` with the methods joined by commas, in order.
fn mcp_names(exchanges: Option<&Exchanges>) -> (String, String) {
    let Some(Exchanges(exchanges)) = exchanges.filter(|e| !e.0.is_empty()) else {
        return ("-".to_string(), "-".to_string());
    };
    let join = |part: &dyn Fn(&mcpgen_axum::observe::Exchange) -> &'static str| {
        exchanges.iter().map(part).collect::<Vec<_>>().join(",")
    };
    let tools = join(&|e| e.tool.unwrap_or("-"));
    match exchanges.as_slice() {
        [_] => (join(&|e| e.method), tools),
        _ => (format!("batch:{}", join(&|e| e.method)), tools),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsubscribe_links_token_is_left_out_of_the_logged_path() {
        assert_eq!(
            shown_path("/unsubscribe/u1.org_a.cus_b.email.c2lnbmF0dXJl"),
            "/unsubscribe/…"
        );
        assert_eq!(shown_path("/v1/charges/chg_1"), "/v1/charges/chg_1");
    }

    #[test]
    fn a_pix_callback_s_secret_is_left_out_of_the_logged_path() {
        assert_eq!(shown_path("/pix/webhook/c2VjcmV0/pix"), "/pix/webhook/…");
    }
}
