//! `/v1/disputes`: debtors' contestations of charges. Opening one pauses the charge's
//! collection (its `open_dispute_id`); resolving it cancels the charge (upheld) or resumes
//! collection (rejected).

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde_json::{Value, json};

use super::caller::{Caller, find};
use super::idempotency::commit_written;
use super::input::Input;
use super::refused::answered;
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::http::problem::{ApiError, ApiResult};
use dunning_app::disputes::{self as app, Contest};
use dunning_store::disputes::{self as store, Dispute, DisputeFilter, REASONS, STATUSES};
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{charges, now_text};

pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let filter = DisputeFilter {
        charge_id: input.text("charge_id"),
        customer_id: input.text("customer_id"),
        status: input.choice("status", STATUSES).map(str::to_string),
    };
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows.map(|d| to_json(&d)), page))
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let dispute = find::<Dispute>(&state, &p, &id).await?;
    Ok(data_with_etag(to_json(&dispute), dispute.version))
}

/// A dispute as the API shows it.
fn to_json(d: &Dispute) -> Value {
    json!({
        "id": d.id,
        "charge_id": d.charge_id,
        "customer_id": d.customer_id,
        "reason": d.reason,
        "description": d.description,
        "status": d.status,
        "resolution_note": d.resolution_note,
        "resolved_at": d.resolved_at,
        "created_at": d.created_at,
        "updated_at": d.updated_at,
    })
}

/// `POST /v1/disputes`: the debtor contests an open charge; its collection pauses.
pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let charge_id = input.required_text("charge_id");
    let reason = input.choice("reason", REASONS);
    let reason = input.require("reason", reason);
    let description = input.text("description").filter(|d| !d.is_empty());
    let charge = match &charge_id {
        Some(charge_id) => {
            let found = charges::get(&state.db, &p.organization_id, charge_id).await?;
            if found.is_none() {
                input.error(
                    "charge_id",
                    "not_found",
                    format!("No charge with id '{charge_id}' in this organization"),
                );
            }
            found
        }
        None => None,
    };
    input.finish()?;
    let (Some(charge), Some(reason)) = (charge, reason) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let (db, p, org, description) = (&state.db, &p, p.organization_id.as_str(), &description);
    let contest = Contest {
        charge_id: &charge.id,
        reason,
        description: description.as_deref(),
    };
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let id = app::open(&mut transaction, org, &p.actor(), contest, &now_text())
            .await
            .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, &id).await?,
            "dispute",
            transaction,
            |dispute| created(to_json(&dispute), dispute.version),
        )
        .await
    })
    .await
}

/// `POST /v1/disputes/{id}/resolve`: upheld cancels the charge (withdrawing negativation and
/// protest as a cancellation does); rejected resumes its collection.
pub async fn resolve(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let outcome = input.choice("outcome", &["upheld", "rejected"]);
    let outcome = input.require("outcome", outcome);
    let note = input.text("resolution_note").filter(|n| !n.is_empty());
    input.finish()?;
    let Some(outcome) = outcome else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let (db, p, org, id, headers, note) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &note,
    );
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        locks::lock(tx, Table::Disputes, org, id).await?;
        let current = store::get_in(tx, org, id)
            .await?
            .ok_or_else(|| Failure::Refused(ApiError::not_found("dispute", id)))?;
        check_if_match(headers, current.version).map_err(Failure::Refused)?;
        let upheld = outcome == "upheld";
        app::resolve(
            tx,
            org,
            &p.actor(),
            &current,
            upheld,
            note.as_deref(),
            &now_text(),
        )
        .await
        .map_err(answered)?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "dispute",
            transaction,
            |dispute| data_with_etag(to_json(&dispute), dispute.version),
        )
        .await
    })
    .await
}
