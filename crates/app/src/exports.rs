//! Exports: an organization asks for a file of its charges, customers or deliveries; the
//! engine builds it later (`dunning_engine::exports`). Asking is a write with its event; the
//! `/v1/exports` handler calls it once the filters were read.

use serde_json::Value;

use dunning_models::response::ExportCreatedData;
use dunning_store::events::Actor;
use dunning_store::exports::{self as store, ExportFilter};
use dunning_store::{Connection, ids};

use crate::{Result, events};

/// What is asked for: the kind of rows, the filters as given (kept to show them back and in
/// the event) and as read (what the builder applies).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub kind: &'a str,
    pub filters: &'a Value,
    pub filter: &'a ExportFilter,
}

/// Queue an export, pending, with its `export.created` event; its id.
pub async fn create(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    request: Request<'_>,
    now: &str,
) -> Result<String> {
    let id = ids::new_id("exp");
    store::insert(
        tx,
        org,
        &id,
        request.kind,
        request.filters,
        request.filter,
        now,
    )
    .await?;
    events::record(
        tx,
        org,
        "export.created",
        ("export", &id),
        actor,
        &ExportCreatedData {
            kind: request.kind,
            filters: request
                .filters
                .as_object()
                .unwrap_or(&serde_json::Map::new()),
        },
    )
    .await?;
    Ok(id)
}
