//! `/v1/charges/{id}/...`: collecting a charge — payments, notices, negativation at a credit
//! bureau, protest at a notary — and its timeline.
//!
//! The rules live in `domain::collection` and the writes in `engine::actions`, shared with the
//! collection plans, so a person and a plan step are refused for the same reasons.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::{HeaderMap, StatusCode};
use serde_json::json;
use sqlx::AnyConnection;
use time::OffsetDateTime;

use super::caller::{Caller, find};
use super::idempotency::{commit_read, commit_written};
use super::input::Input;
use super::problem::{ApiError, ApiResult, FieldError};
use super::reply::{Reply, check_if_match, list as list_reply};
use crate::auth::Principal;
use crate::domain::collection::{BUREAUS, CHANNELS, NegativationStatus, Refusal};
use crate::domain::money::Cents;
use crate::engine::actions::{self, ActionContext, CollectionRequest, NoticeText, Outcome};
use crate::state::AppState;
use crate::store::charges::{self, Charge};
use crate::store::collection::{self as store, Payment};
use crate::store::events::Actor;
use crate::store::locks::{self, Table};
use crate::store::retry::{self, Failure};
use crate::store::{deliveries, events, timestamp_text};

/// Ways money is received.
const METHODS: &[&str] = &["pix", "boleto", "card", "transfer", "cash", "other"];

/// A rule's refusal as a 409 problem.
pub(super) fn refused(refusal: Refusal) -> ApiError {
    ApiError::conflict(refusal.code, refusal.detail)
}

/// An RFC 3339 instant, e.g. `2025-03-15T13:45:00-03:00`, within the API's dates.
pub(super) fn read_instant(input: &mut Input, name: &str) -> Option<OffsetDateTime> {
    input.instant(name)
}

/// Lock charge `id` and read it inside the transaction; 404 when there is none, 412 when
/// `If-Match` names another version than the one stored.
pub(super) async fn locked_charge(
    tx: &mut AnyConnection,
    org: &str,
    id: &str,
    headers: &HeaderMap,
) -> Result<Charge, Failure<ApiError>> {
    locks::lock(tx, Table::Charges, org, id).await?;
    let charge = charges::get_in(tx, org, id)
        .await?
        .ok_or_else(|| Failure::Refused(ApiError::not_found("charge", id)))?;
    check_if_match(headers, charge.version).map_err(Failure::Refused)?;
    Ok(charge)
}

/// `POST /v1/charges/{id}/pay`: record money received, partial payments allowed.
pub async fn pay(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let now = OffsetDateTime::now_utc();
    let mut input = Input::from_body(&body)?;
    let amount = input.money("amount");
    let amount = input.require("amount", amount);
    let method = input.choice("method", METHODS);
    let method = input.require("method", method);
    let paid_at = read_instant(&mut input, "paid_at");
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
    // The charge is locked before its amount due is read: of payments racing on one charge
    // each sees the ones committed before it, so together they never pay more than is due.
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        let current = locked_charge(tx, org, id, headers).await?;
        if !current.is_open() {
            return Err(Failure::Refused(ApiError::conflict(
                "charge_not_open",
                format!(
                    "Charge {id} is {}; only pending or overdue charges take payments (pay the instalment charges of an agreement instead)",
                    current.status
                ),
            )));
        }
        let due = actions::amount_due_on(&current, crate::store::today());
        if amount > due {
            return Err(Failure::Refused(exceeds(amount, due, id)));
        }
        let settles = amount == due;
        let payment = Payment {
            charge_id: id,
            amount_cents: amount.0,
            method,
            note: note.as_deref(),
            paid_at: paid_at_text,
        };
        if !store::apply_payment(tx, org, &payment, current.version, settles, now_text).await? {
            return Err(Failure::Refused(ApiError::concurrent_update("charge")));
        }
        let payment_id = store::insert_payment(tx, org, &payment, now_text).await?;
        let actor = p.actor();
        events::record(
            tx,
            org,
            "charge.payment_recorded",
            ("charge", id),
            &actor,
            &json!({
                "payment_id": payment_id,
                "amount": amount.to_reais(),
                "method": method,
                "paid_at": paid_at_text,
                "note": note,
                "amount_due_before": due.to_reais(),
            }),
        )
        .await?;
        if settles {
            events::record(
                tx,
                org,
                "charge.paid",
                ("charge", id),
                &actor,
                &json!({
                    "paid_amount": Cents(current.paid_cents.0 + amount.0).to_reais(),
                    "paid_at": paid_at_text,
                }),
            )
            .await?;
            if matches!(
                current.negativation_status,
                NegativationStatus::Requested | NegativationStatus::Active
            ) {
                let bureau = store::negativation_bureau(tx, org, id).await?;
                events::record(
                    tx,
                    org,
                    "charge.negativation_removal_requested",
                    ("charge", id),
                    &actor,
                    &json!({ "bureau": bureau, "reason": "paid" }),
                )
                .await?;
            }
        }
        commit_written(
            charges::get_in(tx, org, id).await?,
            "charge",
            transaction,
            super::charges::answer,
        )
        .await
    })
    .await
}

/// 422 `payment_exceeds_amount_due`: `amount` is more than the `due` of charge `id`.
fn exceeds(amount: Cents, due: Cents, id: &str) -> ApiError {
    ApiError {
        errors: vec![FieldError::new(
            "amount",
            "maximum",
            format!("Must be at most the amount due, {}", due.to_reais()),
        )],
        ..ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "payment_exceeds_amount_due",
            format!(
                "The payment of {} is more than the {} due on charge {id}",
                amount.to_brl(),
                due.to_brl()
            ),
        )
    }
}

/// The transaction and the action's result when it was done (the caller replies and commits),
/// or its refusal with nothing written.
pub(super) async fn settle<T>(
    tx: sqlx::Transaction<'static, sqlx::Any>,
    outcome: Outcome<T>,
) -> ApiResult<(sqlx::Transaction<'static, sqlx::Any>, T)> {
    match outcome {
        Ok(value) => Ok((tx, value)),
        Err(refusal) => {
            tx.rollback().await?;
            Err(refused(refusal))
        }
    }
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

/// End an action that queued delivery `id`: 202 with the delivery (read back inside `tx`),
/// committed with that answer.
pub(super) async fn commit_delivery(
    mut tx: sqlx::Transaction<'static, sqlx::Any>,
    org: &str,
    id: &str,
) -> ApiResult<Reply> {
    let delivery = deliveries::get_in(&mut tx, org, id).await?;
    commit_read(delivery, "delivery", tx, super::deliveries::accepted).await
}

/// End an action on charge `id`: the charge as it now stands (read back inside `tx`),
/// committed with that answer.
async fn commit_charge(
    mut tx: sqlx::Transaction<'static, sqlx::Any>,
    org: &str,
    id: &str,
) -> ApiResult<Reply> {
    let charge = charges::get_in(&mut tx, org, id).await?;
    commit_read(charge, "charge", tx, super::charges::answer).await
}

/// The context of an action the caller asks for on charge `id`, now.
pub(super) fn action_context<'a>(
    p: &'a Principal,
    id: &'a str,
    version: Option<i64>,
    actor: &'a Actor,
) -> ActionContext<'a> {
    ActionContext {
        organization_id: &p.organization_id,
        charge_id: id,
        version,
        actor,
        now: OffsetDateTime::now_utc(),
    }
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
    Ok(list_reply(rows.map(|e| super::events::to_json(&e)), page))
}
