//! `/v1/deliveries`: the messages sent (or being sent) to debtors, and sending one again.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};

use super::caller::{Caller, find};
use super::charge_actions::{action_context, commit_delivery, settle};
use super::input::Input;
use super::reply::{Reply, data_with_etag, list as list_reply};
use super::wire;
use crate::http::problem::ApiResult;
use dunning_app::collection::{self as actions, NoticeText};
use dunning_domain::collection::CHANNELS;
use dunning_store::deliveries::{self as store, Delivery, DeliveryFilter, STATUSES};

/// `GET /v1/deliveries`: newest first, with filters.
pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let filter = read_filter(&mut input);
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows.map(|d| wire::delivery(&d)), page))
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

/// `GET /v1/deliveries/{id}`.
pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let delivery = find::<Delivery>(&state, &p, &id).await?;
    Ok(data_with_etag(wire::delivery(&delivery), delivery.version))
}

/// `POST /v1/deliveries/{id}/resend`: the same text again, as a new delivery, to the
/// customer's current contact for the channel.
pub async fn resend(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Reply> {
    Input::from_body(&body)?.finish()?;
    let original = find::<Delivery>(&state, &p, &id).await?;
    let mut tx = state.db.begin().await?;
    let actor = p.actor();
    let cx = action_context(&p, &original.charge_id, None, &actor);
    let text = NoticeText::Repeat {
        subject: original.subject.as_deref(),
        body: &original.body,
        resent_from: &original.id,
    };
    let outcome = actions::notify(&mut tx, &cx, &original.channel, text, None).await?;
    let (tx, delivery_id) = settle(tx, outcome).await?;
    commit_delivery(tx, &p.organization_id, &delivery_id).await
}
