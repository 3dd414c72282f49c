//! `/v1/deliveries`: the messages sent (or being sent) to debtors, and sending one again.

use axum::extract::Path;
use http::StatusCode;

use super::answers::reply::{Reply, answer, page_meta, page_request};
use super::answers::wire;
use super::charge_actions::{action_context, commit_delivery, settle};
use super::steps::caller::{Caller, find};
use super::steps::server_rules::Rules;
use super::steps::typed_input::{NoBody, Query};
use crate::generated::models::deliveries_list;
use crate::http::problem::ApiResult;
use dunning_app::collection::{self as actions, NoticeText};
use dunning_store::deliveries::{self as store, Delivery, DeliveryFilter};

/// `GET /v1/deliveries`: newest first, with filters.
pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<deliveries_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let mut rules = Rules::default();
    let filter = filter(&query, &mut rules);
    rules.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    let body = deliveries_list::Response200 {
        data: rows
            .items
            .iter()
            .map(wire::delivery)
            .collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// The query parameters of `deliveries_list` that are filters (what a deliveries export takes).
pub const FILTERS: &[&str] = &["charge_id", "customer_id", "channel", "status"];

/// The filters of `deliveries_list` (also those of a deliveries export). The document says
/// all there is to say of them: no rule of the server's own.
pub fn filter(query: &deliveries_list::Query, _rules: &mut Rules) -> DeliveryFilter {
    DeliveryFilter {
        charge_id: query.charge_id.clone(),
        customer_id: query.customer_id.clone(),
        channel: query.channel.map(|c| c.as_str().to_string()),
        status: query.status.map(|s| s.as_str().to_string()),
    }
}

/// `GET /v1/deliveries/{id}`.
pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let delivery = find::<Delivery>(&state, &p, &id).await?;
    wire::delivery_answer(StatusCode::OK, &delivery)
}

/// `POST /v1/deliveries/{id}/resend`: the same text again, as a new delivery, to the
/// customer's current contact for the channel.
pub async fn resend(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    NoBody: NoBody,
) -> ApiResult<Reply> {
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
