//! `/v1` middleware: authenticate the bearer token, then check the operation's scopes.

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};

use super::operations;
use crate::auth::{self, Audience, Principal, tokens};
use crate::http::problem::ApiError;
use crate::state::AppState;

/// Attach a [`Principal`] to the request or answer 401.
///
/// Requests dispatched in-process by the MCP endpoint already carry the principal it
/// authenticated (with an `mcp` token); extensions cannot come from the network, so their
/// presence is proof enough. Requests from the network need an `api` token.
pub async fn authenticate_v1<F: Future<Output = Response>>(
    state: &AppState,
    mut request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    if request.extensions().get::<Principal>().is_some() {
        return next(request).await;
    }
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(token) = tokens::bearer(header) else {
        return unauthorized(
            ApiError::unauthorized(
                "Send 'Authorization: Bearer <token>' with a token issued for the API",
            ),
            false,
        );
    };
    // Boxed, as are the other steps' rare or slow parts: `api::steps::checks` nests every step's
    // future in one, and each level of it moves what it holds once more.
    let found = match Box::pin(state.tokens.find(&state.db, &tokens::hash(token))).await {
        Ok(Some(found)) => found,
        Ok(None) => {
            return unauthorized(
                ApiError::unauthorized("The token is unknown or revoked"),
                true,
            );
        }
        Err(e) => return ApiError::from(e).into_response(),
    };
    let record = &found.record;
    if auth::expired(record) {
        return unauthorized(ApiError::unauthorized("The token has expired"), true);
    }
    if Audience::parse(&record.audience) != Some(Audience::Api) {
        return unauthorized(
            ApiError::unauthorized(
                "This token was issued for the MCP endpoint; the REST API needs a token with audience 'api'",
            ),
            true,
        );
    }
    let principal = found.principal(Audience::Api);
    let organization = crate::ops::access_log::OrganizationId(principal.organization_id.clone());
    request.extensions_mut().insert(principal);
    let mut response = next(request).await;
    response.extensions_mut().insert(organization);
    response
}

fn unauthorized(error: ApiError, invalid_token: bool) -> Response {
    let mut response = error.into_response();
    let challenge = if invalid_token {
        r#"Bearer realm="kobana-dunning", error="invalid_token""#
    } else {
        r#"Bearer realm="kobana-dunning""#
    };
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    response
}

/// Refuse with 403 `insufficient_scope` when the caller lacks a scope that the operation's
/// OpenAPI `security` requirement names: REST and MCP read the same declaration.
pub async fn require_operation_scopes<F: Future<Output = Response>>(
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let Some(principal) = request.extensions().get::<Principal>() else {
        return ApiError::internal("scope check ran before authentication").into_response();
    };
    let Some(operation) = operations::of(request.extensions()) else {
        return next(request).await;
    };
    if let Some(missing) = principal.missing_scope(operation.tool().scopes) {
        // RFC 6750 §3.1: the challenge names the scope, so a client can ask for it (step up).
        let mut response = ApiError::insufficient_scope(missing).into_response();
        if let Ok(challenge) = HeaderValue::from_str(&format!(
            r#"Bearer realm="kobana-dunning", error="insufficient_scope", scope="{missing}""#
        )) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        return response;
    }
    next(request).await
}
