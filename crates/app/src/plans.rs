//! Collection plans (réguas de cobrança) and their steps: created, changed and deleted, each
//! with its event. The `/v1/collection_plans` handlers call these once the fields were checked;
//! a step's change touches its plan (a new version), and the store keeps the charges' "next
//! step due" true (`dunning_store::plans`).

use dunning_models::response::{
    CollectionPlanCreatedData, CollectionPlanNamedData, CollectionPlanStepData,
};
use dunning_store::events::Actor;
use dunning_store::plans::{self as store, Plan, Step, StepFields};
use dunning_store::{Connection, ids};

use crate::{Refused, Result, events, refusals, refuse};

/// A new plan: its name, description and first steps (each with its position, if given).
#[derive(Debug, Clone, Copy)]
pub struct NewPlan<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub steps: &'a [(StepFields, Option<i64>)],
}

/// Create a plan with its steps and its `collection_plan.created` event; its id.
pub async fn create(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    plan: NewPlan<'_>,
    now: &str,
) -> Result<String> {
    let id = ids::new_id("cpl");
    store::insert_plan(tx, org, &id, plan.name, plan.description, now).await?;
    for (fields, position) in plan.steps {
        store::insert_step(tx, org, &id, &ids::new_id("stp"), fields, *position, now).await?;
    }
    events::record(
        tx,
        org,
        "collection_plan.created",
        ("collection_plan", &id),
        actor,
        &CollectionPlanCreatedData {
            name: plan.name,
            steps: i64::try_from(plan.steps.len()).unwrap_or(i64::MAX),
        },
    )
    .await?;
    Ok(id)
}

/// Rename or redescribe a plan as of the version `current` was read at.
pub async fn update(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Plan,
    name: &str,
    description: Option<&str>,
    now: &str,
) -> Result<()> {
    let id = &current.id;
    if !store::update_plan(tx, org, id, current.version, name, description, now).await? {
        return refuse(Refused::Concurrent("plan"));
    }
    events::record(
        tx,
        org,
        "collection_plan.updated",
        ("collection_plan", id),
        actor,
        &CollectionPlanNamedData { name },
    )
    .await?;
    Ok(())
}

/// Delete a plan: refused (`collection_plan_in_use`) while open charges use it.
pub async fn delete(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    id: &str,
    now: &str,
) -> Result<()> {
    let Some(plan) = store::get_in(tx, org, id).await? else {
        return refuse(Refused::Missing {
            what: "collection plan",
            id: id.to_string(),
        });
    };
    let open = store::open_charges_using(tx, org, id).await?;
    if open > 0 {
        return refuse(Refused::rule(
            refusals::COLLECTION_PLAN_IN_USE,
            format!(
                "Collection plan {id} is attached to {open} open charge(s); move them to another plan (or none) with charges_update first"
            ),
        ));
    }
    store::delete_plan(tx, org, id, now).await?;
    events::record(
        tx,
        org,
        "collection_plan.deleted",
        ("collection_plan", id),
        actor,
        &CollectionPlanNamedData { name: &plan.name },
    )
    .await?;
    Ok(())
}

/// A step as written: its fields, and its position when one was given.
#[derive(Debug, Clone, Copy)]
pub struct StepWrite<'a> {
    pub fields: &'a StepFields,
    pub position: Option<i64>,
}

/// Add a step to plan `plan_id` (which the caller found), touching the plan; its id.
pub async fn create_step(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    plan_id: &str,
    step: StepWrite<'_>,
    now: &str,
) -> Result<String> {
    let StepWrite { fields, position } = step;
    let id = ids::new_id("stp");
    store::insert_step(tx, org, plan_id, &id, fields, position, now).await?;
    store::touch_plan(tx, org, plan_id, now).await?;
    events::record(
        tx,
        org,
        "collection_plan_step.created",
        ("collection_plan_step", &id),
        actor,
        &CollectionPlanStepData {
            collection_plan_id: plan_id,
            action: fields.action.as_str(),
            offset_days: Some(fields.offset_days),
        },
    )
    .await?;
    Ok(id)
}

/// Change a step of plan `plan_id` as of the version `current` was read at, touching the plan.
pub async fn update_step(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    plan_id: &str,
    current: &Step,
    step: StepWrite<'_>,
    now: &str,
) -> Result<()> {
    let StepWrite { fields, position } = step;
    if !store::update_step(tx, org, current, fields, position, now).await? {
        return refuse(Refused::Concurrent("step"));
    }
    store::touch_plan(tx, org, plan_id, now).await?;
    events::record(
        tx,
        org,
        "collection_plan_step.updated",
        ("collection_plan_step", &current.id),
        actor,
        &CollectionPlanStepData {
            collection_plan_id: plan_id,
            action: fields.action.as_str(),
            offset_days: Some(fields.offset_days),
        },
    )
    .await?;
    Ok(())
}

/// Delete a step of plan `plan_id`, touching the plan.
pub async fn delete_step(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    plan_id: &str,
    step: &Step,
    now: &str,
) -> Result<()> {
    store::delete_step(tx, org, step).await?;
    store::touch_plan(tx, org, plan_id, now).await?;
    events::record(
        tx,
        org,
        "collection_plan_step.deleted",
        ("collection_plan_step", &step.id),
        actor,
        &CollectionPlanStepData {
            collection_plan_id: plan_id,
            action: step.action.as_str(),
            offset_days: None,
        },
    )
    .await?;
    Ok(())
}
