//! RFC 9728 protected resource metadata: where clients learn what this resource accepts.
//! Served at `/.well-known/oauth-protected-resource` and at the form suffixed with the
//! endpoint's path, as MCP clients try both.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use http::{HeaderMap, HeaderValue, header};
use serde_json::json;

use super::Endpoint;
use super::transport::base_url;

pub async fn protected_resource(
    State(endpoint): State<Endpoint>,
    headers: HeaderMap,
) -> impl IntoResponse {
    let settings = &endpoint.settings;
    let base = settings.canonical_url.clone().map_or_else(
        || base_url(&headers),
        |c| c.trim_end_matches('/').to_string(),
    );
    let mut document = json!({
        "resource": format!("{base}{}", settings.path),
        "resource_name": settings.server_title,
        "bearer_methods_supported": ["header"],
        "scopes_supported": endpoint.host.all_scopes(),
    });
    // Tokens may be issued by the operator rather than an OAuth server; only name servers
    // that exist. A server written as a path ("/") is on this host: the application serves
    // one itself.
    if !settings.authorization_servers.is_empty() {
        let servers: Vec<String> = settings
            .authorization_servers
            .iter()
            .map(|s| match s.strip_prefix('/') {
                Some("") => base.clone(),
                Some(_) => format!("{base}{s}"),
                None => s.clone(),
            })
            .collect();
        document["authorization_servers"] = json!(servers);
    }
    let mut response = Json(document).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
