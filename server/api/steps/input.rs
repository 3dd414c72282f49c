//! Request input before and beside the typed models: what every request must be, and the
//! rules only a handler can judge.
//!
//! [`well_formed`] first refuses requests no handler should see: a path that is not UTF-8, a
//! body over the ceiling or too slow to arrive, a body that is not declared JSON. The
//! document's schemas then judge the body and query string (`super::schemas`), and
//! `super::checked` hands the handler the generated model. What no schema can say (check
//! digits, dates relative to today, objects that must exist, state and cross-field rules),
//! the handler checks on the typed value with [`Rules`], each rule an `x-server-rule` of the
//! document.
//!
//! Two rules hold for every handler because they live here:
//! - **Text** holds no control characters (U+0000–U+001F, U+007F–U+009F) and no bidirectional
//!   embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069), anywhere in a body or a
//!   query string, nested fields included: they would reach PDFs, CSV exports and messages to
//!   debtors, where they hide or reorder text. Only the multi-line fields
//!   ([`MULTI_LINE_FIELDS`]) may hold line feeds and tabs.
//! - **Dates** lie in [`FIRST_DATE`]..=[`LAST_DATE`] (the document's patterns say it); due
//!   dates also within [`DUE_DATE_YEARS`] years of today (see [`Rules::due_date`]).

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, header};
use serde_json::{Map, Value};
use time::Date;
use time::macros::date;

use crate::http::media_type::is_json;
use crate::http::problem::{ApiError, ApiResult, FieldError};

/// The largest request body (the MCP endpoint has the same ceiling).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Fields whose text may span lines: line feeds and tabs are allowed there, nowhere else.
/// Carriage returns are not: a line break is `\n`.
pub const MULTI_LINE_FIELDS: &[&str] = &[
    "certificate",
    "description",
    "note",
    "notes",
    "private_key",
    "reason",
    "resolution_note",
    "template",
];

/// The first date the API accepts anywhere (due dates, filters, timestamps).
pub const FIRST_DATE: Date = date!(2000 - 01 - 01);
/// The last date the API accepts anywhere.
pub const LAST_DATE: Date = date!(2099 - 12 - 31);
/// A due date lies at most this many years before or after today: older debts are past every
/// Brazilian limitation period (Código Civil art. 205: ten years at most), and a boleto due
/// further ahead is a typo.
pub const DUE_DATE_YEARS: i32 = 10;

pub use dunning_domain::text::allowed_char;

pub(super) fn invalid_characters(field: &str, multi_line: bool) -> FieldError {
    let message = if multi_line {
        "Must not contain control characters other than line feeds (\\n) and tabs, nor bidirectional overrides (U+202A–U+202E, U+2066–U+2069)"
    } else {
        "Must not contain control characters (line breaks and tabs included) nor bidirectional overrides (U+202A–U+202E, U+2066–U+2069)"
    };
    FieldError::new(field, "invalid_characters", message)
}

/// Every string in `value`, at any depth, against the text rule; faults are named by their
/// path (`address.street`, `tags[0]`, `steps[1].template`).
pub(super) fn check_texts(
    value: &Value,
    field: &str,
    multi_line: bool,
    errors: &mut Vec<FieldError>,
) {
    match value {
        Value::String(text) => {
            if !text.chars().all(|c| allowed_char(c, multi_line)) {
                errors.push(invalid_characters(field, multi_line));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_texts(item, &format!("{field}[{i}]"), multi_line, errors);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let path = if field.is_empty() {
                    key.clone()
                } else {
                    format!("{field}.{key}")
                };
                let multi_line = MULTI_LINE_FIELDS.contains(&key.as_str());
                check_texts(item, &path, multi_line, errors);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// `date` moved by whole years; 29 February becomes 28 February in a common year.
fn add_years(date: Date, years: i32) -> Date {
    let year = date.year() + years;
    date.replace_year(year)
        .or_else(|_| date.replace_day(28).and_then(|d| d.replace_year(year)))
        .unwrap_or(date)
}

/// A request body as a JSON object: nothing (or white space) is `{}`; not JSON is a 400 that
/// says why, and JSON that is not an object a 400 on `body`.
pub(super) fn json_object(bytes: &[u8]) -> ApiResult<Value> {
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
pub(super) fn query_map(
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

/// `items` with each repeated one kept once, in their order (tags, event names, ids).
pub fn distinct(items: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The rules of a request that no schema can say (check digits, dates relative to today,
/// objects that must exist, cross-field rules), each an `x-server-rule` of the document,
/// checked on the typed input: every fault is collected, and [`finish`](Rules::finish)
/// reports them all in one 400.
#[derive(Debug, Default)]
pub struct Rules {
    errors: Vec<FieldError>,
}

impl Rules {
    /// Record a complaint about a field; the same fault found twice is reported once.
    pub fn error(&mut self, field: &str, code: &str, message: impl Into<String>) {
        if !self
            .errors
            .iter()
            .any(|e| e.field == field && e.code == code)
        {
            self.errors.push(FieldError::new(field, code, message));
        }
    }

    /// A due date within [`DUE_DATE_YEARS`] years of today (the document's pattern has kept
    /// it within [`FIRST_DATE`]..=[`LAST_DATE`]), so that fine and interest stay those of a
    /// real debt: a due date in 1900 made R$ 100 owe R$ 1 647. `None` when it is not.
    pub fn due_date(&mut self, name: &str, date: Date) -> Option<Date> {
        let today = dunning_store::today();
        let first = add_years(today, -DUE_DATE_YEARS).max(FIRST_DATE);
        let last = add_years(today, DUE_DATE_YEARS).min(LAST_DATE);
        if (first..=last).contains(&date) {
            Some(date)
        } else {
            self.error(
                name,
                "range",
                format!("Must be a date from {first} to {last}"),
            );
            None
        }
    }

    /// One 400 naming every fault, or nothing.
    pub fn finish(self) -> ApiResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.errors))
        }
    }
}

/// Refuse, after authorization and before idempotency and the handler, what no handler should
/// see: a path that is not UTF-8 once percent-decoded or holds control characters; a body
/// over [`MAX_BODY_BYTES`] (413), unreadable (400) or not there within the server's body
/// timeout (408); a non-empty body without a JSON media type (415). The body is read here
/// once, so every later reader sees whole bytes.
pub async fn well_formed<F: Future<Output = Response>>(
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    if !path_is_text(request.uri().path()) {
        return ApiError::malformed(
            "The path is not valid UTF-8 text once percent-decoded (or holds control characters)",
        )
        .into_response();
    }
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        return next(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => return unreadable_body(&e),
    };
    if !bytes.is_empty() && !is_json(&parts.headers) {
        return ApiError::unsupported_media_type().into_response();
    }
    next(Request::from_parts(parts, Body::from(bytes))).await
}

/// Why a body could not be read, as a problem. After a body fault the connection cannot be
/// reused (what is left of the body would be read as the next request), so it is closed.
fn unreadable_body(error: &axum::Error) -> Response {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut problem = None;
    while let Some(e) = source {
        if e.is::<http_body_util::LengthLimitError>() {
            problem = Some(ApiError::payload_too_large(MAX_BODY_BYTES));
            break;
        }
        if let Some(timeout) = e.downcast_ref::<crate::http::serve::BodyTimedOut>() {
            problem = Some(ApiError::request_timeout(timeout.after));
            break;
        }
        source = e.source();
    }
    let problem = problem
        .unwrap_or_else(|| ApiError::malformed(format!("The body could not be read: {error}")));
    let mut response = problem.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Whether a request path percent-decodes to text: UTF-8 without control characters or
/// bidirectional overrides (path parameters are ids and reach problem details and logs).
fn path_is_text(path: &str) -> bool {
    // Most paths hold no escapes: the text is already the path's own.
    if !path.contains('%') {
        return path.chars().all(|c| allowed_char(c, false));
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).is_ok_and(|text| text.chars().all(|c| allowed_char(c, false)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_rule_refuses_controls_and_bidi_and_allows_line_feeds_and_tabs_in_multi_line_fields_only()
     {
        let cases = [
            ('a', true, true),
            ('ç', true, true),
            ('€', true, true),
            ('\u{200E}', true, true), // a left-to-right mark marks, it does not override
            ('\n', false, true),
            ('\t', false, true),
            ('\r', false, false),
            ('\0', false, false),
            ('\u{1b}', false, false),
            ('\u{7f}', false, false),
            ('\u{85}', false, false),
            ('\u{9f}', false, false),
            ('\u{202A}', false, false),
            ('\u{202E}', false, false),
            ('\u{2066}', false, false),
            ('\u{2069}', false, false),
        ];
        for (c, single_line, multi_line) in cases {
            assert_eq!(
                allowed_char(c, false),
                single_line,
                "{c:?} in a single-line field"
            );
            assert_eq!(
                allowed_char(c, true),
                multi_line,
                "{c:?} in a multi-line field"
            );
        }
    }

    #[test]
    fn nested_texts_are_checked_and_named_by_their_path() {
        let body = serde_json::json!({
            "name": "ok",
            "notes": "line\nbreak",
            "address": {"street": "Rua\u{0}"},
            "tags": ["ok", "bad\u{202E}"],
            "steps": [{"template": "a\tb"}, {"template": "a\rb"}],
        });
        let mut errors = Vec::new();
        check_texts(&body, "", false, &mut errors);
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["address.street", "tags[1]", "steps[1].template"]);
        assert!(errors.iter().all(|e| e.code == "invalid_characters"));
    }

    #[test]
    fn a_path_must_decode_to_text() {
        let cases = [
            ("/v1/customers/cus_abc", true),
            ("/v1/customers/Jo%C3%A3o", true),
            ("/v1/customers/100%", true),
            ("/v1/customers/%zz", true),
            ("/v1/customers/%FF", false),
            ("/v1/customers/%C3%28", false),
            ("/v1/customers/%00", false),
            ("/v1/customers/a%0Ab", false),
            ("/v1/customers/%E2%80%AE", false),
        ];
        for (path, text) in cases {
            assert_eq!(path_is_text(path), text, "{path}");
        }
    }

    #[test]
    fn years_are_added_on_the_calendar() {
        assert_eq!(add_years(date!(2026 - 03 - 10), 10), date!(2036 - 03 - 10));
        assert_eq!(add_years(date!(2026 - 03 - 10), -10), date!(2016 - 03 - 10));
        assert_eq!(add_years(date!(2024 - 02 - 29), 1), date!(2025 - 02 - 28));
        assert_eq!(add_years(date!(2024 - 02 - 29), 4), date!(2028 - 02 - 29));
    }
}
