//! `/v1/exports`: CSV files of charges, customers or deliveries with the filters of their lists, built in
//! the background by `engine::exports` and downloaded once completed.

use axum::body::Bytes;
use axum::extract::Path;
use axum::response::IntoResponse;
use http::header;
use serde_json::{Map, Value, json};

use super::caller::{Caller, find};
use super::idempotency::commit_read;
use super::input::{Input, Patch};
use super::reply::{self, Reply, data_with_etag};
use crate::generated::OperationId;
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_store::exports::{self as store, Export, ExportFilter, ExportStatus, KINDS};
use dunning_store::{events, ids, now_text};

/// Read an export's `filters` object with the rules of the list of that kind (the list's query
/// parameters in the document, then its reader), every fault named `filters.<name>`. Values
/// may be JSON strings, numbers or booleans (a list's query string only has text, so
/// `"amount_min": 100` and `"100"` mean the same).
fn read_filters(kind: &str, filters: &Map<String, Value>) -> ApiResult<ExportFilter> {
    let mut pairs = Vec::new();
    let mut errors = Vec::new();
    for (name, value) in filters {
        match value {
            Value::Null => {}
            Value::String(s) => pairs.push((name.clone(), s.clone())),
            Value::Number(n) => pairs.push((name.clone(), n.to_string())),
            Value::Bool(b) => pairs.push((name.clone(), b.to_string())),
            _ => errors.push(FieldError::new(
                format!("filters.{name}"),
                "type",
                "A filter is a string or a number, as in the list's query string",
            )),
        }
    }
    let list = match kind {
        "charges" => Some(OperationId::ChargesList),
        "customers" => Some(OperationId::CustomersList),
        "deliveries" => Some(OperationId::DeliveriesList),
        _ => None,
    };
    let documented = list.map_or_else(Vec::new, |list| {
        super::schemas::query_pairs_faults(list, pairs.clone())
    });
    if kind == "charges" {
        // An export takes a list's filters, not its order or page.
        let mut documented = documented;
        for (name, _) in &pairs {
            if !super::charges::FILTERS.contains(&name.as_str())
                && !documented.iter().any(|f| &f.field == name)
            {
                documented.push(FieldError::new(
                    name,
                    "unknown",
                    format!("Unknown query parameter '{name}'"),
                ));
            }
        }
        let faults = match super::checked::query_pairs(list, pairs, documented) {
            Ok(query) => {
                let mut rules = super::input::Rules::default();
                let filter = super::charges::filter(&query, &mut rules);
                match rules.finish() {
                    Ok(()) if errors.is_empty() => return Ok(ExportFilter::Charges(filter)),
                    Ok(()) => Vec::new(),
                    Err(problem) => problem.errors,
                }
            }
            Err(faults) => faults,
        };
        errors.extend(faults.into_iter().map(|e| FieldError {
            field: format!("filters.{}", e.field),
            ..e
        }));
        return Err(ApiError::validation(errors));
    }
    let mut input = Input::from_query(pairs);
    let filter = match kind {
        "customers" => ExportFilter::Customers(super::customers::read_filter(&mut input)),
        "deliveries" => ExportFilter::Deliveries(super::deliveries::read_filter(&mut input)),
        other => {
            return Err(ApiError::validation(vec![FieldError::new(
                "kind",
                "enum",
                format!(
                    "'{other}' cannot be exported; use one of: {}",
                    KINDS.join(", ")
                ),
            )]));
        }
    };
    // The reader's faults, then the document's about filters the reader did not name: the
    // order a list's own answer has.
    let mut faults = match input.finish() {
        Ok(()) => Vec::new(),
        Err(problem) => problem.errors,
    };
    for fault in documented {
        if !faults.iter().any(|f| f.field == fault.field) {
            faults.push(fault);
        }
    }
    errors.extend(faults.into_iter().map(|e| FieldError {
        field: format!("filters.{}", e.field),
        ..e
    }));
    if errors.is_empty() {
        Ok(filter)
    } else {
        Err(ApiError::validation(errors))
    }
}

/// An export as the API shows it (the file itself is `download`'s).
fn to_json(e: &Export) -> Value {
    json!({
        "id": e.id,
        "kind": e.kind,
        "filters": e.filters,
        "status": e.status,
        "row_count": e.row_count,
        "byte_size": e.byte_size,
        "error": e.error,
        "created_at": e.created_at,
        "completed_at": e.completed_at,
    })
}

fn accepted(export: Export) -> Reply {
    reply::accepted(to_json(&export), export.version)
}

/// `POST /v1/exports`: check the filters now, build the file later.
pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let kind = input.choice("kind", KINDS);
    let kind = input.require("kind", kind);
    let filters = match input.object("filters") {
        Patch::Value(map) => map,
        Patch::Absent | Patch::Null => Map::new(),
    };
    let mut faults = match input.finish() {
        Ok(()) => Vec::new(),
        Err(problem) => problem.errors,
    };
    // The body's reader reported what the document says of `filters` already; the filters'
    // own reader adds what it alone knows (a filter that is not one of the kind's list).
    let filter = match kind.map(|kind| read_filters(kind, &filters)) {
        Some(Ok(filter)) => Some(filter),
        Some(Err(problem)) => {
            for fault in problem.errors {
                if !faults.iter().any(|f| f.field == fault.field) {
                    faults.push(fault);
                }
            }
            None
        }
        None => None,
    };
    if !faults.is_empty() {
        return Err(ApiError::validation(faults));
    }
    let (Some(kind), Some(filter)) = (kind, filter) else {
        return Err(ApiError::internal("validated kind missing"));
    };
    let filters = Value::Object(filters);
    let id = ids::new_id("exp");
    let mut tx = state.db.begin().await?;
    store::insert(
        &mut tx,
        &p.organization_id,
        &id,
        kind,
        &filters,
        &filter,
        &now_text(),
    )
    .await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "export.created",
        ("export", &id),
        &p.actor(),
        &json!({ "kind": kind, "filters": filters }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "export",
        tx,
        accepted,
    )
    .await
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let export = find::<Export>(&state, &p, &id).await?;
    Ok(data_with_etag(to_json(&export), export.version))
}

/// `GET /v1/exports/{id}/download`: the CSV of a completed export.
pub async fn download(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let export = find::<Export>(&state, &p, &id).await?;
    let not_ready = |detail: String| ApiError::conflict("export_not_ready", detail);
    match export.status {
        ExportStatus::Completed => {}
        ExportStatus::Failed => {
            return Err(not_ready(format!(
                "Export {id} failed ({}); create a new one",
                export.error.as_deref().unwrap_or("no reason recorded")
            )));
        }
        status => {
            return Err(not_ready(format!(
                "Export {id} is {status}; poll exports_get until it is completed"
            )));
        }
    }
    let content = store::content(&state.db, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("completed export {id} has no content")))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/csv; charset=utf-8; header=present".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}-{id}.csv\"", export.kind),
            ),
        ],
        content,
    )
        .into_response())
}
