//! Helpers shared by the test modules.

use codegen::{Output, Report, Settings, generate, load_document};
use serde_json::Value;

/// The instructions text the fixtures are generated with.
pub const INSTRUCTIONS: &str = "Test instructions: the organization comes from the token.";

/// Loads `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load_document(&text).unwrap_or_else(|r| panic!("{path}: {r}"))
}

/// Generates a fixture with the given clash mode, every schema kept as written (the size
/// budget has its own snapshot).
pub fn generate_fixture(name: &str, strict_clashes: Option<bool>) -> Result<Output, Report> {
    let settings = Settings {
        instructions: INSTRUCTIONS.to_owned(),
        strict_clashes,
        budget: Some(codegen::budget::Budget::unlimited()),
        ..Settings::default()
    };
    generate(&fixture(name), &settings)
}

/// Whether `$ref` appears as a key anywhere in `value`.
pub fn has_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}
