//! `/v1/events`: the organization's audit trail.

use axum::extract::RawQuery;

use super::caller::Caller;
use super::input::Input;
use super::reply::{Reply, list as list_reply};
use super::wire;
use crate::http::problem::ApiResult;
use dunning_store::events::{self as store, EventFilter};
use dunning_store::timestamp_text;

/// `GET /v1/events`: newest first, by type, subject and time range.
pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let kind = input.text("type");
    let subject_id = input.text("subject_id");
    let from = input.instant("created_from");
    let to = input.instant("created_to");
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
    Ok(list_reply(rows.map(|e| wire::event(&e)), page))
}
