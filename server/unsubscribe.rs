//! One-click unsubscribe (RFC 8058): the pages behind the `List-Unsubscribe` link of every
//! debtor e-mail. `GET /unsubscribe/{token}` shows a confirmation form; `POST` to the same
//! URL (what a mailbox provider sends, `List-Unsubscribe=One-Click`, or that form) adds
//! `email` to the customer's `channel_opt_outs` with a `customer.unsubscribed` event, once.
//!
//! The signed token (`dunning_engine::unsubscribe`) is the whole authorization: a provider's
//! POST carries no cookie, credential or `Origin` of ours, so no CSRF guard applies here (and
//! the OAuth forms' guard must not: it would refuse every provider). A token that is
//! malformed, tampered with, or names a customer that no longer exists gets the same 404 page,
//! which says nothing about why, and nothing changes. A POST whose body is not a form (RFC
//! 8058's two encodings) is a 415 page and changes nothing. Logs and traces show the path without its
//! token (`ops::access_log::shown_path`). Pages are pt-BR HTML from askama
//! templates (`server/templates/unsubscribe/`, named from askama's default `templates/`, the
//! generator's folder, with `../`), without scripts or remote resources.

use askama::Template;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use http::{HeaderMap, StatusCode};

use dunning_app::Refused;
use dunning_app::opt_outs::{self, OptOut};
use dunning_engine::unsubscribe::{self, Target};
use dunning_store::events::Actor;
use dunning_store::retry::{self, Failure};
use dunning_store::{StoreError, customers};

use crate::AppState;
use crate::http::media_type::is_form;

/// The largest body a POST may carry: the form's one field, or a provider's, with room.
const BODY_LIMIT: usize = 4096;

/// The routes, outside `/v1`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/unsubscribe/{token}", get(confirm_page).post(unsubscribe))
        .with_state(state)
}

#[derive(Template)]
#[template(path = "../server/templates/unsubscribe/confirm.html")]
struct ConfirmPage<'a> {
    title: &'a str,
    organization: &'a str,
    /// The form posts back to the page's own path.
    action: &'a str,
}

#[derive(Template)]
#[template(path = "../server/templates/unsubscribe/done.html")]
struct DonePage<'a> {
    title: &'a str,
    organization: &'a str,
}

#[derive(Template)]
#[template(path = "../server/templates/unsubscribe/refused.html")]
struct RefusedPage<'a> {
    title: &'a str,
    message: &'a str,
}

/// `GET`: the form, or the done page when the customer is out already. Changes nothing:
/// link scanners and prefetchers follow links with GET.
async fn confirm_page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let Some(target) = unsubscribe::verify(&state.config.unsubscribe_secret, &token) else {
        return not_found();
    };
    match look_up(&state, &target).await {
        Ok(Some((organization, already_out))) if already_out => done(&organization),
        Ok(Some((organization, _))) => page(
            StatusCode::OK,
            ConfirmPage {
                title: "Cancelar o recebimento de e-mails",
                organization: &organization,
                action: &format!("/unsubscribe/{token}"),
            }
            .render(),
        ),
        Ok(None) => not_found(),
        Err(e) => unavailable(&e),
    }
}

/// `POST`: opt out, once. The body must be a form, in one of the two encodings RFC 8058 §3.1
/// names for the one-click POST (`multipart/form-data` or
/// `application/x-www-form-urlencoded`, which our own page's form sends); anything else
/// (`text/plain`, JSON, no body type at all) is a 415 and changes nothing. The body is read
/// (bounded) but not judged: RFC 8058 fixes it to `List-Unsubscribe=One-Click`, and the signed
/// URL is what authorizes the request.
async fn unsubscribe(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    // The token first: checking it costs an HMAC and no lookup, and a bad one gets the one
    // page that says nothing, whatever the body.
    let Some(target) = unsubscribe::verify(&state.config.unsubscribe_secret, &token) else {
        return not_found();
    };
    if !is_form(&headers) {
        return refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Este endereço recebe apenas o formulário de cancelamento.",
        );
    }
    if axum::body::to_bytes(body, BODY_LIMIT).await.is_err() {
        return refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "O pedido é grande demais para este endereço.",
        );
    }
    let actor = Actor {
        kind: "system",
        id: None,
        name: Some("debtor, through the unsubscribe link".into()),
    };
    let (db, target, actor) = (&state.db, &target, &actor);
    let outcome = retry::run(|| async move {
        let mut tx = db.begin().await?;
        let org = &target.organization_id;
        let changed = opt_outs::opt_out(&mut tx, org, &target.customer_id, &target.channel, actor)
            .await
            .map_err(|failure| match failure {
                Failure::Refused(Refused::Missing { .. }) => Failure::Refused(Stop::Missing),
                Failure::Refused(_) => Failure::Refused(Stop::Busy),
                Failure::Store(e) => Failure::Store(e),
            })?;
        let name = dunning_store::collection::organization_name(&mut tx, org).await?;
        tx.commit().await?;
        Ok((name, changed))
    })
    .await;
    match outcome {
        Ok((organization, changed)) => {
            if changed == OptOut::Added {
                tracing::info!(
                    organization = %target.organization_id,
                    customer = %target.customer_id,
                    channel = %target.channel,
                    "customer unsubscribed through the link"
                );
            }
            done(&organization)
        }
        Err(Stop::Missing) => not_found(),
        Err(Stop::Busy) => refused(
            StatusCode::CONFLICT,
            "Não foi possível concluir agora. Tente de novo em instantes.",
        ),
        Err(Stop::Store(e)) => unavailable(&e),
    }
}

/// Why a POST changed nothing.
#[derive(Debug)]
enum Stop {
    /// The customer (or its organization) no longer exists: the same page as a bad token.
    Missing,
    /// Another writer changed the customer meanwhile.
    Busy,
    Store(StoreError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        Stop::Store(e)
    }
}

/// The organization's name and whether the customer is out of the channel already; `None`
/// when the customer (or its organization) no longer exists.
async fn look_up(state: &AppState, target: &Target) -> Result<Option<(String, bool)>, StoreError> {
    let org = &target.organization_id;
    let Some(customer) = customers::get(&state.db, org, &target.customer_id).await? else {
        return Ok(None);
    };
    let mut conn = state.db.acquire().await?;
    let name = dunning_store::collection::organization_name(&mut conn, org).await?;
    Ok(Some((
        name,
        customer.channel_opt_outs.contains(&target.channel),
    )))
}

fn done(organization: &str) -> Response {
    page(
        StatusCode::OK,
        DonePage {
            title: "Recebimento de e-mails cancelado",
            organization,
        }
        .render(),
    )
}

/// The one answer to every token that does not lead to a customer: it does not say which
/// part was wrong.
fn not_found() -> Response {
    refused(
        StatusCode::NOT_FOUND,
        "Este link não é válido. Confira se ele foi copiado por inteiro, do e-mail que você recebeu.",
    )
}

fn unavailable(e: &StoreError) -> Response {
    tracing::error!("unsubscribe page: {e}");
    let status = if e.storage_fault().is_some() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    };
    refused(
        status,
        "Não foi possível concluir agora. Tente de novo mais tarde.",
    )
}

fn refused(status: StatusCode, message: &str) -> Response {
    let title = if status == StatusCode::NOT_FOUND {
        "Link inválido"
    } else {
        "Não foi possível concluir"
    };
    page(status, RefusedPage { title, message }.render())
}

/// No scripts, no remote resources, no framing, no referrer (the URL holds the token), never
/// cached.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

fn page(status: StatusCode, html: askama::Result<String>) -> Response {
    let html = match html {
        Ok(html) => html,
        Err(e) => {
            tracing::error!("unsubscribe page template: {e}");
            return (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response();
        }
    };
    let mut response = (status, Html(html)).into_response();
    let headers = response.headers_mut();
    crate::http::page::protect(headers, CSP, "no-referrer");
    response
}
