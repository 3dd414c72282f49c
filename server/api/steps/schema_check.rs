//! The request schemas of the OpenAPI document, as validators: every `/v1` body and query
//! string is judged against what `openapi/v1.yaml` says, so that constraints are written once,
//! in the document, and handlers keep only the rules a schema cannot say (check digits, dates
//! relative to today, state and cross-object rules).
//!
//! The generator emits each operation's body schema (exactly as the document states it,
//! `additionalProperties: false` included) and its query parameters as one object schema
//! (`OperationId::body_schema`, `OperationId::query_schema`); they are compiled once, on first
//! use, into a table indexed by operation. [`checked`] (a `/v1` middleware, just before the
//! handler) judges the request and leaves the faults to the request's typed reader
//! (`super::typed_input`), which answers them in one 400, every fault named by its path
//! (`address.street`, `tags[0]`) with the codes handlers used before (`length`, `range`,
//! `enum`, `type`, `required`, `unknown`, `format`, `pattern`, `min_items`, ...). The faults
//! travel with the request's task, as a task-local value beside the request, until the reader
//! [`take`]s them.

use std::cell::RefCell;
use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value};

use super::operations;
use crate::generated::OperationId;
use crate::http::problem::{ApiError, FieldError};

/// Judge the request's query string and JSON body against its operation's schemas, and run
/// the handler with the faults found waiting for its input reader ([`take`]):
/// the handler then reports them together with its own, in one 400, as it always has.
pub async fn checked<F: Future<Output = Response>>(
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let Some(operation) = operations::of(request.extensions()) else {
        return next(request).await;
    };
    let (parts, body) = request.into_parts();
    // `well_formed` has read the body whole already: this only takes the bytes back.
    let bytes = match axum::body::to_bytes(body, super::well_formed::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return ApiError::malformed(format!("The body could not be read: {e}")).into_response();
        }
    };
    let mut faults = query_faults(operation, parts.uri.query().unwrap_or_default());
    faults.extend(body_faults(operation, &bytes));
    let request = Request::from_parts(parts, Body::from(bytes));
    carry(faults, next(request)).await
}

tokio::task_local! {
    static FAULTS: RefCell<Option<Vec<FieldError>>>;
}

/// Run `handler` with `faults` waiting for its input reader.
async fn carry<F: Future>(faults: Vec<FieldError>, handler: F) -> F::Output {
    FAULTS.scope(RefCell::new(Some(faults)), handler).await
}

/// The document's faults of the running request, once: the reader of the request's own body
/// or query string takes them (a reader of a part, such as one step of a plan, does not).
pub(super) fn take() -> Vec<FieldError> {
    FAULTS
        .try_with(|cell| cell.borrow_mut().take())
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The compiled schemas of one operation.
struct Compiled {
    body: Option<Validator>,
    query: Option<(Validator, Value)>,
}

fn compiled(operation: OperationId) -> &'static Compiled {
    static TABLE: OnceLock<Vec<Compiled>> = OnceLock::new();
    let table = TABLE.get_or_init(|| OperationId::ALL.iter().map(|op| compile(*op)).collect());
    &table[operation.index()]
}

/// A schema the generator emitted that does not compile is a build defect; the tests compile
/// every one (`every_request_schema_of_the_document_compiles`), so `expect` cannot fire in a
/// released server.
fn compile(operation: OperationId) -> Compiled {
    let build = |text: &str| {
        let schema: Value = serde_json::from_str(text).expect("the generator emits JSON");
        let validator = jsonschema::draft202012::new(&schema)
            .unwrap_or_else(|e| panic!("{operation:?}: a request schema does not compile: {e}"));
        (validator, schema)
    };
    Compiled {
        body: operation.body_schema().map(|text| build(text).0),
        query: operation.query_schema().map(build),
    }
}

/// The faults of a JSON body against the operation's body schema. A body that is not a
/// JSON object is left to the handler, which says so in its own words; an empty body is `{}`.
fn body_faults(operation: OperationId, bytes: &[u8]) -> Vec<FieldError> {
    let Some(validator) = &compiled(operation).body else {
        return Vec::new();
    };
    let body = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value @ Value::Object(_)) => value,
            _ => return Vec::new(),
        }
    };
    faults(validator, &body)
}

/// The faults of a query string against the operation's query parameters. An empty value is
/// a value like any other (`?tag=` is a tag of no characters, which `minLength: 1` refuses);
/// a repeated key is the handler's to refuse (its first value is judged).
fn query_faults(operation: OperationId, raw: &str) -> Vec<FieldError> {
    let pairs = form_urlencoded::parse(raw.as_bytes()).into_owned();
    query_pairs_faults(operation, pairs)
}

/// The faults of query pairs against the query parameters of `operation`: a list's query
/// string, or the filters of an export of that list (`api::exports`). Values are read as the
/// type their parameter declares first (`"25"` as 25 for an integer), as a query string has
/// no types.
pub fn query_pairs_faults(
    operation: OperationId,
    pairs: impl IntoIterator<Item = (String, String)>,
) -> Vec<FieldError> {
    let Some((validator, _)) = &compiled(operation).query else {
        // No query parameters: anything given is unknown (the handler says so).
        return Vec::new();
    };
    let typed = typed_query(
        operation,
        pairs
            .into_iter()
            .map(|(key, value)| (key, Value::String(value))),
    );
    let mut faults = faults(validator, &Value::Object(typed));
    for fault in faults.iter_mut().filter(|f| f.code == "unknown") {
        fault.message = format!("Unknown query parameter '{}'", fault.field);
    }
    faults
}

/// Query values (text) as the types `operation`'s parameters declare, where they read as
/// one; a repeated key keeps its first value.
pub fn typed_query(
    operation: OperationId,
    pairs: impl IntoIterator<Item = (String, Value)>,
) -> Map<String, Value> {
    let schema = compiled(operation).query.as_ref().map(|(_, schema)| schema);
    let mut typed = Map::new();
    for (key, value) in pairs {
        if typed.contains_key(&key) {
            continue;
        }
        let value = match schema {
            Some(schema) => typed_query_value(&schema["properties"][key.as_str()], &value),
            None => value,
        };
        typed.insert(key, value);
    }
    typed
}

/// A query value as the type its schema declares, when it reads as one; else as it came.
fn typed_query_value(schema: &Value, value: &Value) -> Value {
    let Value::String(text) = value else {
        return value.clone();
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let text = text.trim();
    if types.contains(&"integer")
        && let Ok(n) = text.parse::<i64>()
    {
        return Value::from(n);
    }
    if types.contains(&"number")
        && let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    {
        return Value::Number(n);
    }
    if types.contains(&"boolean") && (text == "true" || text == "false") {
        return Value::Bool(text == "true");
    }
    value.clone()
}

fn faults(validator: &Validator, instance: &Value) -> Vec<FieldError> {
    let mut out: Vec<FieldError> = Vec::new();
    for error in validator.iter_errors(instance) {
        for fault in fault(&error) {
            if !out
                .iter()
                .any(|f| f.field == fault.field && f.code == fault.code)
            {
                out.push(fault);
            }
        }
    }
    out
}

/// `address.street`, `tags[0]`, `steps[1].template`: how handlers have always named fields.
fn field_name(error: &ValidationError<'_>) -> String {
    let mut name = String::new();
    for segment in error.instance_path().iter() {
        match segment {
            LocationSegment::Property(key) => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(&key);
            }
            LocationSegment::Index(i) => name.push_str(&format!("[{i}]")),
        }
    }
    name
}

fn child(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// One schema error as the field faults it means, with the code a handler gave it.
fn fault(error: &ValidationError<'_>) -> Vec<FieldError> {
    let field = field_name(error);
    let at = |code: &str, message: String| vec![FieldError::new(&field, code, message)];
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            vec![FieldError::new(
                child(&field, name),
                "required",
                "This field is required",
            )]
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected
            .iter()
            .map(|key| {
                let what = if field.is_empty() { "field" } else { "key" };
                FieldError::new(
                    child(&field, key),
                    "unknown",
                    format!("Unknown {what} '{key}'"),
                )
            })
            .collect(),
        ValidationErrorKind::Type { kind } => at("type", format!("Must be {}", type_words(kind))),
        ValidationErrorKind::MinLength { limit } => at(
            "length",
            format!(
                "Must have at least {limit} characters{}",
                length_note(error)
            ),
        ),
        ValidationErrorKind::MaxLength { limit } => at(
            "length",
            format!("Must have at most {limit} characters{}", length_note(error)),
        ),
        ValidationErrorKind::Minimum { limit } => at("range", format!("Must be at least {limit}")),
        ValidationErrorKind::Maximum { limit } => at("range", format!("Must be at most {limit}")),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            at("range", format!("Must be more than {limit}"))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            at("range", format!("Must be less than {limit}"))
        }
        ValidationErrorKind::Enum { options } => at(
            "enum",
            format!(
                "Must be one of: {}",
                words(options.as_array().map(Vec::as_slice))
            ),
        ),
        ValidationErrorKind::Constant { expected_value } => {
            at("enum", format!("Must be {expected_value}"))
        }
        ValidationErrorKind::MinItems { limit } => {
            at("min_items", format!("At least {limit} items"))
        }
        ValidationErrorKind::MaxItems { limit } => {
            at("max_items", format!("At most {limit} items"))
        }
        ValidationErrorKind::UniqueItems => at("unique", "Items must be distinct".into()),
        ValidationErrorKind::MultipleOf { .. } => at("multiple_of", error.masked().to_string()),
        ValidationErrorKind::Format { format } => at("format", format!("Must be a {format}")),
        ValidationErrorKind::Pattern { pattern } => pattern_fault(error, &field, pattern),
        // `anyOf` of types (a string or a number): one fault naming them all, as a type.
        ValidationErrorKind::AnyOf { context } => match alternative_types(context) {
            Some(types) => at("type", format!("Must be {}", types.join(" or "))),
            None => at("invalid", error.masked().to_string()),
        },
        _ => at("invalid", error.masked().to_string()),
    }
}

/// A pattern the document gives a date (`^20[0-9]{2}-…`) states the century the API accepts:
/// a real date outside it is out of range, anything else is not a date (`format`), as the
/// date readers have always said. The text patterns (`x-text-patterns`: the text rule, and
/// "not blank") are the text rule's fault (`invalid_characters`, which the body's reader
/// reports already) or a blank text (`length`: nothing once trimmed). Other patterns are
/// `pattern` faults.
fn pattern_fault(error: &ValidationError<'_>, field: &str, pattern: &str) -> Vec<FieldError> {
    let text = error.instance().as_str().unwrap_or_default();
    if pattern.contains(TEXT_RULE_RANGES) {
        let multi_line = pattern.contains("\\x0B");
        if text
            .chars()
            .all(|c| super::text_rule::allowed_char(c, multi_line))
        {
            return vec![FieldError::new(
                field,
                "length",
                "Must not be blank (it is white space only)",
            )];
        }
        return vec![super::text_rule::invalid_characters(field, multi_line)];
    }
    if pattern.starts_with("^20[0-9]{2}-") {
        let date = text.get(..10).unwrap_or(text);
        let format = time::macros::format_description!("[year]-[month]-[day]");
        let code = if time::Date::parse(date, &format).is_ok() {
            "range"
        } else {
            "format"
        };
        let message = if code == "range" {
            "Must be in 2000 to 2099"
        } else {
            "Must be a date as YYYY-MM-DD (or an RFC 3339 date-time where one is asked)"
        };
        return vec![FieldError::new(field, code, message)];
    }
    if let Some(words) = word_list(pattern) {
        let unknown: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty() && !words.contains(w))
            .collect();
        if let Some(first) = unknown.first() {
            return vec![FieldError::new(
                field,
                "enum",
                format!(
                    "'{first}' is not a {field}; use a comma-separated list of: {}",
                    words.join(", ")
                ),
            )];
        }
    }
    vec![FieldError::new(
        field,
        "pattern",
        format!("Must match the pattern {pattern}"),
    )]
}

/// The words of a comma-separated list pattern, `^(a|b)(,(a|b))*$`, which the document writes
/// for filters that take several values of an enumeration (`status=pending,overdue`).
fn word_list(pattern: &str) -> Option<Vec<&str>> {
    let inner = pattern.strip_prefix("^(")?.strip_suffix(")*$")?;
    let (words, repeated) = inner.split_once(")(,(")?;
    let repeated = repeated.strip_suffix(')')?;
    (words == repeated
        && words
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '|'))
    .then(|| words.split('|').collect())
}

/// The character ranges every text pattern of the document refuses (the text rule's C1
/// controls and bidirectional overrides): how [`pattern_fault`] tells them from others.
const TEXT_RULE_RANGES: &str = "\\x7F-\\x9F\\u202A-\\u202E\\u2066-\\u2069]";

fn length_note(error: &ValidationError<'_>) -> String {
    match error.instance().as_str() {
        Some(text) => format!(" (has {})", text.chars().count()),
        None => String::new(),
    }
}

/// The types an `anyOf` offered, when each of its branches failed on its type alone.
fn alternative_types(branches: &[Vec<ValidationError<'static>>]) -> Option<Vec<String>> {
    branches
        .iter()
        .map(|errors| match errors.as_slice() {
            [only] => match only.kind() {
                ValidationErrorKind::Type { kind } => Some(type_words(kind)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn type_words(kind: &TypeKind) -> String {
    let name = |t: &jsonschema::JsonType| match t.to_string().as_str() {
        "object" => "an object".to_string(),
        "array" => "an array".to_string(),
        "integer" => "an integer".to_string(),
        "null" => "null".to_string(),
        other => format!("a {other}"),
    };
    match kind {
        TypeKind::Single(t) => name(t),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| name(&t))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn words(options: Option<&[Value]>) -> String {
    options
        .unwrap_or_default()
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_schema_of_the_document_compiles() {
        for operation in OperationId::ALL {
            let compiled = compile(*operation);
            assert_eq!(
                compiled.body.is_some(),
                operation.body_schema().is_some(),
                "{operation:?}"
            );
        }
    }

    #[test]
    fn schema_faults_name_each_field_with_the_codes_handlers_give() {
        let schema = serde_json::json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["name", "due_date"],
            "properties": {
                "name": {"type": "string", "maxLength": 3},
                "due_date": {"type": "string", "pattern": "^20[0-9]{2}-[0-9]{2}-[0-9]{2}$"},
                "paid_at": {"type": "string", "pattern": "^20[0-9]{2}-"},
                "kind": {"type": "string", "enum": ["a", "b"]},
                "count": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                "address": {
                    "type": "object",
                    "required": ["city"],
                    "properties": {"city": {"type": "string"}}
                }
            }
        });
        let validator = jsonschema::draft202012::new(&schema).expect("compiles");
        let body = serde_json::json!({
            "name": "long",
            "due_date": "1900-01-01",
            "paid_at": "yesterday",
            "kind": "c",
            "count": 0,
            "tags": [3],
            "address": {},
            "amout": 1,
        });
        let mut named: Vec<(String, String)> = faults(&validator, &body)
            .into_iter()
            .map(|f| (f.field, f.code))
            .collect();
        named.sort();
        let expected = [
            ("address.city", "required"),
            ("amout", "unknown"),
            ("count", "range"),
            ("due_date", "range"),
            ("kind", "enum"),
            ("name", "length"),
            ("paid_at", "format"),
            ("tags[0]", "type"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(f, c)| (f.to_string(), c.to_string()))
            .collect();
        assert_eq!(named, expected);
        let missing = faults(&validator, &serde_json::json!({"due_date": "2030-01-01"}));
        assert_eq!(missing.len(), 1);
        assert_eq!(
            (missing[0].field.as_str(), missing[0].code.as_str()),
            ("name", "required")
        );
    }

    #[test]
    fn the_documents_text_patterns_say_the_text_rule_and_not_blank() {
        let document: Value =
            serde_json::from_str(crate::generated::OPENAPI_JSON).expect("the document is JSON");
        let patterns = &document["x-text-patterns"];
        let validator = |name: &str| {
            let pattern = patterns[name].as_str().expect(name);
            jsonschema::draft202012::new(&serde_json::json!({"type": "string", "pattern": pattern}))
                .expect("the pattern compiles")
        };
        let sample = (0..0x3000_u32)
            .chain(0xFEFF..0xFF00)
            .chain([0x1_F600, 0x10_FFFF])
            .filter_map(char::from_u32);
        for (name, multi_line) in [
            ("line", false),
            ("lines", true),
            ("line_not_blank", false),
            ("lines_not_blank", true),
        ] {
            let v = validator(name);
            for c in sample.clone() {
                assert_eq!(
                    v.is_valid(&Value::from(format!("a{c}b"))),
                    super::super::text_rule::allowed_char(c, multi_line),
                    "{name}: U+{:04X}",
                    c as u32
                );
            }
            let blank_allowed = !name.ends_with("not_blank");
            for blank in ["", " ", "  \u{a0} "] {
                assert_eq!(
                    v.is_valid(&Value::from(blank)),
                    blank_allowed,
                    "{name}: {blank:?}"
                );
            }
            assert!(v.is_valid(&Value::from(" Conceição ")), "{name}");
        }
        let faults = faults(&validator("line_not_blank"), &Value::from(" \u{a0} "));
        assert_eq!(
            faults.iter().map(|f| f.code.as_str()).collect::<Vec<_>>(),
            ["length"]
        );
    }

    #[test]
    fn query_values_are_read_as_the_type_their_parameter_declares() {
        let integer = serde_json::json!({"type": "integer"});
        let text = serde_json::json!({"type": ["string", "null"]});
        let boolean = serde_json::json!({"type": "boolean"});
        assert_eq!(typed_query_value(&integer, &"25".into()), Value::from(25));
        assert_eq!(
            typed_query_value(&integer, &"2.5".into()),
            Value::from("2.5")
        );
        assert_eq!(typed_query_value(&text, &"25".into()), Value::from("25"));
        assert_eq!(
            typed_query_value(&boolean, &"true".into()),
            Value::Bool(true)
        );
        assert_eq!(
            typed_query_value(&boolean, &"yes".into()),
            Value::from("yes")
        );
    }
}
