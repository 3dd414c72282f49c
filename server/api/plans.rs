//! `/v1/collection_plans`: collection plans (réguas de cobrança) and their steps.

use super::answers::words::Word;
use axum::extract::Path;
use axum::response::IntoResponse;
use http::{HeaderMap, StatusCode};

use super::answers::refused::problem;
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request, written};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::commit;
use super::steps::server_rules::Rules;
use super::steps::typed_input::{Body, Query};
use crate::auth::Principal;
use crate::generated::models::{
    CollectionPlanStepAction, CollectionPlanStepBureau, CollectionPlanStepChannel, Patch,
    collection_plan_steps_create, collection_plan_steps_list, collection_plan_steps_update,
    collection_plans_create, collection_plans_get, collection_plans_list, collection_plans_update,
    request, response,
};
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_app::plans as app;
use dunning_domain::collection::DayCount;
use dunning_store::now_text;
use dunning_store::plans::{self as store, Plan, Step, StepFields};

/// A plan as the API shows it, with its steps.
fn view(plan: &Plan) -> ApiResult<response::CollectionPlan<'_>> {
    Ok(response::CollectionPlan {
        id: &plan.id,
        name: &plan.name,
        description: plan.description.as_deref(),
        steps: plan.steps.iter().map(step_view).collect::<ApiResult<_>>()?,
        created_at: plan.created_at,
        updated_at: plan.updated_at,
    })
}

/// A step as the API shows it. Its words are stored as text: one the document does not list
/// is our own fault.
fn step_view(step: &Step) -> ApiResult<response::CollectionPlanStep<'_>> {
    let unlisted = |what: &str, word: &str| {
        ApiError::internal(format!("step {} has {what} '{word}'", step.id))
    };
    let channel = match step.channel.as_deref() {
        Some(c) => {
            Some(CollectionPlanStepChannel::from_word(c).ok_or_else(|| unlisted("channel", c))?)
        }
        None => None,
    };
    let bureau = match step.bureau.as_deref() {
        Some(b) => {
            Some(CollectionPlanStepBureau::from_word(b).ok_or_else(|| unlisted("bureau", b))?)
        }
        None => None,
    };
    Ok(response::CollectionPlanStep {
        id: &step.id,
        collection_plan_id: &step.collection_plan_id,
        offset_days: step.offset_days,
        day_count: step.day_count.word(),
        channel,
        action: CollectionPlanStepAction::from_word(&step.action)
            .ok_or_else(|| unlisted("action", &step.action))?,
        template: step.template.as_deref(),
        bureau,
        position: step.position,
        created_at: step.created_at,
        updated_at: step.updated_at,
    })
}

/// `GET /v1/collection_plans`.
pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<collection_plans_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let rows = store::list(&state.db, &p.organization_id, query.q.as_deref(), page).await?;
    let body = collection_plans_list::Response200 {
        data: rows.items.iter().map(view).collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// `GET /v1/collection_plans/{id}`.
pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let plan = find::<Plan>(&state, &p, &id).await?;
    let body = collection_plans_get::Response200 { data: view(&plan)? };
    Ok(answer(StatusCode::OK, &body, Some(plan.version)))
}

/// A step's fields as given, on top of what it has (a new step: nothing): the offset and
/// action it will have, and for the others whether each was absent, null or a value.
struct GivenStep {
    offset_days: i64,
    day_count: DayCount,
    action: String,
    channel: Patch<&'static str>,
    template: Patch<String>,
    bureau: Patch<&'static str>,
}

/// A given word as the handler's own `&'static str`.
fn given_word<T>(patch: Patch<T>, as_str: fn(T) -> &'static str) -> Patch<&'static str> {
    match patch {
        Patch::Value(word) => Patch::Value(as_str(word)),
        Patch::Null => Patch::Null,
        Patch::Absent => Patch::Absent,
    }
}

impl GivenStep {
    /// A new step, as a step creation (or an item of a plan's `steps`) gives it.
    fn new(given: request::CollectionPlanStepCreate) -> GivenStep {
        GivenStep {
            offset_days: given.offset_days,
            day_count: given.day_count.map_or(DayCount::Calendar, Word::word),
            action: given.action.as_str().to_string(),
            channel: given_word(given.channel, |c| c.as_str()),
            template: given.template,
            bureau: given_word(given.bureau, |b| b.as_str()),
        }
    }

    /// A change of `current`: absent offset and action keep theirs.
    fn change(given: request::CollectionPlanStepUpdate, current: &Step) -> GivenStep {
        GivenStep {
            offset_days: given.offset_days.unwrap_or(current.offset_days),
            day_count: given.day_count.map_or(current.day_count, Word::word),
            action: given
                .action
                .map_or_else(|| current.action.clone(), |a| a.as_str().to_string()),
            channel: given_word(given.channel, |c| c.as_str()),
            template: given.template,
            bureau: given_word(given.bureau, |b| b.as_str()),
        }
    }
}

/// Combine what was given with the step's current fields (none for a new step) and check
/// that they fit the action: a notice needs a channel; only a notice has a template; only a
/// negativation has a bureau (serasa by default). Fields that no longer apply after a change
/// of action are cleared when they were not given. Faults are named `{at}field`.
fn merge_step(
    rules: &mut Rules,
    at: &str,
    given: GivenStep,
    current: Option<&Step>,
) -> Option<StepFields> {
    let field = |name: &str| format!("{at}{name}");
    let action = given.action;
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
            rules.error(
                &field("channel"),
                "required",
                "A notify step needs a channel",
            );
            ok = false;
        }
    } else {
        if matches!(given.channel, Patch::Value(_)) {
            rules.error(
                &field("channel"),
                "not_allowed",
                format!("A {action} step has no channel"),
            );
            ok = false;
        }
        if matches!(given.template, Patch::Value(_)) {
            rules.error(
                &field("template"),
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
            rules.error(
                &field("bureau"),
                "not_allowed",
                "Only a negativate step has a bureau",
            );
            ok = false;
        }
        bureau = None;
    }
    ok.then_some(StepFields {
        offset_days: given.offset_days,
        day_count: given.day_count,
        action,
        channel,
        template,
        bureau,
    })
}

/// `POST /v1/collection_plans`: the plan and its `steps`, each checked like a step creation,
/// faults named `steps[i].field`.
pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<collection_plans_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let mut steps = Vec::new();
    for (i, step) in body.steps.unwrap_or_default().into_iter().enumerate() {
        let position = step.position;
        if let Some(fields) = merge_step(
            &mut rules,
            &format!("steps[{i}]."),
            GivenStep::new(step),
            None,
        ) {
            steps.push((fields, position));
        }
    }
    rules.finish()?;
    let (name, description) = (
        body.name,
        body.description.into_option().filter(|d| !d.is_empty()),
    );
    let plan = app::NewPlan {
        name: &name,
        description: description.as_deref(),
        steps: &steps,
    };
    let mut tx = state.db.begin().await?;
    let id = app::create(&mut tx, &p.organization_id, &p.actor(), plan, &now_text())
        .await
        .map_err(problem)?;
    let plan = written(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "collection plan",
    )?;
    let body = collection_plans_create::Response201 { data: view(&plan)? };
    commit(tx, answer(StatusCode::CREATED, &body, Some(plan.version))).await
}

/// `PATCH /v1/collection_plans/{id}`.
pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(body): Body<collection_plans_update::Body>,
) -> ApiResult<Reply> {
    let current = find::<Plan>(&state, &p, &id).await?;
    check_if_match(&headers, current.version)?;
    let name = body.name.unwrap_or(current.name.clone());
    let description = match body.description {
        Patch::Value(d) if !d.is_empty() => Some(d),
        Patch::Value(_) | Patch::Null => None,
        Patch::Absent => current.description.clone(),
    };
    let mut tx = state.db.begin().await?;
    app::update(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &current,
        &name,
        description.as_deref(),
        &now_text(),
    )
    .await
    .map_err(problem)?;
    let plan = written(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "collection plan",
    )?;
    let body = collection_plans_update::Response200 { data: view(&plan)? };
    commit(tx, answer(StatusCode::OK, &body, Some(plan.version))).await
}

/// `DELETE /v1/collection_plans/{id}`: refused while open charges use it.
pub async fn delete(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let mut tx = state.db.begin().await?;
    app::delete(&mut tx, &p.organization_id, &p.actor(), &id, &now_text())
        .await
        .map_err(problem)?;
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}

/// `GET /v1/collection_plans/{cp_id}/steps`.
pub async fn steps_list(
    Caller(state, p): Caller,
    Path(plan_id): Path<String>,
    Query(query): Query<collection_plan_steps_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    if !store::exists(&state.db, &p.organization_id, &plan_id).await? {
        return Err(ApiError::not_found("collection plan", &plan_id));
    }
    let rows = store::list_steps(&state.db, &p.organization_id, &plan_id, page).await?;
    let body = collection_plan_steps_list::Response200 {
        data: rows.items.iter().map(step_view).collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
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

/// `POST /v1/collection_plans/{cp_id}/steps`.
pub async fn steps_create(
    Caller(state, p): Caller,
    Path(plan_id): Path<String>,
    Body(body): Body<collection_plan_steps_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let position = body.position;
    let fields = merge_step(&mut rules, "", GivenStep::new(body), None);
    rules.finish()?;
    let Some(fields) = fields else {
        return Err(ApiError::internal("validated fields missing"));
    };
    if !store::exists(&state.db, &p.organization_id, &plan_id).await? {
        return Err(ApiError::not_found("collection plan", &plan_id));
    }
    let mut tx = state.db.begin().await?;
    let id = app::create_step(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &plan_id,
        app::StepWrite {
            fields: &fields,
            position,
        },
        &now_text(),
    )
    .await
    .map_err(problem)?;
    let step = written(
        store::get_step(&mut tx, &p.organization_id, &plan_id, &id).await?,
        "collection plan step",
    )?;
    let body = collection_plan_steps_create::Response201 {
        data: step_view(&step)?,
    };
    commit(tx, answer(StatusCode::CREATED, &body, Some(step.version))).await
}

/// `PATCH /v1/collection_plans/{cp_id}/steps/{step_id}`.
pub async fn steps_update(
    Caller(state, p): Caller,
    Path((plan_id, step_id)): Path<(String, String)>,
    headers: HeaderMap,
    Body(body): Body<collection_plan_steps_update::Body>,
) -> ApiResult<Reply> {
    let current = find_step(&state, &p, &plan_id, &step_id).await?;
    let mut rules = Rules::default();
    let position = body.position;
    let fields = merge_step(
        &mut rules,
        "",
        GivenStep::change(body, &current),
        Some(&current),
    );
    rules.finish()?;
    check_if_match(&headers, current.version)?;
    let Some(fields) = fields else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let mut tx = state.db.begin().await?;
    app::update_step(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &plan_id,
        &current,
        app::StepWrite {
            fields: &fields,
            position,
        },
        &now_text(),
    )
    .await
    .map_err(problem)?;
    let step = written(
        store::get_step(&mut tx, &p.organization_id, &plan_id, &step_id).await?,
        "collection plan step",
    )?;
    let body = collection_plan_steps_update::Response200 {
        data: step_view(&step)?,
    };
    commit(tx, answer(StatusCode::OK, &body, Some(step.version))).await
}

/// `DELETE /v1/collection_plans/{cp_id}/steps/{step_id}`.
pub async fn steps_delete(
    Caller(state, p): Caller,
    Path((plan_id, step_id)): Path<(String, String)>,
) -> ApiResult<Reply> {
    let step = find_step(&state, &p, &plan_id, &step_id).await?;
    let mut tx = state.db.begin().await?;
    app::delete_step(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &plan_id,
        &step,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}
