//! RFC 7009 revocation: a refresh token revokes its whole grant (every token from that
//! consent); an access token only itself. The answer is 200 whatever the token was, so the
//! endpoint tells nobody which tokens exist.

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::{form, form_first, forms, server_error};
use crate::auth::tokens;
use crate::state::AppState;
use dunning_store::oauth as store;

/// `POST /oauth/revoke`.
pub async fn revoke(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match forms::oauth_body(body) {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let fields = form(&body);
    let Some(token) = form_first(&fields, "token").filter(|t| !t.is_empty()) else {
        return super::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "token is required",
        );
    };
    let hash = tokens::hash(token);
    let outcome = async {
        if let Some(found) = store::find_refresh(&state.db, &hash).await? {
            // A public client proves nothing but its id; a token presented with another
            // client's id is left alone.
            if form_first(&fields, "client_id").is_none_or(|id| id == found.grant.client_id) {
                store::revoke_grant(&state.db, &found.grant.id).await?;
                return Ok(true);
            }
            return Ok(false);
        }
        store::revoke_access_token(&state.db, &hash).await
    }
    .await;
    match outcome {
        Ok(revoked) => {
            // Effective at once on this replica too, not only after the token cache's TTL.
            if revoked {
                state.tokens.forget_all();
            }
            StatusCode::OK.into_response()
        }
        Err(e) => server_error(e),
    }
}
