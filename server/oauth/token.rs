//! The token endpoint: an authorization code (with its PKCE verifier) or a refresh token
//! becomes a short-lived access token for the MCP endpoint and a new refresh token.
//!
//! Codes are single-use; a code or refresh token presented a second time means someone else
//! holds it, so the whole grant (the family: every access and refresh token from that consent)
//! is revoked (OAuth 2.1 §4.1.2, §4.3.1). A request is checked in full before it spends its
//! code or refresh token, so a refused one (a wrong verifier, too many scopes, an expired
//! token) leaves it usable (RFC 6749 §6 replaces a refresh token only when a new one is
//! issued); spending it, checking the grant and storing the new tokens are one transaction
//! (`store::oauth::issue_tokens`), so a grant revoked at the same moment keeps no live token.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{error, form, form_first, forms, grant_idle_secs, no_store, resource, server_error};
use crate::auth::{Audience, tokens};
use crate::state::AppState;
use dunning_store::ids::new_secret;
use dunning_store::oauth::{self as store, Grant, Issued, NewTokens, Spent, now_epoch};

/// How long a refresh token lives (each use replaces it).
pub const REFRESH_SECS: i64 = 30 * 24 * 3600;

fn invalid_grant(why: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "invalid_grant", why)
}

/// Whether `verifier` (RFC 7636 §4.1: 43–128 unreserved characters) hashes to `challenge`.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    // Constant time, as every comparison with a secret here (`session::equal`).
    well_formed && super::session::equal(computed.as_bytes(), challenge.as_bytes())
}

/// `POST /oauth/token`.
pub async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match forms::oauth_body(body) {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let fields = form(&body);
    let field = |key| form_first(&fields, key).unwrap_or_default();
    let Some(client_id) = form_first(&fields, "client_id") else {
        // RFC 6749 §5.2: a 401 names the authentication scheme it wanted.
        let mut response = error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "client_id is required (clients here are public: no secret)",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"kobana-dunning\""),
        );
        return response;
    };
    let ours = resource(&state.config, &headers);
    if let Some(asked) = form_first(&fields, "resource")
        && asked.trim_end_matches('/') != ours
    {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            &format!("this server issues tokens only for {ours}"),
        );
    }
    let grant_type = field("grant_type");
    let outcome = match grant_type {
        "authorization_code" => {
            exchange_code(
                &state,
                client_id,
                field("code"),
                form_first(&fields, "redirect_uri"),
                field("code_verifier"),
            )
            .await
        }
        "refresh_token" => {
            refresh(
                &state,
                client_id,
                field("refresh_token"),
                form_first(&fields, "scope"),
            )
            .await
        }
        "" => Err(error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "grant_type is required",
        )),
        _ => Err(error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant_type is authorization_code or refresh_token",
        )),
    };
    let word = match &outcome {
        Ok(_) => "issued",
        Err(_) => "refused",
    };
    let kind = match grant_type {
        "authorization_code" => "token_code",
        "refresh_token" => "token_refresh",
        _ => "token_other",
    };
    state.metrics.oauth(kind, word);
    match outcome {
        Ok(response) | Err(response) => response,
    }
}

/// Someone else presented this code or refresh token already: end the whole grant.
async fn reused(state: &AppState, grant: &Grant, what: &str) -> Response {
    if !grant.revoked {
        tracing::warn!(grant = %grant.id, "{what} presented twice: grant revoked");
        state.metrics.oauth("reuse", "revoked");
        if let Err(e) = store::revoke_grant(&state.db, &grant.id).await {
            return server_error(e);
        }
        state.tokens.forget_all();
    }
    invalid_grant(&format!(
        "the {what} was already used; every token of this grant is revoked"
    ))
}

async fn exchange_code(
    state: &AppState,
    client_id: &str,
    code: &str,
    redirect_uri: Option<&str>,
    verifier: &str,
) -> Result<Response, Response> {
    let hash = tokens::hash(code);
    let found = store::find_code(&state.db, &hash)
        .await
        .map_err(server_error)?;
    let Some(found) = found else {
        return Err(invalid_grant("the code is unknown"));
    };
    if found.used {
        return Err(reused(state, &found.grant, "code").await);
    }
    if found.expires_at_epoch <= now_epoch() {
        return Err(invalid_grant("the code has expired"));
    }
    if found.grant.client_id != client_id {
        return Err(invalid_grant("the code was issued to another client"));
    }
    // RFC 6749 §4.1.3: required, and identical, when the authorization request sent it.
    let redirect_ok = match redirect_uri {
        Some(given) => given == found.redirect_uri,
        None => !found.redirect_uri_given,
    };
    if !redirect_ok {
        return Err(invalid_grant(
            "redirect_uri differs from the authorization request's",
        ));
    }
    if !pkce_matches(verifier, &found.code_challenge) {
        return Err(invalid_grant(
            "code_verifier does not match the code_challenge",
        ));
    }
    if found.grant.revoked {
        return Err(invalid_grant("the grant was revoked"));
    }
    issue(state, &found.grant, Spent::Code(&hash), &found.grant.scopes).await
}

async fn refresh(
    state: &AppState,
    client_id: &str,
    refresh_token: &str,
    scope: Option<&str>,
) -> Result<Response, Response> {
    let hash = tokens::hash(refresh_token);
    let found = store::find_refresh(&state.db, &hash)
        .await
        .map_err(server_error)?;
    let Some(found) = found else {
        return Err(invalid_grant("the refresh token is unknown"));
    };
    if found.grant.client_id != client_id {
        return Err(invalid_grant(
            "the refresh token was issued to another client",
        ));
    }
    if found.grant.revoked {
        return Err(invalid_grant("the grant was revoked"));
    }
    if found.used {
        return Err(reused(state, &found.grant, "refresh token").await);
    }
    if found.expires_at_epoch <= now_epoch() {
        return Err(invalid_grant("the refresh token has expired"));
    }
    // A refresh may ask for fewer scopes than were granted, never more.
    let scopes: Vec<String> = match scope {
        None => found.grant.scopes.clone(),
        Some(asked) => {
            let asked: Vec<String> = asked.split_whitespace().map(str::to_string).collect();
            if let Some(extra) = asked.iter().find(|s| !found.grant.scopes.contains(s)) {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    "invalid_scope",
                    &format!("'{extra}' was not granted"),
                ));
            }
            asked
        }
    };
    issue(state, &found.grant, Spent::Refresh(&hash), &scopes).await
}

async fn issue(
    state: &AppState,
    grant: &Grant,
    spent: Spent<'_>,
    scopes: &[String],
) -> Result<Response, Response> {
    let access = tokens::generate(Audience::Mcp);
    let refresh = format!("kd_rt_{}", new_secret(32));
    let ttl = i64::try_from(state.config.oauth_access_token_ttl.as_secs()).unwrap_or(600);
    let client = store::find_client(&state.db, &grant.client_id)
        .await
        .map_err(server_error)?
        .map_or_else(|| grant.client_id.clone(), |c| c.name);
    let now = now_epoch();
    let issued = store::issue_tokens(
        &state.db,
        NewTokens {
            grant,
            spent,
            scopes,
            label: &format!("oauth: {}", client.chars().take(80).collect::<String>()),
            access_hash: &tokens::hash(&access),
            // Expiries are whole seconds and `now` is truncated: one more second makes the
            // token live at least the `expires_in` it is answered with (at most a second
            // more). Without it a token issued late in a second died up to a second early,
            // and a client that believed `expires_in` met a 401 it could not foresee.
            access_expires_at_epoch: now + ttl + 1,
            refresh_hash: &tokens::hash(&refresh),
            refresh_expires_at_epoch: now + REFRESH_SECS.min(grant_idle_secs(&state.config)),
            idle_cutoff_epoch: now - grant_idle_secs(&state.config),
        },
    )
    .await
    .map_err(server_error)?;
    match issued {
        Issued::Stored => {}
        Issued::AlreadySpent => {
            let what = match spent {
                Spent::Code(_) => "code",
                Spent::Refresh(_) => "refresh token",
            };
            return Err(reused(state, grant, what).await);
        }
        Issued::GrantEnded => {
            return Err(invalid_grant("the grant was revoked or expired unused"));
        }
    }
    let mut response = Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ttl,
        "refresh_token": refresh,
        "scope": scopes.join(" "),
    }))
    .into_response();
    no_store(&mut response);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_follows_the_rfc_7636_example() {
        // RFC 7636 Appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK",
            challenge
        ));
        assert!(!pkce_matches("short", challenge));
    }
}
