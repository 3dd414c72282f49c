//! Collection actions shared by the `/v1` handlers and the collection plans: queue a notice,
//! request a negativation or protest, or their withdrawal.
//!
//! Each action runs inside the caller's transaction: it reads the charge there, asks
//! `domain::collection` whether the rules allow it, writes the change and its events. A
//! refusal comes back as a [`Refusal`] with the stable code the API answers and the plan
//! records, and nothing is written.

use time::{Date, OffsetDateTime};

use dunning_domain::charge_math::amount_due;
use dunning_domain::collection::{
    self as rules, ChargeFacts, NegativationStatus, NoticeValues, ProtestStatus, Refusal,
};
use dunning_domain::money::Cents;
use dunning_models::response::{
    ChargeNegativationRemovalRequestedData, ChargeNegativationRequestedData, ChargeNotifiedData,
    ChargeProtestRequestedData,
};
use dunning_store::charges::{self, Charge};
use dunning_store::collection::{self as store, StatusMove};
use dunning_store::customers::Customer;
use dunning_store::deliveries::{self, NewDelivery};
use dunning_store::events::Actor;
use dunning_store::{Connection, Result, StoreError, ids, timestamp_text};

use crate::{events, refusals};

/// What an action gives back: done (with a value), or refused by a rule.
pub type Outcome<T> = std::result::Result<T, Refusal>;

fn parse_date(text: &str) -> Result<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text, &format).map_err(|e| StoreError::Corrupt(format!("date {text}: {e}")))
}

/// What the rules look at, from a charge as read.
pub fn facts(charge: &Charge) -> ChargeFacts<'_> {
    ChargeFacts {
        id: &charge.id,
        state: charge.status.state(),
        due_date: charge.effective_due_date,
        in_dispute: charge.open_dispute_id.is_some(),
        negativation_status: charge.negativation_status,
        protest_status: charge.protest_status,
    }
}

/// What the debtor owes on `on` (the API's `amount_due`, for any day).
pub fn amount_due_on(charge: &Charge, on: Date) -> Cents {
    if !charge.is_open() {
        return Cents(0);
    }
    amount_due(&charge.terms(), on)
}

async fn read_charge(conn: &mut Connection, organization_id: &str, id: &str) -> Result<Charge> {
    charges::get_in(conn, organization_id, id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("charge {id} vanished inside a transaction")))
}

pub(crate) async fn read_customer(
    conn: &mut Connection,
    organization_id: &str,
    id: &str,
) -> Result<Customer> {
    dunning_store::customers::get_in(conn, organization_id, id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("customer {id} of a charge is missing")))
}

/// The address a channel reaches the customer at.
pub fn contact<'a>(customer: &'a Customer, channel: &str) -> Option<&'a str> {
    match channel {
        "email" => customer.email.as_deref(),
        _ => customer.phone.as_deref(),
    }
    .filter(|c| !c.is_empty())
}

/// A notice to send: new text, or the text of an earlier delivery sent again.
#[derive(Debug, Clone)]
pub enum NoticeText<'a> {
    /// The standard text for the charge's situation, or this template filled in.
    Compose { template: Option<&'a str> },
    /// The subject and body of an earlier delivery (resend).
    Repeat {
        subject: Option<&'a str>,
        body: &'a str,
        resent_from: &'a str,
    },
    /// A text the caller wrote for this notice (the authorization of Pix Automático).
    Given { subject: &'a str, body: &'a str },
}

/// What every action takes besides its own fields: which charge, in which organization,
/// who asks and when, and the version the caller saw when the charge must not have moved
/// since (`None` for the engine, which acts on the charge as it is).
#[derive(Debug, Clone, Copy)]
pub struct ActionContext<'a> {
    pub organization_id: &'a str,
    pub charge_id: &'a str,
    pub version: Option<i64>,
    pub actor: &'a Actor,
    pub now: OffsetDateTime,
}

/// Queue a notice on `channel` to the debtor of a charge: refused when the charge is not open
/// or in dispute, the customer opted out of the channel or has no contact for it. Returns the
/// delivery id; the event `charge.notified` goes with it.
pub async fn notify(
    conn: &mut Connection,
    cx: &ActionContext<'_>,
    channel: &str,
    text: NoticeText<'_>,
    step_id: Option<&str>,
) -> Result<Outcome<String>> {
    let (organization_id, charge_id, now) = (cx.organization_id, cx.charge_id, cx.now);
    let charge = read_charge(conn, organization_id, charge_id).await?;
    let customer = read_customer(conn, organization_id, &charge.customer_id).await?;
    let recipient = contact(&customer, channel);
    if let Err(refusal) = rules::can_notify(
        &facts(&charge),
        channel,
        &customer.channel_opt_outs,
        recipient,
    ) {
        return Ok(Err(refusal));
    }
    let recipient = recipient.unwrap_or_default();
    let (subject, body, resent_from) = match text {
        NoticeText::Compose { template } => {
            let today = dunning_domain::calendar::day_of(now);
            let organization_name = store::organization_name(conn, organization_id).await?;
            let pix = crate::pix::code_if_any(conn, organization_id, &charge, today).await?;
            let values = NoticeValues {
                customer_name: &customer.name,
                organization_name: &organization_name,
                description: &charge.description,
                amount_due: amount_due_on(&charge, today),
                due_date: charge.due_date,
                effective_due_date: charge.effective_due_date,
                today,
                pix_code: pix.as_ref().map(|code| code.payload.as_str()),
            };
            let notice = rules::notice(channel, template, &values);
            (notice.subject, notice.body, None)
        }
        NoticeText::Repeat {
            subject,
            body,
            resent_from,
        } => (
            // A subject exists only for e-mail.
            subject.filter(|_| channel == "email").map(str::to_string),
            body.to_string(),
            Some(resent_from),
        ),
        NoticeText::Given { subject, body } => (
            Some(subject.to_string()).filter(|_| channel == "email"),
            body.to_string(),
            None,
        ),
    };
    let id = ids::new_id("dlv");
    let now_text = timestamp_text(now);
    deliveries::insert(
        conn,
        organization_id,
        &NewDelivery {
            id: &id,
            charge_id,
            customer_id: &customer.id,
            channel,
            recipient,
            subject: subject.as_deref(),
            body: &body,
            step_id,
            resent_from,
        },
        &now_text,
    )
    .await?;
    events::record(
        conn,
        organization_id,
        "charge.notified",
        ("charge", charge_id),
        cx.actor,
        &ChargeNotifiedData {
            delivery_id: &id,
            channel,
            step_id,
            resent_from,
        },
    )
    .await?;
    Ok(Ok(id))
}

/// Concurrent change of a charge between its read and the write.
fn moved_on(id: &str) -> Refusal {
    Refusal {
        code: refusals::CONCURRENT_UPDATE,
        detail: format!("Charge {id} changed while this request ran; read it again and retry"),
    }
}

/// The requests to a bureau or a notary about a charge: each moves its negativation or
/// protest status, when the rules allow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionRequest<'a> {
    /// Report the debt to `bureau`: overdue, no dispute, none in force, no protest in force,
    /// a notice delivered `negativation_notice_days` before.
    Negativate { bureau: &'a str },
    /// Ask the bureau to remove a requested or active negativation.
    RemoveNegativation,
    /// File a protest at the notary: overdue, no dispute, none in force, no negativation in
    /// force.
    Protest,
    /// Ask the notary to cancel a requested or done protest.
    CancelProtest,
}

/// A request as data: the status it moves, from which values to which, and its event.
struct Transition {
    change: StatusMove<'static>,
    event: &'static str,
}

impl CollectionRequest<'_> {
    fn transition(self) -> &'static Transition {
        const NEGATIVATE: Transition = Transition {
            change: StatusMove::Negativation {
                from: &[NegativationStatus::None, NegativationStatus::Removed],
                to: NegativationStatus::Requested,
                bureau: None,
            },
            event: "charge.negativation_requested",
        };
        const REMOVE_NEGATIVATION: Transition = Transition {
            change: StatusMove::Negativation {
                from: &[NegativationStatus::Requested, NegativationStatus::Active],
                to: NegativationStatus::RemovalRequested,
                bureau: None,
            },
            event: "charge.negativation_removal_requested",
        };
        const PROTEST: Transition = Transition {
            change: StatusMove::Protest {
                from: &[ProtestStatus::None, ProtestStatus::Canceled],
                to: ProtestStatus::Requested,
            },
            event: "charge.protest_requested",
        };
        const CANCEL_PROTEST: Transition = Transition {
            change: StatusMove::Protest {
                from: &[ProtestStatus::Requested, ProtestStatus::Protested],
                to: ProtestStatus::CancelRequested,
            },
            event: "charge.protest_cancel_requested",
        };
        match self {
            CollectionRequest::Negativate { .. } => &NEGATIVATE,
            CollectionRequest::RemoveNegativation => &REMOVE_NEGATIVATION,
            CollectionRequest::Protest => &PROTEST,
            CollectionRequest::CancelProtest => &CANCEL_PROTEST,
        }
    }
}

/// Make `request` about the charge of `cx`: refused when the rules do not allow it now, or
/// when the charge moved on from the version the caller saw. The status change and its event
/// are written in the caller's transaction.
pub async fn request(
    conn: &mut Connection,
    cx: &ActionContext<'_>,
    request: CollectionRequest<'_>,
) -> Result<Outcome<()>> {
    let (organization_id, charge_id) = (cx.organization_id, cx.charge_id);
    let charge = read_charge(conn, organization_id, charge_id).await?;
    let facts = facts(&charge);
    let today = dunning_domain::calendar::day_of(cx.now);
    let transition = request.transition();
    let (event, actor) = (transition.event, cx.actor);
    let (allowed, data) = match request {
        CollectionRequest::Negativate { bureau } => {
            let notice_days = store::negativation_notice_days(conn, organization_id).await?;
            let first_notice = deliveries::first_delivered_notice(conn, organization_id, charge_id)
                .await?
                .map(|sent| parse_date(sent.get(..10).unwrap_or_default()))
                .transpose()?;
            (
                rules::can_negativate(&facts, today, notice_days, first_notice),
                events::data_of(
                    event,
                    "charge",
                    actor,
                    &ChargeNegativationRequestedData { bureau },
                )?,
            )
        }
        CollectionRequest::RemoveNegativation => {
            let bureau = store::negativation_bureau(conn, organization_id, charge_id).await?;
            (
                rules::can_remove_negativation(&facts),
                events::data_of(
                    event,
                    "charge",
                    actor,
                    &ChargeNegativationRemovalRequestedData {
                        bureau: bureau.as_deref(),
                        reason: "requested",
                    },
                )?,
            )
        }
        CollectionRequest::Protest => (
            rules::can_protest(&facts, today),
            events::data_of(event, "charge", actor, &ChargeProtestRequestedData {})?,
        ),
        CollectionRequest::CancelProtest => (
            rules::can_cancel_protest(&facts),
            events::data_of(event, "charge", actor, &ChargeProtestRequestedData {})?,
        ),
    };
    if let Err(refusal) = allowed {
        return Ok(Err(refusal));
    }
    // A negativation records the bureau it is reported to.
    let change = match (transition.change, request) {
        (StatusMove::Negativation { from, to, .. }, CollectionRequest::Negativate { bureau }) => {
            StatusMove::Negativation {
                from,
                to,
                bureau: Some(bureau),
            }
        }
        (change, _) => change,
    };
    let now = timestamp_text(cx.now);
    if !store::set_collection_status(conn, organization_id, charge_id, cx.version, &change, &now)
        .await?
    {
        return Ok(Err(moved_on(charge_id)));
    }
    events::record(
        conn,
        organization_id,
        transition.event,
        ("charge", charge_id),
        cx.actor,
        &data,
    )
    .await?;
    Ok(Ok(()))
}
