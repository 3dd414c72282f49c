//! `/v1/collection_plans`: collection plans (réguas de cobrança) and their steps.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::response::IntoResponse;
use http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use super::caller::{Caller, find};
use super::idempotency::{commit, commit_read};
use super::input::{Input, Patch};
use super::reply::{
    Reply, check_if_match, created, data_with_etag, list as list_reply, object_with_status,
};
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_domain::collection::{BUREAUS, CHANNELS};
use dunning_store::plans::{self as store, Plan, Step, StepFields};
use dunning_store::{events, ids, now_text};

const ACTIONS: &[&str] = &["notify", "negativate", "protest"];

fn plan_reply(plan: Plan) -> Reply {
    data_with_etag(plan_json(&plan), plan.version)
}

/// A plan as the API shows it, with its steps.
fn plan_json(plan: &Plan) -> Value {
    json!({
        "id": plan.id,
        "name": plan.name,
        "description": plan.description,
        "steps": plan.steps.iter().map(step_json).collect::<Vec<_>>(),
        "created_at": plan.created_at,
        "updated_at": plan.updated_at,
    })
}

/// A step as the API shows it.
fn step_json(step: &Step) -> Value {
    json!({
        "id": step.id,
        "collection_plan_id": step.collection_plan_id,
        "offset_days": step.offset_days,
        "channel": step.channel,
        "action": step.action,
        "template": step.template,
        "bureau": step.bureau,
        "position": step.position,
        "created_at": step.created_at,
        "updated_at": step.updated_at,
    })
}

/// `GET /v1/collection_plans`.
pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let q = input.text("q");
    input.finish()?;
    let rows = store::list(&state.db, &p.organization_id, q.as_deref(), page).await?;
    Ok(list_reply(rows.map(|plan| plan_json(&plan)), page))
}

/// `GET /v1/collection_plans/{id}`.
pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    Ok(plan_reply(find::<Plan>(&state, &p, &id).await?))
}

/// A step's fields as given: each `Patch` says absent, null or a value.
struct StepInput {
    offset_days: Option<i64>,
    action: Option<&'static str>,
    channel: Patch<&'static str>,
    template: Patch<String>,
    bureau: Patch<&'static str>,
    position: Option<i64>,
}

fn patch_choice(input: &mut Input, name: &str, allowed: &[&'static str]) -> Patch<&'static str> {
    if !input.has(name) {
        return Patch::Absent;
    }
    match input.patch_text(name) {
        Patch::Value(v) => match allowed.iter().find(|a| **a == v) {
            Some(a) => Patch::Value(*a),
            None => {
                input.error(
                    name,
                    "enum",
                    format!("Must be one of: {} (or null)", allowed.join(", ")),
                );
                Patch::Absent
            }
        },
        other => match other {
            Patch::Null => Patch::Null,
            _ => Patch::Absent,
        },
    }
}

fn read_step(input: &mut Input) -> StepInput {
    StepInput {
        offset_days: input.integer("offset_days"),
        action: input.choice("action", ACTIONS),
        channel: patch_choice(input, "channel", CHANNELS),
        template: input.patch_text("template"),
        bureau: patch_choice(input, "bureau", BUREAUS),
        position: input.integer("position"),
    }
}

/// Combine what was given with the step's current fields (none for a new step) and check
/// that they fit the action: a notice needs a channel; only a notice has a template; only a
/// negativation has a bureau (serasa by default). Fields that no longer apply after a change
/// of action are cleared when they were not given.
fn merge_step(input: &mut Input, given: &StepInput, current: Option<&Step>) -> Option<StepFields> {
    let offset_days = given.offset_days.or(current.map(|c| c.offset_days));
    let offset_days = input.require("offset_days", offset_days);
    let action = given
        .action
        .map(str::to_string)
        .or(current.map(|c| c.action.clone()));
    let action = input.require("action", action)?;
    let pick = |patch: &Patch<&'static str>, now: Option<&String>| match patch {
        Patch::Value(v) => Some(v.to_string()),
        Patch::Null => None,
        Patch::Absent => now.cloned(),
    };
    let mut channel = pick(&given.channel, current.and_then(|c| c.channel.as_ref()));
    let mut template = match &given.template {
        Patch::Value(v) => Some(v.clone()),
        Patch::Null => None,
        Patch::Absent => current.and_then(|c| c.template.clone()),
    };
    let mut bureau = pick(&given.bureau, current.and_then(|c| c.bureau.as_ref()));
    let mut ok = true;
    if action == "notify" {
        if channel.is_none() {
            input.error("channel", "required", "A notify step needs a channel");
            ok = false;
        }
    } else {
        if matches!(given.channel, Patch::Value(_)) {
            input.error(
                "channel",
                "not_allowed",
                format!("A {action} step has no channel"),
            );
            ok = false;
        }
        if matches!(given.template, Patch::Value(_)) {
            input.error(
                "template",
                "not_allowed",
                format!("A {action} step has no template"),
            );
            ok = false;
        }
        channel = None;
        template = None;
    }
    if action == "negativate" {
        bureau.get_or_insert_with(|| "serasa".to_string());
    } else {
        if matches!(given.bureau, Patch::Value(_)) {
            input.error(
                "bureau",
                "not_allowed",
                "Only a negativate step has a bureau",
            );
            ok = false;
        }
        bureau = None;
    }
    let offset_days = offset_days?;
    ok.then_some(StepFields {
        offset_days,
        action,
        channel,
        template,
        bureau,
    })
}

/// Read the `steps` of a plan creation, each item validated like a step creation, faults
/// named `steps[i].field`.
fn read_steps(input: &mut Input, value: Option<Value>) -> Vec<(StepFields, Option<i64>)> {
    let items = match value {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            input.error("steps", "type", "Must be an array of steps");
            return Vec::new();
        }
    };
    let mut steps = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(map) = item else {
            input.error(&format!("steps[{i}]"), "type", "Must be an object");
            continue;
        };
        let bytes = Bytes::from(Value::Object(map).to_string());
        let Ok(mut sub) = Input::from_part(&bytes) else {
            continue;
        };
        let given = read_step(&mut sub);
        let fields = merge_step(&mut sub, &given, None);
        match sub.finish() {
            Ok(()) => {
                if let Some(fields) = fields {
                    steps.push((fields, given.position));
                }
            }
            Err(e) => {
                for fault in e.errors {
                    input.error(
                        &format!("steps[{i}].{}", fault.field),
                        &fault.code,
                        fault.message,
                    );
                }
            }
        }
    }
    steps
}

/// The body as an object without `steps` (read apart), and `steps`.
fn split_steps(body: &Bytes) -> ApiResult<(Input, Option<Value>)> {
    Input::from_part(body)?;
    let mut map: Map<String, Value> = serde_json::from_slice(body).unwrap_or_default();
    let steps = map.remove("steps");
    let rest = Bytes::from(Value::Object(map).to_string());
    Ok((Input::from_body(&rest)?, steps))
}

/// `POST /v1/collection_plans`.
pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let (mut input, steps) = split_steps(&body)?;
    let name = input.required_text("name");
    let description = input.text("description").filter(|d| !d.is_empty());
    let steps = read_steps(&mut input, steps);
    input.finish()?;
    let Some(name) = name else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let id = ids::new_id("cpl");
    let now = now_text();
    let mut tx = state.db.begin().await?;
    store::insert_plan(
        &mut tx,
        &p.organization_id,
        &id,
        &name,
        description.as_deref(),
        &now,
    )
    .await?;
    for (fields, position) in &steps {
        store::insert_step(
            &mut tx,
            &p.organization_id,
            &id,
            &ids::new_id("stp"),
            fields,
            *position,
            &now,
        )
        .await?;
    }
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan.created",
        ("collection_plan", &id),
        &p.actor(),
        &json!({ "name": name, "steps": steps.len() }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "collection plan",
        tx,
        |plan| created(plan_json(&plan), plan.version),
    )
    .await
}

/// `PATCH /v1/collection_plans/{id}`.
pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let name = input.text("name");
    let description = input.patch_text("description");
    input.finish()?;
    let current = find::<Plan>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    let name = name.unwrap_or(current.name.clone());
    let description = match description {
        Patch::Value(d) if !d.is_empty() => Some(d),
        Patch::Value(_) | Patch::Null => None,
        Patch::Absent => current.description.clone(),
    };
    let mut tx = state.db.begin().await?;
    if !store::update_plan(
        &mut tx,
        &p.organization_id,
        &id,
        current.version,
        &name,
        description.as_deref(),
        &now_text(),
    )
    .await?
    {
        return Err(ApiError::concurrent_update("plan"));
    }
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan.updated",
        ("collection_plan", &id),
        &p.actor(),
        &json!({ "name": name }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "collection plan",
        tx,
        plan_reply,
    )
    .await
}

/// `DELETE /v1/collection_plans/{id}`: refused while open charges use it.
pub async fn delete(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let mut tx = state.db.begin().await?;
    let plan = store::get_in(&mut tx, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("collection plan", &id))?;
    let open = store::open_charges_using(&mut tx, &p.organization_id, &id).await?;
    if open > 0 {
        return Err(ApiError::conflict(
            "collection_plan_in_use",
            format!(
                "Collection plan {id} is attached to {open} open charge(s); move them to another plan (or none) with charges_update first"
            ),
        ));
    }
    store::delete_plan(&mut tx, &p.organization_id, &id, &now_text()).await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan.deleted",
        ("collection_plan", &id),
        &p.actor(),
        &json!({ "name": plan.name }),
    )
    .await?;
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}

/// `GET /v1/collection_plans/{cp_id}/steps`.
pub async fn steps_list(
    Caller(state, p): Caller,
    Path(plan_id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    input.finish()?;
    if !store::exists(&state.db, &p.organization_id, &plan_id).await? {
        return Err(ApiError::not_found("collection plan", &plan_id));
    }
    let rows = store::list_steps(&state.db, &p.organization_id, &plan_id, page).await?;
    Ok(list_reply(rows.map(|step| step_json(&step)), page))
}

async fn find_step(
    state: &AppState,
    p: &Principal,
    plan_id: &str,
    step_id: &str,
) -> ApiResult<Step> {
    if !store::exists(&state.db, &p.organization_id, plan_id).await? {
        return Err(ApiError::not_found("collection plan", plan_id));
    }
    let mut conn = state.db.pool.acquire().await?;
    store::get_step(&mut conn, &p.organization_id, plan_id, step_id)
        .await?
        .ok_or_else(|| ApiError::not_found("collection plan step", step_id))
}

fn step_reply(step: Step, status: StatusCode) -> Reply {
    object_with_status(step_json(&step), step.version, status)
}

/// `POST /v1/collection_plans/{cp_id}/steps`.
pub async fn steps_create(
    Caller(state, p): Caller,
    Path(plan_id): Path<String>,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let given = read_step(&mut input);
    let fields = merge_step(&mut input, &given, None);
    input.finish()?;
    let Some(fields) = fields else {
        return Err(ApiError::internal("validated fields missing"));
    };
    if !store::exists(&state.db, &p.organization_id, &plan_id).await? {
        return Err(ApiError::not_found("collection plan", &plan_id));
    }
    let id = ids::new_id("stp");
    let now = now_text();
    let mut tx = state.db.begin().await?;
    store::insert_step(
        &mut tx,
        &p.organization_id,
        &plan_id,
        &id,
        &fields,
        given.position,
        &now,
    )
    .await?;
    store::touch_plan(&mut tx, &p.organization_id, &plan_id, &now).await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan_step.created",
        ("collection_plan_step", &id),
        &p.actor(),
        &json!({ "collection_plan_id": plan_id, "action": fields.action, "offset_days": fields.offset_days }),
    )
    .await?;
    commit_read(
        store::get_step(&mut tx, &p.organization_id, &plan_id, &id).await?,
        "collection plan step",
        tx,
        |step| step_reply(step, StatusCode::CREATED),
    )
    .await
}

/// `PATCH /v1/collection_plans/{cp_id}/steps/{step_id}`.
pub async fn steps_update(
    Caller(state, p): Caller,
    Path((plan_id, step_id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let given = read_step(&mut input);
    let current = find_step(&state, &p, &plan_id, &step_id).await;
    let fields = match &current {
        Ok(step) => merge_step(&mut input, &given, Some(step)),
        Err(_) => None,
    };
    input.finish()?;
    let current = current?;
    check_if_match(&headers, current.version)?;
    let Some(fields) = fields else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let now = now_text();
    let mut tx = state.db.begin().await?;
    if !store::update_step(
        &mut tx,
        &p.organization_id,
        &current,
        &fields,
        given.position,
        &now,
    )
    .await?
    {
        return Err(ApiError::concurrent_update("step"));
    }
    store::touch_plan(&mut tx, &p.organization_id, &plan_id, &now).await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan_step.updated",
        ("collection_plan_step", &step_id),
        &p.actor(),
        &json!({ "collection_plan_id": plan_id, "action": fields.action, "offset_days": fields.offset_days }),
    )
    .await?;
    commit_read(
        store::get_step(&mut tx, &p.organization_id, &plan_id, &step_id).await?,
        "collection plan step",
        tx,
        |step| step_reply(step, StatusCode::OK),
    )
    .await
}

/// `DELETE /v1/collection_plans/{cp_id}/steps/{step_id}`.
pub async fn steps_delete(
    Caller(state, p): Caller,
    Path((plan_id, step_id)): Path<(String, String)>,
) -> ApiResult<Reply> {
    let step = find_step(&state, &p, &plan_id, &step_id).await?;
    let now = now_text();
    let mut tx = state.db.begin().await?;
    store::delete_step(&mut tx, &p.organization_id, &step).await?;
    store::touch_plan(&mut tx, &p.organization_id, &plan_id, &now).await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "collection_plan_step.deleted",
        ("collection_plan_step", &step_id),
        &p.actor(),
        &json!({ "collection_plan_id": plan_id, "action": step.action }),
    )
    .await?;
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}
