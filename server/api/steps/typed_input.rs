//! The request's input as the document's types: [`Body`] and [`Query`] hand a handler the
//! generated model of its JSON body or query string (`crate::generated::models`), once the
//! request has passed the document's schema check (`super::schema_check::checked`) and the
//! text rule (`super::text_rule`). A handler then reads fields by name in Rust, so a field the
//! document renames, removes or retypes stops the build where the handler uses it.
//!
//! Every fault of the request is still reported at once, in one 400: the text rule's, then the
//! document's (the schema check names each field, with the codes handlers always gave). What
//! a schema cannot say (check digits, dates relative to today, objects that must exist) the
//! handler checks on the typed value afterwards, with a [`Rules`](super::server_rules::Rules)
//! collector, each such rule written in the document as an `x-server-rule`.
//!
//! Strings arrive trimmed, as the handlers always read them; a query value given empty
//! (`?tag=`) counts as not given, as browsers send it.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::text_rule::{self, MULTI_LINE_FIELDS, allowed_char, invalid_characters};
use crate::generated::OperationId;
use crate::http::problem::{ApiError, ApiResult, FieldError};
use crate::state::AppState;

/// The JSON body of the request as the operation's `Body` model (an empty body is `{}`).
#[derive(Debug)]
pub struct Body<T>(pub T);

/// The query string of the request as the operation's `Query` model.
#[derive(Debug)]
pub struct Query<T>(pub T);

/// The body of an operation that takes none: nothing, or an empty JSON object (a client that
/// always sends `{}` is welcome); any field is refused as unknown.
#[derive(Debug)]
pub struct NoBody;

impl FromRequest<AppState> for NoBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|e| ApiError::malformed(format!("The body could not be read: {e}")))?;
        let value = json_object(&bytes)?;
        let mut faults = Vec::new();
        text_rule::check_texts(&value, "", false, &mut faults);
        for key in value.as_object().into_iter().flat_map(|map| map.keys()) {
            merge(
                &mut faults,
                vec![FieldError::new(
                    key,
                    "unknown",
                    format!("Unknown field '{key}'"),
                )],
            );
        }
        if faults.is_empty() {
            Ok(NoBody)
        } else {
            Err(ApiError::validation(faults))
        }
    }
}

impl<T: DeserializeOwned> FromRequest<AppState> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|e| ApiError::malformed(format!("The body could not be read: {e}")))?;
        body(&bytes).map(Body)
    }
}

impl<T: DeserializeOwned> FromRequestParts<AppState> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<Self, ApiError> {
        query(super::operations::of(&parts.extensions), parts.uri.query()).map(Query)
    }
}

/// `bytes` (a JSON object, or nothing) as `T`, after the request's schema and text checks.
fn body<T: DeserializeOwned>(bytes: &[u8]) -> ApiResult<T> {
    let mut value = json_object(bytes)?;
    let mut faults = Vec::new();
    text_rule::check_texts(&value, "", false, &mut faults);
    merge(&mut faults, super::schema_check::take());
    trim(&mut value);
    // Read even when the document found faults: a format the schema judges only loosely
    // (money's two decimals: `multipleOf: 0.01` passes 10.005 within float tolerance) is
    // then still named in the same 400.
    match typed::<T>(value) {
        Ok(body) if faults.is_empty() => Ok(body),
        Ok(_) => Err(ApiError::validation(faults)),
        Err(fault) => {
            add_typed_fault(&mut faults, fault);
            Err(ApiError::validation(faults))
        }
    }
}

/// The query string `raw` of `operation` as `T`, after the request's schema and text checks;
/// a repeated parameter is refused rather than guessed at. Values are read as the type their
/// parameter declares (`"25"` as 25 for an integer), as a query string has no types.
fn query<T: DeserializeOwned>(operation: Option<OperationId>, raw: Option<&str>) -> ApiResult<T> {
    let pairs = form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).into_owned();
    query_pairs(operation, pairs, super::schema_check::take()).map_err(ApiError::validation)
}

/// Query pairs (a query string's, or an export's filters) as `T` (see [`query`]), or every
/// fault of the pairs themselves and of `known` (the document's, already found).
pub fn query_pairs<T: DeserializeOwned>(
    operation: Option<OperationId>,
    pairs: impl IntoIterator<Item = (String, String)>,
    known: Vec<FieldError>,
) -> Result<T, Vec<FieldError>> {
    let (map, mut faults) = query_map(pairs);
    merge(&mut faults, known);
    let given = map
        .into_iter()
        .filter(|(_, value)| value.as_str().is_none_or(|s| !s.trim().is_empty()));
    let mut value = Value::Object(match operation {
        Some(operation) => super::schema_check::typed_query(operation, given),
        None => given.collect(),
    });
    trim(&mut value);
    match typed::<T>(value) {
        Ok(query) if faults.is_empty() => Ok(query),
        Ok(_) => Err(faults),
        Err(fault) => {
            add_typed_fault(&mut faults, fault);
            Err(faults)
        }
    }
}

/// A request body as a JSON object: nothing (or white space) is `{}`; not JSON is a 400 that
/// says why, and JSON that is not an object a 400 on `body`.
fn json_object(bytes: &[u8]) -> ApiResult<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::malformed(format!("The body is not valid JSON: {e}")))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(ApiError::validation(vec![FieldError::new(
            "body",
            "type",
            "The body must be a JSON object",
        )]))
    }
}

/// Query pairs as a map of text values, with the faults of the pairs themselves: a repeated
/// key (refused rather than guessed at) and text that breaks the text rule.
fn query_map(
    pairs: impl IntoIterator<Item = (String, String)>,
) -> (Map<String, Value>, Vec<FieldError>) {
    let mut map = Map::new();
    let mut faults = Vec::new();
    for (key, value) in pairs {
        if map.contains_key(&key) {
            faults.push(FieldError::new(
                &key,
                "repeated",
                "Give this parameter once",
            ));
            continue;
        }
        let multi_line = MULTI_LINE_FIELDS.contains(&key.as_str());
        if !value.chars().all(|c| allowed_char(c, multi_line)) {
            faults.push(invalid_characters(&key, multi_line));
        }
        map.insert(key, Value::String(value));
    }
    (map, faults)
}

/// `more` added to `faults`, but none about a field `faults` names already.
fn merge(faults: &mut Vec<FieldError>, more: Vec<FieldError>) {
    for fault in more {
        if !faults.iter().any(|f| f.field == fault.field) {
            faults.push(fault);
        }
    }
}

/// `value` as `T`, or the fault of the first field that does not read as its type (named by
/// its path, as the schema check names fields): a money amount with a third decimal, or a
/// value the model and the validator disagree on, never a guess.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." {
            "body".to_string()
        } else {
            field
        };
        // Once the schema check has passed, only the format types can still refuse a value
        // (money, dates, instants): each says so in the words its getter always used.
        let message = e.inner().to_string();
        if message.contains("two decimals") {
            FieldError::new(
                &field,
                "multiple_of",
                "Must be an amount in reais with at most two decimals",
            )
        } else if message.contains("RFC 3339") {
            FieldError::new(
                &field,
                "format",
                "Must be a date-time as RFC 3339, e.g. 2025-03-15T13:45:00-03:00",
            )
        } else if message.contains("component") {
            FieldError::new(&field, "format", "Must be a date as YYYY-MM-DD")
        } else {
            FieldError::new(&field, "type", message)
        }
    })
}

/// Add the typed reading's `fault` to the document's `faults`: all of it when the document
/// found none; else only a money amount the schema let through (a missing or mistyped field
/// the document has named already, perhaps deeper, is not said twice).
fn add_typed_fault(faults: &mut Vec<FieldError>, fault: FieldError) {
    if faults.is_empty() || fault.code == "multiple_of" {
        merge(faults, vec![fault]);
    }
}

/// Every string of `value`, at any depth, without leading and trailing white space.
fn trim(value: &mut Value) {
    match value {
        Value::String(text) => {
            let trimmed = text.trim();
            if trimmed.len() != text.len() {
                *text = trimmed.to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(trim),
        Value::Object(map) => map.values_mut().for_each(trim),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
