//! `/v1/exports`: CSV files of charges, customers or deliveries with the filters of their lists, built in
//! the background by `engine::exports` and downloaded once completed.

use axum::extract::Path;
use axum::response::IntoResponse;
use http::{StatusCode, header};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::caller::{Caller, find};
use super::checked::{self, Body};
use super::idempotency::commit_read;
use super::input::Rules;
use super::reply::{Reply, answer};
use super::{charges, customers, deliveries};
use crate::generated::OperationId;
use crate::generated::models::{ExportCreateKind, ExportKind, exports_create, request, response};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_store::exports::{self as store, Export, ExportFilter, ExportStatus};
use dunning_store::{events, ids, now_text};

/// Read an export's `filters` object with the rules of the list of that kind (the list's query
/// parameters in the document, then its reader), every fault named `filters.<name>`. Values
/// may be JSON strings, numbers or booleans (a list's query string only has text, so
/// `"amount_min": 100` and `"100"` mean the same).
fn read_filters(kind: ExportCreateKind, filters: &Map<String, Value>) -> ApiResult<ExportFilter> {
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
    let read = match kind {
        ExportCreateKind::Charges => list_filters(
            OperationId::ChargesList,
            charges::FILTERS,
            pairs,
            |q, rules| ExportFilter::Charges(charges::filter(q, rules)),
        ),
        ExportCreateKind::Customers => list_filters(
            OperationId::CustomersList,
            customers::FILTERS,
            pairs,
            |q, rules| ExportFilter::Customers(customers::filter(q, rules)),
        ),
        ExportCreateKind::Deliveries => list_filters(
            OperationId::DeliveriesList,
            deliveries::FILTERS,
            pairs,
            |q, rules| ExportFilter::Deliveries(deliveries::filter(q, rules)),
        ),
    };
    match read {
        Ok(filter) if errors.is_empty() => return Ok(filter),
        Ok(_) => {}
        Err(faults) => errors.extend(faults.into_iter().map(|e| FieldError {
            field: format!("filters.{}", e.field),
            ..e
        })),
    }
    Err(ApiError::validation(errors))
}

/// The filters the body gave, by name, in the document's order: the object an export keeps.
fn given(filters: request::ExportCreateFilters) -> Map<String, Value> {
    let request::ExportCreateFilters {
        status,
        customer_id,
        due_date_from,
        due_date_to,
        amount_min,
        amount_max,
        tag,
        q,
        document,
        email,
        charge_id,
        channel,
    } = filters;
    [
        ("status", status),
        ("customer_id", customer_id),
        ("due_date_from", due_date_from),
        ("due_date_to", due_date_to),
        ("amount_min", amount_min),
        ("amount_max", amount_max),
        ("tag", tag),
        ("q", q),
        ("document", document),
        ("email", email),
        ("charge_id", charge_id),
        ("channel", channel),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name.to_owned(), value?)))
    .collect()
}

/// Filter `pairs` as the query of `list` (its model `Q`), read by the list's own `read`: the
/// document's faults (and those of a parameter of the list that is not one of its `names`
/// of filters: an export takes a list's filters, not its order or page), else the rules'.
fn list_filters<Q: DeserializeOwned>(
    list: OperationId,
    names: &[&str],
    pairs: Vec<(String, String)>,
    read: impl FnOnce(&Q, &mut Rules) -> ExportFilter,
) -> Result<ExportFilter, Vec<FieldError>> {
    let mut documented = super::schemas::query_pairs_faults(list, pairs.clone());
    for (name, _) in &pairs {
        if !names.contains(&name.as_str()) && !documented.iter().any(|f| &f.field == name) {
            documented.push(FieldError::new(
                name,
                "unknown",
                format!("Unknown query parameter '{name}'"),
            ));
        }
    }
    let query = checked::query_pairs::<Q>(Some(list), pairs, documented)?;
    let mut rules = Rules::default();
    let filter = read(&query, &mut rules);
    match rules.finish() {
        Ok(()) => Ok(filter),
        Err(problem) => Err(problem.errors),
    }
}

/// An export as the API shows it (the file itself is `download`'s). Its kind is stored as
/// text and its filters as the object given: anything else is our own fault.
fn view(e: &Export) -> ApiResult<response::Export<'_>> {
    let fault = |what: String| ApiError::internal(format!("export {} has {what}", e.id));
    Ok(response::Export {
        id: &e.id,
        kind: ExportKind::from_word(&e.kind).ok_or_else(|| fault(format!("kind '{}'", e.kind)))?,
        filters: e
            .filters
            .as_object()
            .ok_or_else(|| fault("filters that are not an object".to_string()))?,
        status: e.status.into(),
        row_count: e.row_count,
        byte_size: e.byte_size,
        error: e.error.as_deref(),
        created_at: e.created_at,
        completed_at: e.completed_at,
    })
}

/// `{"data": export}` with its ETag and `status`.
fn export_answer(status: StatusCode, export: &Export) -> ApiResult<Reply> {
    let body = response::ExportResponse {
        data: view(export)?,
    };
    Ok(answer(status, &body, Some(export.version)))
}

/// `POST /v1/exports`: check the filters now, build the file later.
pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<exports_create::Body>,
) -> ApiResult<Reply> {
    let kind = body.kind;
    let filters = body.filters.map(given).unwrap_or_default();
    // The document has judged the body; the filters' own reader adds what it alone knows
    // (the list's rules, and a filter that is not one of the kind's list).
    let filter = read_filters(kind, &filters)?;
    let filters = Value::Object(filters);
    let id = ids::new_id("exp");
    let mut tx = state.db.begin().await?;
    store::insert(
        &mut tx,
        &p.organization_id,
        &id,
        kind.as_str(),
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
        &json!({ "kind": kind.as_str(), "filters": filters }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "export",
        tx,
        |export| {
            export_answer(StatusCode::ACCEPTED, &export).unwrap_or_else(IntoResponse::into_response)
        },
    )
    .await
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let export = find::<Export>(&state, &p, &id).await?;
    export_answer(StatusCode::OK, &export)
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
