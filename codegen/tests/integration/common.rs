//! Helpers shared by the test modules.

use mcpgen::{Output, Report, Settings, generate, load};
use serde_json::Value;

/// The instructions text the fixtures are generated with.
pub const INSTRUCTIONS: &str = "Test instructions: the organization comes from the token.";

/// The path of `tests/fixtures/<name>`, relative (tests run in the crate's folder) so that
/// error snapshots do not depend on where the checkout is.
pub fn fixture_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new("tests/fixtures").join(name)
}

/// Loads and generates a fixture with the given clash mode, every schema kept as written
/// (the size budget has its own snapshot): the errors of either step.
pub fn generate_fixture(name: &str, strict_clashes: Option<bool>) -> Result<Output, Report> {
    generate_fixture_with_views(name, strict_clashes, Vec::new())
}

/// The view files of `tests/fixtures/views/`, as `Build::views` reads a folder.
pub fn fixture_views() -> Vec<mcpgen::ViewSource> {
    mcpgen::read_views(&fixture_path("views")).expect("tests/fixtures/views is readable")
}

/// [`generate_fixture`] with these view files.
pub fn generate_fixture_with_views(
    name: &str,
    strict_clashes: Option<bool>,
    views: Vec<mcpgen::ViewSource>,
) -> Result<Output, Report> {
    let settings = Settings {
        instructions: INSTRUCTIONS.to_owned(),
        strict_clashes,
        budget: Some(mcpgen::budget::Budget::unlimited()),
        views,
        ..Settings::default()
    };
    let loaded = load(&fixture_path(name))?;
    let mut output = generate(&loaded.document, &settings)?;
    // The loader's warnings first, as the command line prints them.
    output.warnings.splice(0..0, loaded.warnings);
    Ok(output)
}

/// Whether `$ref` appears as a key anywhere in `value`.
pub fn has_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}
