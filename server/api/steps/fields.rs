//! `fields=id,status,amount_due` on a list: each item of the answer's `data` keeps only those
//! fields (and its `id`), so that a model reading a long list pays for what it asked for.
//!
//! Any list the document gives the `fields` parameter takes it (REST and, through the same
//! handler, its tool). The names a list knows are those of its items in the tool's output
//! schema (the document's item schema); another name is refused with the list of known ones.
//! The handler answers as always; this step then rewrites the answer's items. `meta` and the
//! order of items and fields stay as they were.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::body::Body;
use axum::body::Bytes;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use serde_json::{Map, Value};

use super::operations;
use crate::generated::OperationId;
use crate::http::problem::{ApiError, FieldError};

/// The query parameter.
const FIELDS: &str = "fields";

/// The largest answer this step rewrites: a page of 100 items is far below it.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// The item field names of each list that takes `fields`, from the catalog's output schemas.
fn known() -> &'static HashMap<OperationId, Vec<String>> {
    static KNOWN: OnceLock<HashMap<OperationId, Vec<String>>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        OperationId::ALL
            .iter()
            .filter(|op| op.tool().args.iter().any(|a| a.name == FIELDS))
            .filter_map(|op| {
                let output: Value = serde_json::from_str(op.tool().output_schema?).ok()?;
                let items = output.pointer("/properties/data/items/properties")?;
                let names = items.as_object()?.keys().cloned().collect();
                Some((*op, names))
            })
            .collect()
    })
}

/// The names `fields` asks for, when the request's query has it in its documented form
/// (`id,status`); a malformed value is left to the handler, which reports the document's fault.
fn asked(query: &str) -> Option<Vec<String>> {
    let value = form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == FIELDS)
        .map(|(_, value)| value.into_owned())?;
    let well_formed = !value.is_empty()
        && value
            .split(',')
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
    well_formed.then(|| value.split(',').map(str::to_owned).collect())
}

/// Runs `next`, then keeps only the asked fields of each item of a successful list answer.
pub async fn select<F: Future<Output = Response>>(
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let chosen = operations::of(request.extensions())
        .and_then(|op| known().get(&op))
        .zip(request.uri().query().and_then(asked));
    let Some((names, wanted)) = chosen else {
        return next(request).await;
    };
    // Boxed: every request's future holds this step's, and most lists are asked whole.
    Box::pin(selected(names, wanted, request, next)).await
}

/// [`select`] for a request that asks for `wanted` of the item fields `names`.
async fn selected<F: Future<Output = Response>>(
    names: &[String],
    mut wanted: Vec<String>,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let unknown: Vec<FieldError> = wanted
        .iter()
        .filter(|w| !names.contains(w))
        .map(|w| {
            FieldError::new(
                FIELDS,
                "unknown",
                format!("Unknown field '{w}': the items have {}", names.join(", ")),
            )
        })
        .collect();
    if !unknown.is_empty() {
        return ApiError::validation(unknown).into_response();
    }
    // The id says which object a row is: always kept.
    if !wanted.iter().any(|w| w == "id") && names.iter().any(|n| n == "id") {
        wanted.insert(0, "id".to_owned());
    }
    let response = next(request).await;
    if response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_ANSWER_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return ApiError::internal(format!("a list answer could not be read: {e}"))
                .into_response();
        }
    };
    let Ok(mut answer) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if let Some(items) = answer.get_mut("data").and_then(Value::as_array_mut) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            let kept: Map<String, Value> = std::mem::take(item)
                .into_iter()
                .filter(|(name, _)| wanted.contains(name))
                .collect();
            *item = kept;
        }
    }
    let written = match serde_json::to_vec(&answer) {
        Ok(written) => Bytes::from(written),
        Err(e) => {
            return ApiError::internal(format!("a list answer could not be written: {e}"))
                .into_response();
        }
    };
    // The answer is new bytes: whatever was noted about the handler's no longer holds.
    parts.extensions.remove::<mcpgen_axum::WrittenJson>();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(written))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_asked_names_come_from_the_query_without_blanks() {
        assert_eq!(
            asked("page=2&fields=id,status,amount_due"),
            Some(vec!["id".into(), "status".into(), "amount_due".into()])
        );
        // Not the documented form: the document's check reports it, not this step.
        assert_eq!(asked("fields=id,%20status"), None);
        assert_eq!(asked("fields=id,,status"), None);
        assert_eq!(asked("fields=ID"), None);
        assert_eq!(asked("fields="), None);
        assert_eq!(asked("page=1"), None);
    }

    #[test]
    fn every_paged_list_of_the_document_takes_fields_with_its_items_names() {
        let paged: Vec<&OperationId> = OperationId::ALL
            .iter()
            .filter(|op| op.tool().args.iter().any(|a| a.name == "per_page"))
            .collect();
        assert_eq!(paged.len(), 12);
        for op in paged {
            let names = known()
                .get(op)
                .unwrap_or_else(|| panic!("{} takes no fields", op.tool().name));
            assert!(
                names.iter().any(|n| n == "id"),
                "{}: {names:?}",
                op.tool().name
            );
        }
    }
}
