//! `/v1/charges/{id}/...`: collecting a charge — payments, notices, negativation at a credit
//! bureau, protest at a notary — and its timeline.
//!
//! The rules live in `domain::collection` and the writes in `engine::actions`, shared with the
//! collection plans, so a person and a plan step are refused for the same reasons.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;

use super::caller::{Caller, find};
use super::charge_actions::{action_context, commit_delivery, locked_charge, settle};
use super::idempotency::{commit_read, commit_written};
use super::input::Input;
use super::refused::answered;
use super::reply::{Reply, check_if_match};
use super::wire;
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_app::collection::{self as actions, CollectionRequest, NoticeText};
use dunning_app::payments::{self, Received};
use dunning_domain::collection::{BUREAUS, CHANNELS};
use dunning_store::charges::{self, Charge};
use dunning_store::retry::{self};
use dunning_store::{events, timestamp_text};

/// Ways money is received.
const METHODS: &[&str] = &["pix", "boleto", "card", "transfer", "cash", "other"];

/// `POST /v1/charges/{id}/pay`: record money received, partial payments allowed.
pub async fn pay(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let now = dunning_domain::timestamp::now();
    let mut input = Input::from_body(&body)?;
    let amount = input.money("amount");
    let amount = input.require("amount", amount);
    let method = input.choice("method", METHODS);
    let method = input.require("method", method);
    let paid_at = input.instant("paid_at");
    let note = input.text("note").filter(|n| !n.is_empty());
    if paid_at.is_some_and(|t| t > now) {
        input.error("paid_at", "range", "Cannot be in the future");
    }
    input.finish()?;
    let (Some(amount), Some(method)) = (amount, method) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let now_text = timestamp_text(now);
    let paid_at_text = timestamp_text(paid_at.unwrap_or(now));
    let (db, p, org, id, headers, note) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &note,
    );
    let (now_text, paid_at_text) = (&now_text, &paid_at_text);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let charge = locked_charge(&mut transaction, org, id, headers).await?;
        let received = Received {
            amount,
            method,
            note: note.as_deref(),
            paid_at: paid_at_text,
        };
        let today = dunning_store::today();
        payments::pay(
            &mut transaction,
            org,
            &p.actor(),
            &charge,
            received,
            today,
            now_text,
        )
        .await
        .map_err(answered)?;
        commit_written(
            charges::get_in(&mut transaction, org, id).await?,
            "charge",
            transaction,
            wire::charge_answer,
        )
        .await
    })
    .await
}

/// `POST /v1/charges/{id}/notify`: queue a notice to the debtor now.
pub async fn notify(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let channel = input.choice("channel", CHANNELS);
    let channel = input.require("channel", channel);
    let template = input.text("template");
    input.finish()?;
    let Some(channel) = channel else {
        return Err(ApiError::internal("validated fields missing"));
    };
    find::<Charge>(&state, &p, &id).await?;
    let mut tx = state.db.begin().await?;
    let actor = p.actor();
    let cx = action_context(&p, &id, None, &actor);
    let text = NoticeText::Compose {
        template: template.as_deref(),
    };
    let outcome = actions::notify(&mut tx, &cx, channel, text, None).await?;
    let (tx, delivery_id) = settle(tx, outcome).await?;
    commit_delivery(tx, &p.organization_id, &delivery_id).await
}

/// End an action on charge `id`: the charge as it now stands (read back inside `tx`),
/// committed with that answer.
async fn commit_charge(
    mut tx: sqlx::Transaction<'static, sqlx::Any>,
    org: &str,
    id: &str,
) -> ApiResult<Reply> {
    let charge = charges::get_in(&mut tx, org, id).await?;
    commit_read(charge, "charge", tx, wire::charge_answer).await
}

/// Body of the actions that take none: empty, or an empty object.
fn no_fields(body: &Bytes) -> ApiResult<()> {
    Input::from_body(body)?.finish()
}

/// `POST /v1/charges/{id}/negativate`.
pub async fn negativate(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let bureau = input.choice("bureau", BUREAUS);
    let bureau = input.require("bureau", bureau);
    input.finish()?;
    let Some(bureau) = bureau else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let current = find::<Charge>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    let mut tx = state.db.begin().await?;
    let actor = p.actor();
    let cx = action_context(&p, &id, Some(current.version), &actor);
    let outcome = actions::request(&mut tx, &cx, CollectionRequest::Negativate { bureau }).await?;
    let (tx, ()) = settle(tx, outcome).await?;
    commit_charge(tx, &p.organization_id, &id).await
}

/// The requests to the bureau or the notary that take no fields: the same checks, and the
/// request that differs.
async fn third_party_request(
    state: AppState,
    p: Principal,
    id: String,
    headers: HeaderMap,
    body: Bytes,
    request: CollectionRequest<'static>,
) -> ApiResult<Reply> {
    no_fields(&body)?;
    let current = find::<Charge>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    let mut tx = state.db.begin().await?;
    let actor = p.actor();
    let cx = action_context(&p, &id, Some(current.version), &actor);
    let outcome = actions::request(&mut tx, &cx, request).await?;
    let (tx, ()) = settle(tx, outcome).await?;
    commit_charge(tx, &p.organization_id, &id).await
}

/// `DELETE /v1/charges/{id}/negativation`.
pub async fn negativation_remove(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    third_party_request(
        state,
        p,
        id,
        headers,
        body,
        CollectionRequest::RemoveNegativation,
    )
    .await
}

/// `POST /v1/charges/{id}/protest`.
pub async fn protest(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    third_party_request(state, p, id, headers, body, CollectionRequest::Protest).await
}

/// `DELETE /v1/charges/{id}/protest`.
pub async fn protest_cancel(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    third_party_request(
        state,
        p,
        id,
        headers,
        body,
        CollectionRequest::CancelProtest,
    )
    .await
}

/// `GET /v1/charges/{id}/events`: what happened to the charge, oldest first.
pub async fn events(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    input.finish()?;
    find::<Charge>(&state, &p, &id).await?;
    let rows = events::charge_timeline(&state.db, &p.organization_id, &id, page).await?;
    wire::event_list(&rows, page)
}
