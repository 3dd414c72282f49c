//! `/v1/charges`: what debtors owe.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde_json::json;

use super::caller::{Caller, find};
use super::charge_actions::locked_charge;
use super::idempotency::{commit_read, commit_written};
use super::input::{Input, Patch};
use super::reply::{Reply, check_if_match, created, list as list_reply};
use super::wire;
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_domain::charge_math::MAX_FINE_BP;
use dunning_domain::money::Cents;
use dunning_store::charges::{
    self as store, Charge, ChargeFields, ChargeFilter, ChargeOrder, STATUSES,
};
use dunning_store::retry::{self, Failure};
use dunning_store::{customers, events, ids, now_text};

pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let mut filter = read_filter(&mut input);
    filter.order = match input.choice("sort_by", &["due_date", "amount", "created_at"]) {
        Some("amount") => ChargeOrder::Amount,
        Some("created_at") => ChargeOrder::CreatedAt,
        _ => ChargeOrder::DueDate,
    };
    filter.descending = input.choice("sort_order", &["asc", "desc"]) == Some("desc");
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows.view(wire::charge), page))
}

/// The filters of `charges_list` (also those of a charges export), sorted by due date.
pub fn read_filter(input: &mut Input) -> ChargeFilter {
    let mut filter = ChargeFilter::default();
    if let Some(statuses) = input.text("status") {
        for s in statuses.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if STATUSES.contains(&s) {
                filter.statuses.push(s.to_string());
            } else {
                input.error(
                    "status",
                    "enum",
                    format!(
                        "'{s}' is not a status; use a comma-separated list of: {}",
                        STATUSES.join(", ")
                    ),
                );
            }
        }
    }
    filter.customer_id = input.text("customer_id");
    filter.due_date_from = input.date("due_date_from");
    filter.due_date_to = input.date("due_date_to");
    filter.amount_min_cents = input.money("amount_min").map(|c| c.0);
    filter.amount_max_cents = input.money("amount_max").map(|c| c.0);
    filter.tag = input.text("tag");
    if let (Some(from), Some(to)) = (&filter.due_date_from, &filter.due_date_to)
        && from > to
    {
        input.error("due_date_to", "range", "Must not be before due_date_from");
    }
    filter
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    Ok(wire::charge_answer(find::<Charge>(&state, &p, &id).await?))
}

/// Percentages arrive as numbers with at most two decimals and are stored in basis points.
fn percent_bp(input: &mut Input, name: &str) -> Option<i64> {
    let value = input.number(name)?;
    match Cents::from_reais(value) {
        Some(bp) => Some(bp.0),
        None => {
            input.error(name, "multiple_of", "Must have at most two decimals");
            None
        }
    }
}

/// `collection_plan_id`: absent, null (no plan), or a plan of the organization.
async fn read_collection_plan(
    state: &AppState,
    p: &Principal,
    input: &mut Input,
) -> ApiResult<Patch<String>> {
    Ok(match input.patch_text("collection_plan_id") {
        Patch::Value(id) => {
            if dunning_store::plans::exists(&state.db, &p.organization_id, &id).await? {
                Patch::Value(id)
            } else {
                input.error(
                    "collection_plan_id",
                    "not_found",
                    format!("No collection plan with id '{id}' in this organization"),
                );
                Patch::Absent
            }
        }
        other => other,
    })
}

pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let customer_id = input.required_text("customer_id");
    let description = input.required_text("description");
    let amount = input.money("amount");
    let amount = input.require("amount", amount);
    let due_date = input.due_date("due_date");
    let due_date = input.require("due_date", due_date);
    let fine_bp = percent_bp(&mut input, "fine_percent").unwrap_or(MAX_FINE_BP);
    let interest_bp = percent_bp(&mut input, "interest_percent").unwrap_or(100);
    let tags = input.text_list("tags").unwrap_or_default();
    let plan = read_collection_plan(&state, &p, &mut input).await?;
    if let Some(customer_id) = &customer_id
        && customers::get(&state.db, &p.organization_id, customer_id)
            .await?
            .is_none()
    {
        input.error(
            "customer_id",
            "not_found",
            format!("No customer with id '{customer_id}' in this organization"),
        );
    }
    input.finish()?;
    let (Some(customer_id), Some(description), Some(amount), Some(due_date)) =
        (customer_id, description, amount, due_date)
    else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let fields = ChargeFields {
        description,
        amount_cents: amount.0,
        fine_bp,
        interest_bp,
        due_date,
        tags,
        collection_plan_id: match plan {
            Patch::Value(id) => Some(id),
            _ => None,
        },
    };
    let id = ids::new_id("chg");
    let mut tx = state.db.begin().await?;
    store::insert(
        &mut tx,
        &p.organization_id,
        &id,
        &customer_id,
        &fields,
        &now_text(),
    )
    .await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "charge.created",
        ("charge", &id),
        &p.actor(),
        &json!({ "customer_id": customer_id, "amount": amount.to_reais(), "due_date": fields.due_date.to_string() }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "charge",
        tx,
        |charge| created(wire::charge(&charge), charge.version),
    )
    .await
}

pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    // An unknown charge is a 404 before any complaint about the body.
    find::<Charge>(&state, &p, &id).await?;
    let description = input.text("description");
    let amount = input.money("amount");
    let due_date = input.due_date("due_date");
    let fine_bp = percent_bp(&mut input, "fine_percent");
    let interest_bp = percent_bp(&mut input, "interest_percent");
    let tags = input.text_list("tags");
    let plan = read_collection_plan(&state, &p, &mut input).await?;
    input.finish()?;
    let (db, p, org, id, headers) = (&state.db, &p, p.organization_id.as_str(), &id, &headers);
    let (description, due_date, tags, plan) = (&description, &due_date, &tags, &plan);
    // The patch applies to the row as stored when the charge is locked, not as read above:
    // PATCHes of different fields then all apply, one after the other. Only an `If-Match`
    // naming a version that is gone is a conflict.
    retry::run(|| async move {
        let now = now_text();
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        let current = locked_charge(tx, org, id, headers).await?;
        if !current.is_open() {
            return Err(Failure::Refused(ApiError::conflict(
                "charge_not_open",
                format!(
                    "Charge {id} is {}; only pending or overdue charges can be changed",
                    current.status
                ),
            )));
        }
        if amount.is_some() && current.paid_cents > Cents(0) {
            return Err(Failure::Refused(ApiError::conflict(
                "charge_has_payments",
                "The amount cannot change after a payment was recorded",
            )));
        }
        let fields = ChargeFields {
            description: description.clone().unwrap_or(current.description),
            amount_cents: amount.map_or(current.amount_cents.0, |a| a.0),
            fine_bp: fine_bp.unwrap_or(current.fine_bp),
            interest_bp: interest_bp.unwrap_or(current.interest_bp),
            due_date: due_date.unwrap_or(current.due_date),
            tags: tags.clone().unwrap_or(current.tags),
            collection_plan_id: match plan {
                Patch::Null => None,
                Patch::Value(id) => Some(id.clone()),
                Patch::Absent => current.collection_plan_id.clone(),
            },
        };
        // A new plan's steps run from now on, not for days already gone.
        let plan_attached = fields.collection_plan_id.is_some()
            && fields.collection_plan_id != current.collection_plan_id;
        if !store::update(tx, org, id, current.version, &fields, &now).await? {
            return Err(Failure::Refused(ApiError::concurrent_update("charge")));
        }
        if plan_attached {
            dunning_store::collection::mark_plan_attached(tx, org, id, &now).await?;
        }
        events::record(
            tx,
            org,
            "charge.updated",
            ("charge", id),
            &p.actor(),
            &json!({}),
        )
        .await?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "charge",
            transaction,
            wire::charge_answer,
        )
        .await
    })
    .await
}

/// `POST /v1/charges/{id}/cancel`: stop collecting an open charge, for good.
pub async fn cancel(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let reason = input.text("reason").filter(|r| !r.is_empty());
    input.finish()?;
    let current = find::<Charge>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    if !current.is_open() {
        return Err(ApiError::conflict(
            "charge_not_open",
            format!(
                "Charge {id} is {}; only pending or overdue charges can be canceled",
                current.status
            ),
        ));
    }
    let mut tx = state.db.begin().await?;
    if !store::cancel(
        &mut tx,
        &p.organization_id,
        &id,
        current.version,
        reason.as_deref(),
        &now_text(),
    )
    .await?
    {
        return Err(ApiError::concurrent_update("charge"));
    }
    events::record(
        &mut tx,
        &p.organization_id,
        "charge.canceled",
        ("charge", &id),
        &p.actor(),
        &json!({ "reason": reason }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "charge",
        tx,
        wire::charge_answer,
    )
    .await
}
