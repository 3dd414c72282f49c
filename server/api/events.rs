//! `/v1/events`: the organization's audit trail.

use super::answers::reply::{Reply, page_request};
use super::answers::wire;
use super::steps::caller::Caller;
use super::steps::server_rules::Rules;
use super::steps::typed_input::Query;
use crate::generated::models::events_list;
use crate::http::problem::ApiResult;
use dunning_store::events::{self as store, EventFilter};

/// `GET /v1/events`: newest first, by type, subject and time range.
pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<events_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let mut rules = Rules::default();
    let (from, to) = (query.created_from, query.created_to);
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        rules.error("created_to", "range", "Must not be before created_from");
    }
    rules.finish()?;
    let filter = EventFilter {
        kind: query.r#type,
        subject_id: query.subject_id,
        created_from: from.map(|t| t.to_string()),
        created_to: to.map(|t| t.to_string()),
    };
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    wire::event_list(&rows, page)
}
