//! `/v1/charges`: what debtors owe.

use axum::extract::Path;
use http::{HeaderMap, StatusCode};

use super::answers::refused::{answered, problem};
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request};
use super::answers::wire;
use super::charge_actions::locked_charge;
use super::steps::caller::{Caller, find};
use super::steps::idempotency::{commit_read, commit_written};
use super::steps::server_rules::{Rules, distinct};
use super::steps::typed_input::{Body, Query};
use crate::auth::Principal;
use crate::generated::models::{
    Patch, charges_cancel, charges_create, charges_list, charges_update,
};
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_app::charges::{self as app, Change, PlanChange};
use dunning_domain::charge_math::MAX_FINE_BP;
use dunning_domain::money::Cents;
use dunning_store::charges::{
    self as store, Charge, ChargeFields, ChargeFilter, ChargeOrder, STATUSES,
};
use dunning_store::{customers, now_text, retry};

pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<charges_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let mut rules = Rules::default();
    let mut filter = filter(&query, &mut rules);
    rules.finish()?;
    filter.order = match query.sort_by {
        Some(charges_list::SortBy::Amount) => ChargeOrder::Amount,
        Some(charges_list::SortBy::CreatedAt) => ChargeOrder::CreatedAt,
        Some(charges_list::SortBy::DueDate) | None => ChargeOrder::DueDate,
    };
    filter.descending = query.sort_order == Some(charges_list::SortOrder::Desc);
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    let body = charges_list::Response200 {
        data: rows.items.iter().map(wire::charge).collect(),
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// The query parameters of `charges_list` that are filters (what a charges export takes).
pub const FILTERS: &[&str] = &[
    "status",
    "customer_id",
    "due_date_from",
    "due_date_to",
    "amount_min",
    "amount_max",
    "tag",
];

/// The filters of `charges_list` (also those of a charges export), sorted by due date.
pub fn filter(query: &charges_list::Query, rules: &mut Rules) -> ChargeFilter {
    let mut filter = ChargeFilter::default();
    if let Some(statuses) = &query.status {
        for s in statuses.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if STATUSES.contains(&s) {
                filter.statuses.push(s.to_string());
            } else {
                rules.error(
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
    filter.customer_id = query.customer_id.clone();
    filter.due_date_from = query.due_date_from.map(|d| d.to_string());
    filter.due_date_to = query.due_date_to.map(|d| d.to_string());
    filter.amount_min_cents = query.amount_min.map(|c| c.0);
    filter.amount_max_cents = query.amount_max.map(|c| c.0);
    filter.tag = query.tag.clone();
    if let (Some(from), Some(to)) = (query.due_date_from, query.due_date_to)
        && from > to
    {
        rules.error("due_date_to", "range", "Must not be before due_date_from");
    }
    filter
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    Ok(wire::charge_answer(find::<Charge>(&state, &p, &id).await?))
}

/// Percentages arrive as numbers with at most two decimals and are stored in basis points.
fn percent_bp(rules: &mut Rules, name: &str, value: Option<f64>) -> Option<i64> {
    match Cents::from_reais(value?) {
        Some(bp) => Some(bp.0),
        None => {
            rules.error(name, "multiple_of", "Must have at most two decimals");
            None
        }
    }
}

/// `collection_plan_id`: absent, null (no plan), or a plan of the organization.
async fn check_collection_plan(
    state: &AppState,
    p: &Principal,
    rules: &mut Rules,
    plan: &Patch<String>,
) -> ApiResult<()> {
    if let Patch::Value(id) = plan
        && !dunning_store::plans::exists(&state.db, &p.organization_id, id).await?
    {
        rules.error(
            "collection_plan_id",
            "not_found",
            format!("No collection plan with id '{id}' in this organization"),
        );
    }
    Ok(())
}

pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<charges_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let due_date = rules.due_date("due_date", body.due_date);
    let fine_bp = percent_bp(&mut rules, "fine_percent", body.fine_percent).unwrap_or(MAX_FINE_BP);
    let interest_bp =
        percent_bp(&mut rules, "interest_percent", body.interest_percent).unwrap_or(100);
    check_collection_plan(&state, &p, &mut rules, &body.collection_plan_id).await?;
    if customers::get(&state.db, &p.organization_id, &body.customer_id)
        .await?
        .is_none()
    {
        rules.error(
            "customer_id",
            "not_found",
            format!(
                "No customer with id '{}' in this organization",
                body.customer_id
            ),
        );
    }
    rules.finish()?;
    let Some(due_date) = due_date else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let fields = ChargeFields {
        description: body.description,
        amount_cents: body.amount.0,
        fine_bp,
        interest_bp,
        due_date,
        tags: distinct(body.tags.unwrap_or_default()),
        collection_plan_id: body.collection_plan_id.into_option(),
    };
    let org = p.organization_id.as_str();
    let mut tx = state.db.begin().await?;
    let id = app::create(
        &mut tx,
        org,
        &p.actor(),
        &body.customer_id,
        &fields,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    commit_read(
        store::get_in(&mut tx, org, &id).await?,
        "charge",
        tx,
        |charge| {
            let body = charges_create::Response201 {
                data: wire::charge(&charge),
            };
            answer(StatusCode::CREATED, &body, Some(charge.version))
        },
    )
    .await
}

pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(body): Body<charges_update::Body>,
) -> ApiResult<Reply> {
    // An unknown charge is a 404 before any complaint about the body's rules.
    find::<Charge>(&state, &p, &id).await?;
    let mut rules = Rules::default();
    let due_date = body.due_date.and_then(|d| rules.due_date("due_date", d));
    let fine_bp = percent_bp(&mut rules, "fine_percent", body.fine_percent);
    let interest_bp = percent_bp(&mut rules, "interest_percent", body.interest_percent);
    check_collection_plan(&state, &p, &mut rules, &body.collection_plan_id).await?;
    rules.finish()?;
    let change = Change {
        description: body.description,
        amount: body.amount,
        fine_bp,
        interest_bp,
        due_date,
        tags: body.tags.map(distinct),
        collection_plan: match body.collection_plan_id {
            Patch::Absent => PlanChange::Keep,
            Patch::Null => PlanChange::Detach,
            Patch::Value(plan) => PlanChange::Attach(plan),
        },
    };
    let (db, p, org, id, headers, change) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &change,
    );
    // The change applies to the row as stored when the charge is locked, not as read above:
    // PATCHes of different fields then all apply, one after the other. Only an `If-Match`
    // naming a version that is gone is a conflict.
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        let current = locked_charge(tx, org, id, headers).await?;
        app::update(tx, org, &p.actor(), &current, change, &now_text())
            .await
            .map_err(answered)?;
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
    Body(body): Body<charges_cancel::Body>,
) -> ApiResult<Reply> {
    let reason = body.reason.filter(|r| !r.is_empty());
    let current = find::<Charge>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    let org = p.organization_id.as_str();
    let mut tx = state.db.begin().await?;
    app::cancel(
        &mut tx,
        org,
        &p.actor(),
        &current,
        reason.as_deref(),
        &now_text(),
    )
    .await
    .map_err(problem)?;
    commit_read(
        store::get_in(&mut tx, org, &id).await?,
        "charge",
        tx,
        wire::charge_answer,
    )
    .await
}
