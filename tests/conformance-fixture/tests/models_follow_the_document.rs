//! The models make the document the single truth: renaming a response field in a copy of
//! `fixture.yaml` makes the operation that writes it fail to compile, and the failure names
//! that operation. A tiny crate holds the generated models and `src/answers.rs` (which needs
//! nothing else) and is built twice, under the test's own target folder: with the document as
//! it is (it must compile, or the second build would prove nothing) and with the field
//! renamed (it must not).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's manifest: serde as the fixture has it, nothing more.
const MANIFEST: &str = r#"[package]
name = "models-follow-the-document"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
path = "lib.rs"

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order"] }

[workspace]
"#;

/// The field renamed, in `template_data`'s response, and its new name.
const FIELD: &str = "                  data: {type: string}\n";
const RENAMED: &str = "                  contents: {type: string}\n";

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The models of `document`, as the fixture's build script makes them.
fn models(document: &str) -> String {
    let document = mcpgen::load_document(document).unwrap_or_else(|r| panic!("{r}"));
    let settings = mcpgen::Settings {
        budget: Some(mcpgen::budget::Budget::unlimited()),
        ..mcpgen::Settings::default()
    };
    mcpgen::generate(&document, &settings)
        .unwrap_or_else(|r| panic!("{r}"))
        .models
}

/// Writes the crate with `models` and builds it: the build's success and its diagnostics.
fn build(dir: &Path, models: &str) -> (bool, String) {
    std::fs::create_dir_all(dir).expect("create the crate's folder");
    let answers = fixture_dir().join("src/answers.rs");
    let lib = format!(
        "//! The fixture's answers against generated models.\n\
         #[allow(dead_code)]\n\
         pub mod models {{\n    include!(\"models.rs\");\n}}\n\
         #[path = {answers:?}]\n\
         pub mod answers;\n"
    );
    for (name, text) in [
        ("Cargo.toml", MANIFEST),
        ("lib.rs", lib.as_str()),
        ("models.rs", models),
    ] {
        std::fs::write(dir.join(name), text).expect("write the crate");
    }
    // The workspace's versions, so the build needs no registry.
    let lock = fixture_dir().join("../../Cargo.lock");
    std::fs::copy(lock, dir.join("Cargo.lock")).expect("copy Cargo.lock");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["build", "--offline", "--quiet", "--color", "never"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The function of `source` whose body holds line `line` (1-based): the last `fn` opened
/// at or before it.
fn function_at(source: &str, line: usize) -> Option<String> {
    source
        .lines()
        .take(line)
        .filter_map(|l| l.trim_start().strip_prefix("pub fn "))
        .last()
        .map(|rest| rest.split(['<', '(']).next().unwrap_or(rest).to_string())
}

#[test]
fn a_renamed_response_field_fails_the_build_of_the_operation_that_writes_it() {
    let document =
        std::fs::read_to_string(fixture_dir().join("fixture.yaml")).expect("read fixture.yaml");
    assert_eq!(
        document.matches(FIELD).count(),
        1,
        "fixture.yaml has one `data` field in template_data's response"
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("models-follow-the-document");

    let (built, diagnostics) = build(&dir, &models(&document));
    assert!(
        built,
        "the crate builds with fixture.yaml as it is:\n{diagnostics}"
    );

    let renamed = document.replace(FIELD, RENAMED);
    let (built, diagnostics) = build(&dir, &models(&renamed));
    assert!(
        !built,
        "the build with `data` renamed to `contents` succeeded"
    );
    eprintln!("{diagnostics}");
    assert!(
        diagnostics.contains("has no field named `data`"),
        "the error names the field:\n{diagnostics}"
    );
    let at = diagnostics
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("--> "))
        .filter(|place| place.contains("answers.rs"))
        .unwrap_or_else(|| panic!("the error is in src/answers.rs:\n{diagnostics}"));
    let line: usize = at
        .split(':')
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a line number");
    let answers = std::fs::read_to_string(fixture_dir().join("src/answers.rs")).expect("read");
    assert_eq!(
        function_at(&answers, line).as_deref(),
        Some("template_data"),
        "the failure is in the operation that writes the field ({at})"
    );
}
