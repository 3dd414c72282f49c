//! `/v1/deliveries`: the messages sent (or being sent) to debtors, and sending one again.

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use time::OffsetDateTime;

use super::collection::{delivery_reply, settle};
use super::idempotency::commit;
use super::input::Input;
use super::problem::{ApiError, ApiResult};
use super::reply::{Reply, data_with_etag, list as list_reply};
use crate::auth::Principal;
use crate::domain::collection::CHANNELS;
use crate::engine::actions::{self, NoticeText};
use crate::state::AppState;
use crate::store::deliveries::{self as store, Delivery, DeliveryFilter, STATUSES};

/// `GET /v1/deliveries`: newest first, with filters.
pub async fn list(
    State(state): State<AppState>,
    Extension(p): Extension<Principal>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let filter = read_filter(&mut input);
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows, page))
}

/// The filters of `deliveries_list` (also those of a deliveries export).
pub fn read_filter(input: &mut Input) -> DeliveryFilter {
    DeliveryFilter {
        charge_id: input.text("charge_id"),
        customer_id: input.text("customer_id"),
        channel: input.choice("channel", CHANNELS).map(str::to_string),
        status: input.choice("status", STATUSES).map(str::to_string),
    }
}

async fn find(state: &AppState, p: &Principal, id: &str) -> ApiResult<Delivery> {
    store::get(&state.db, &p.organization_id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("delivery", id))
}

/// `GET /v1/deliveries/{id}`.
pub async fn get(
    State(state): State<AppState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> ApiResult<Reply> {
    let delivery = find(&state, &p, &id).await?;
    Ok(data_with_etag(&delivery, delivery.version))
}

/// `POST /v1/deliveries/{id}/resend`: the same text again, as a new delivery, to the
/// customer's current contact for the channel.
pub async fn resend(
    State(state): State<AppState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Reply> {
    Input::from_body(&body)?.finish()?;
    let original = find(&state, &p, &id).await?;
    let mut tx = state.db.begin().await?;
    let outcome = actions::notify(
        &mut tx,
        &p.organization_id,
        &original.charge_id,
        &original.channel,
        NoticeText::Repeat {
            subject: original.subject.as_deref(),
            body: &original.body,
            resent_from: &original.id,
        },
        None,
        &p.actor(),
        OffsetDateTime::now_utc(),
    )
    .await?;
    let (mut tx, delivery_id) = settle(tx, outcome).await?;
    let reply = delivery_reply(&mut tx, &p, &delivery_id).await?;
    commit(tx, reply).await
}
