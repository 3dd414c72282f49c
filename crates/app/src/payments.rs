//! Money received for a charge, partial payments allowed: the payment row, the charge's paid
//! amount (paid in full when it reaches what is due, which asks the bureau to remove a
//! negativation), and their events.

use serde_json::json;
use time::Date;

use dunning_domain::collection::NegativationStatus;
use dunning_domain::money::Cents;
use dunning_store::Connection;
use dunning_store::charges::Charge;
use dunning_store::collection::{self as store, Payment};
use dunning_store::events::{self, Actor};

use crate::collection::amount_due_on;
use crate::{Refused, Result, refuse};

/// A payment as received.
#[derive(Debug, Clone, Copy)]
pub struct Received<'a> {
    pub amount: Cents,
    /// `pix`, `boleto`, `card`, `transfer`, `cash` or `other`.
    pub method: &'a str,
    pub note: Option<&'a str>,
    /// When the money arrived (stored text).
    pub paid_at: &'a str,
}

/// Record `received` on `charge` (locked and read by the caller, so that of payments racing
/// on one charge each sees those committed before it: together they never pay more than is
/// due on `today`). The payment's id.
pub async fn pay(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    charge: &Charge,
    received: Received<'_>,
    today: Date,
    now: &str,
) -> Result<String> {
    let id = charge.id.as_str();
    if !charge.is_open() {
        return refuse(Refused::rule(
            "charge_not_open",
            format!(
                "Charge {id} is {}; only pending or overdue charges take payments (pay the instalment charges of an agreement instead)",
                charge.status
            ),
        ));
    }
    let due = amount_due_on(charge, today);
    if received.amount > due {
        return refuse(Refused::PaymentExceedsDue {
            charge_id: id.to_string(),
            amount: received.amount,
            due,
        });
    }
    let settles = received.amount == due;
    let payment = Payment {
        charge_id: id,
        amount_cents: received.amount.0,
        method: received.method,
        note: received.note,
        paid_at: received.paid_at,
    };
    if !store::apply_payment(tx, org, &payment, charge.version, settles, now).await? {
        return refuse(Refused::Concurrent("charge"));
    }
    let payment_id = store::insert_payment(tx, org, &payment, now).await?;
    events::record(
        tx,
        org,
        "charge.payment_recorded",
        ("charge", id),
        actor,
        &json!({
            "payment_id": payment_id,
            "amount": received.amount.to_reais(),
            "method": received.method,
            "paid_at": received.paid_at,
            "note": received.note,
            "amount_due_before": due.to_reais(),
        }),
    )
    .await?;
    if !settles {
        return Ok(payment_id);
    }
    events::record(
        tx,
        org,
        "charge.paid",
        ("charge", id),
        actor,
        &json!({
            "paid_amount": Cents(charge.paid_cents.0 + received.amount.0).to_reais(),
            "paid_at": received.paid_at,
        }),
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
            &json!({ "bureau": bureau, "reason": "paid" }),
        )
        .await?;
    }
    Ok(payment_id)
}
