//! Errors and warnings, each tied to the JSON pointer of the place in the document it is about.
//!
//! The generator never stops at the first problem: every stage pushes into one
//! [`Diagnostics`] collector so that a spec author sees everything wrong with a document in one
//! run (the way dropshot's `error_store` does), and [`Report`] carries the errors out.

use std::collections::HashSet;
use std::fmt;

/// One problem or repair, located by a JSON pointer (RFC 6901) into the input document.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Diagnostic {
    /// JSON pointer into the document (`""` is the document itself), e.g.
    /// `/paths/~1v1~1todos/get/x-mcp/frobnicate`.
    pub pointer: String,
    /// What is wrong, or what was repaired, in a sentence.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `pointer`.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `#` + pointer is the URI-fragment form: an empty pointer reads as `#`, the root.
        write!(f, "#{}: {}", self.pointer, self.message)
    }
}

/// Every error found in a document. Displayed as one line per error, each with its pointer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", list(&self.errors))]
pub struct Report {
    /// The errors, in document order.
    pub errors: Vec<Diagnostic>,
}

impl Report {
    /// A report with a single error.
    pub fn single(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Report {
            errors: vec![Diagnostic::new(pointer, message)],
        }
    }
}

fn list(errors: &[Diagnostic]) -> String {
    let mut out = format!(
        "{} error{} in the OpenAPI document:",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    for error in errors {
        out.push_str("\n  ");
        out.push_str(&error.to_string());
    }
    out
}

/// The collector every stage writes into.
///
/// Duplicates are dropped: a broken `$ref` inside a shared schema is met once per operation
/// that inlines it, and the author wants to read about it once.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    seen: HashSet<(bool, Diagnostic)>,
}

impl Diagnostics {
    pub(crate) fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        let d = Diagnostic::new(pointer, message);
        if self.seen.insert((true, d.clone())) {
            self.errors.push(d);
        }
    }

    pub(crate) fn warn(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        let d = Diagnostic::new(pointer, message);
        if self.seen.insert((false, d.clone())) {
            self.warnings.push(d);
        }
    }

    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Errors and warnings, in the order they were found.
    pub(crate) fn into_parts(self) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        (self.errors, self.warnings)
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` as RFC 6901 requires.
pub(crate) fn join(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_escapes_slash_and_tilde() {
        assert_eq!(join("/paths", "/v1/a~b"), "/paths/~1v1~1a~0b");
        assert_eq!(join("", "x-mcp"), "/x-mcp");
    }

    #[test]
    fn report_lists_every_error_with_its_pointer() {
        let report = Report {
            errors: vec![
                Diagnostic::new("/a", "first"),
                Diagnostic::new("/b", "second"),
            ],
        };
        assert_eq!(
            report.to_string(),
            "2 errors in the OpenAPI document:\n  #/a: first\n  #/b: second"
        );
    }

    #[test]
    fn duplicates_are_reported_once() {
        let mut d = Diagnostics::default();
        d.error("/a", "x");
        d.error("/a", "x");
        d.warn("/a", "x");
        let (errors, warnings) = d.into_parts();
        assert_eq!(errors.len(), 1);
        assert_eq!(warnings.len(), 1);
    }
}
