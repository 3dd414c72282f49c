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
use super::problem::{ApiError, ApiResult};
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::store::disputes::{
    self as store, Dispute, DisputeFilter, DisputeStatus, NewDispute, Opening, REASONS, STATUSES,
};
use crate::store::locks::{self, Table};
use crate::store::retry::{self, Failure};
use crate::store::{charges, events, ids, now_text};

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

fn concurrent() -> ApiError {
    ApiError::concurrent_update("dispute or its charge")
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
    let id = ids::new_id("dsp");
    let (db, p, org) = (&state.db, &p, p.organization_id.as_str());
    let (charge_id, id, description) = (&charge.id, &id, &description);
    // The charge is locked and read again inside the transaction: of disputes racing on one
    // charge the later ones see the first, and get the problem a second dispute gets.
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        locks::lock(tx, Table::Charges, org, charge_id).await?;
        let charge = charges::get_in(tx, org, charge_id)
            .await?
            .ok_or_else(|| Failure::Refused(ApiError::not_found("charge", charge_id)))?;
        if !charge.is_open() {
            return Err(Failure::Refused(ApiError::conflict(
                "charge_not_open",
                format!(
                    "Charge {} is {}; only a pending or overdue charge can be disputed",
                    charge.id, charge.status
                ),
            )));
        }
        if let Some(open) = &charge.open_dispute_id {
            return Err(Failure::Refused(already_open(charge_id, Some(open))));
        }
        let new = NewDispute {
            charge_id,
            customer_id: &charge.customer_id,
            reason,
            description: description.as_deref(),
        };
        match store::open(tx, org, id, &new, charge.version, &now_text()).await? {
            Opening::Opened => {}
            Opening::ChargeMovedOn => return Err(Failure::Refused(concurrent())),
            Opening::AlreadyOpen => return Err(Failure::Refused(already_open(charge_id, None))),
        }
        events::record(
            tx,
            org,
            "dispute.opened",
            ("dispute", id),
            &p.actor(),
            &json!({ "charge_id": charge.id, "customer_id": charge.customer_id, "reason": reason }),
        )
        .await?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "dispute",
            transaction,
            |dispute| created(to_json(&dispute), dispute.version),
        )
        .await
    })
    .await
}

/// 409 `charge_has_open_dispute`, naming the open dispute when known.
fn already_open(charge_id: &str, open: Option<&str>) -> ApiError {
    let which = open.map(|id| format!(" {id}")).unwrap_or_default();
    ApiError::conflict(
        "charge_has_open_dispute",
        format!("Charge {charge_id} already has the open dispute{which}; resolve it first"),
    )
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
        let now = now_text();
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        // The dispute, then its charge: the order every writer locks them in.
        locks::lock(tx, Table::Disputes, org, id).await?;
        let current = store::get_in(tx, org, id)
            .await?
            .ok_or_else(|| Failure::Refused(ApiError::not_found("dispute", id)))?;
        check_if_match(headers, current.version).map_err(Failure::Refused)?;
        if current.status != DisputeStatus::Open {
            return Err(Failure::Refused(ApiError::conflict(
                "dispute_not_open",
                format!("Dispute {id} was already resolved ({})", current.status),
            )));
        }
        locks::lock(tx, Table::Charges, org, &current.charge_id).await?;
        if !store::resolve(tx, org, &current, outcome, note.as_deref(), &now).await? {
            return Err(Failure::Refused(concurrent()));
        }
        // An upheld dispute cancels the charge when it is still open; one that was paid or
        // canceled meanwhile stays as it is (a refund, if any, happens outside this service).
        let mut charge_canceled = false;
        if outcome == "upheld"
            && let Some(charge) = charges::get_in(tx, org, &current.charge_id).await?
            && charge.is_open()
        {
            let reason = format!("Contestação {id} procedente");
            if !charges::cancel(tx, org, &charge.id, charge.version, Some(&reason), &now).await? {
                return Err(Failure::Refused(concurrent()));
            }
            events::record(
                tx,
                org,
                "charge.canceled",
                ("charge", &charge.id),
                &p.actor(),
                &json!({ "reason": reason, "dispute_id": id }),
            )
            .await?;
            charge_canceled = true;
        }
        events::record(
            tx,
            org,
            if outcome == "upheld" {
                "dispute.upheld"
            } else {
                "dispute.rejected"
            },
            ("dispute", id),
            &p.actor(),
            &json!({
                "charge_id": current.charge_id,
                "resolution_note": note,
                "charge_canceled": charge_canceled,
            }),
        )
        .await?;
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
