//! The text rule, which holds for every handler because it lives here: text holds no control
//! characters (U+0000–U+001F, U+007F–U+009F) and no bidirectional embeddings, overrides or
//! isolates (U+202A–U+202E, U+2066–U+2069), anywhere in a body or a query string, nested
//! fields included: they would reach PDFs, CSV exports and messages to debtors, where they
//! hide or reorder text. Only the multi-line fields ([`MULTI_LINE_FIELDS`]) may hold line
//! feeds and tabs. The document says it too (`x-text-patterns`); the request's typed reader
//! (`super::typed_input`) applies it to every string, and the schema check
//! (`super::schema_check`) names a text pattern's fault with its words.

use serde_json::Value;

use crate::http::problem::FieldError;

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
}
