//! Disputes (contestações): a debtor contests an open charge, which pauses its collection
//! (plans, notices, negativation, protest: they look at `charges.open_dispute_id`); the
//! dispute is resolved upheld (the charge is canceled, as a cancellation withdraws its
//! negativation and protest) or rejected (collection resumes).

use dunning_models::response::{ChargeCanceledData, DisputeOpenedData, DisputeResolvedData};
use dunning_store::charges;
use dunning_store::disputes::{self as store, Dispute, DisputeStatus, NewDispute, Opening};
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::{Connection, ids};

use crate::{Refused, Result, events, refusals, refuse};

const CONCURRENT: Refused = Refused::Concurrent("dispute or its charge");

/// What a debtor contests and why.
#[derive(Debug, Clone, Copy)]
pub struct Contest<'a> {
    pub charge_id: &'a str,
    /// One of the document's reasons (`already_paid`, ...).
    pub reason: &'a str,
    pub description: Option<&'a str>,
}

/// Open a dispute on an open charge; its id. The charge is locked and read inside the
/// transaction: of disputes racing on one charge the later ones see the first, and get the
/// refusal a second dispute gets.
pub async fn open(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    contest: Contest<'_>,
    now: &str,
) -> Result<String> {
    let charge_id = contest.charge_id;
    locks::lock(tx, Table::Charges, org, charge_id).await?;
    let Some(charge) = charges::get_in(tx, org, charge_id).await? else {
        return refuse(Refused::Missing {
            what: "charge",
            id: charge_id.to_string(),
        });
    };
    if !charge.is_open() {
        return refuse(Refused::rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {} is {}; only a pending or overdue charge can be disputed",
                charge.id, charge.status
            ),
        ));
    }
    if let Some(open) = &charge.open_dispute_id {
        return refuse(already_open(charge_id, Some(open)));
    }
    let id = ids::new_id("dsp");
    let new = NewDispute {
        charge_id,
        customer_id: &charge.customer_id,
        reason: contest.reason,
        description: contest.description,
    };
    match store::open(tx, org, &id, &new, charge.version, now).await? {
        Opening::Opened => {}
        Opening::ChargeMovedOn => return refuse(CONCURRENT),
        Opening::AlreadyOpen => return refuse(already_open(charge_id, None)),
    }
    events::record(
        tx,
        org,
        "dispute.opened",
        ("dispute", &id),
        actor,
        &DisputeOpenedData {
            charge_id: &charge.id,
            customer_id: &charge.customer_id,
            reason: contest.reason,
        },
    )
    .await?;
    Ok(id)
}

/// `charge_has_open_dispute`, naming the open dispute when known.
fn already_open(charge_id: &str, open: Option<&str>) -> Refused {
    let which = open.map(|id| format!(" {id}")).unwrap_or_default();
    Refused::rule(
        refusals::CHARGE_HAS_OPEN_DISPUTE,
        format!("Charge {charge_id} already has the open dispute{which}; resolve it first"),
    )
}

/// Resolve the open `dispute` (locked and read by the caller): `upheld` cancels its charge
/// when the charge is still open (one paid or canceled meanwhile stays as it is: a refund,
/// if any, happens outside this service); `rejected` resumes its collection.
pub async fn resolve(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    dispute: &Dispute,
    upheld: bool,
    note: Option<&str>,
    now: &str,
) -> Result<()> {
    let id = &dispute.id;
    if dispute.status != DisputeStatus::Open {
        return refuse(Refused::rule(
            refusals::DISPUTE_NOT_OPEN,
            format!("Dispute {id} was already resolved ({})", dispute.status),
        ));
    }
    // The dispute, then its charge: the order every writer locks them in.
    locks::lock(tx, Table::Charges, org, &dispute.charge_id).await?;
    let outcome = if upheld { "upheld" } else { "rejected" };
    if !store::resolve(tx, org, dispute, outcome, note, now).await? {
        return refuse(CONCURRENT);
    }
    let mut charge_canceled = false;
    if upheld
        && let Some(charge) = charges::get_in(tx, org, &dispute.charge_id).await?
        && charge.is_open()
    {
        let reason = format!("Contestação {id} procedente");
        if !charges::cancel(tx, org, &charge.id, charge.version, Some(&reason), now).await? {
            return refuse(CONCURRENT);
        }
        events::record(
            tx,
            org,
            "charge.canceled",
            ("charge", &charge.id),
            actor,
            &ChargeCanceledData {
                reason: Some(&reason),
                dispute_id: Some(id),
                agreement_id: None,
            },
        )
        .await?;
        charge_canceled = true;
    }
    events::record(
        tx,
        org,
        if upheld {
            "dispute.upheld"
        } else {
            "dispute.rejected"
        },
        ("dispute", id),
        actor,
        &DisputeResolvedData {
            charge_id: &dispute.charge_id,
            resolution_note: note,
            charge_canceled,
        },
    )
    .await?;
    Ok(())
}
