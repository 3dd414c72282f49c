//! "Aplicativos conectados": the signed-in person's live grants, each revocable, and signing
//! out.

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, StatusCode, header};

use super::session::Visitor;
use super::sign_in::{csrf_refused, unavailable};
use super::{form, form_first, forms, pages};
use crate::state::AppState;
use dunning_store::oauth::{self as store, now_epoch};

/// `GET /oauth/apps`: the list, or the sign-in form that comes back here.
pub async fn list(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let visitor = match Visitor::of(&state, &headers).await {
        Ok(visitor) => visitor,
        Err(e) => return unavailable(e),
    };
    let (csrf, set_cookie) = visitor.csrf(&state.config);
    let Some(who) = visitor.owner() else {
        return pages::page(
            StatusCode::OK,
            &pages::SignIn {
                csrf: &csrf,
                return_to: "/oauth/apps",
                application: None,
                message: None,
            },
            set_cookie,
        );
    };
    let idle_cutoff = now_epoch() - super::grant_idle_secs(&state.config);
    let found = async {
        let names = store::person_names(&state.db, &who.person_id).await?;
        let grants =
            store::live_grants(&state.db, &who.organization_id, &who.person_id, idle_cutoff)
                .await?;
        Ok::<_, dunning_store::StoreError>((names, grants))
    }
    .await;
    let (Some((person, _, organization)), grants) = (match found {
        Ok(found) => found,
        Err(e) => return unavailable(e),
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
        &pages::Apps {
            csrf: &csrf,
            person: &person,
            organization: &organization,
            apps: &apps,
        },
        set_cookie,
    )
}

/// What a form of the signed-in pages passes first: the body limit, our own origin, the
/// browser's session and its CSRF token. The form's fields and the visitor, or the answer.
async fn signed_in_form(
    state: &AppState,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(Vec<(String, String)>, Visitor), Response> {
    let body = forms::form_body(body).map_err(IntoResponse::into_response)?;
    if let Some(why) = forms::foreign_origin(state, headers) {
        return Err(forms::foreign_origin_refused(&why));
    }
    let visitor = Visitor::of(state, headers).await.map_err(unavailable)?;
    let fields = form(&body);
    if visitor.owner().is_some() && !visitor.csrf_ok(&state.config, form_first(&fields, "csrf")) {
        return Err(csrf_refused());
    }
    Ok((fields, visitor))
}

/// `POST /oauth/apps/revoke`: end one of the person's own grants.
pub async fn revoke(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (fields, visitor) = match signed_in_form(&state, &headers, body).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let Some(who) = visitor.owner() else {
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
            state.tokens.forget_all();
            tracing::info!(person = %who.person_id, grant = grant_id, "application revoked");
            Redirect::to("/oauth/apps").into_response()
        }
        Ok(false) => pages::error(
            StatusCode::NOT_FOUND,
            "Este aplicativo não está conectado à sua conta.",
        ),
        Err(e) => unavailable(e),
    }
}

/// `POST /oauth/sign-out`: the session ends on the server, not only in this browser.
pub async fn sign_out(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (_, visitor) = match signed_in_form(&state, &headers, body).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let cookie = match visitor.sign_out(&state).await {
        Ok(cookie) => cookie,
        Err(e) => return unavailable(e),
    };
    let mut response = Redirect::to("/oauth/apps").into_response();
    response.headers_mut().append(header::SET_COOKIE, cookie);
    response
}
