//! "Aplicativos conectados": the signed-in person's live grants, each revocable, and signing
//! out.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, StatusCode, header};

use super::authorize::csrf_refused;
use super::{form, form_first, pages, secure, session};
use crate::state::AppState;
use crate::store::oauth as store;

/// `GET /oauth/apps`: the list, or the sign-in form that comes back here.
pub async fn list(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let secure = secure(&state.config, &headers);
    let (csrf, set_cookie) = session::csrf(&headers, secure);
    let Some(who) = session::session(&state.config, &headers) else {
        return pages::page(
            StatusCode::OK,
            "Entrar",
            &pages::sign_in(&csrf, "/oauth/apps", None, None),
            set_cookie,
        );
    };
    let found = async {
        let names = store::person_names(&state.db, &who.person_id).await?;
        let grants = store::live_grants(&state.db, &who.organization_id, &who.person_id).await?;
        Ok::<_, crate::store::StoreError>((names, grants))
    }
    .await;
    let (Some((person, _, organization)), grants) = (match found {
        Ok(found) => found,
        Err(e) => {
            tracing::error!("cannot list connected applications: {e}");
            return pages::error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Erro interno; tente de novo em instantes.",
            );
        }
    }) else {
        return pages::error(
            StatusCode::FORBIDDEN,
            "Sua sessão não vale mais; entre de novo.",
        );
    };
    let apps: Vec<pages::ConnectedApp> = grants
        .into_iter()
        .map(|(grant, name)| pages::ConnectedApp {
            grant_id: grant.id,
            name: if name.is_empty() {
                grant.client_id
            } else {
                name
            },
            since: grant.created_at.to_string(),
            scopes: grant.scopes,
        })
        .collect();
    pages::page(
        StatusCode::OK,
        "Aplicativos conectados",
        &pages::apps(&csrf, &person, &organization, &apps),
        set_cookie,
    )
}

/// `POST /oauth/apps/revoke`: end one of the person's own grants.
pub async fn revoke(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let fields = form(&body);
    if !session::csrf_ok(&headers, form_first(&fields, "csrf")) {
        return csrf_refused();
    }
    let Some(who) = session::session(&state.config, &headers) else {
        return Redirect::to("/oauth/apps").into_response();
    };
    let grant_id = form_first(&fields, "grant").unwrap_or_default();
    let outcome = async {
        match store::find_grant(&state.db, &who.organization_id, &who.person_id, grant_id).await? {
            Some(grant) => store::revoke_grant(&state.db, &grant.id)
                .await
                .map(|()| true),
            None => Ok(false),
        }
    }
    .await;
    match outcome {
        Ok(true) => {
            tracing::info!(person = %who.person_id, grant = grant_id, "application revoked");
            Redirect::to("/oauth/apps").into_response()
        }
        Ok(false) => pages::error(
            StatusCode::NOT_FOUND,
            "Este aplicativo não está conectado à sua conta.",
        ),
        Err(e) => {
            tracing::error!("cannot revoke a grant: {e}");
            pages::error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Erro interno; tente de novo em instantes.",
            )
        }
    }
}

/// `POST /oauth/sign-out`.
pub async fn sign_out(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let fields = form(&body);
    if !session::csrf_ok(&headers, form_first(&fields, "csrf")) {
        return csrf_refused();
    }
    let mut response = Redirect::to("/oauth/apps").into_response();
    response.headers_mut().append(
        header::SET_COOKIE,
        session::end(secure(&state.config, &headers)),
    );
    response
}
