//! `/v1/exports`: CSV files of charges, customers or deliveries with the filters of their lists, built in
//! the background by `engine::exports` and downloaded once completed: streamed from their
//! stored pieces, whole or one `Range` of bytes, without holding the file.

use super::answers::words::Word;
use axum::body::{Body as ResponseBody, Bytes};
use axum::extract::Path;
use axum::response::IntoResponse;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::answers::refused::problem;
use super::answers::reply::{Reply, answer};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::commit_read;
use super::steps::server_rules::Rules;
use super::steps::typed_input::{self, Body};
use super::{charges, customers, deliveries};
use crate::generated::OperationId;
use crate::generated::models::{ExportCreateKind, ExportKind, exports_create, request, response};
use crate::http::byte_range::{self, Asked};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_app::exports as app;
use dunning_store::exports::{self as store, Export, ExportFilter, ExportStatus};
use dunning_store::{Db, now_text};

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
    let mut documented = super::steps::schema_check::query_pairs_faults(list, pairs.clone());
    for (name, _) in &pairs {
        if !names.contains(&name.as_str()) && !documented.iter().any(|f| &f.field == name) {
            documented.push(FieldError::new(
                name,
                "unknown",
                format!("Unknown query parameter '{name}'"),
            ));
        }
    }
    let query = typed_input::query_pairs::<Q>(Some(list), pairs, documented)?;
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
        status: e.status.word(),
        row_count: e.row_count,
        byte_size: e.byte_size,
        progress: e
            .rows_done
            .zip(e.rows_total)
            .map(|(rows_done, rows_total)| response::ExportProgress {
                rows_done,
                rows_total,
            }),
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
    let mut tx = state.db.begin().await?;
    let request = app::Request {
        kind: kind.as_str(),
        filters: &filters,
        filter: &filter,
    };
    let id = app::create(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        request,
        &now_text(),
    )
    .await
    .map_err(problem)?;
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

/// `GET /v1/exports/{id}/download`: the CSV of a completed export, or the one range of its
/// bytes that a `Range` header asks for (`http::byte_range`), streamed a stored piece at a
/// time: the body is read from the database as the client takes it, whatever the file's size.
pub async fn download(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Reply> {
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
    let size = export
        .byte_size
        .and_then(|size| u64::try_from(size).ok())
        .ok_or_else(|| ApiError::internal(format!("completed export {id} has no size")))?;
    let (status, first, last) = match byte_range::asked(&headers, size) {
        Asked::Whole => (StatusCode::OK, 0, size.checked_sub(1)),
        Asked::Part { first, last } => (StatusCode::PARTIAL_CONTENT, first, Some(last)),
        Asked::Unsatisfiable => {
            let mut refused = ApiError::new(
                StatusCode::RANGE_NOT_SATISFIABLE,
                "range_not_satisfiable",
                format!("The range asked for starts past the end of the file ({size} bytes)"),
            )
            .into_response();
            refused
                .headers_mut()
                .insert(header::CONTENT_RANGE, value(format!("bytes */{size}")));
            return Ok(refused);
        }
    };
    let length = last.map_or(0, |last| last - first + 1);
    let body = match last {
        Some(last) => pieces(
            state.db.clone(),
            p.organization_id.clone(),
            id.clone(),
            first,
            last,
        ),
        None => ResponseBody::empty(),
    };
    let mut reply = (status, body).into_response();
    let out = reply.headers_mut();
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8; header=present"),
    );
    out.insert(
        header::CONTENT_DISPOSITION,
        value(format!("attachment; filename=\"{}-{id}.csv\"", export.kind)),
    );
    out.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    out.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if let (StatusCode::PARTIAL_CONTENT, Some(last)) = (status, last) {
        out.insert(
            header::CONTENT_RANGE,
            value(format!("bytes {first}-{last}/{size}")),
        );
    }
    Ok(reply)
}

/// A header value of text we wrote (ASCII: numbers, an export's kind and id).
fn value(text: String) -> HeaderValue {
    HeaderValue::try_from(text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Bytes `first..=last` of export `id`'s file as a stream of its stored pieces, each read
/// when the client is ready for it (the first and last cut to the range). A piece missing
/// from a completed file ends the stream with an error: the client sees a short body
/// against its `Content-Length`, never a file that looks whole.
fn pieces(db: Db, organization_id: String, id: String, first: u64, last: u64) -> ResponseBody {
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let (first, end) = (to_i64(first), to_i64(last).saturating_add(1));
    let state = (db, organization_id, id, None::<i64>, first);
    let stream = futures_util::stream::try_unfold(
        state,
        move |(db, organization_id, id, seq, at)| async move {
            if at >= end {
                return Ok(None);
            }
            let seq = match seq {
                Some(seq) => seq,
                None => store::chunk_holding(&db, &organization_id, &id, at)
                    .await?
                    .ok_or_else(|| missing(&id, at))?,
            };
            let piece = store::chunk(&db, &organization_id, &id, seq)
                .await?
                .ok_or_else(|| missing(&id, at))?;
            let bytes = Bytes::from(piece.content);
            let piece_end = piece.byte_offset + i64::try_from(bytes.len()).unwrap_or(i64::MAX);
            if piece.byte_offset > at || piece_end <= at {
                return Err(missing(&id, at));
            }
            let from = usize::try_from(at - piece.byte_offset).unwrap_or(usize::MAX);
            let to = usize::try_from(end.min(piece_end) - piece.byte_offset).unwrap_or(usize::MAX);
            let part = bytes.slice(from..to);
            let next = piece_end.min(end);
            Ok(Some((part, (db, organization_id, id, Some(seq + 1), next))))
        },
    );
    ResponseBody::from_stream(stream)
}

/// The fault of a completed export's file without the piece that holds byte `at`.
fn missing(id: &str, at: i64) -> dunning_store::StoreError {
    let fault = format!("completed export {id} has no stored piece holding byte {at}");
    tracing::error!("{fault}");
    dunning_store::StoreError::Corrupt(fault)
}
