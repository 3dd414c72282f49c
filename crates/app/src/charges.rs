//! Charges, what debtors owe: created, changed while open (a new collection plan's steps run
//! from the change on) and canceled, each with its event. The `/v1/charges` handlers call
//! these after checking the request's fields.

use time::Date;

use dunning_domain::money::Cents;
use dunning_models::response::{ChargeCanceledData, ChargeCreatedData, ChargeUpdatedData};
use dunning_store::charges::{self as store, Charge, ChargeFields};
use dunning_store::collection::mark_plan_attached;
use dunning_store::events::Actor;
use dunning_store::{Connection, ids};

use crate::{Refused, Result, events, refusals, refuse};

const CONCURRENT: Refused = Refused::Concurrent("charge");

/// Create a charge of `customer_id` (a customer of the organization: the caller checked it
/// with the other fields) with its `charge.created` event; its id.
pub async fn create(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    customer_id: &str,
    fields: &ChargeFields,
    now: &str,
) -> Result<String> {
    let id = ids::new_id("chg");
    store::insert(tx, org, &id, customer_id, fields, now).await?;
    events::record(
        tx,
        org,
        "charge.created",
        ("charge", &id),
        actor,
        &ChargeCreatedData {
            customer_id,
            amount: Cents(fields.amount_cents),
            due_date: fields.due_date.into(),
            agreement_id: None,
            installment: None,
        },
    )
    .await?;
    Ok(id)
}

/// What a change of a charge sets; `None` keeps the stored value.
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub description: Option<String>,
    pub amount: Option<Cents>,
    pub fine_bp: Option<i64>,
    pub interest_bp: Option<i64>,
    pub due_date: Option<Date>,
    pub tags: Option<Vec<String>>,
    pub collection_plan: PlanChange,
}

/// What a change does to a charge's collection plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PlanChange {
    /// The plan stays as it is.
    #[default]
    Keep,
    /// No plan any more.
    Detach,
    /// This plan (of the organization: the caller checked it).
    Attach(String),
}

/// Apply `change` to the open charge `current` (locked and read by the caller, so that
/// changes of different fields all apply, one after the other), with its `charge.updated`
/// event. Refused when the charge is no longer open, or when the amount would change after a
/// payment.
pub async fn update(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Charge,
    change: &Change,
    now: &str,
) -> Result<()> {
    let id = &current.id;
    if !current.is_open() {
        return refuse(Refused::rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {id} is {}; only pending or overdue charges can be changed",
                current.status
            ),
        ));
    }
    if change.amount.is_some() && current.paid_cents > Cents(0) {
        return refuse(Refused::rule(
            refusals::CHARGE_HAS_PAYMENTS,
            "The amount cannot change after a payment was recorded",
        ));
    }
    let fields = ChargeFields {
        description: change
            .description
            .clone()
            .unwrap_or_else(|| current.description.clone()),
        amount_cents: change.amount.map_or(current.amount_cents.0, |a| a.0),
        fine_bp: change.fine_bp.unwrap_or(current.fine_bp),
        interest_bp: change.interest_bp.unwrap_or(current.interest_bp),
        due_date: change.due_date.unwrap_or(current.due_date),
        tags: change.tags.clone().unwrap_or_else(|| current.tags.clone()),
        collection_plan_id: match &change.collection_plan {
            PlanChange::Detach => None,
            PlanChange::Attach(plan) => Some(plan.clone()),
            PlanChange::Keep => current.collection_plan_id.clone(),
        },
    };
    // A new plan's steps run from now on, not for days already gone.
    let plan_attached = fields.collection_plan_id.is_some()
        && fields.collection_plan_id != current.collection_plan_id;
    if !store::update(tx, org, id, current.version, &fields, now).await? {
        return refuse(CONCURRENT);
    }
    if plan_attached {
        mark_plan_attached(tx, org, id, now).await?;
    }
    let changed = change.changed();
    let data = ChargeUpdatedData { changed: &changed };
    events::record(tx, org, "charge.updated", ("charge", id), actor, &data).await?;
    Ok(())
}

impl Change {
    /// The fields this change sets, by their API names (what `charge.updated` says).
    fn changed(&self) -> Vec<String> {
        let set = [
            ("description", self.description.is_some()),
            ("amount", self.amount.is_some()),
            ("fine_percent", self.fine_bp.is_some()),
            ("interest_percent", self.interest_bp.is_some()),
            ("due_date", self.due_date.is_some()),
            ("tags", self.tags.is_some()),
            (
                "collection_plan_id",
                self.collection_plan != PlanChange::Keep,
            ),
        ];
        set.iter()
            .filter(|(_, set)| *set)
            .map(|(name, _)| (*name).to_owned())
            .collect()
    }
}

/// Stop collecting the open charge `current` (as read by the caller, at the version the
/// request saw), for good, with its `charge.canceled` event. A charge changed since it was
/// read is a concurrent update.
pub async fn cancel(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Charge,
    reason: Option<&str>,
    now: &str,
) -> Result<()> {
    let id = &current.id;
    if !current.is_open() {
        return refuse(Refused::rule(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {id} is {}; only pending or overdue charges can be canceled",
                current.status
            ),
        ));
    }
    if !store::cancel(tx, org, id, current.version, reason, now).await? {
        return refuse(CONCURRENT);
    }
    events::record(
        tx,
        org,
        "charge.canceled",
        ("charge", id),
        actor,
        &ChargeCanceledData {
            reason,
            dispute_id: None,
            agreement_id: None,
        },
    )
    .await?;
    Ok(())
}
