//! `/v1/charges`: what debtors owe.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde::Serialize;
use serde_json::json;
use time::Date;

use super::caller::{Caller, find};
use super::collection::locked_charge;
use super::idempotency::{commit_read, commit_written};
use super::input::{Input, Patch};
use super::problem::{ApiError, ApiResult};
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::auth::Principal;
use crate::domain::charge_math::{ChargeStatus, MAX_FINE_BP};
use crate::domain::collection::{NegativationStatus, ProtestStatus};
use crate::domain::money::Cents;
use crate::domain::timestamp::Timestamp;
use crate::state::AppState;
use crate::store::charges::{
    self as store, Charge, ChargeFields, ChargeFilter, ChargeOrder, STATUSES,
};
use crate::store::retry::{self, Failure};
use crate::store::{customers, events, ids, now_text};

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
    Ok(list_reply(rows.view(wire), page))
}

/// A charge as the API shows it: money in reais, rates in percent, the status and amount due
/// of today. Borrowed from the charge and serialised as it is: a list page writes 25 of
/// them, and building a `Value` map for each cost 15 % of a list's server time (bench).
#[derive(Serialize)]
pub(super) struct Wire<'a> {
    id: &'a str,
    customer_id: &'a str,
    description: &'a str,
    amount: f64,
    paid_amount: f64,
    fine_percent: f64,
    interest_percent: f64,
    amount_due: f64,
    #[serde(serialize_with = "as_text")]
    due_date: Date,
    status: ChargeStatus,
    tags: &'a [String],
    collection_plan_id: Option<&'a str>,
    agreement_id: Option<&'a str>,
    negativation_status: NegativationStatus,
    protest_status: ProtestStatus,
    paid_at: Option<Timestamp>,
    canceled_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

pub(super) fn wire(c: &Charge) -> Wire<'_> {
    Wire {
        id: &c.id,
        customer_id: &c.customer_id,
        description: &c.description,
        amount: c.amount_cents.to_reais(),
        paid_amount: c.paid_cents.to_reais(),
        fine_percent: c.fine_bp as f64 / 100.0,
        interest_percent: c.interest_bp as f64 / 100.0,
        amount_due: c.amount_due.to_reais(),
        due_date: c.due_date,
        status: c.status,
        tags: &c.tags,
        collection_plan_id: c.collection_plan_id.as_deref(),
        agreement_id: c.agreement_id.as_deref(),
        negativation_status: c.negativation_status,
        protest_status: c.protest_status,
        paid_at: c.paid_at,
        canceled_at: c.canceled_at,
        created_at: c.created_at,
        updated_at: c.updated_at,
    }
}

/// A date as `YYYY-MM-DD`, written straight into the answer.
fn as_text<S: serde::Serializer>(date: &Date, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(date)
}

/// A charge with its ETag: the answer of a read or a change.
pub(super) fn answer(charge: Charge) -> Reply {
    data_with_etag(wire(&charge), charge.version)
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
    Ok(answer(find::<Charge>(&state, &p, &id).await?))
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
            if crate::store::plans::exists(&state.db, &p.organization_id, &id).await? {
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
        |charge| created(wire(&charge), charge.version),
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
            crate::store::collection::mark_plan_attached(tx, org, id, &now).await?;
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
            answer,
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
        answer,
    )
    .await
}
