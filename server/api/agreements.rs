//! `/v1/agreements`: renegotiation agreements (acordos) of a customer's open charges into a
//! down payment and monthly instalments. The arithmetic is `domain::installments`; the rows
//! and the unwinding of an agreement that ends unpaid are `store::agreements`.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde_json::{Value, json};
use sqlx::AnyConnection;
use time::Date;

use super::caller::{Caller, find};
use super::idempotency::commit_written;
use super::input::Input;
use super::problem::{ApiError, ApiResult, FieldError};
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::domain::installments::{
    MAX_INSTALLMENTS, ScheduleError, discounted_total, schedule as build_schedule,
};
use crate::domain::money::Cents;
use crate::store::agreements::{
    self as store, AgreedCharge, Agreement, AgreementFilter, AgreementStatus, Ending, NewAgreement,
    Proposal, STATUSES, UnwindError, Unwinding,
};
use crate::store::charges::{self, Charge, ChargeFields};
use crate::store::locks::{self, Table};
use crate::store::retry::{self, Failure};
use crate::store::{customers, events, ids, now_text, today};

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

fn concurrent() -> ApiError {
    ApiError::concurrent_update("agreement or one of its charges")
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

    // The charges are locked before they are read, so that of proposals racing on one charge
    // the later ones see the earlier one; the unique index on live agreement charges is the
    // last word if a writer ever skips the lock.
    let (db, p, org) = (&state.db, &p, p.organization_id.as_str());
    let (customer_id, charge_ids, note, first_due_date) =
        (&customer_id, &charge_ids, &note, &first_due_date);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        let ids: Vec<&str> = charge_ids.iter().map(String::as_str).collect();
        locks::lock_all(tx, Table::Charges, org, &ids).await?;
        let mut agreed = Vec::with_capacity(charge_ids.len());
        for charge_id in charge_ids {
            let charge = charges::get_in(tx, org, charge_id)
                .await?
                .ok_or_else(|| Failure::Refused(ApiError::not_found("charge", charge_id)))?;
            renegotiable(tx, org, &charge).await?;
            agreed.push(AgreedCharge {
                charge_id: charge_id.clone(),
                amount_cents: charge.amount_cents.0,
                paid_cents: charge.paid_cents.0,
                due_cents: charge.amount_due.0,
            });
        }
        let due = Cents(agreed.iter().map(|c| c.due_cents).sum());
        let total = discounted_total(due, discount_bp);
        let payments = plan(total, down_payment, installments, *first_due_date)
            .map_err(Failure::Refused)?;
        let new = NewAgreement {
            customer_id: customer_id.clone(),
            charges: agreed,
            total_cents: total.0,
            down_payment_cents: down_payment.0,
            installments,
            first_due_date: *first_due_date,
            discount_bp,
            note: note.clone(),
            schedule: payments,
        };
        let id = ids::new_id("agr");
        if let Proposal::ChargeTaken(charge_id) =
            store::insert(tx, org, &id, &new, &now_text()).await?
        {
            return Err(Failure::Refused(ApiError::conflict(
                "charge_in_agreement",
                format!(
                    "Charge {charge_id} is already in another proposed or accepted agreement; accept or cancel that one first"
                ),
            )));
        }
        events::record(
            tx,
            org,
            "agreement.proposed",
            ("agreement", &id),
            &p.actor(),
            &json!({
                "customer_id": customer_id,
                "charge_ids": charge_ids,
                "total_amount": total.to_reais(),
                "down_payment": down_payment.to_reais(),
                "installments": installments,
            }),
        )
        .await?;
        let agreement = store::get_in(tx, org, &id).await?;
        commit_written(agreement, "agreement", transaction, |a| {
            created(to_json(&a), a.version)
        })
        .await
    })
    .await
}

/// Refuse (409) a charge that cannot go into a new agreement: not open, contested, an
/// instalment of an agreement, or already in a live (proposed or accepted) one.
async fn renegotiable(
    tx: &mut AnyConnection,
    org: &str,
    charge: &Charge,
) -> Result<(), Failure<ApiError>> {
    let charge_id = &charge.id;
    if !charge.is_open() {
        return Err(Failure::Refused(ApiError::conflict(
            "charge_not_open",
            format!(
                "Charge {charge_id} is {}; only pending or overdue charges can be renegotiated",
                charge.status
            ),
        )));
    }
    if let Some(dispute) = &charge.open_dispute_id {
        return Err(Failure::Refused(ApiError::conflict(
            "charge_in_dispute",
            format!("Charge {charge_id} is contested in dispute {dispute}; resolve it first"),
        )));
    }
    if let Some(other) = &charge.agreement_id {
        return Err(Failure::Refused(ApiError::conflict(
            "charge_in_agreement",
            format!("Charge {charge_id} is an instalment of agreement {other}"),
        )));
    }
    if let Some(other) = store::live_for_charge(tx, org, charge_id).await? {
        return Err(Failure::Refused(ApiError::conflict(
            "charge_in_agreement",
            format!(
                "Charge {charge_id} is already in proposed agreement {other}; accept or cancel that one first"
            ),
        )));
    }
    Ok(())
}

/// The schedule of `total` (number, centavos, due date), or the 400 saying which field
/// makes it impossible.
fn plan(
    total: Cents,
    down_payment: Cents,
    installments: i64,
    first_due_date: Date,
) -> ApiResult<Vec<(i64, i64, Date)>> {
    let payments = build_schedule(total, down_payment, installments, first_due_date).map_err(|e| {
        let (field, message) = match e {
            ScheduleError::DownPaymentTooLarge => (
                "down_payment",
                format!(
                    "Must be less than the total of the agreement ({})",
                    total.to_brl()
                ),
            ),
            ScheduleError::InstallmentsTooSmall => (
                "installments",
                format!(
                    "Each instalment must be at least R$ 0,01; {} is left after the down payment",
                    Cents(total.0 - down_payment.0).to_brl()
                ),
            ),
            ScheduleError::InstallmentCount => (
                "installments",
                format!("Must be between 1 and {MAX_INSTALLMENTS}"),
            ),
            ScheduleError::TooFarAhead => (
                "first_due_date",
                "The schedule would end after the year 9999".to_string(),
            ),
        };
        ApiError::validation(vec![FieldError::new(field, "range", message)])
    })?;
    Ok(payments
        .iter()
        .map(|x| (x.number, x.amount.0, x.due_date))
        .collect())
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
        let now = now_text();
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        // The agreement, then its charges: the order every writer locks them in.
        let agreement = locked(tx, org, id, headers).await?;
        if agreement.status != AgreementStatus::Proposed {
            return Err(Failure::Refused(ApiError::conflict(
                "agreement_not_proposed",
                format!(
                    "Agreement {id} is {}; only a proposed agreement can be accepted",
                    agreement.status
                ),
            )));
        }
        let charge_ids: Vec<&str> = agreement.charge_ids.iter().map(String::as_str).collect();
        locks::lock_all(tx, Table::Charges, org, &charge_ids).await?;
        let mut originals = Vec::with_capacity(agreement.charges.len());
        for agreed in &agreement.charges {
            let charge = charges::get_in(tx, org, &agreed.charge_id)
                .await?
                .ok_or_else(|| {
                    Failure::Refused(ApiError::not_found("charge", &agreed.charge_id))
                })?;
            still_as_proposed(tx, org, &agreement, agreed, &charge).await?;
            originals.push(charge);
        }
        if !store::mark_accepted(tx, org, id, agreement.version, &now).await? {
            return Err(Failure::Refused(concurrent()));
        }
        for charge in &originals {
            if !store::move_charge_in(tx, org, &charge.id, charge.version, id, &now).await? {
                return Err(Failure::Refused(concurrent()));
            }
            events::record(
                tx,
                org,
                "charge.in_agreement",
                ("charge", &charge.id),
                &p.actor(),
                &json!({ "agreement_id": id }),
            )
            .await?;
        }
        let count = agreement.installments;
        for entry in &agreement.installments_schedule {
            let description = if entry.number == 0 {
                format!("Acordo {id} — entrada")
            } else {
                format!("Acordo {id} — parcela {}/{count}", entry.number)
            };
            let fields = ChargeFields {
                description,
                amount_cents: entry.amount_cents.0,
                fine_bp: crate::domain::charge_math::MAX_FINE_BP,
                interest_bp: 100,
                due_date: entry.due_date,
                tags: vec!["acordo".to_string()],
                collection_plan_id: None,
            };
            let charge_id = ids::new_id("chg");
            charges::insert(tx, org, &charge_id, &agreement.customer_id, &fields, &now).await?;
            store::link_installment(tx, org, id, entry.number, &charge_id).await?;
            events::record(
                tx,
                org,
                "charge.created",
                ("charge", &charge_id),
                &p.actor(),
                &json!({
                    "customer_id": agreement.customer_id,
                    "amount": entry.amount_cents.to_reais(),
                    "due_date": entry.due_date.to_string(),
                    "agreement_id": id,
                    "installment": entry.number,
                }),
            )
            .await?;
        }
        events::record(
            tx,
            org,
            "agreement.accepted",
            ("agreement", id),
            &p.actor(),
            &json!({
                "charge_ids": agreement.charge_ids,
                "total_amount": agreement.total_cents.to_reais(),
            }),
        )
        .await?;
        let agreement = store::get_in(tx, org, id).await?;
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

/// Refuse (409) accepting `agreement` when an original charge changed since the proposal:
/// no longer open, paid or re-priced, contested, or in another live agreement.
async fn still_as_proposed(
    tx: &mut AnyConnection,
    org: &str,
    agreement: &Agreement,
    agreed: &AgreedCharge,
    charge: &Charge,
) -> Result<(), Failure<ApiError>> {
    let refuse = |code, detail| Err(Failure::Refused(ApiError::conflict(code, detail)));
    if !charge.is_open() {
        return refuse(
            "charge_not_open",
            format!(
                "Charge {} is {} since the proposal; cancel this agreement and propose again",
                charge.id, charge.status
            ),
        );
    }
    if charge.amount_cents.0 != agreed.amount_cents || charge.paid_cents.0 != agreed.paid_cents {
        return refuse(
            "charge_not_open",
            format!(
                "Charge {} changed since the proposal (its amount or payments); cancel this agreement and propose again",
                charge.id
            ),
        );
    }
    if let Some(dispute) = &charge.open_dispute_id {
        return refuse(
            "charge_in_dispute",
            format!(
                "Charge {} is contested in dispute {dispute} since the proposal; resolve it first",
                charge.id
            ),
        );
    }
    // Only where two proposals on one charge predate the unique index (migration 7).
    if store::live_for_charge(tx, org, &charge.id)
        .await?
        .as_deref()
        != Some(agreement.id.as_str())
    {
        return refuse(
            "charge_in_agreement",
            format!(
                "Charge {} is in another proposed or accepted agreement; cancel this one",
                charge.id
            ),
        );
    }
    Ok(())
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
    let not_cancelable = |status: &str, why: &str| {
        Failure::Refused(ApiError::conflict(
            "agreement_not_cancelable",
            format!(
                "Agreement {id} is {status}{why}; only a proposed or accepted agreement can be canceled"
            ),
        ))
    };
    let (db, p, org, id, headers, reason) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &reason,
    );
    let not_cancelable = &not_cancelable;
    retry::run(|| async move {
        let now = now_text();
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        let agreement = locked(tx, org, id, headers).await?;
        if agreement.status == AgreementStatus::Proposed {
            if !store::mark_ended(
                tx,
                org,
                &agreement,
                Ending::Canceled,
                reason.as_deref(),
                &now,
            )
            .await?
            {
                return Err(Failure::Refused(concurrent()));
            }
            events::record(
                tx,
                org,
                "agreement.canceled",
                ("agreement", id),
                &p.actor(),
                &json!({ "reason": reason, "was": "proposed" }),
            )
            .await?;
            return commit_written(
                store::get_in(tx, org, id).await?,
                "agreement",
                transaction,
                |agreement| data_with_etag(to_json(&agreement), agreement.version),
            )
            .await;
        }
        if agreement.status != AgreementStatus::Accepted {
            return Err(not_cancelable(agreement.status.as_str(), ""));
        }
        // Unwinding writes the instalments and the originals.
        let mut charge_ids: Vec<&str> = agreement.charge_ids.iter().map(String::as_str).collect();
        charge_ids.extend(
            agreement
                .installments_schedule
                .iter()
                .filter_map(|entry| entry.charge_id.as_deref()),
        );
        locks::lock_all(tx, Table::Charges, org, &charge_ids).await?;
        let how = Unwinding {
            ending: Ending::Canceled,
            reason: reason.as_deref(),
            actor: &p.actor(),
            today: today(),
            now: &now,
        };
        match store::unwind(tx, org, &agreement, &how).await {
            Ok(_) => {}
            Err(UnwindError::NothingOpen) => {
                return Err(not_cancelable(
                    "accepted",
                    " with every instalment already settled (it is being marked fulfilled)",
                ));
            }
            Err(UnwindError::Concurrent(_)) => return Err(Failure::Refused(concurrent())),
            Err(UnwindError::Store(e)) => return Err(Failure::Store(e)),
        }
        commit_written(
            store::get_in(tx, org, id).await?,
            "agreement",
            transaction,
            |agreement| data_with_etag(to_json(&agreement), agreement.version),
        )
        .await
    })
    .await
}
