//! The shapes that several handler modules answer with: a charge (its reads and changes, and
//! the actions of `collection`), a delivery (its reads, and every action that queues one),
//! an event (the audit trail and a charge's timeline). Each resource's other shapes stay
//! beside its handlers.

use super::words::Word;
use axum::response::IntoResponse;
use http::StatusCode;

use super::reply::{self, Reply};
use crate::generated::models::{self, response};
use crate::http::problem::{ApiError, ApiResult};
use dunning_store::charges::Charge as StoredCharge;
use dunning_store::deliveries::Delivery;
use dunning_store::events::Event;
use dunning_store::{Page, PageRequest};

/// A charge as the API shows it: money in reais, rates in percent, the status and amount due
/// of today (Brasília) with its parts. Borrowed from the charge and serialised as it is: a list page writes 25 of
/// them, and building a `Value` map for each cost 15 % of a list's server time (bench).
pub(in crate::api) fn charge(c: &StoredCharge) -> response::Charge<'_> {
    response::Charge {
        id: &c.id,
        customer_id: &c.customer_id,
        description: &c.description,
        amount: c.amount_cents,
        paid_amount: c.paid_cents,
        fine_percent: c.fine_bp as f64 / 100.0,
        interest_percent: c.interest_bp as f64 / 100.0,
        amount_due: c.amount_due,
        principal_due: c.owed.principal,
        fine_due: c.owed.fine,
        interest_due: c.owed.interest,
        due_date: c.due_date.into(),
        effective_due_date: c.effective_due_date.into(),
        status: c.status.word(),
        tags: &c.tags,
        collection_plan_id: c.collection_plan_id.as_deref(),
        agreement_id: c.agreement_id.as_deref(),
        negativation_status: c.negativation_status.word(),
        protest_status: c.protest_status.word(),
        paid_at: c.paid_at,
        canceled_at: c.canceled_at,
        created_at: c.created_at,
        updated_at: c.updated_at,
    }
}

/// A charge with its ETag: the answer of a read or a change.
pub(in crate::api) fn charge_answer(charge: StoredCharge) -> Reply {
    let body = response::ChargeResponse {
        data: self::charge(&charge),
    };
    reply::answer(StatusCode::OK, &body, Some(charge.version))
}

/// A delivery as the API shows it (not its provider or organization). The channel is stored
/// as text: a word the document does not list is our own fault.
pub(in crate::api) fn delivery(d: &Delivery) -> ApiResult<response::Delivery<'_>> {
    let channel = models::Channel::from_word(&d.channel).ok_or_else(|| {
        ApiError::internal(format!("delivery {} has channel '{}'", d.id, d.channel))
    })?;
    Ok(response::Delivery {
        id: &d.id,
        charge_id: &d.charge_id,
        customer_id: &d.customer_id,
        channel,
        status: d.status.word(),
        recipient: &d.recipient,
        subject: d.subject.as_deref(),
        body: &d.body,
        step_id: d.step_id.as_deref(),
        attempts: d.attempts,
        error: d.error.as_deref(),
        sent_at: d.sent_at,
        created_at: d.created_at,
    })
}

/// A delivery with its ETag and `status`: the answer of a read (200) or of an action that
/// queued it (202).
pub(in crate::api) fn delivery_answer(status: StatusCode, d: &Delivery) -> ApiResult<Reply> {
    let body = response::DeliveryResponse {
        data: self::delivery(d)?,
    };
    Ok(reply::answer(status, &body, Some(d.version)))
}

/// The 202 answer with a delivery just queued (read back inside its transaction).
pub(in crate::api) fn delivery_accepted(delivery: Delivery) -> Reply {
    delivery_answer(StatusCode::ACCEPTED, &delivery).unwrap_or_else(IntoResponse::into_response)
}

/// An event as the API shows it (also in a charge's timeline). The lists read a missing
/// actor name as the system's (`dunning_store::events`); the data is always an object.
pub(in crate::api) fn event(e: &Event) -> ApiResult<response::Event<'_>> {
    let fault = |what: &str| ApiError::internal(format!("event {} has {what}", e.id));
    Ok(response::Event {
        id: &e.id,
        r#type: &e.kind,
        subject_type: &e.subject_type,
        subject_id: &e.subject_id,
        actor: response::EventActor {
            r#type: models::EventActorType::from_word(e.actor.kind)
                .ok_or_else(|| fault(&format!("actor type '{}'", e.actor.kind)))?,
            id: e.actor.id.as_deref(),
            name: e
                .actor
                .name
                .as_deref()
                .ok_or_else(|| fault("no actor name"))?,
        },
        data: e
            .data
            .as_object()
            .ok_or_else(|| fault("data that is not an object"))?,
        created_at: e.created_at,
    })
}

/// A page of events: the answer of the audit trail and of a charge's timeline.
pub(in crate::api) fn event_list(rows: &Page<Event>, page: PageRequest) -> ApiResult<Reply> {
    let body = response::EventList {
        data: rows.items.iter().map(event).collect::<ApiResult<_>>()?,
        meta: reply::page_meta(rows, page),
    };
    Ok(reply::answer(StatusCode::OK, &body, None))
}
