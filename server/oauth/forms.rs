//! What a request to the authorization server passes before anything is read from it: the
//! `Host` it came through (the DNS-rebinding guard and canonical host of `/mcp`), the origin
//! of a form (OWASP's CSRF cheat sheet: `Sec-Fetch-Site` and `Origin`, beside the token), and
//! the body limit, answered in the endpoint's own language (an OAuth JSON error or a page).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, StatusCode, header};
use reqwest::Url;

use super::{error, issuer, pages};
use crate::state::AppState;

/// Largest body the authorization server reads.
pub const LARGEST_BODY: usize = 16 * 1024;

/// Middleware of every OAuth route: a server bound to loopback answers only loopback host
/// names (a DNS-rebinding page cannot reach it under its own name), and with a canonical URL
/// other hosts are sent there, as `/mcp` does (`mcpgen_axum::guard`).
pub async fn host_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let settings = state.config.mcp_settings();
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let loopback = mcpgen_axum::is_loopback_host(host);
    if let Some(canonical) = &settings.canonical_url
        && !loopback
        && Url::parse(canonical)
            .ok()
            .is_none_or(|url| !authority(&url).eq_ignore_ascii_case(host))
    {
        let path = request
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let location = format!("{}{path}", canonical.trim_end_matches('/'));
        return Redirect::permanent(&location).into_response();
    }
    if settings.loopback_only && !loopback {
        return pages::error(
            StatusCode::FORBIDDEN,
            "Este servidor atende apenas pelo endereço local (127.0.0.1 ou localhost).",
        );
    }
    next.run(request).await
}

/// `host[:port]` of a URL, as a `Host` header names it.
fn authority(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        _ => String::new(),
    }
}

/// Why a form submission did not come from one of our own pages, if it did not: the browser
/// says it came from another site or origin (`Sec-Fetch-Site`), or names another origin
/// (`Origin`, `null` included). A request without either header (not a browser, or an old
/// one) still needs its CSRF token.
pub fn foreign_origin(state: &AppState, headers: &HeaderMap) -> Option<String> {
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("?");
        if !matches!(site, "same-origin" | "none") {
            return Some(format!("Sec-Fetch-Site: {site}"));
        }
    }
    let origin = headers.get(header::ORIGIN)?;
    let origin = origin.to_str().unwrap_or("null");
    let own = Url::parse(&issuer(&state.config, headers))
        .map(|url| url.origin().ascii_serialization())
        .unwrap_or_default();
    (!origin.eq_ignore_ascii_case(&own)).then(|| format!("Origin: {origin}"))
}

/// The page for a form refused for its origin: nothing was done.
pub fn foreign_origin_refused(why: &str) -> Response {
    tracing::warn!(%why, "OAuth form refused: not from our own pages");
    pages::error(
        StatusCode::FORBIDDEN,
        "Este formulário não veio das páginas deste servidor, e nada foi feito. Abra a página de novo e tente outra vez.",
    )
}

/// A body that could not be read (too large, or cut off), answered as a page on the forms
/// and as an OAuth JSON error on the endpoints clients call.
#[derive(Debug, Clone, Copy)]
pub struct BodyRefused {
    status: StatusCode,
    json: bool,
}

impl IntoResponse for BodyRefused {
    fn into_response(self) -> Response {
        if !self.json {
            return pages::error(
                self.status,
                "O formulário enviado é grande demais ou chegou incompleto.",
            );
        }
        let description = if self.status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is larger than {LARGEST_BODY} bytes")
        } else {
            "the request body could not be read".to_string()
        };
        error(self.status, "invalid_request", &description)
    }
}

/// A form's body, or the page saying why it could not be read.
pub fn form_body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, BodyRefused> {
    body.map_err(|rejection| BodyRefused {
        status: rejection.status(),
        json: false,
    })
}

/// An OAuth endpoint's body, or its JSON error saying why it could not be read.
pub fn oauth_body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, BodyRefused> {
    body.map_err(|rejection| BodyRefused {
        status: rejection.status(),
        json: true,
    })
}
