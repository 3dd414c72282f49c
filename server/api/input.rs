//! Reading and validating request input (query strings and JSON bodies) with every fault
//! collected and reported at once, each naming its field.
//!
//! Handlers take fields one by one with typed getters; `finish` then refuses unknown fields
//! (a misspelt `amout` must not be silently ignored) and returns all complaints in one 422.

use std::collections::BTreeSet;

use axum::body::Bytes;
use serde_json::{Map, Value};

use super::problem::{ApiError, ApiResult, FieldError};
use crate::domain::money::Cents;
use crate::store::PageRequest;

/// Request fields awaiting validation.
#[derive(Debug)]
pub struct Input {
    fields: Map<String, Value>,
    /// Query values arrive as text; body values as JSON types.
    from_query: bool,
    taken: BTreeSet<String>,
    errors: Vec<FieldError>,
}

/// A field of a PATCH body: absent, explicitly null, or a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Patch<T> {
    Absent,
    Null,
    Value(T),
}

impl Input {
    /// Parse a JSON object body. Not JSON or not an object → 400.
    pub fn from_body(body: &Bytes) -> ApiResult<Input> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Input::from_map(Map::new(), false));
        }
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::malformed(format!("The body is not valid JSON: {e}")))?;
        match value {
            Value::Object(map) => Ok(Input::from_map(map, false)),
            _ => Err(ApiError::validation(vec![FieldError::new(
                "body",
                "type",
                "The body must be a JSON object",
            )])),
        }
    }

    /// The query string of a request, as axum's `RawQuery` gives it.
    pub fn from_raw_query(raw: Option<String>) -> Input {
        Input::from_query(
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .into_owned()
                .collect(),
        )
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
        }
    }

    /// Record a complaint about a field.
    pub fn error(&mut self, field: &str, code: &str, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, code, message));
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

    /// A string of `min..=max` characters (trimmed). `null` counts as absent.
    pub fn string(&mut self, name: &str, min: usize, max: usize) -> Option<String> {
        match self.take(name)? {
            Value::Null => None,
            Value::String(s) => {
                let s = s.trim().to_string();
                let len = s.chars().count();
                if len < min || len > max {
                    self.error(
                        name,
                        "length",
                        format!("Must have between {min} and {max} characters (has {len})"),
                    );
                    None
                } else {
                    Some(s)
                }
            }
            _ => {
                self.error(name, "type", "Must be a string");
                None
            }
        }
    }

    pub fn required_string(&mut self, name: &str, min: usize, max: usize) -> Option<String> {
        let v = self.string(name, min, max);
        self.require(name, v)
    }

    /// For PATCH: distinguishes an absent field from `null` (clear it).
    pub fn patch_string(&mut self, name: &str, min: usize, max: usize) -> Patch<String> {
        match self.fields.get(name) {
            None => {
                self.taken.insert(name.to_string());
                Patch::Absent
            }
            Some(Value::Null) => {
                self.taken.insert(name.to_string());
                Patch::Null
            }
            Some(_) => self
                .string(name, min, max)
                .map_or(Patch::Absent, Patch::Value),
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

    /// One of `allowed`.
    pub fn choice(&mut self, name: &str, allowed: &[&'static str]) -> Option<&'static str> {
        let s = self.string(name, 0, 200)?;
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

    /// An integer in `min..=max`.
    pub fn integer(&mut self, name: &str, min: i64, max: i64) -> Option<i64> {
        let value = self.take(name)?;
        let parsed = match &value {
            Value::Null => return None,
            Value::Number(n) => n.as_i64(),
            Value::String(s) if self.from_query => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        match parsed {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(_) => {
                self.error(name, "range", format!("Must be between {min} and {max}"));
                None
            }
            None => {
                self.error(name, "type", "Must be an integer");
                None
            }
        }
    }

    /// A number (percentages and the like) in `min..=max`.
    pub fn number(&mut self, name: &str, min: f64, max: f64) -> Option<f64> {
        let value = self.take(name)?;
        let parsed = match &value {
            Value::Null => return None,
            Value::Number(n) => n.as_f64(),
            Value::String(s) if self.from_query => {
                s.trim().parse::<f64>().ok().filter(|f| f.is_finite())
            }
            _ => None,
        };
        match parsed {
            Some(n) if n >= min && n <= max => Some(n),
            Some(_) => {
                self.error(name, "range", format!("Must be between {min} and {max}"));
                None
            }
            None => {
                self.error(name, "type", "Must be a number");
                None
            }
        }
    }

    /// Money in reais with at most two decimals, in `min..=max` centavos.
    pub fn money(&mut self, name: &str, min: Cents, max: Cents) -> Option<Cents> {
        let n = self.number(name, f64::MIN, f64::MAX)?;
        match Cents::from_reais(n) {
            Some(c) if c >= min && c <= max => Some(c),
            Some(_) => {
                self.error(
                    name,
                    "range",
                    format!("Must be between {} and {}", min.to_reais(), max.to_reais()),
                );
                None
            }
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

    /// A calendar date `YYYY-MM-DD`, returned in that form.
    pub fn date(&mut self, name: &str) -> Option<String> {
        let s = self.string(name, 0, 40)?;
        let format = time::macros::format_description!("[year]-[month]-[day]");
        match time::Date::parse(&s, &format) {
            Ok(d) => Some(d.to_string()),
            Err(_) => {
                self.error(name, "format", "Must be a date as YYYY-MM-DD");
                None
            }
        }
    }

    /// An array of distinct strings, each `1..=item_max` characters, at most `max_items`.
    pub fn string_list(
        &mut self,
        name: &str,
        max_items: usize,
        item_max: usize,
    ) -> Option<Vec<String>> {
        match self.take(name)? {
            Value::Null => None,
            Value::Array(items) => {
                if items.len() > max_items {
                    self.error(name, "max_items", format!("At most {max_items} items"));
                    return None;
                }
                let mut out: Vec<String> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item.as_str().map(str::trim) {
                        Some(s) if !s.is_empty() && s.chars().count() <= item_max => {
                            if !out.iter().any(|o| o == s) {
                                out.push(s.to_string());
                            }
                        }
                        _ => {
                            self.error(
                                &format!("{name}[{i}]"),
                                "type",
                                format!("Must be a string of 1 to {item_max} characters"),
                            );
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

    /// `page` and `per_page` (default 25, at most 100).
    pub fn page(&mut self) -> PageRequest {
        let page = self.integer("page", 1, 1_000_000).unwrap_or(1);
        let per_page = self.integer("per_page", 1, 100).unwrap_or(25);
        PageRequest { page, per_page }
    }

    /// Refuse unknown fields and return every complaint at once.
    pub fn finish(mut self) -> ApiResult<()> {
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
