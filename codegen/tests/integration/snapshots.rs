//! Snapshots of the catalog, the generated Rust and the warnings (or the error report) for
//! one small fixture per feature. `EXPECTORATE=overwrite cargo test -p mcpgen` updates them.

use expectorate::assert_contents;

use crate::common::{fixture_views, generate_fixture, generate_fixture_with_views};

/// Generates `fixture` and compares catalog, source and warnings with `snapshots/<tag>.*`.
fn snapshot(fixture: &str, strict: Option<bool>, tag: &str) {
    let output = generate_fixture(fixture, strict).unwrap_or_else(|r| panic!("{r}"));
    snapshot_output(&output, tag);
}

/// Compares catalog, source and warnings of `output` with `snapshots/<tag>.*`.
fn snapshot_output(output: &mcpgen::Output, tag: &str) {
    let catalog = serde_json::to_string_pretty(&output.catalog).expect("JSON");
    assert_contents(
        format!("tests/snapshots/{tag}.catalog.json"),
        &format!("{catalog}\n"),
    );
    assert_contents(format!("tests/snapshots/{tag}.rs"), &output.source);
    let warnings: String = output.warnings.iter().map(|w| format!("{w}\n")).collect();
    assert_contents(format!("tests/snapshots/{tag}.warnings.txt"), &warnings);
}

/// Generates `fixture`, which must fail, and compares the report with `snapshots/<tag>.errors.txt`.
fn snapshot_errors(fixture: &str, strict: Option<bool>, tag: &str) {
    let report = match generate_fixture(fixture, strict) {
        Ok(_) => panic!("{fixture} generated without errors"),
        Err(report) => report,
    };
    snapshot_report(&report, tag);
}

/// Compares `report` with `snapshots/<tag>.errors.txt`.
fn snapshot_report(report: &mcpgen::Report, tag: &str) {
    assert_contents(
        format!("tests/snapshots/{tag}.errors.txt"),
        &format!("{report}\n"),
    );
}

#[test]
fn openapi_31_constructs_are_rewritten_and_faults_repaired() {
    snapshot("openapi31.yaml", None, "openapi31");
}

#[test]
fn argument_clash_is_an_error_in_strict_mode() {
    snapshot_errors("clash.yaml", Some(true), "clash_strict");
}

#[test]
fn argument_clash_is_renamed_in_lenient_mode() {
    snapshot("clash.yaml", Some(false), "clash_lenient");
}

#[test]
fn third_party_documents_are_lenient_by_default() {
    let output = generate_fixture("clash.yaml", None).unwrap_or_else(|r| panic!("{r}"));
    let names: Vec<&str> = output.operations[0]
        .args
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["customer", "dry_run", "body_customer", "body_dry_run"]
    );
}

#[test]
fn binary_responses_become_descriptors_and_resources() {
    snapshot("binary.yaml", None, "binary");
}

#[test]
fn responses_without_content_return_the_status() {
    snapshot("no_content.yaml", None, "no_content");
}

#[test]
fn x_mcp_overrides_annotations_confirm_resources_meta_and_renames() {
    snapshot("x_mcp.yaml", None, "x_mcp");
}

#[test]
fn operations_without_operation_id_are_named_from_method_and_path() {
    snapshot("no_operation_id.yaml", None, "no_operation_id");
}

#[test]
fn recursive_schemas_are_cut_with_a_description() {
    snapshot("recursive.yaml", None, "recursive");
}

#[test]
fn request_bodies_are_flattened_or_passed_whole() {
    snapshot("bodies.yaml", None, "bodies");
}

#[test]
fn unknown_x_mcp_keys_are_errors() {
    snapshot_errors("unknown_key.yaml", None, "unknown_key");
}

#[test]
fn keywords_reach_the_tables_and_the_catalog_s_keywords_map_but_not_the_tools() {
    snapshot("keywords.yaml", None, "keywords");
}

#[test]
fn operations_answering_mcp_results_pass_them_through_without_an_output_schema() {
    snapshot("result_mcp.yaml", None, "result_mcp");
}

#[test]
fn operations_serving_prompts_are_prompts_not_tools() {
    snapshot("prompt_operation.yaml", None, "prompt_operation");
}

#[test]
fn body_arguments_keep_the_json_schema_2020_12_as_written() {
    snapshot("arguments_body.yaml", None, "arguments_body");
}

#[test]
fn param_headers_mark_arguments_with_x_mcp_header() {
    snapshot("param_headers.yaml", None, "param_headers");
}

#[test]
fn misused_result_prompt_arguments_and_param_headers_keys_are_errors() {
    snapshot_errors("x_mcp_misuse.yaml", None, "x_mcp_misuse");
}

#[test]
fn the_default_budget_keeps_output_shapes_and_drops_what_models_do_not_need() {
    let settings = mcpgen::Settings {
        instructions: crate::common::INSTRUCTIONS.to_owned(),
        ..mcpgen::Settings::default()
    };
    let document = mcpgen::load(&crate::common::fixture_path("bodies.yaml"))
        .unwrap_or_else(|r| panic!("{r}"))
        .document;
    let output = mcpgen::generate(&document, &settings).unwrap_or_else(|r| panic!("{r}"));
    let catalog = serde_json::to_string_pretty(&output.catalog).expect("JSON");
    assert_contents(
        "tests/snapshots/budget_defaults.catalog.json",
        &format!("{catalog}\n"),
    );
}

#[test]
fn multi_file_documents_are_bundled_across_folders() {
    snapshot("multi/openapi.yaml", None, "multi");
}

#[test]
fn unresolvable_references_name_the_file_the_pointer_and_the_place() {
    snapshot_errors("multi_broken/openapi.yaml", None, "multi_broken");
}

#[test]
fn swagger_2_is_refused_with_what_is_accepted() {
    snapshot_errors("swagger2.yaml", None, "swagger2");
}

#[test]
fn other_openapi_versions_are_refused() {
    snapshot_errors("version_4.yaml", None, "version_4");
}

#[test]
fn an_empty_file_is_an_empty_document() {
    snapshot_errors("empty.yaml", None, "empty");
}

#[test]
fn non_utf8_input_names_the_byte_offset_and_line() {
    snapshot_errors("not_utf8.yaml", None, "not_utf8");
}

#[test]
fn path_variables_and_path_parameters_must_match() {
    snapshot_errors("path_template.yaml", None, "path_template");
}

#[test]
fn yaml_integers_beyond_64_bits_are_json_numbers() {
    snapshot("big_int.yaml", None, "big_int");
}

#[test]
fn an_all_of_branch_at_the_nesting_limit_keeps_its_properties() {
    snapshot("allof_cut.yaml", None, "allof_cut");
    let output = generate_fixture("allof_cut.yaml", None).unwrap_or_else(|r| panic!("{r}"));
    let d = &output.catalog["tools"][0]["outputSchema"]["properties"]["b"]["properties"]["c"]["properties"]
        ["d"];
    assert_eq!(d["properties"]["id"]["type"], "string", "{d}");
    assert_eq!(d["required"], serde_json::json!(["id", "own"]), "{d}");
}

#[test]
fn required_names_an_undeclared_property_which_is_added_with_a_warning() {
    snapshot("required_undeclared.yaml", None, "required_undeclared");
}

#[test]
fn an_alias_loop_is_an_error() {
    snapshot_errors("alias_loop.yaml", None, "alias_loop");
}

#[test]
fn a_one_of_with_a_cut_branch_becomes_any_of_with_a_warning() {
    snapshot("oneof_cut.yaml", None, "oneof_cut");
    let output = generate_fixture("oneof_cut.yaml", None).unwrap_or_else(|r| panic!("{r}"));
    let schema = &output.catalog["tools"][0]["outputSchema"];
    let validator = jsonschema::validator_for(schema).expect("compiles");
    let value = serde_json::json!({"b": {"c": {"d": {"number": "4111"}}}});
    assert!(validator.is_valid(&value), "{schema}");
}

#[test]
fn toolsets_come_from_first_tags_and_x_mcp_toolset_and_an_empty_one_is_a_warning() {
    snapshot("toolsets.yaml", None, "toolsets");
}

#[test]
fn an_operation_in_no_toolset_and_bad_toolset_declarations_are_errors() {
    snapshot_errors("toolsets_misuse.yaml", None, "toolsets_misuse");
}

#[test]
fn a_document_without_toolsets_gets_one_per_first_tag() {
    snapshot("toolsets_from_tags.yaml", None, "toolsets_from_tags");
}

#[test]
fn references_where_openapi_allows_none_are_read_as_json_references_with_a_warning() {
    snapshot("refs_anywhere/openapi.yaml", None, "refs_anywhere");
}

#[test]
fn x_mcp_ui_gives_tools_meta_ui_and_one_ui_resource_per_view() {
    let output = generate_fixture_with_views("ui_views.yaml", None, fixture_views())
        .unwrap_or_else(|r| panic!("{r}"));
    snapshot_output(&output, "ui_views");
    // The HTML is embedded as it is in the file, its own policy put first in <head>.
    let board = std::fs::read_to_string("tests/fixtures/views/board.html").expect("board.html");
    let (head, rest) = board.split_once("<head>").expect("board.html has <head>");
    let sealed = &output.views[0].html;
    assert!(
        sealed.starts_with(&format!("{head}<head>\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"))
            && sealed.ends_with(&format!("\">{rest}")),
        "{sealed}"
    );
}

#[test]
fn a_missing_view_template_unknown_ui_keys_and_contradictions_are_errors_with_pointers() {
    let report = generate_fixture_with_views("ui_views_misuse.yaml", None, fixture_views())
        .expect_err("ui_views_misuse.yaml generated without errors");
    snapshot_report(&report, "ui_views_misuse");
}

#[test]
fn a_view_without_a_views_folder_is_an_error_naming_the_template() {
    let report = generate_fixture("ui_views.yaml", None).expect_err("no views were given");
    let text = report.to_string();
    assert!(
        text.contains("#/paths/~1todos/get/x-mcp/ui/template: template `board.html` is not in the views folder: the views folder is empty or was not given"),
        "{text}"
    );
}

#[test]
fn the_views_uri_prefix_is_a_setting_and_must_be_a_ui_uri() {
    let document = mcpgen::load(&crate::common::fixture_path("ui_views.yaml"))
        .unwrap_or_else(|r| panic!("{r}"))
        .document;
    let settings = mcpgen::Settings {
        views: fixture_views(),
        ui_uri_prefix: "ui://todos/".to_owned(),
        ..mcpgen::Settings::default()
    };
    let output = mcpgen::generate(&document, &settings).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(
        output.catalog["tools"][0]["_meta"]["ui"]["resourceUri"],
        "ui://todos/board"
    );
    let settings = mcpgen::Settings {
        ui_uri_prefix: "https://todos.example/".to_owned(),
        ..settings
    };
    let report = mcpgen::generate(&document, &settings).expect_err("not a ui:// prefix");
    assert!(
        report.to_string().contains("must start with `ui://`"),
        "{report}"
    );
}
