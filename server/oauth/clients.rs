//! Who the client applications are: Dynamic Client Registration (RFC 7591), Client ID
//! Metadata Documents (an `https://` `client_id` whose document the server fetches), clients
//! pre-registered on the command line, and the redirect URI rules (exact match; loopback on
//! any port, RFC 8252 §7.3).
//!
//! Every client is public (`token_endpoint_auth_method: none`): PKCE, not a secret, ties the
//! code to the client that asked for it, and the assistants connecting here cannot keep one.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use reqwest::Url;
use serde::Deserialize;
use serde_json::json;

use super::{error, forms};
use crate::http::address_budget::{AddressBudget, Budget, now_ms};
use crate::http::client_address;
use crate::state::AppState;
use dunning_domain::text::allowed_char;
use dunning_engine::outbound::{self, Policy};
use dunning_store::oauth::{self, Client, now_epoch};

/// Most redirect URIs a client may register.
const MOST_REDIRECT_URIS: usize = 10;
/// Longest redirect URI and client name.
const LONGEST_URI: usize = 2000;
const LONGEST_NAME: usize = 100;
/// Largest metadata document read; a larger one is refused unread.
pub const LARGEST_METADATA_DOCUMENT: usize = 5 * 1024;
/// How long a fetched metadata document is believed.
const METADATA_CACHE_SECS: i64 = 3600;
/// Registrations one client address may make per window (per replica).
pub const REGISTRATIONS_PER_WINDOW: u32 = 10;
const REGISTRATION_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// A registration request or a metadata document: the fields we read.
#[derive(Debug, Deserialize)]
struct ClientMetadata {
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    redirect_uris: Vec<String>,
    #[serde(default)]
    client_name: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    grant_types: Option<Vec<String>>,
    #[serde(default)]
    response_types: Option<Vec<String>>,
}

/// Whether a redirect URI may be registered: `https://`, `http://` only on a loopback host,
/// or a private-use scheme such as `com.example.app:/callback`; never with a fragment. Only
/// printable ASCII (RFC 3986): a URL parser drops tabs and line breaks and would accept
/// what is stored, and later sent in a `Location` header, as something else.
pub fn check_redirect_uri(uri: &str) -> Result<(), String> {
    if uri.len() > LONGEST_URI {
        return Err(format!(
            "redirect URIs have at most {LONGEST_URI} characters"
        ));
    }
    if !uri.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "redirect URI {uri:?} holds a space, a control or a non-ASCII character (percent-encode it)"
        ));
    }
    let url =
        Url::parse(uri).map_err(|_| format!("redirect URI '{uri}' is not an absolute URI"))?;
    if url.fragment().is_some() || uri.contains('#') {
        return Err(format!("redirect URI '{uri}' has a fragment"));
    }
    match url.scheme() {
        "https" if url.host_str().is_some() => Ok(()),
        "http" if is_loopback(&url) => Ok(()),
        "http" => Err(format!(
            "'{uri}': plain http is only for loopback redirects (127.0.0.1, [::1], localhost)"
        )),
        scheme if scheme.contains('.') => Ok(()),
        _ => Err(format!(
            "redirect URI '{uri}' must be https, http on a loopback address, or a private-use scheme (reverse domain name)"
        )),
    }
}

fn is_loopback(url: &Url) -> bool {
    matches!(
        url.host_str(),
        Some("127.0.0.1") | Some("[::1]") | Some("localhost")
    )
}

/// Whether `given` is one of the registered redirect URIs: character for character, except
/// that a loopback `http` URI matches on any port (native apps listen on whatever port the
/// system gives them).
pub fn redirect_matches(registered: &[String], given: &str) -> bool {
    // The answer must land in the query, never in a fragment (RFC 9700 §4.1.3).
    if given.contains('#') || !given.bytes().all(|b| b.is_ascii_graphic()) {
        return false;
    }
    if registered.iter().any(|r| r == given) {
        return true;
    }
    let Ok(given) = Url::parse(given) else {
        return false;
    };
    if given.scheme() != "http" || !is_loopback(&given) {
        return false;
    }
    registered
        .iter()
        .filter_map(|r| Url::parse(r).ok())
        .any(|r| {
            r.scheme() == "http"
                && is_loopback(&r)
                && r.host_str() == given.host_str()
                && r.path() == given.path()
                && r.query() == given.query()
        })
}

fn check_metadata(metadata: &ClientMetadata) -> Result<(), String> {
    if metadata.redirect_uris.is_empty() || metadata.redirect_uris.len() > MOST_REDIRECT_URIS {
        return Err(format!(
            "redirect_uris must list 1 to {MOST_REDIRECT_URIS} URIs"
        ));
    }
    for uri in &metadata.redirect_uris {
        check_redirect_uri(uri)?;
    }
    if let Some(name) = &metadata.client_name
        && (name.chars().count() > LONGEST_NAME || !name.chars().all(|c| allowed_char(c, false)))
    {
        return Err(format!(
            "client_name has at most {LONGEST_NAME} characters, no control characters and no bidirectional overrides"
        ));
    }
    match metadata.token_endpoint_auth_method.as_deref() {
        None | Some("none") => {}
        // Registered clients asking for a secret get none: the answer says `none`, which
        // RFC 7591 §3.2.1 lets the server decide.
        Some("client_secret_post" | "client_secret_basic") if metadata.client_id.is_none() => {}
        Some(other) => {
            return Err(format!(
                "token_endpoint_auth_method '{other}' is not supported; clients here are public ('none')"
            ));
        }
    }
    if let Some(grants) = &metadata.grant_types
        && grants
            .iter()
            .any(|g| g != "authorization_code" && g != "refresh_token")
    {
        return Err("grant_types may hold only authorization_code and refresh_token".into());
    }
    if let Some(types) = &metadata.response_types
        && types.iter().any(|t| t != "code")
    {
        return Err("response_types may hold only code".into());
    }
    Ok(())
}

/// Registrations per client address: anyone may register, so one address may not fill the
/// table (unused registrations are also deleted after a day). Every registration counts,
/// made or refused.
#[derive(Debug, Clone)]
pub struct RegistrationLimit(Arc<AddressBudget>);

impl Default for RegistrationLimit {
    fn default() -> Self {
        RegistrationLimit(AddressBudget::new(
            "oauth_register",
            Budget {
                per_window: REGISTRATIONS_PER_WINDOW,
                window: REGISTRATION_WINDOW,
            },
        ))
    }
}

/// `POST /oauth/register`: RFC 7591 registration of a public client.
pub async fn register(
    State(state): State<AppState>,
    Extension(limit): Extension<RegistrationLimit>,
    headers: HeaderMap,
    extensions: http::Extensions,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Response {
    let address = client_address::client(
        client_address::peer(&extensions),
        &headers,
        &state.config.trusted_proxies,
    );
    let response = registration(&state, &limit, address, body).await;
    let outcome = match response.status() {
        StatusCode::CREATED => "registered",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        _ => "refused",
    };
    state.metrics.oauth("register", outcome);
    response
}

async fn registration(
    state: &AppState,
    limit: &RegistrationLimit,
    address: Option<IpAddr>,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Response {
    if let Err(over) = limit.0.admit(address, now_ms()) {
        let wait = over.retry_after;
        let mut response = error(
            StatusCode::TOO_MANY_REQUESTS,
            "invalid_request",
            &format!("too many registrations from this address; retry in {wait} seconds"),
        );
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_str(&wait.to_string()).expect("digits"),
        );
        // The budget's own lines stand for a flood of these in the log.
        response.extensions_mut().insert(over);
        return response;
    }
    let body = match forms::oauth_body(body) {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let metadata: ClientMetadata = match serde_json::from_slice(&body) {
        Ok(metadata) => metadata,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                &format!("the body must be a JSON client metadata object: {e}"),
            );
        }
    };
    if let Err(why) = check_metadata(&metadata) {
        let code = if why.contains("redirect") {
            "invalid_redirect_uri"
        } else {
            "invalid_client_metadata"
        };
        return error(StatusCode::BAD_REQUEST, code, &why);
    }
    let client = Client {
        id: dunning_store::ids::new_id("cli"),
        name: metadata
            .client_name
            .clone()
            .unwrap_or_else(|| "Aplicativo sem nome".into()),
        redirect_uris: metadata.redirect_uris.clone(),
        kind: "registered".into(),
        fetched_at_epoch: None,
    };
    if let Err(e) = oauth::save_client(&state.db, &client).await {
        return super::server_error(e);
    }
    let answer = json!({
        "client_id": client.id,
        "client_id_issued_at": now_epoch(),
        "client_name": client.name,
        "redirect_uris": client.redirect_uris,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    let mut response = (StatusCode::CREATED, Json(answer)).into_response();
    super::no_store(&mut response);
    response
}

/// Why a client cannot be used, in words for the person (the pages show it) or the client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("o aplicativo '{0}' não está registrado neste servidor")]
    Unknown(String),
    #[error("o documento de metadados do aplicativo não pôde ser usado: {0}")]
    Metadata(String),
    #[error("erro interno")]
    Store(#[from] dunning_store::StoreError),
}

/// The client with this id: a registered one, or the metadata document at an `https://` id,
/// fetched (or taken from the cache) through the outbound guard.
pub async fn find(state: &AppState, client_id: &str) -> Result<Client, ClientError> {
    let known = oauth::find_client(&state.db, client_id).await?;
    if !client_id.starts_with("https://") {
        return known.ok_or_else(|| ClientError::Unknown(client_id.chars().take(200).collect()));
    }
    if let Some(client) = known
        && client
            .fetched_at_epoch
            .is_some_and(|at| now_epoch() - at < METADATA_CACHE_SECS)
    {
        return Ok(client);
    }
    let metadata = fetch_metadata(state, client_id)
        .await
        .map_err(ClientError::Metadata)?;
    let client = Client {
        id: client_id.to_string(),
        name: metadata.client_name.clone().unwrap_or_else(|| {
            Url::parse(client_id)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default()
        }),
        redirect_uris: metadata.redirect_uris,
        kind: "metadata".into(),
        fetched_at_epoch: Some(now_epoch()),
    };
    oauth::save_client(&state.db, &client).await?;
    Ok(client)
}

/// GET the document at `url` through the guard (public addresses only, no redirects), at
/// most [`LARGEST_METADATA_DOCUMENT`] bytes, and check it.
async fn fetch_metadata(state: &AppState, url: &str) -> Result<ClientMetadata, String> {
    let parsed = Url::parse(url).map_err(|_| "the client_id is not a URL".to_string())?;
    if parsed.scheme() != "https" || parsed.path() == "/" || parsed.fragment().is_some() {
        return Err("a client_id URL is https, with a path and no fragment".into());
    }
    // Strangers choose this URL: public addresses only, unless the operator opened private
    // ones for client metadata in particular (a test or development set-up).
    let policy = Policy::new(state.config.allow_private_client_metadata);
    let client = outbound::Client::new(policy, |b| {
        b.timeout(std::time::Duration::from_secs(5))
            .user_agent("kobana-dunning-oauth")
    })
    .map_err(|e| e.to_string())?;
    let request = client
        .request(reqwest::Method::GET, url)
        .map_err(|refusal| format!("{url} cannot be fetched: {refusal}"))?;
    let mut response = request
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| match outbound::resolve_error(&e) {
            Some(refused) => format!("{url} cannot be fetched: {refused}"),
            None => format!("{url} did not answer"),
        })?;
    if !response.status().is_success() {
        return Err(format!("{url} answered {}", response.status().as_u16()));
    }
    if response
        .content_length()
        .is_some_and(|n| n > LARGEST_METADATA_DOCUMENT as u64)
    {
        return Err(format!(
            "the document is larger than {LARGEST_METADATA_DOCUMENT} bytes"
        ));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|_| format!("{url} broke off"))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > LARGEST_METADATA_DOCUMENT {
            return Err(format!(
                "the document is larger than {LARGEST_METADATA_DOCUMENT} bytes"
            ));
        }
    }
    let metadata: ClientMetadata =
        serde_json::from_slice(&body).map_err(|e| format!("the document is not JSON: {e}"))?;
    if metadata.client_id.as_deref() != Some(url) {
        return Err("the document's client_id is not its own URL".into());
    }
    check_metadata(&metadata)?;
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_redirects_match_on_any_port_and_others_exactly() {
        let registered = vec![
            "http://127.0.0.1:3000/callback".to_string(),
            "https://app.example.com/cb".to_string(),
        ];
        assert!(redirect_matches(
            &registered,
            "http://127.0.0.1:3000/callback"
        ));
        assert!(redirect_matches(
            &registered,
            "http://127.0.0.1:51234/callback"
        ));
        assert!(!redirect_matches(
            &registered,
            "http://127.0.0.1:51234/other"
        ));
        assert!(!redirect_matches(
            &registered,
            "http://localhost:3000/callback"
        ));
        assert!(redirect_matches(&registered, "https://app.example.com/cb"));
        assert!(!redirect_matches(
            &registered,
            "https://app.example.com/cb/"
        ));
        assert!(!redirect_matches(
            &registered,
            "https://app.example.com:444/cb"
        ));
    }

    #[test]
    fn redirect_uris_are_https_loopback_http_or_private_use_schemes() {
        assert!(check_redirect_uri("https://app.example.com/cb").is_ok());
        assert!(check_redirect_uri("http://127.0.0.1/cb").is_ok());
        assert!(check_redirect_uri("http://localhost:8000/cb").is_ok());
        assert!(check_redirect_uri("com.example.app:/oauth").is_ok());
        assert!(check_redirect_uri("http://app.example.com/cb").is_err());
        assert!(check_redirect_uri("https://app.example.com/cb#x").is_err());
        assert!(check_redirect_uri("javascript:alert(1)").is_err());
        assert!(check_redirect_uri("cb").is_err());
    }
}
