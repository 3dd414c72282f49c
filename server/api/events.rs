//! `/v1/events`: the organization's audit trail.

use axum::extract::RawQuery;
use serde_json::{Value, json};

use super::caller::Caller;
use super::collection::read_instant;
use super::input::Input;
use super::problem::ApiResult;
use super::reply::{Reply, list as list_reply};
use crate::store::events::{self as store, Event, EventFilter};
use crate::store::timestamp_text;

/// An event as the API shows it (also in a charge's timeline).
pub(super) fn to_json(e: &Event) -> Value {
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

/// `GET /v1/events`: newest first, by type, subject and time range.
pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let kind = input.text("type");
    let subject_id = input.text("subject_id");
    let from = read_instant(&mut input, "created_from");
    let to = read_instant(&mut input, "created_to");
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        input.error("created_to", "range", "Must not be before created_from");
    }
    input.finish()?;
    let filter = EventFilter {
        kind,
        subject_id,
        created_from: from.map(timestamp_text),
        created_to: to.map(timestamp_text),
    };
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(rows.map(|e| to_json(&e)), page))
}
