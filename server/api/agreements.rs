//! `/v1/agreements`: renegotiation agreements (acordos) of a customer's open charges into a
//! down payment and monthly instalments. The handlers read the request and answer; proposing,
//! accepting and canceling are `dunning_app::agreements`, shared with the engine.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde_json::{Value, json};
use sqlx::AnyConnection;

use super::caller::{Caller, find};
use super::idempotency::commit_written;
use super::input::Input;
use super::refused::answered;
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::http::problem::{ApiError, ApiResult};
use dunning_app::agreements::{self as app, Terms};
use dunning_domain::money::Cents;
use dunning_store::agreements::{self as store, Agreement, AgreementFilter, STATUSES};
use dunning_store::charges::{self};
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{customers, now_text, today};

pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let filter = AgreementFilter {
        customer_id: input.text("customer_id"),
        status: input.choice("status", STATUSES).map(str::to_string),
    };
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows.map(|a| to_json(&a)), page))
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let agreement = find::<Agreement>(&state, &p, &id).await?;
    Ok(data_with_etag(to_json(&agreement), agreement.version))
}

/// An agreement as the API shows it: money in reais, rates in percent.
fn to_json(a: &Agreement) -> Value {
    let schedule: Vec<Value> = a
        .installments_schedule
        .iter()
        .map(|i| {
            json!({
                "number": i.number,
                "amount": i.amount_cents.to_reais(),
                "due_date": i.due_date.to_string(),
                "charge_id": i.charge_id,
            })
        })
        .collect();
    json!({
        "id": a.id,
        "customer_id": a.customer_id,
        "charge_ids": a.charge_ids,
        "status": a.status,
        "total_amount": a.total_cents.to_reais(),
        "down_payment": a.down_payment_cents.to_reais(),
        "installments": a.installments,
        "first_due_date": a.first_due_date.to_string(),
        "discount_percent": a.discount_bp as f64 / 100.0,
        "installments_schedule": schedule,
        "note": a.note,
        "cancel_reason": a.cancel_reason,
        "accepted_at": a.accepted_at,
        "canceled_at": a.canceled_at,
        "created_at": a.created_at,
        "updated_at": a.updated_at,
    })
}

/// `POST /v1/agreements`: a proposal. Nothing changes on the charges until it is accepted.
pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let customer_id = input.required_text("customer_id");
    let charge_ids = input.text_list("charge_ids");
    let charge_ids = input.require("charge_ids", charge_ids);
    let down_payment = input.money("down_payment").unwrap_or(Cents(0));
    let installments = input.integer("installments");
    let installments = input.require("installments", installments);
    let first_due_date = input.due_date("first_due_date");
    let first_due_date = input.require("first_due_date", first_due_date);
    if let Some(date) = &first_due_date
        && *date < today()
    {
        input.error(
            "first_due_date",
            "range",
            "Must be today or later (YYYY-MM-DD)",
        );
    }
    let discount_bp = match input.number("discount_percent") {
        Some(value) => match Cents::from_reais(value) {
            Some(bp) => bp.0,
            None => {
                input.error(
                    "discount_percent",
                    "multiple_of",
                    "Must have at most two decimals",
                );
                0
            }
        },
        None => 0,
    };
    let note = input.text("note").filter(|n| !n.is_empty());

    // Which charges exist and whose they are is an input problem (400); what state they are
    // in is a conflict (409), checked below inside the transaction.
    let mut customer_known = false;
    if let Some(customer_id) = &customer_id {
        customer_known = customers::get(&state.db, &p.organization_id, customer_id)
            .await?
            .is_some();
        if !customer_known {
            input.error(
                "customer_id",
                "not_found",
                format!("No customer with id '{customer_id}' in this organization"),
            );
        }
    }
    for (i, charge_id) in charge_ids.iter().flatten().enumerate() {
        match charges::get(&state.db, &p.organization_id, charge_id).await? {
            None => input.error(
                &format!("charge_ids[{i}]"),
                "not_found",
                format!("No charge with id '{charge_id}' in this organization"),
            ),
            Some(charge) => {
                if customer_known && Some(&charge.customer_id) != customer_id.as_ref() {
                    input.error(
                        &format!("charge_ids[{i}]"),
                        "customer_mismatch",
                        format!("Charge {charge_id} belongs to another customer"),
                    );
                }
            }
        }
    }
    input.finish()?;
    let (Some(customer_id), Some(charge_ids), Some(installments), Some(first_due_date)) =
        (customer_id, charge_ids, installments, first_due_date)
    else {
        return Err(ApiError::internal("validated fields missing"));
    };

    let terms = Terms {
        customer_id,
        charge_ids,
        down_payment,
        installments,
        first_due_date,
        discount_bp,
        note,
    };
    let (db, p, org, terms) = (&state.db, &p, p.organization_id.as_str(), &terms);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let id = app::propose(&mut transaction, org, &p.actor(), terms, &now_text())
            .await
            .map_err(answered)?;
        let agreement = store::get_in(&mut transaction, org, &id).await?;
        commit_written(agreement, "agreement", transaction, |a| {
            created(to_json(&a), a.version)
        })
        .await
    })
    .await
}

/// `POST /v1/agreements/{id}/accept`: the originals go `in_agreement` and one charge is
/// created per schedule entry, all in one transaction.
pub async fn accept(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    Input::from_body(&body)?.finish()?;
    let (db, p, org, id, headers) = (&state.db, &p, p.organization_id.as_str(), &id, &headers);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        app::accept(&mut transaction, org, &p.actor(), &agreement, &now_text())
            .await
            .map_err(answered)?;
        let agreement = store::get_in(&mut transaction, org, id).await?;
        commit_written(agreement, "agreement", transaction, |a| {
            data_with_etag(to_json(&a), a.version)
        })
        .await
    })
    .await
}

/// Lock agreement `id` and read it; 404 when there is none, 412 when `If-Match` names
/// another version than the one stored.
async fn locked(
    tx: &mut AnyConnection,
    org: &str,
    id: &str,
    headers: &HeaderMap,
) -> Result<Agreement, Failure<ApiError>> {
    locks::lock(tx, Table::Agreements, org, id).await?;
    let agreement = store::get_in(tx, org, id)
        .await?
        .ok_or_else(|| Failure::Refused(ApiError::not_found("agreement", id)))?;
    check_if_match(headers, agreement.version).map_err(Failure::Refused)?;
    Ok(agreement)
}

/// `POST /v1/agreements/{id}/cancel`: a proposal just closes; an accepted agreement is
/// unwound (see `store::agreements::unwind`).
pub async fn cancel(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let reason = input.text("reason").filter(|r| !r.is_empty());
    input.finish()?;
    let (db, p, org, id, headers, reason) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &reason,
    );
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        let (actor, today) = (p.actor(), today());
        app::cancel(
            &mut transaction,
            org,
            &actor,
            &agreement,
            reason.as_deref(),
            today,
            &now_text(),
        )
        .await
        .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, id).await?,
            "agreement",
            transaction,
            |agreement| data_with_etag(to_json(&agreement), agreement.version),
        )
        .await
    })
    .await
}
