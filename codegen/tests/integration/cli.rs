//! The `codegen` command: loud failures exit 1 with the report on stderr, `--deny-warnings`
//! makes warnings failures, a multi-file document is read from its folder, and views from
//! the folder `--views` names.

use std::process::{Command, Output};

fn codegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run codegen")
}

#[test]
fn a_swagger_2_document_exits_1_and_says_what_is_accepted() {
    let out = codegen(&["catalog", "tests/fixtures/swagger2.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Swagger 2.0 is not supported"), "{stderr}");
    assert!(stderr.contains("OpenAPI 3.0.x and 3.1.x"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn deny_warnings_turns_warnings_into_exit_1() {
    let lenient = codegen(&["catalog", "tests/fixtures/required_undeclared.yaml"]);
    assert!(lenient.status.success());
    assert!(String::from_utf8_lossy(&lenient.stderr).contains("warning: #/paths"));

    let strict = codegen(&[
        "catalog",
        "tests/fixtures/required_undeclared.yaml",
        "--deny-warnings",
    ]);
    assert_eq!(strict.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(
        stderr.starts_with("1 error in the OpenAPI document:") && stderr.contains("`ghost`"),
        "{stderr}"
    );
}

#[test]
fn a_multi_file_document_is_bundled_from_its_folder() {
    let out = codegen(&["catalog", "tests/fixtures/multi/openapi.yaml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = catalog["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["list_pets", "create_pet", "get_pet", "health"]);
}

#[test]
fn loading_lists_every_file_read_for_rerun_if_changed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/multi");
    let loaded = mcpgen::load(&dir.join("openapi.yaml")).expect("loads");
    let mut files: Vec<String> = loaded
        .files
        .iter()
        .map(|f| {
            f.strip_prefix(dir.canonicalize().expect("dir"))
                .expect("inside the fixture")
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(files.remove(0), "openapi.yaml", "the root comes first");
    files.sort();
    assert_eq!(
        files,
        [
            "common/bodies.yaml",
            "common/headers.yaml",
            "common/parameters.yaml",
            "common/responses.yaml",
            "paths/pet.yaml",
            "paths/pets.yaml",
            "schemas/Owner.json",
            "schemas/Pet.json",
            "schemas/ids.json",
        ]
    );
    // Only local references are left.
    let text = loaded.document.to_string();
    assert!(
        !text.contains(".json") && !text.contains(".yaml#"),
        "{text}"
    );
}

#[test]
fn views_come_from_the_folder_given_with_views() {
    let out = codegen(&[
        "catalog",
        "tests/fixtures/ui_views.yaml",
        "--views",
        "tests/fixtures/views",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(catalog["resources"][0]["uri"], "ui://app/board");

    let without = codegen(&["catalog", "tests/fixtures/ui_views.yaml"]);
    assert_eq!(without.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&without.stderr);
    assert!(stderr.contains("x-mcp/ui/template"), "{stderr}");

    let no_folder = codegen(&["catalog", "tests/fixtures/ui_views.yaml", "--views"]);
    assert_eq!(no_folder.status.code(), Some(2));
}
