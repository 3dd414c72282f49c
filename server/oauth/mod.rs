//! The built-in OAuth 2.1 authorization server: the issuer is this server's public URL, the
//! only resource it issues tokens for is the MCP endpoint, and the people who sign in are the
//! organizations' people (their passwords, their roles).
//!
//! - `metadata`: RFC 8414 discovery;
//! - `clients`: who the applications are (RFC 7591 registration, Client ID Metadata
//!   Documents, the redirect URI rules);
//! - `authorize`: the authorization endpoint, sign-in and consent;
//! - `token`: codes and refresh tokens to access tokens; `revoke`: RFC 7009;
//! - `apps`: the person's connected applications;
//! - `sign_in`: the sign-in form; `throttle`: slowing guesses down (device cookies);
//!   `passwords`: Argon2id;
//! - `pages`, `scopes`: the HTML and its words; `session`: server-side sessions, cookies and
//!   the CSRF token; `forms`: the Host guard, the origin of forms, the body limit.
//!
//! Access tokens are ordinary `mcp` tokens (hashed in `tokens`) with an expiry, so the MCP
//! endpoint authenticates them as it does any other, and the role still narrows the granted
//! scopes at every call.

mod apps;
mod authorize;
pub mod clients;
mod forms;
mod metadata;
mod pages;
pub mod passwords;
mod revoke;
mod scopes;
mod session;
mod sign_in;
pub mod throttle;
mod token;

use axum::Router;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::json;

use crate::config::Config;
use crate::state::AppState;

pub use authorize::CODE_SECS;
pub use token::REFRESH_SECS;

/// The authorization server's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata::authorization_server),
        )
        .route("/oauth/register", post(clients::register))
        .route("/oauth/authorize", get(authorize::authorize))
        .route("/oauth/sign-in", post(sign_in::sign_in))
        .route("/oauth/consent", post(authorize::consent))
        .route("/oauth/token", post(token::token))
        .route("/oauth/revoke", post(revoke::revoke))
        .route("/oauth/apps", get(apps::list))
        .route("/oauth/apps/revoke", post(apps::revoke))
        .route("/oauth/sign-out", post(apps::sign_out))
        .layer(axum::extract::DefaultBodyLimit::max(forms::LARGEST_BODY))
        .layer(Extension(clients::RegistrationLimit::default()))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            forms::host_guard,
        ))
        .with_state(state)
}

/// How long a grant may go unused, in seconds.
fn grant_idle_secs(config: &Config) -> i64 {
    i64::try_from(config.oauth_grant_idle_ttl.as_secs()).unwrap_or(i64::MAX / 2)
}

/// The issuer: the canonical URL when configured, else the URL the request came by (the
/// same rule as the protected resource metadata, so the two documents agree).
pub fn issuer(config: &Config, headers: &HeaderMap) -> String {
    match &config.canonical_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("127.0.0.1");
            format!("http://{host}")
        }
    }
}

/// The MCP endpoint's canonical URL: the only resource (RFC 8707) tokens are issued for.
pub fn resource(config: &Config, headers: &HeaderMap) -> String {
    format!("{}{}", issuer(config, headers), config.mcp_path)
}

/// Whether cookies must be `Secure` (the issuer is https).
fn secure(config: &Config, headers: &HeaderMap) -> bool {
    issuer(config, headers).starts_with("https://")
}

/// An OAuth error answer (RFC 6749 §5.2).
fn error(status: StatusCode, code: &str, description: &str) -> Response {
    let mut response = (
        status,
        Json(json!({"error": code, "error_description": description})),
    )
        .into_response();
    no_store(&mut response);
    response
}

/// An internal failure: the story to the log, `server_error` to the client.
fn server_error(e: impl std::fmt::Display) -> Response {
    tracing::error!("OAuth endpoint failed: {e}");
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        "internal error; try again",
    )
}

fn no_store(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// `application/x-www-form-urlencoded` pairs.
fn form(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

/// The first value of `key`; a repeated parameter is a mistake for every key but `scope`
/// checkboxes, and the first one is the one a browser sends from the form.
fn form_first<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Every value of `key`.
fn form_all<'a>(fields: &'a [(String, String)], key: &str) -> Vec<&'a str> {
    fields
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .collect()
}
