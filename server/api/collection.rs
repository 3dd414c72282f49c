//! `/v1/charges/{id}/...`: collecting a charge — payments, notices, negativation at a credit
//! bureau, protest at a notary — and its timeline.
//!
//! The rules live in `domain::collection` and the writes in `engine::actions`, shared with the
//! collection plans, so a person and a plan step are refused for the same reasons.

use axum::extract::Path;
use http::HeaderMap;

use super::answers::refused::answered;
use super::answers::reply::{Reply, check_if_match, page_request};
use super::answers::wire;
use super::charge_actions::{action_context, commit_delivery, locked_charge, settle};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::{commit_read, commit_written};
use super::steps::server_rules::Rules;
use super::steps::typed_input::{Body, NoBody, Query};
use crate::auth::Principal;
use crate::generated::models::{charges_events, charges_negativate, charges_notify, charges_pay};
use crate::http::problem::ApiResult;
use crate::state::AppState;
use dunning_app::collection::{self as actions, CollectionRequest, NoticeText};
use dunning_app::payments::{self, Received};
use dunning_domain::timestamp::Timestamp;
use dunning_store::charges::{self, Charge};
use dunning_store::retry::{self};
use dunning_store::{events, timestamp_text};

/// `POST /v1/charges/{id}/pay`: record money received, partial payments allowed.
pub async fn pay(
    Caller(state, p): Caller,
    Path(charges_pay::Path { id }): Path<charges_pay::Path>,
    headers: HeaderMap,
    Body(body): Body<charges_pay::Body>,
) -> ApiResult<Reply> {
    let now = dunning_domain::timestamp::now();
    let mut rules = Rules::default();
    let paid_at = body.paid_at.map(Timestamp::instant);
    if paid_at.is_some_and(|t| t > now) {
        rules.error("paid_at", "range", "Cannot be in the future");
    }
    rules.finish()?;
    let (amount, method) = (body.amount, body.method.as_str());
    let note = body.note.filter(|n| !n.is_empty());
    let now_text = timestamp_text(now);
    let paid_at = Timestamp::new(paid_at.unwrap_or(now));
    let (db, p, org, id, headers, note) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &note,
    );
    let now_text = &now_text;
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let charge = locked_charge(&mut transaction, org, id, headers).await?;
        let received = Received {
            amount,
            method,
            note: note.as_deref(),
            paid_at,
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
    Path(charges_notify::Path { id }): Path<charges_notify::Path>,
    Body(body): Body<charges_notify::Body>,
) -> ApiResult<Reply> {
    let (channel, template) = (body.channel.as_str(), body.template);
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

/// `POST /v1/charges/{id}/negativate`.
pub async fn negativate(
    Caller(state, p): Caller,
    Path(charges_negativate::Path { id }): Path<charges_negativate::Path>,
    headers: HeaderMap,
    Body(body): Body<charges_negativate::Body>,
) -> ApiResult<Reply> {
    let bureau = body.bureau.as_str();
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
    request: CollectionRequest<'static>,
) -> ApiResult<Reply> {
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
    NoBody: NoBody,
) -> ApiResult<Reply> {
    third_party_request(state, p, id, headers, CollectionRequest::RemoveNegativation).await
}

/// `POST /v1/charges/{id}/protest`.
pub async fn protest(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    NoBody: NoBody,
) -> ApiResult<Reply> {
    third_party_request(state, p, id, headers, CollectionRequest::Protest).await
}

/// `DELETE /v1/charges/{id}/protest`.
pub async fn protest_cancel(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    NoBody: NoBody,
) -> ApiResult<Reply> {
    third_party_request(state, p, id, headers, CollectionRequest::CancelProtest).await
}

/// `GET /v1/charges/{id}/events`: what happened to the charge, oldest first.
pub async fn events(
    Caller(state, p): Caller,
    Path(charges_events::Path { id }): Path<charges_events::Path>,
    Query(query): Query<charges_events::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    find::<Charge>(&state, &p, &id).await?;
    let rows = events::charge_timeline(&state.db, &p.organization_id, &id, page).await?;
    wire::event_list(&rows, page)
}
