//! Collection actions shared by the `/v1` handlers and the collection plans: queue a notice,
//! request a negativation or protest, or their withdrawal.
//!
//! Each action runs inside the caller's transaction: it reads the charge there, asks
//! `domain::collection` whether the rules allow it, writes the change and its events. A
//! refusal comes back as a [`Refusal`] with the stable code the API answers and the plan
//! records, and nothing is written.

use serde_json::json;
use sqlx::AnyConnection;
use time::{Date, OffsetDateTime};

use crate::domain::charge_math::{ChargeTerms, amount_due};
use crate::domain::collection::{self as rules, ChargeFacts, NoticeValues, Refusal};
use crate::domain::money::Cents;
use crate::store::charges::{self, Charge};
use crate::store::collection::{self as store, CollectionKind};
use crate::store::customers::Customer;
use crate::store::deliveries::{self, NewDelivery};
use crate::store::events::{self, Actor};
use crate::store::{Result, StoreError, ids, timestamp_text};

/// What an action gives back: done (with a value), or refused by a rule.
pub type Outcome<T> = std::result::Result<T, Refusal>;

fn parse_date(text: &str) -> Result<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text, &format).map_err(|e| StoreError::Corrupt(format!("date {text}: {e}")))
}

/// The stored state of a charge (`open`, `paid`, `canceled`, `in_agreement`).
pub fn stored_state(charge: &Charge) -> &str {
    if charge.is_open() {
        "open"
    } else {
        &charge.status
    }
}

/// What the rules look at, from a charge as read.
pub fn facts(charge: &Charge) -> Result<ChargeFacts<'_>> {
    Ok(ChargeFacts {
        id: &charge.id,
        state: stored_state(charge),
        due_date: parse_date(&charge.due_date)?,
        in_dispute: charge.open_dispute_id.is_some(),
        negativation_status: &charge.negativation_status,
        protest_status: &charge.protest_status,
    })
}

/// What the debtor owes on `on` (the API's `amount_due`, for any day).
pub fn amount_due_on(charge: &Charge, on: Date) -> Result<Cents> {
    if !charge.is_open() {
        return Ok(Cents(0));
    }
    Ok(amount_due(
        &ChargeTerms {
            amount: Cents(charge.amount_cents),
            paid: Cents(charge.paid_cents),
            fine_bp: (charge.fine_percent * 100.0).round() as i64,
            interest_bp: (charge.interest_percent * 100.0).round() as i64,
            due_date: parse_date(&charge.due_date)?,
        },
        on,
    ))
}

async fn read_charge(conn: &mut AnyConnection, organization_id: &str, id: &str) -> Result<Charge> {
    charges::get_in(conn, organization_id, id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("charge {id} vanished inside a transaction")))
}

async fn read_customer(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Customer> {
    crate::store::customers::get_in(conn, organization_id, id)
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
}

/// Queue a notice on `channel` to the debtor of a charge: refused when the charge is not open
/// or in dispute, the customer opted out of the channel or has no contact for it. Returns the
/// delivery id; the event `charge.notified` goes with it.
#[allow(clippy::too_many_arguments)]
pub async fn notify(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    channel: &str,
    text: NoticeText<'_>,
    step_id: Option<&str>,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<Outcome<String>> {
    let charge = read_charge(conn, organization_id, charge_id).await?;
    let customer = read_customer(conn, organization_id, &charge.customer_id).await?;
    let recipient = contact(&customer, channel);
    if let Err(refusal) = rules::can_notify(
        &facts(&charge)?,
        channel,
        &customer.channel_opt_outs,
        recipient,
    ) {
        return Ok(Err(refusal));
    }
    let recipient = recipient.unwrap_or_default();
    let (subject, body, resent_from) = match text {
        NoticeText::Compose { template } => {
            let today = now.date();
            let organization_name = store::organization_name(conn, organization_id).await?;
            let values = NoticeValues {
                customer_name: &customer.name,
                organization_name: &organization_name,
                description: &charge.description,
                amount_due: amount_due_on(&charge, today)?,
                due_date: parse_date(&charge.due_date)?,
                today,
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
        actor,
        &json!({
            "delivery_id": id,
            "channel": channel,
            "step_id": step_id,
            "resent_from": resent_from,
        }),
    )
    .await?;
    Ok(Ok(id))
}

/// Concurrent change of a charge between its read and the write.
fn moved_on(id: &str) -> Refusal {
    Refusal {
        code: "concurrent_update",
        detail: format!("Charge {id} changed while this request ran; read it again and retry"),
    }
}

/// A move of a charge's negativation or protest status that the rules allowed: from one of
/// `from` to `to`, only if the charge is still at the version the caller saw, recorded as
/// `event` in the same transaction.
struct Transition<'a> {
    kind: CollectionKind,
    from: &'a [&'a str],
    to: &'a str,
    bureau: Option<&'a str>,
    event: &'a str,
}

impl Transition<'_> {
    #[allow(clippy::too_many_arguments)]
    async fn apply(
        &self,
        conn: &mut AnyConnection,
        organization_id: &str,
        charge_id: &str,
        version: Option<i64>,
        actor: &Actor,
        now: OffsetDateTime,
        data: &serde_json::Value,
    ) -> Result<Outcome<()>> {
        let changed = store::set_collection_status(
            conn,
            organization_id,
            charge_id,
            version,
            self.kind,
            self.from,
            self.to,
            self.bureau,
            &timestamp_text(now),
        )
        .await?;
        if !changed {
            return Ok(Err(moved_on(charge_id)));
        }
        events::record(
            conn,
            organization_id,
            self.event,
            ("charge", charge_id),
            actor,
            data,
        )
        .await?;
        Ok(Ok(()))
    }
}

/// Request a negativation at `bureau`: overdue, no dispute, none in force, no protest in
/// force, a notice delivered `negativation_notice_days` before. `version` is the version the
/// caller saw, when it must not have moved.
#[allow(clippy::too_many_arguments)]
pub async fn negativate(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    bureau: &str,
    version: Option<i64>,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<Outcome<()>> {
    let charge = read_charge(conn, organization_id, charge_id).await?;
    let notice_days = store::negativation_notice_days(conn, organization_id).await?;
    let first_notice = deliveries::first_delivered_notice(conn, organization_id, charge_id)
        .await?
        .map(|sent| parse_date(sent.get(..10).unwrap_or_default()))
        .transpose()?;
    if let Err(refusal) =
        rules::can_negativate(&facts(&charge)?, now.date(), notice_days, first_notice)
    {
        return Ok(Err(refusal));
    }
    let transition = Transition {
        kind: CollectionKind::Negativation,
        from: &["none", "removed"],
        to: "requested",
        bureau: Some(bureau),
        event: "charge.negativation_requested",
    };
    let data = json!({ "bureau": bureau });
    transition
        .apply(conn, organization_id, charge_id, version, actor, now, &data)
        .await
}

/// Ask the bureau to remove a requested or active negativation.
pub async fn remove_negativation(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    version: Option<i64>,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<Outcome<()>> {
    let charge = read_charge(conn, organization_id, charge_id).await?;
    if let Err(refusal) = rules::can_remove_negativation(&facts(&charge)?) {
        return Ok(Err(refusal));
    }
    let bureau = store::negativation_bureau(conn, organization_id, charge_id).await?;
    let transition = Transition {
        kind: CollectionKind::Negativation,
        from: &["requested", "active"],
        to: "removal_requested",
        bureau: None,
        event: "charge.negativation_removal_requested",
    };
    let data = json!({ "bureau": bureau, "reason": "requested" });
    transition
        .apply(conn, organization_id, charge_id, version, actor, now, &data)
        .await
}

/// File a protest at the notary: overdue, no dispute, none in force, no negativation in force.
pub async fn protest(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    version: Option<i64>,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<Outcome<()>> {
    let charge = read_charge(conn, organization_id, charge_id).await?;
    if let Err(refusal) = rules::can_protest(&facts(&charge)?, now.date()) {
        return Ok(Err(refusal));
    }
    let transition = Transition {
        kind: CollectionKind::Protest,
        from: &["none", "canceled"],
        to: "requested",
        bureau: None,
        event: "charge.protest_requested",
    };
    transition
        .apply(
            conn,
            organization_id,
            charge_id,
            version,
            actor,
            now,
            &json!({}),
        )
        .await
}

/// Ask the notary to cancel a requested or done protest.
pub async fn cancel_protest(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    version: Option<i64>,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<Outcome<()>> {
    let charge = read_charge(conn, organization_id, charge_id).await?;
    if let Err(refusal) = rules::can_cancel_protest(&facts(&charge)?) {
        return Ok(Err(refusal));
    }
    let transition = Transition {
        kind: CollectionKind::Protest,
        from: &["requested", "protested"],
        to: "cancel_requested",
        bureau: None,
        event: "charge.protest_cancel_requested",
    };
    transition
        .apply(
            conn,
            organization_id,
            charge_id,
            version,
            actor,
            now,
            &json!({}),
        )
        .await
}
