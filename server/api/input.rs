//! Reading and validating request input (query strings and JSON bodies) with every fault
//! collected and reported at once, each naming its field.
//!
//! [`well_formed`] first refuses requests no handler should see: a path that is not UTF-8, a
//! body over the ceiling or too slow to arrive, a body that is not declared JSON. Handlers then
//! take fields one by one with typed getters; `finish` refuses unknown fields (a misspelt
//! `amout` must not be silently ignored) and returns all complaints in one 400.
//!
//! The getters read and convert (text trimmed, money to centavos, dates parsed); they do not
//! repeat what the document says of a field (lengths, ranges, item counts, enums, patterns):
//! `super::schemas` judges the request against the document before the handler runs, and
//! [`Input::finish`] reports those faults (`super::faults`) with the handler's own.
//!
//! Two rules hold for every handler because they live here:
//! - **Text** holds no control characters (U+0000–U+001F, U+007F–U+009F) and no bidirectional
//!   embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069), anywhere in a body or a
//!   query string, nested fields included: they would reach PDFs, CSV exports and messages to
//!   debtors, where they hide or reorder text. Only the multi-line fields
//!   ([`MULTI_LINE_FIELDS`]) may hold line feeds and tabs.
//! - **Dates** lie in [`FIRST_DATE`]..=[`LAST_DATE`]; due dates also within
//!   [`DUE_DATE_YEARS`] years of today (see [`Input::due_date`]).

use std::collections::BTreeSet;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, Method, header};
use serde_json::{Map, Value};
use time::macros::date;
use time::{Date, OffsetDateTime};

use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_domain::money::Cents;
use dunning_store::PageRequest;

/// The largest request body (the MCP endpoint has the same ceiling).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Fields whose text may span lines: line feeds and tabs are allowed there, nowhere else.
/// Carriage returns are not: a line break is `\n`.
pub const MULTI_LINE_FIELDS: &[&str] = &[
    "description",
    "note",
    "notes",
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

    /// Whether a fault names `field` already.
    pub fn names(&self, field: &str) -> bool {
        self.errors.iter().any(|e| e.field == field)
    }

    /// `value` when it is given; else "required" on `name` (unless a fault names it already).
    pub fn require<T>(&mut self, name: &str, value: Option<T>) -> Option<T> {
        if value.is_none() && !self.names(name) {
            self.error(name, "required", "This field is required");
        }
        value
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

/// Request fields awaiting validation.
#[derive(Debug)]
pub struct Input {
    fields: Map<String, Value>,
    /// Query values arrive as text; body values as JSON types.
    from_query: bool,
    taken: BTreeSet<String>,
    errors: Vec<FieldError>,
    /// Whether this reads the request's own body or query string, whose faults against the
    /// document (`super::schemas`) it then reports with its own.
    request: bool,
}

/// A field of a PATCH body: absent, explicitly null, or a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Patch<T> {
    Absent,
    Null,
    Value(T),
}

impl Input {
    /// Parse the request's JSON object body. Not JSON or not an object → 400. Its faults
    /// against the operation's body schema are reported by [`finish`](Self::finish).
    pub fn from_body(body: &Bytes) -> ApiResult<Input> {
        let mut input = Input::from_part(body)?;
        input.request = true;
        Ok(input)
    }

    /// Parse a JSON object that is a part of the request (one step of a plan), read apart:
    /// the document's faults are the whole request's, reported by its own reader.
    pub fn from_part(body: &Bytes) -> ApiResult<Input> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Input::from_map(Map::new(), false));
        }
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::malformed(format!("The body is not valid JSON: {e}")))?;
        let mut faults = Vec::new();
        check_texts(&value, "", false, &mut faults);
        match value {
            Value::Object(map) => {
                let mut input = Input::from_map(map, false);
                input.errors = faults;
                Ok(input)
            }
            _ => Err(ApiError::validation(vec![FieldError::new(
                "body",
                "type",
                "The body must be a JSON object",
            )])),
        }
    }

    /// The query string of the request, as axum's `RawQuery` gives it. Its faults against the
    /// operation's query parameters are reported by [`finish`](Self::finish).
    pub fn from_raw_query(raw: Option<String>) -> Input {
        let mut input = Input::from_query(
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .into_owned()
                .collect(),
        );
        input.request = true;
        input
    }

    /// Query pairs; a repeated key is refused rather than guessed at.
    pub fn from_query(pairs: Vec<(String, String)>) -> Input {
        let mut map = Map::new();
        let mut input = Input::from_map(Map::new(), true);
        for (key, value) in pairs {
            if map.contains_key(&key) {
                input.errors.push(FieldError::new(
                    &key,
                    "repeated",
                    "Give this parameter once",
                ));
                continue;
            }
            if !value
                .chars()
                .all(|c| allowed_char(c, MULTI_LINE_FIELDS.contains(&key.as_str())))
            {
                let multi_line = MULTI_LINE_FIELDS.contains(&key.as_str());
                input.errors.push(invalid_characters(&key, multi_line));
            }
            map.insert(key, Value::String(value));
        }
        input.fields = map;
        input
    }

    fn from_map(fields: Map<String, Value>, from_query: bool) -> Input {
        Input {
            fields,
            from_query,
            taken: BTreeSet::new(),
            errors: Vec::new(),
            request: false,
        }
    }

    /// Record a complaint about a field.
    /// The same fault found twice (a nested input's and its parent's) is reported once.
    pub fn error(&mut self, field: &str, code: &str, message: impl Into<String>) {
        if !self
            .errors
            .iter()
            .any(|e| e.field == field && e.code == code)
        {
            self.errors.push(FieldError::new(field, code, message));
        }
    }

    fn take(&mut self, name: &str) -> Option<Value> {
        self.taken.insert(name.to_string());
        match self.fields.get(name) {
            // An empty query value means "not given" (`?tag=`), as browsers send it.
            Some(Value::String(s)) if self.from_query && s.is_empty() => None,
            Some(v) => Some(v.clone()),
            None => None,
        }
    }

    /// Complain that `name` is required when `value` is missing and nothing else was said
    /// about that field already.
    pub fn require<T>(&mut self, name: &str, value: Option<T>) -> Option<T> {
        if value.is_none() && !self.errors.iter().any(|e| e.field == name) {
            self.error(name, "required", "This field is required");
        }
        value
    }

    /// A string, trimmed (it may then be empty: a field that must not be blank says so in the
    /// document). `null` counts as absent.
    pub fn text(&mut self, name: &str) -> Option<String> {
        match self.take(name)? {
            Value::Null => None,
            Value::String(s) => Some(s.trim().to_string()),
            _ => {
                self.error(name, "type", "Must be a string");
                None
            }
        }
    }

    pub fn required_text(&mut self, name: &str) -> Option<String> {
        let v = self.text(name);
        self.require(name, v)
    }

    /// For PATCH: distinguishes an absent field from `null` (clear it).
    pub fn patch_text(&mut self, name: &str) -> Patch<String> {
        match self.fields.get(name) {
            None => {
                self.taken.insert(name.to_string());
                Patch::Absent
            }
            Some(Value::Null) => {
                self.taken.insert(name.to_string());
                Patch::Null
            }
            Some(_) => self.text(name).map_or(Patch::Absent, Patch::Value),
        }
    }

    /// Whether the field is present (even as null), without taking it.
    pub fn has(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    /// A JSON boolean (or `true`/`false` in a query string). `null` counts as absent.
    pub fn boolean(&mut self, name: &str) -> Option<bool> {
        match self.take(name)? {
            Value::Null => None,
            Value::Bool(b) => Some(b),
            Value::String(s) if self.from_query && (s == "true" || s == "false") => {
                Some(s == "true")
            }
            _ => {
                self.error(name, "type", "Must be true or false");
                None
            }
        }
    }

    /// One of `allowed`, as the handler's own `&'static str`.
    pub fn choice(&mut self, name: &str, allowed: &[&'static str]) -> Option<&'static str> {
        let s = self.text(name)?;
        match allowed.iter().find(|a| **a == s) {
            Some(a) => Some(*a),
            None => {
                self.error(
                    name,
                    "enum",
                    format!("Must be one of: {}", allowed.join(", ")),
                );
                None
            }
        }
    }

    /// An integer, whose range the document states (the request's schema judges it).
    pub fn integer(&mut self, name: &str) -> Option<i64> {
        let value = self.take(name)?;
        let parsed = match &value {
            Value::Null => return None,
            Value::Number(n) => n.as_i64(),
            Value::String(s) if self.from_query => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        if parsed.is_none() {
            self.error(name, "type", "Must be an integer");
        }
        parsed
    }

    /// A number (percentages and the like), whose range the document states.
    pub fn number(&mut self, name: &str) -> Option<f64> {
        let value = self.take(name)?;
        let parsed = match &value {
            Value::Null => return None,
            Value::Number(n) => n.as_f64(),
            Value::String(s) if self.from_query => {
                s.trim().parse::<f64>().ok().filter(|f| f.is_finite())
            }
            _ => None,
        };
        if parsed.is_none() {
            self.error(name, "type", "Must be a number");
        }
        parsed
    }

    /// Money in reais with at most two decimals, as centavos; its range is the document's.
    pub fn money(&mut self, name: &str) -> Option<Cents> {
        let n = self.number(name)?;
        match Cents::from_reais(n) {
            Some(c) => Some(c),
            None => {
                self.error(
                    name,
                    "multiple_of",
                    "Must be an amount in reais with at most two decimals",
                );
                None
            }
        }
    }

    /// A calendar date `YYYY-MM-DD` in [`FIRST_DATE`]..=[`LAST_DATE`], returned in that form.
    pub fn date(&mut self, name: &str) -> Option<String> {
        self.date_within(name, FIRST_DATE, LAST_DATE)
            .map(|d| d.to_string())
    }

    /// A due date: a [`date`](Self::date) also within [`DUE_DATE_YEARS`] years of today, so
    /// that fine and interest stay those of a real debt (a due date in 1900 made R$ 100 owe
    /// R$ 1 647).
    pub fn due_date(&mut self, name: &str) -> Option<Date> {
        let today = dunning_store::today();
        let first = add_years(today, -DUE_DATE_YEARS).max(FIRST_DATE);
        let last = add_years(today, DUE_DATE_YEARS).min(LAST_DATE);
        self.date_within(name, first, last)
    }

    fn date_within(&mut self, name: &str, first: Date, last: Date) -> Option<Date> {
        let s = self.text(name)?;
        let format = time::macros::format_description!("[year]-[month]-[day]");
        match Date::parse(&s, &format) {
            Ok(d) if (first..=last).contains(&d) => Some(d),
            Ok(_) => {
                self.error(
                    name,
                    "range",
                    format!("Must be a date from {first} to {last}"),
                );
                None
            }
            Err(_) => {
                self.error(name, "format", "Must be a date as YYYY-MM-DD");
                None
            }
        }
    }

    /// An RFC 3339 instant, e.g. `2025-03-15T13:45:00-03:00`, whose date as written lies within
    /// [`FIRST_DATE`]..=[`LAST_DATE`] (what the document's `^20[0-9]{2}-` pattern says).
    pub fn instant(&mut self, name: &str) -> Option<OffsetDateTime> {
        let text = self.text(name)?;
        match OffsetDateTime::parse(&text, &time::format_description::well_known::Rfc3339) {
            Ok(t) if (FIRST_DATE..=LAST_DATE).contains(&t.date()) => Some(t),
            Ok(_) => {
                self.error(
                    name,
                    "range",
                    format!("Must be an instant from {FIRST_DATE} to {LAST_DATE}"),
                );
                None
            }
            Err(_) => {
                self.error(
                    name,
                    "format",
                    "Must be a date-time as RFC 3339, e.g. 2025-03-15T13:45:00-03:00",
                );
                None
            }
        }
    }

    /// An array of strings, each trimmed, a repeated one kept once; how many and how long
    /// they may be is the document's.
    pub fn text_list(&mut self, name: &str) -> Option<Vec<String>> {
        match self.take(name)? {
            Value::Null => None,
            Value::Array(items) => {
                let mut out: Vec<String> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item.as_str().map(str::trim) {
                        Some(s) => {
                            if !out.iter().any(|o| o == s) {
                                out.push(s.to_string());
                            }
                        }
                        None => {
                            self.error(&format!("{name}[{i}]"), "type", "Must be a string");
                            return None;
                        }
                    }
                }
                Some(out)
            }
            _ => {
                self.error(name, "type", "Must be an array of strings");
                None
            }
        }
    }

    /// A JSON object, returned as is for the caller to read.
    pub fn object(&mut self, name: &str) -> Patch<Map<String, Value>> {
        match self.take(name) {
            None => Patch::Absent,
            Some(Value::Null) => Patch::Null,
            Some(Value::Object(map)) => Patch::Value(map),
            Some(_) => {
                self.error(name, "type", "Must be an object");
                Patch::Absent
            }
        }
    }

    /// `page` and `per_page` (default 25). Their ranges are the document's (`page` and
    /// `per_page` parameters: 1 to 1 000 000 and 1 to 100); the clamp only keeps a reader that
    /// no schema judged (a unit test) from asking the store for an unbounded page.
    pub fn page(&mut self) -> PageRequest {
        let page = self.integer("page").unwrap_or(1).clamp(1, 1_000_000);
        let per_page = self.integer("per_page").unwrap_or(25).clamp(1, 100);
        PageRequest { page, per_page }
    }

    /// Refuse unknown fields and return every complaint at once: the handler's, then (for the
    /// request's own reader) the document's about fields the handler did not name, then
    /// unknown fields.
    pub fn finish(mut self) -> ApiResult<()> {
        if self.request {
            for fault in super::faults::take() {
                if !self.errors.iter().any(|e| e.field == fault.field) {
                    self.errors.push(fault);
                }
            }
        }
        let unknown: Vec<String> = self
            .fields
            .keys()
            .filter(|k| !self.taken.contains(*k))
            .cloned()
            .collect();
        for key in unknown {
            let what = if self.from_query {
                "query parameter"
            } else {
                "field"
            };
            self.error(&key, "unknown", format!("Unknown {what} '{key}'"));
        }
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
pub async fn well_formed(request: Request, next: Next) -> Response {
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
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => return unreadable_body(&e),
    };
    if !bytes.is_empty() && !is_json(&parts.headers) {
        return ApiError::unsupported_media_type().into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
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

/// `application/json` or `application/<anything>+json`, with parameters, in UTF-8 (JSON has
/// no other encoding; a declared other charset is a body we would misread).
pub fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let json = media == "application/json"
        || media
            .strip_prefix("application/")
            .is_some_and(|sub| sub.len() > "+json".len() && sub.ends_with("+json"));
    let utf8 = parts.all(|parameter| {
        let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        !name.trim().eq_ignore_ascii_case("charset")
            || matches!(
                value.trim().trim_matches('"').to_ascii_lowercase().as_str(),
                "utf-8" | "utf8"
            )
    });
    json && utf8
}

/// Whether a request path percent-decodes to text: UTF-8 without control characters or
/// bidirectional overrides (path parameters are ids and reach problem details and logs).
fn path_is_text(path: &str) -> bool {
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
    fn json_media_types_are_told_apart_from_the_rest() {
        let cases = [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("APPLICATION/JSON;CHARSET=\"UTF-8\"", true),
            ("application/merge-patch+json", true),
            ("application/vnd.kobana.charge+json; version=1", true),
            ("application/+json", false),
            ("application/json; charset=iso-8859-1", false),
            ("text/json", false),
            ("text/plain", false),
            ("application/jsonp", false),
            ("application/x-www-form-urlencoded", false),
            ("multipart/form-data; boundary=x", false),
        ];
        for (value, json) in cases {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            assert_eq!(is_json(&headers), json, "{value}");
        }
        assert!(!is_json(&HeaderMap::new()), "no Content-Type");
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

    #[test]
    fn dates_outside_the_century_are_out_of_range_and_not_a_format_fault() {
        for (text, code) in [
            ("1999-12-31", Some("range")),
            ("2000-01-01", None),
            ("2099-12-31", None),
            ("2100-01-01", Some("range")),
            ("31/12/2030", Some("format")),
        ] {
            let mut input = Input::from_query(vec![("d".into(), text.into())]);
            let value = input.date("d");
            assert_eq!(value.is_none(), code.is_some(), "{text}");
            assert_eq!(
                input.errors.first().map(|e| e.code.as_str()),
                code,
                "{text}"
            );
        }
    }
}
