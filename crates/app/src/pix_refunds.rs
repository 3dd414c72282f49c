//! Money that goes back: the devoluções of a Pix received, as the PSP reports them (its
//! callback and the sweep carry each Pix's `devolucoes`) or as the organization asks for them.
//!
//! A devolução is recorded once per (Pix, devolução id) and follows BACEN's statuses
//! (`EM_PROCESSAMENTO` → `DEVOLVIDO` or `NAO_REALIZADO`). When one is returned, that much of
//! the payment the Pix made is reversed, once (the move to `returned` is a conditional update:
//! a callback and a sweep racing each other reverse it once): the payment's day in the charge's
//! payments loses the amount, the charge reopens if it is no longer settled (its plan resumes,
//! since plans run for open charges, and its cobv is remade), and `charge.payment_reversed`
//! (flagged `med` when the MED took it back) goes to the organization's webhooks. A Pix kept
//! for review that is given back whole leaves the review list (`refunded`).
//!
//! The organization asks for a devolução of money it should not keep (a Pix over the amount
//! due, one for a charge no longer open) with [`request`]; the Pix worker sends it to the PSP
//! (`PUT /pix/{e2eid}/devolucao/{id}`) and follows it to its end.

use dunning_domain::calendar::{day_of, today};
use dunning_domain::charge_math::{ChargeState, ChargeTerms, balance};
use dunning_domain::money::Cents;
use dunning_models::response::{
    ChargePaymentReversedData, PixRefundFailedData, PixRefundReportedData, PixRefundRequestedData,
    PixRefundedData, PixRefundedDataReversed,
};
use dunning_store::charges;
use dunning_store::collection as payments_store;
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::pix_psp::{self as received_store, Received, ReceivedStatus};
use dunning_store::pix_refunds::{self as store, NewRefund, Refund, RefundStatus};
use dunning_store::{Connection, ids};

use crate::{Refused, Result, events, refusals, refuse};

/// One element of a Pix's `devolucoes`, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundItem {
    /// The devolução's id (`[a-zA-Z0-9]{1,35}`).
    pub id: String,
    pub rtr_id: Option<String>,
    pub amount: Cents,
    /// BACEN's `natureza` (absent: `ORIGINAL`).
    pub nature: String,
    pub status: RefundStatus,
    pub reason: Option<String>,
}

/// The natures BACEN's document lists.
pub const NATURES: &[&str] = &[
    "ORIGINAL",
    "RETIRADA",
    "MED_OPERACIONAL",
    "MED_FRAUDE",
    "MED_PIX_AUTOMATICO",
];

/// Whether a devolução of this nature is the MED's (Mecanismo Especial de Devolução): money
/// taken back after a fraud report or an operational failure, not given back by the
/// organization.
pub fn is_med(nature: &str) -> bool {
    nature.starts_with("MED_")
}

/// Record the PSP's report of devolução `item` of the recorded Pix `received`, and reverse
/// its payment when it is returned now. Whether anything changed.
pub async fn reported(
    tx: &mut Connection,
    org: &str,
    received: &Received,
    item: &RefundItem,
    actor: &Actor,
    now: &str,
) -> Result<bool> {
    let existing = store::find(tx, org, &received.end_to_end_id, &item.id).await?;
    let new = existing.is_none();
    let refund = match existing {
        Some(refund) => refund,
        None => {
            let id = ids::new_id("pxd");
            let inserted = store::insert(
                tx,
                org,
                &NewRefund {
                    id: &id,
                    received_id: &received.id,
                    end_to_end_id: &received.end_to_end_id,
                    refund_id: &item.id,
                    rtr_id: item.rtr_id.as_deref(),
                    amount_cents: item.amount.0,
                    nature: &item.nature,
                    // Recorded as in process: the move to its reported status below is the
                    // one every path goes through.
                    status: RefundStatus::InProcess,
                    reason: None,
                    requested_by: "psp",
                    description: None,
                    charge_id: received.charge_id.as_deref(),
                    next_attempt_at: None,
                },
                now,
            )
            .await?;
            if !inserted {
                // Another receiver recorded it between our look and our insert: its retry
                // finds the row.
                return refuse(Refused::Concurrent("pix refund"));
            }
            events::record(
                tx,
                org,
                "pix.refund_reported",
                ("pix_received", &received.id),
                actor,
                &PixRefundReportedData {
                    end_to_end_id: &received.end_to_end_id,
                    refund_id: &item.id,
                    amount: item.amount,
                    nature: &item.nature,
                    med: is_med(&item.nature),
                },
            )
            .await?;
            store::find(tx, org, &received.end_to_end_id, &item.id)
                .await?
                .ok_or_else(|| {
                    dunning_store::StoreError::Corrupt(format!("refund {id} vanished"))
                })?
        }
    };
    if refund.status == item.status || refund.status.is_final() {
        // Nothing more (a final status never moves back).
        return Ok(new);
    }
    if !store::set_status(
        tx,
        org,
        &refund.id,
        item.status,
        item.rtr_id.as_deref(),
        item.reason.as_deref(),
        now,
    )
    .await?
    {
        return Ok(false);
    }
    match item.status {
        RefundStatus::Returned => returned(tx, org, received, &refund, actor, now).await?,
        RefundStatus::NotDone => {
            events::record(
                tx,
                org,
                "pix.refund_failed",
                ("pix_received", &received.id),
                actor,
                &PixRefundFailedData {
                    end_to_end_id: &received.end_to_end_id,
                    refund_id: &refund.refund_id,
                    amount: refund.amount_cents,
                    reason: item.reason.as_deref(),
                    requested_by: Some(&refund.requested_by),
                },
            )
            .await?;
        }
        RefundStatus::Requested | RefundStatus::InProcess => {}
    }
    Ok(true)
}

/// The payment a returned devolução reversed (what `pix.refunded` says of it).
struct Reversal {
    charge_id: String,
    payment_id: String,
    amount: Cents,
    reopened: bool,
}

/// A devolução returned: its payment reversed (the part of it not reversed before), the
/// charge reopened when no longer settled, the events.
async fn returned(
    tx: &mut Connection,
    org: &str,
    received: &Received,
    refund: &Refund,
    actor: &Actor,
    now: &str,
) -> Result<()> {
    let med = is_med(&refund.nature);
    let mut reversed: Option<Reversal> = None;
    if let (Some(payment_id), Some(charge_id)) = (&received.payment_id, &received.charge_id) {
        locks::lock(tx, Table::Charges, org, charge_id).await?;
        let payment = payments_store::payment(tx, org, payment_id).await?;
        let charge = charges::get_in(tx, org, charge_id).await?;
        if let (Some(payment), Some(charge)) = (payment, charge) {
            let cents = refund
                .amount_cents
                .0
                .min(payment.amount_cents.0 - payment.refunded_cents.0)
                .max(0);
            if cents > 0 {
                let mut days = charge.payment_days.clone();
                days.add(day_of(payment.paid_at.instant()), Cents(-cents));
                let after = balance(
                    &ChargeTerms {
                        payments: days.days(),
                        ..charge.terms()
                    },
                    today(),
                );
                let was_paid = charge.status.state() == ChargeState::Paid;
                let reopen = was_paid && after.owed.total().0 > 0;
                if !payments_store::reverse_payment(
                    tx,
                    org,
                    &payment,
                    cents,
                    charge.version,
                    &days.to_string(),
                    reopen,
                    now,
                )
                .await?
                {
                    return refuse(Refused::Concurrent("charge"));
                }
                store::set_reversed(tx, org, &refund.id, &payment.id, Cents(cents), now).await?;
                let amount_due = if reopen || charge.is_open() {
                    after.owed.total()
                } else {
                    Cents(0)
                };
                events::record(
                    tx,
                    org,
                    "charge.payment_reversed",
                    ("charge", charge_id),
                    actor,
                    &ChargePaymentReversedData {
                        payment_id: &payment.id,
                        amount: Cents(cents),
                        end_to_end_id: &received.end_to_end_id,
                        refund_id: &refund.refund_id,
                        nature: &refund.nature,
                        med,
                        reopened: reopen,
                        amount_due,
                    },
                )
                .await?;
                reversed = Some(Reversal {
                    charge_id: charge_id.to_owned(),
                    payment_id: payment.id.clone(),
                    amount: Cents(cents),
                    reopened: reopen,
                });
            }
        }
    }
    if received.status == ReceivedStatus::Review
        && store::returned_cents(tx, org, &received.id).await? >= received.amount_cents
    {
        received_store::set_received_status(tx, org, &received.id, ReceivedStatus::Refunded)
            .await?;
    }
    events::record(
        tx,
        org,
        "pix.refunded",
        ("pix_received", &received.id),
        actor,
        &PixRefundedData {
            end_to_end_id: &received.end_to_end_id,
            refund_id: &refund.refund_id,
            amount: refund.amount_cents,
            nature: &refund.nature,
            med,
            requested_by: Some(&refund.requested_by),
            reversed: reversed.as_ref().map(|r| PixRefundedDataReversed {
                charge_id: &r.charge_id,
                payment_id: &r.payment_id,
                amount: r.amount,
                reopened: r.reopened,
            }),
        },
    )
    .await?;
    Ok(())
}

/// Ask for a devolução of `amount` (all that is left of the Pix when `None`) of the Pix
/// received `received_id` to its payer, with an optional message: recorded as `requested`,
/// for the Pix worker to send to the PSP.
pub async fn request(
    tx: &mut Connection,
    org: &str,
    received_id: &str,
    amount: Option<Cents>,
    description: Option<&str>,
    actor: &Actor,
    now: &str,
) -> Result<Refund> {
    let Some(received) = received_store::received_in(tx, org, received_id).await? else {
        return refuse(Refused::Missing {
            what: "pix received",
            id: received_id.to_string(),
        });
    };
    let committed = store::committed_cents(tx, org, &received.id).await?;
    let left = Cents(received.amount_cents.0 - committed.0);
    let amount = amount.unwrap_or(left);
    if amount.0 <= 0 || amount > left {
        return refuse(Refused::rule(
            refusals::REFUND_EXCEEDS_PIX,
            format!(
                "The Pix {} was of {}, and {} of it is returned or on its way back: at most {} can be returned",
                received.id,
                received.amount_cents.to_brl(),
                committed.to_brl(),
                left.to_brl()
            ),
        ));
    }
    let id = ids::new_id("pxd");
    // Our id is the devolução's id at the PSP: letters and digits, as BACEN's `DevolucaoId`.
    let refund_id: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    store::insert(
        tx,
        org,
        &NewRefund {
            id: &id,
            received_id: &received.id,
            end_to_end_id: &received.end_to_end_id,
            refund_id: &refund_id,
            rtr_id: None,
            amount_cents: amount.0,
            nature: "ORIGINAL",
            status: RefundStatus::Requested,
            reason: None,
            requested_by: "organization",
            description,
            charge_id: received.charge_id.as_deref(),
            next_attempt_at: Some(now),
        },
        now,
    )
    .await?;
    events::record(
        tx,
        org,
        "pix.refund_requested",
        ("pix_received", &received.id),
        actor,
        &PixRefundRequestedData {
            end_to_end_id: &received.end_to_end_id,
            refund_id: &refund_id,
            amount,
            description,
        },
    )
    .await?;
    store::get_in(tx, org, &id)
        .await?
        .ok_or_else(|| dunning_store::StoreError::Corrupt(format!("refund {id} vanished")).into())
}
