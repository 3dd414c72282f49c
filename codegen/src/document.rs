//! A document produced by the service's own code (utoipa's `ApiDoc::openapi()`, aide's
//! `OpenApi`), kept committed beside the service so that `build.rs` can generate from it: a
//! test checks that the committed file is what the code produces now, and rewrites it when
//! asked.
//!
//! ```no_run
//! // tests/document.rs of a utoipa service (`ApiDoc` derives `utoipa::OpenApi`):
//! # struct ApiDoc;
//! # impl ApiDoc { fn openapi() -> serde_json::Value { serde_json::json!({}) } }
//! #[test]
//! fn the_committed_document_is_what_the_code_produces() {
//!     let produced = serde_json::to_value(ApiDoc::openapi()).unwrap();
//!     mcpgen::document::check("openapi.json", &produced);
//! }
//! ```
//!
//! Why not generate it in `build.rs`: a build script cannot call the code of the crate it is
//! building, and the committed file is what reviewers and the generator's `diff` read.

use std::path::Path;

use serde_json::Value;

/// The environment variable that makes [`check`] rewrite the committed document (`1`).
pub const OVERWRITE: &str = "MCPGEN_OVERWRITE";

/// Panics, naming the first JSON pointer where they differ, when the document at `path`
/// (relative to the package's manifest directory, where cargo runs tests; JSON) is not
/// `produced`; with `MCPGEN_OVERWRITE=1` writes `produced` there instead (pretty JSON and a
/// final newline). The comparison is of values: key order and spacing do not count.
pub fn check(path: impl AsRef<Path>, produced: &Value) {
    let path = path.as_ref();
    if std::env::var_os(OVERWRITE).is_some_and(|v| v == "1") {
        let mut text = serde_json::to_string_pretty(produced).expect("a JSON value serializes");
        text.push('\n');
        std::fs::write(path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
    match committed {
        Ok(committed) => {
            if let Some(pointer) = first_difference(&committed, produced, String::new()) {
                panic!(
                    "{} is not the document the code produces (they differ at `{pointer}`): \
                     run the tests again with {OVERWRITE}=1 to rewrite it, and review the \
                     catalog's change",
                    path.display()
                );
            }
        }
        Err(e) => panic!(
            "cannot read {} ({e}): run the tests with {OVERWRITE}=1 to write it",
            path.display()
        ),
    }
}

/// The JSON pointer of the first place where `a` and `b` differ, if any.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    let child = |key: &str| format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => {
                        if let Some(found) = first_difference(x, y, child(key)) {
                            return Some(found);
                        }
                    }
                    _ => return Some(child(key)),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, child(&i.to_string()))),
        _ if a == b => None,
        _ => Some(if at.is_empty() { "/".to_string() } else { at }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_named_by_its_json_pointer() {
        let a =
            json!({"paths": {"/todos/{id}": {"get": {"operationId": "get_todo"}}}, "x": [1, 2]});
        assert_eq!(first_difference(&a, &a.clone(), String::new()), None);
        let mut b = a.clone();
        b["paths"]["/todos/{id}"]["get"]["operationId"] = json!("todo_get");
        assert_eq!(
            first_difference(&a, &b, String::new()).as_deref(),
            Some("/paths/~1todos~1{id}/get/operationId")
        );
        let mut c = a.clone();
        c["x"] = json!([1, 2, 3]);
        assert_eq!(
            first_difference(&a, &c, String::new()).as_deref(),
            Some("/x")
        );
        let mut d = a.clone();
        d["new"] = json!(true);
        assert_eq!(
            first_difference(&a, &d, String::new()).as_deref(),
            Some("/new")
        );
    }

    #[test]
    fn a_stale_document_fails_and_an_overwrite_makes_it_current() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("openapi.json");
        std::fs::write(&path, r#"{"openapi": "3.1.0", "paths": {}}"#).unwrap();
        check(&path, &json!({"paths": {}, "openapi": "3.1.0"}));
        let produced = json!({"openapi": "3.1.0", "paths": {"/todos": {}}});
        let stale = std::panic::catch_unwind(|| check(&path, &produced));
        let message = *stale.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("differ at `/paths/~1todos`"), "{message}");
    }
}
