//! Money received for a charge, partial payments allowed: the payment row, the charge's paid
//! amount and its payments by day (paid in full when nothing is left owing, which asks the
//! bureau to remove a negativation), and their events.
//!
//! A payment counts on the day it was made in Brasília, wherever it falls among the charge's
//! other payments (`charge_math`): made by the end of the effective due date it pays the
//! principal alone; after it, the interest and fine first. One that would pay more than is
//! owed, on its day or because of it later, is refused whole.

use time::Date;

use dunning_domain::calendar::day_of;
use dunning_domain::charge_math::{ChargeTerms, amount_due, balance};
use dunning_domain::collection::NegativationStatus;
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;
use dunning_models::response::{
    ChargeNegativationRemovalRequestedData, ChargePaidData, ChargePaymentRecordedData,
};
use dunning_store::Connection;
use dunning_store::charges::Charge;
use dunning_store::collection::{self as store, Payment};
use dunning_store::events::Actor;

use crate::{Refused, Result, events, refusals, refuse};

/// A payment as received.
#[derive(Debug, Clone, Copy)]
pub struct Received<'a> {
    pub amount: Cents,
    /// `pix`, `boleto`, `card`, `transfer`, `cash` or `other`.
    pub method: &'a str,
    pub note: Option<&'a str>,
    /// When the money arrived.
    pub paid_at: Timestamp,
}

/// A payment recorded: its id, and whether it settled the charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub payment_id: String,
    pub settled: bool,
}

/// Record `received` on `charge` (locked and read by the caller, so that of payments racing
/// on one charge each sees those committed before it: together they never pay more than is
/// owed). `today` is the day whose balance decides whether the charge is settled (a payment
/// dated later than it is looked at on its own day).
pub async fn pay(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    charge: &Charge,
    received: Received<'_>,
    today: Date,
    now: &str,
) -> Result<Recorded> {
    let id = charge.id.as_str();
    if !charge.is_open() {
        return refuse(Refused::rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {id} is {}; only pending or overdue charges take payments (pay the instalment charges of an agreement instead)",
                charge.status
            ),
        ));
    }
    let day = day_of(received.paid_at.instant());
    // What was owed on the payment's day, before it (what the refusal and the event show).
    let due = amount_due(&charge.terms(), day);
    let mut payment_days = charge.payment_days.clone();
    payment_days.add(day, received.amount);
    let after = balance(
        &ChargeTerms {
            payments: payment_days.days(),
            ..charge.terms()
        },
        today.max(day),
    );
    if after.excess.0 > 0 {
        return refuse(Refused::PaymentExceedsDue {
            charge_id: id.to_string(),
            amount: received.amount,
            due: Cents(received.amount.0 - after.excess.0),
        });
    }
    let settles = after.owed.total().0 == 0;
    let paid_at = received.paid_at.to_string();
    let payment = Payment {
        charge_id: id,
        amount_cents: received.amount.0,
        method: received.method,
        note: received.note,
        paid_at: &paid_at,
    };
    let days_text = payment_days.to_string();
    if !store::apply_payment(tx, org, &payment, &days_text, charge.version, settles, now).await? {
        return refuse(Refused::Concurrent("charge"));
    }
    let payment_id = store::insert_payment(tx, org, &payment, now).await?;
    events::record(
        tx,
        org,
        "charge.payment_recorded",
        ("charge", id),
        actor,
        &ChargePaymentRecordedData {
            payment_id: &payment_id,
            amount: received.amount,
            method: received.method,
            paid_at: received.paid_at,
            paid_on: day.into(),
            note: received.note,
            amount_due_before: due,
            amount_due_after: after.owed.total(),
        },
    )
    .await?;
    if !settles {
        return Ok(Recorded {
            payment_id,
            settled: false,
        });
    }
    events::record(
        tx,
        org,
        "charge.paid",
        ("charge", id),
        actor,
        &ChargePaidData {
            paid_amount: Cents(charge.paid_cents.0 + received.amount.0),
            paid_at: received.paid_at,
        },
    )
    .await?;
    if matches!(
        charge.negativation_status,
        NegativationStatus::Requested | NegativationStatus::Active
    ) {
        let bureau = store::negativation_bureau(tx, org, id).await?;
        events::record(
            tx,
            org,
            "charge.negativation_removal_requested",
            ("charge", id),
            actor,
            &ChargeNegativationRemovalRequestedData {
                bureau: bureau.as_deref(),
                reason: "paid",
            },
        )
        .await?;
    }
    Ok(Recorded {
        payment_id,
        settled: true,
    })
}
