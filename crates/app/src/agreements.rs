//! Agreements (acordos): a customer's open charges renegotiated into a down payment and
//! monthly instalments. Proposing one changes nothing on the charges; accepting it moves
//! the originals `in_agreement` and makes one charge per schedule entry; it ends canceled
//! (a person), broken (the engine, when an instalment is long overdue: both unwind it, which
//! reinstates the balance on the originals, `store::agreements::unwind`) or fulfilled (the
//! engine, once every instalment is settled). The arithmetic is `domain::installments`.
//!
//! Each operation runs inside the caller's transaction, after the caller locked and read
//! the agreement where there is one (its `If-Match` is the caller's business).

use time::Date;

use dunning_domain::charge_math::{ChargeStatus, MAX_FINE_BP};
use dunning_domain::installments::{
    BREAK_AFTER_DAYS, MAX_INSTALLMENTS, ScheduleError, discounted_total, schedule as build_schedule,
};
use dunning_domain::money::Cents;
use dunning_models::response::{
    AgreementAcceptedData, AgreementEndedData, AgreementFulfilledData, AgreementProposedData,
    ChargeCanceledData, ChargeCreatedData, ChargeInAgreementData, ChargeReinstatedData,
};
use dunning_store::agreements::{
    self as store, AgreedCharge, Agreement, AgreementStatus, Ending, NewAgreement, Proposal,
    UnwindError, Unwinding, Unwound,
};
use dunning_store::charges::{self, Charge, ChargeFields};
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::retry::Failure;
use dunning_store::{Connection, ids};

use crate::{Refused, Result, automatic_pix, events, refusals, refuse};

/// What a proposal asks for (its fields checked against the document by the caller).
#[derive(Debug, Clone)]
pub struct Terms {
    pub customer_id: String,
    pub charge_ids: Vec<String>,
    pub down_payment: Cents,
    pub installments: i64,
    pub first_due_date: Date,
    /// Discount on the total due, in basis points.
    pub discount_bp: i64,
    pub note: Option<String>,
}

/// What names the rows these operations may find changed under them.
const CONCURRENT: Refused = Refused::Concurrent("agreement or one of its charges");

/// Propose an agreement on `terms`; its id. The charges are locked before they are read, so
/// that of proposals racing on one charge the later ones see the earlier one; the unique
/// index on live agreement charges is the last word if a writer ever skips the lock.
pub async fn propose(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    terms: &Terms,
    now: &str,
) -> Result<String> {
    let ids: Vec<&str> = terms.charge_ids.iter().map(String::as_str).collect();
    locks::lock_all(tx, Table::Charges, org, &ids).await?;
    let mut agreed = Vec::with_capacity(terms.charge_ids.len());
    for charge_id in &terms.charge_ids {
        let Some(charge) = charges::get_in(tx, org, charge_id).await? else {
            return refuse(Refused::Missing {
                what: "charge",
                id: charge_id.clone(),
            });
        };
        renegotiable(tx, org, &charge).await?;
        agreed.push(AgreedCharge {
            charge_id: charge_id.clone(),
            amount_cents: charge.amount_cents.0,
            paid_cents: charge.paid_cents.0,
            due_cents: charge.amount_due.0,
        });
    }
    let due = Cents(agreed.iter().map(|c| c.due_cents).sum());
    let total = discounted_total(due, terms.discount_bp);
    let payments = plan(
        total,
        terms.down_payment,
        terms.installments,
        terms.first_due_date,
    )
    .map_err(Failure::Refused)?;
    let new = NewAgreement {
        customer_id: terms.customer_id.clone(),
        charges: agreed,
        total_cents: total.0,
        down_payment_cents: terms.down_payment.0,
        installments: terms.installments,
        first_due_date: terms.first_due_date,
        discount_bp: terms.discount_bp,
        note: terms.note.clone(),
        schedule: payments,
    };
    let id = ids::new_id("agr");
    if let Proposal::ChargeTaken(charge_id) = store::insert(tx, org, &id, &new, now).await? {
        return refuse(Refused::rule(
            refusals::CHARGE_IN_AGREEMENT,
            format!(
                "Charge {charge_id} is already in another proposed or accepted agreement; accept or cancel that one first"
            ),
        ));
    }
    events::record(
        tx,
        org,
        "agreement.proposed",
        ("agreement", &id),
        actor,
        &AgreementProposedData {
            customer_id: &terms.customer_id,
            charge_ids: &terms.charge_ids,
            total_amount: total,
            down_payment: terms.down_payment,
            installments: terms.installments,
        },
    )
    .await?;
    Ok(id)
}

/// Refuse a charge that cannot go into a new agreement: not open, contested, an instalment
/// of an agreement, or already in a live (proposed or accepted) one.
async fn renegotiable(tx: &mut Connection, org: &str, charge: &Charge) -> Result<()> {
    let charge_id = &charge.id;
    if !charge.is_open() {
        return refuse(Refused::rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {charge_id} is {}; only pending or overdue charges can be renegotiated",
                charge.status
            ),
        ));
    }
    if let Some(dispute) = &charge.open_dispute_id {
        return refuse(Refused::rule(
            refusals::CHARGE_IN_DISPUTE,
            format!("Charge {charge_id} is contested in dispute {dispute}; resolve it first"),
        ));
    }
    if let Some(other) = &charge.agreement_id {
        return refuse(Refused::rule(
            refusals::CHARGE_IN_AGREEMENT,
            format!("Charge {charge_id} is an instalment of agreement {other}"),
        ));
    }
    if let Some(other) = store::live_for_charge(tx, org, charge_id).await? {
        return refuse(Refused::rule(
            refusals::CHARGE_IN_AGREEMENT,
            format!(
                "Charge {charge_id} is already in proposed agreement {other}; accept or cancel that one first"
            ),
        ));
    }
    Ok(())
}

/// The schedule of `total` (number, centavos, due date), or the field that makes it
/// impossible.
fn plan(
    total: Cents,
    down_payment: Cents,
    installments: i64,
    first_due_date: Date,
) -> std::result::Result<Vec<(i64, i64, Date)>, Refused> {
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
        Refused::Field {
            field,
            code: "range",
            message,
        }
    })?;
    Ok(payments
        .iter()
        .map(|x| (x.number, x.amount.0, x.due_date))
        .collect())
}

/// Accept the proposed `agreement` (locked and read by the caller): the originals go
/// `in_agreement` and one charge is created per schedule entry.
pub async fn accept(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    now: &str,
) -> Result<()> {
    let id = &agreement.id;
    if agreement.status != AgreementStatus::Proposed {
        return refuse(Refused::rule(
            refusals::AGREEMENT_NOT_PROPOSED,
            format!(
                "Agreement {id} is {}; only a proposed agreement can be accepted",
                agreement.status
            ),
        ));
    }
    // The agreement, then its charges: the order every writer locks them in.
    let charge_ids: Vec<&str> = agreement.charge_ids.iter().map(String::as_str).collect();
    locks::lock_all(tx, Table::Charges, org, &charge_ids).await?;
    let mut originals = Vec::with_capacity(agreement.charges.len());
    for agreed in &agreement.charges {
        let Some(charge) = charges::get_in(tx, org, &agreed.charge_id).await? else {
            return refuse(Refused::Missing {
                what: "charge",
                id: agreed.charge_id.clone(),
            });
        };
        still_as_proposed(tx, org, agreement, agreed, &charge).await?;
        originals.push(charge);
    }
    if !store::mark_accepted(tx, org, id, agreement.version, now).await? {
        return refuse(CONCURRENT);
    }
    for charge in &originals {
        if !store::move_charge_in(tx, org, &charge.id, charge.version, id, now).await? {
            return refuse(CONCURRENT);
        }
        events::record(
            tx,
            org,
            "charge.in_agreement",
            ("charge", &charge.id),
            actor,
            &ChargeInAgreementData { agreement_id: id },
        )
        .await?;
    }
    create_installments(tx, org, actor, agreement, now).await?;
    automatic_pix::agreement_accepted(tx, org, id, now).await?;
    events::record(
        tx,
        org,
        "agreement.accepted",
        ("agreement", id),
        actor,
        &AgreementAcceptedData {
            charge_ids: &agreement.charge_ids,
            total_amount: agreement.total_cents,
        },
    )
    .await?;
    Ok(())
}

/// One charge per schedule entry of an accepted agreement, linked to its entry.
async fn create_installments(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    now: &str,
) -> Result<()> {
    let (id, count) = (&agreement.id, agreement.installments);
    for entry in &agreement.installments_schedule {
        let description = if entry.number == 0 {
            format!("Acordo {id} — entrada")
        } else {
            format!("Acordo {id} — parcela {}/{count}", entry.number)
        };
        let fields = ChargeFields {
            description,
            amount_cents: entry.amount_cents.0,
            fine_bp: MAX_FINE_BP,
            interest_bp: 100,
            due_date: entry.due_date,
            tags: vec!["acordo".to_string()],
            collection_plan_id: None,
        };
        let charge_id = ids::new_id("chg");
        charges::insert(tx, org, &charge_id, &agreement.customer_id, &fields, now).await?;
        store::link_installment(tx, org, id, entry.number, &charge_id).await?;
        events::record(
            tx,
            org,
            "charge.created",
            ("charge", &charge_id),
            actor,
            &ChargeCreatedData {
                customer_id: &agreement.customer_id,
                amount: entry.amount_cents,
                due_date: entry.due_date.into(),
                agreement_id: Some(id),
                installment: Some(entry.number),
            },
        )
        .await?;
    }
    Ok(())
}

/// Refuse accepting `agreement` when an original charge changed since the proposal: no
/// longer open, paid or re-priced, contested, or in another live agreement.
async fn still_as_proposed(
    tx: &mut Connection,
    org: &str,
    agreement: &Agreement,
    agreed: &AgreedCharge,
    charge: &Charge,
) -> Result<()> {
    let rule = |code, detail| refuse(Refused::rule(code, detail));
    if !charge.is_open() {
        return rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {} is {} since the proposal; cancel this agreement and propose again",
                charge.id, charge.status
            ),
        );
    }
    if charge.amount_cents.0 != agreed.amount_cents || charge.paid_cents.0 != agreed.paid_cents {
        return rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {} changed since the proposal (its amount or payments); cancel this agreement and propose again",
                charge.id
            ),
        );
    }
    if let Some(dispute) = &charge.open_dispute_id {
        return rule(
            refusals::CHARGE_IN_DISPUTE,
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
        return rule(
            refusals::CHARGE_IN_AGREEMENT,
            format!(
                "Charge {} is in another proposed or accepted agreement; cancel this one",
                charge.id
            ),
        );
    }
    Ok(())
}

/// Cancel `agreement` (locked and read by the caller): a proposal just closes; an accepted
/// agreement is unwound, its open instalments canceled and the balance reinstated.
pub async fn cancel(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    reason: Option<&str>,
    today: Date,
    now: &str,
) -> Result<()> {
    let id = &agreement.id;
    let not_cancelable = |status: &str, why: &str| {
        refuse(Refused::rule(
            refusals::AGREEMENT_NOT_CANCELABLE,
            format!(
                "Agreement {id} is {status}{why}; only a proposed or accepted agreement can be canceled"
            ),
        ))
    };
    if agreement.status == AgreementStatus::Proposed {
        if !store::mark_ended(tx, org, agreement, Ending::Canceled, reason, now).await? {
            return refuse(CONCURRENT);
        }
        events::record(
            tx,
            org,
            "agreement.canceled",
            ("agreement", id),
            actor,
            &AgreementEndedData {
                reason,
                was: "proposed",
                installment_charges_canceled: &[],
                collected: Cents(0),
                reinstated_charge_ids: &[],
            },
        )
        .await?;
        automatic_pix::agreement_ended(tx, org, actor, id, now).await?;
        return Ok(());
    }
    if agreement.status != AgreementStatus::Accepted {
        return not_cancelable(agreement.status.as_str(), "");
    }
    let how = Unwinding {
        ending: Ending::Canceled,
        reason,
        actor,
        today,
        now,
    };
    match unwind(tx, org, agreement, &how).await? {
        Unwind::Done => Ok(automatic_pix::agreement_ended(tx, org, actor, id, now).await?),
        Unwind::NothingOpen => not_cancelable(
            "accepted",
            " with every instalment already settled (it is being marked fulfilled)",
        ),
        Unwind::Concurrent => refuse(CONCURRENT),
    }
}

/// What unwinding an accepted agreement came to.
enum Unwind {
    Done,
    /// Every instalment is settled already.
    NothingOpen,
    /// A row changed under us.
    Concurrent,
}

/// Unwind the accepted `agreement`, after locking its instalments and originals (the
/// instalments and the originals are written).
async fn unwind(
    tx: &mut Connection,
    org: &str,
    agreement: &Agreement,
    how: &Unwinding<'_>,
) -> dunning_store::Result<Unwind> {
    let mut charge_ids: Vec<&str> = agreement.charge_ids.iter().map(String::as_str).collect();
    charge_ids.extend(
        agreement
            .installments_schedule
            .iter()
            .filter_map(|entry| entry.charge_id.as_deref()),
    );
    locks::lock_all(tx, Table::Charges, org, &charge_ids).await?;
    match store::unwind(tx, org, agreement, how).await {
        Ok(unwound) => {
            record_unwound(tx, org, agreement, how, &unwound).await?;
            Ok(Unwind::Done)
        }
        Err(UnwindError::NothingOpen) => Ok(Unwind::NothingOpen),
        Err(UnwindError::Concurrent(_)) => Ok(Unwind::Concurrent),
        Err(UnwindError::Store(e)) => Err(e),
    }
}

/// The events of an unwound agreement: each instalment canceled, each original charge
/// reinstated, and the agreement's end.
async fn record_unwound(
    tx: &mut Connection,
    org: &str,
    agreement: &Agreement,
    how: &Unwinding<'_>,
    unwound: &Unwound,
) -> dunning_store::Result<()> {
    for charge_id in &unwound.canceled {
        events::record(
            tx,
            org,
            "charge.canceled",
            ("charge", charge_id),
            how.actor,
            &ChargeCanceledData {
                reason: Some(&unwound.cancel_reason),
                dispute_id: None,
                agreement_id: Some(&agreement.id),
            },
        )
        .await?;
    }
    for charge in &unwound.reinstated_charges {
        events::record(
            tx,
            org,
            "charge.reinstated",
            ("charge", &charge.charge_id),
            how.actor,
            &ChargeReinstatedData {
                agreement_id: &agreement.id,
                credited: charge.credit,
                paid_amount: charge.paid,
                amount_due: charge.due,
                status: if charge.due.0 == 0 { "paid" } else { "open" },
            },
        )
        .await?;
    }
    let reinstated: Vec<String> = unwound.reinstated.iter().map(|r| r.0.clone()).collect();
    events::record(
        tx,
        org,
        how.ending.event(),
        ("agreement", &agreement.id),
        how.actor,
        &AgreementEndedData {
            reason: how.reason,
            was: "accepted",
            installment_charges_canceled: &unwound.canceled,
            collected: unwound.collected,
            reinstated_charge_ids: &reinstated,
        },
    )
    .await
}

/// Break the accepted `agreement` (one of its instalments is long overdue): unwound as a
/// cancellation is, by `actor` (the engine). False when it was settled or changed meanwhile
/// (the next look sees it as it is then).
pub async fn break_overdue(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    today: Date,
    now: &str,
) -> dunning_store::Result<bool> {
    if agreement.status != AgreementStatus::Accepted {
        return Ok(false);
    }
    // The engine finds candidates by the stored due dates; an instalment counts as overdue
    // from its effective due date (a weekend or holiday moves it), so look again.
    let installments = store::installment_charges(tx, org, agreement).await?;
    let overdue = installments.iter().any(|c| {
        c.is_open()
            && c.open_dispute_id.is_none()
            && (today - c.effective_due_date).whole_days() > BREAK_AFTER_DAYS
    });
    if !overdue {
        return Ok(false);
    }
    let how = Unwinding {
        ending: Ending::Broken,
        reason: None,
        actor,
        today,
        now,
    };
    if !matches!(unwind(tx, org, agreement, &how).await?, Unwind::Done) {
        return Ok(false);
    }
    automatic_pix::agreement_ended(tx, org, actor, &agreement.id, now).await?;
    Ok(true)
}

/// Mark the accepted `agreement` fulfilled when none of its instalments is open any more,
/// with the event saying what was paid and what canceled. False when it is not settled yet,
/// or changed meanwhile.
pub async fn fulfill_if_settled(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    now: &str,
) -> dunning_store::Result<bool> {
    if agreement.status != AgreementStatus::Accepted {
        return Ok(false);
    }
    let installments = store::installment_charges(tx, org, agreement).await?;
    if installments.iter().any(Charge::is_open) {
        return Ok(false);
    }
    if !store::mark_ended(tx, org, agreement, Ending::Fulfilled, None, now).await? {
        return Ok(false);
    }
    let with = |status| -> Vec<String> {
        installments
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.id.clone())
            .collect()
    };
    let collected: i64 = installments.iter().map(|c| c.paid_cents.0).sum();
    events::record(
        tx,
        org,
        Ending::Fulfilled.event(),
        ("agreement", &agreement.id),
        actor,
        &AgreementFulfilledData {
            paid_charge_ids: &with(ChargeStatus::Paid),
            canceled_charge_ids: &with(ChargeStatus::Canceled),
            collected: Cents(collected),
        },
    )
    .await?;
    automatic_pix::agreement_ended(tx, org, actor, &agreement.id, now).await?;
    Ok(true)
}
