//! The shapes that several handler modules answer with: a charge (its reads and changes, and
//! the actions of `collection`), a delivery (its reads, and every action that queues one),
//! an event (the audit trail and a charge's timeline). Each resource's other shapes stay
//! beside its handlers.

use http::StatusCode;
use serde_json::{Value, json};

use super::reply::{self, Reply};
use crate::generated::models::response;
use dunning_store::charges::Charge as StoredCharge;
use dunning_store::deliveries::Delivery;
use dunning_store::events::Event;

/// A charge as the API shows it: money in reais, rates in percent, the status and amount due
/// of today. Borrowed from the charge and serialised as it is: a list page writes 25 of
/// them, and building a `Value` map for each cost 15 % of a list's server time (bench).
pub(super) fn charge(c: &StoredCharge) -> response::Charge<'_> {
    response::Charge {
        id: &c.id,
        customer_id: &c.customer_id,
        description: &c.description,
        amount: c.amount_cents,
        paid_amount: c.paid_cents,
        fine_percent: c.fine_bp as f64 / 100.0,
        interest_percent: c.interest_bp as f64 / 100.0,
        amount_due: c.amount_due,
        due_date: c.due_date,
        status: c.status.into(),
        tags: &c.tags,
        collection_plan_id: c.collection_plan_id.as_deref(),
        agreement_id: c.agreement_id.as_deref(),
        negativation_status: c.negativation_status.into(),
        protest_status: c.protest_status.into(),
        paid_at: c.paid_at,
        canceled_at: c.canceled_at,
        created_at: c.created_at,
        updated_at: c.updated_at,
    }
}

/// A charge with its ETag: the answer of a read or a change.
pub(super) fn charge_answer(charge: StoredCharge) -> Reply {
    let body = response::ChargeResponse {
        data: self::charge(&charge),
    };
    reply::answer(StatusCode::OK, &body, Some(charge.version))
}

/// A delivery as the API shows it (not its provider or organization).
pub(super) fn delivery(d: &Delivery) -> Value {
    json!({
        "id": d.id,
        "charge_id": d.charge_id,
        "customer_id": d.customer_id,
        "channel": d.channel,
        "status": d.status,
        "recipient": d.recipient,
        "subject": d.subject,
        "body": d.body,
        "step_id": d.step_id,
        "attempts": d.attempts,
        "error": d.error,
        "sent_at": d.sent_at,
        "created_at": d.created_at,
    })
}

/// The 202 answer with a delivery just queued (read back inside its transaction).
pub(super) fn delivery_accepted(delivery: Delivery) -> Reply {
    reply::accepted(self::delivery(&delivery), delivery.version)
}

/// An event as the API shows it (also in a charge's timeline).
pub(super) fn event(e: &Event) -> Value {
    json!({
        "id": e.id,
        "type": e.kind,
        "subject_type": e.subject_type,
        "subject_id": e.subject_id,
        "actor": {
            "type": e.actor.kind,
            "id": e.actor.id,
            "name": e.actor.name,
        },
        "data": e.data,
        "created_at": e.created_at,
    })
}
