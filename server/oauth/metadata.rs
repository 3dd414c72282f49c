//! RFC 8414 authorization server metadata at `/.well-known/oauth-authorization-server`: the
//! endpoints, and what this server supports (code with PKCE S256, public clients, Client ID
//! Metadata Documents).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::HeaderMap;
use serde_json::json;

use super::{issuer, no_store};
use crate::auth::roles;
use crate::state::AppState;

pub async fn authorization_server(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let iss = issuer(&state.config, &headers);
    let mut response = Json(json!({
        "issuer": iss,
        "authorization_endpoint": format!("{iss}/oauth/authorize"),
        "token_endpoint": format!("{iss}/oauth/token"),
        "registration_endpoint": format!("{iss}/oauth/register"),
        "revocation_endpoint": format!("{iss}/oauth/revoke"),
        "scopes_supported": roles::ALL_SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
        "ui_locales_supported": ["pt-BR"],
    }))
    .into_response();
    no_store(&mut response);
    response
}
