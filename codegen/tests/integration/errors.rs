//! Every error of a document is reported in one run, each with its JSON pointer.

use mcpgen::{Settings, generate};
use serde_json::json;

#[test]
fn two_different_errors_are_reported_together_with_pointers() {
    let doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {"get": {
                "operationId": "a",
                "x-mcp": {"frobnicate": true},
                "responses": {"200": {"description": "ok"}}
            }},
            "/b": {"get": {
                "operationId": "b",
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Missing"}
                }}}}
            }}
        }
    });
    let report = generate(&doc, &Settings::default()).expect_err("two errors");
    let pointers: Vec<&str> = report.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/paths/~1a/get/x-mcp/frobnicate",
            "/paths/~1b/get/responses/200/content/application~1json/schema"
        ]
    );
    let text = report.to_string();
    assert!(text.starts_with("2 errors"), "{text}");
    assert!(
        text.contains("#/paths/~1a/get/x-mcp/frobnicate: unknown `x-mcp` key"),
        "{text}"
    );
    assert!(text.contains("does not resolve"), "{text}");
}

#[test]
fn a_document_that_is_not_an_object_is_one_error() {
    let report = generate(&json!([1, 2]), &Settings::default()).expect_err("not a document");
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].pointer, "");
}

#[test]
fn a_malformed_operation_is_reported_and_the_others_still_checked() {
    let doc = json!({
        "openapi": "3.0.3",
        "paths": {
            "/a": {"get": {"parameters": "nope", "responses": {}}},
            "/b": {"get": {"x-mcp": {"exclude": "yes"}, "responses": {}}}
        }
    });
    let report = generate(&doc, &Settings::default()).expect_err("two errors");
    let pointers: Vec<&str> = report.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(pointers, ["/paths/~1a/get", "/paths/~1b/get/x-mcp/exclude"]);
}

/// A document with one tool, `things_get`, whose `id` is a pattern-checked string.
fn one_tool() -> serde_json::Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {"/things/{id}": {"get": {
            "operationId": "things_get",
            "parameters": [{"name": "id", "in": "path", "required": true,
                            "schema": {"type": "string", "pattern": "^thg_[a-z0-9]{4}$"}}],
            "responses": {"200": {"description": "ok"}}
        }}}
    })
}

fn prompt(arguments: &str) -> mcpgen::PromptSource {
    mcpgen::PromptSource {
        file: "p.md".into(),
        text: format!(
            "---\nname: p\ntitle: P\ndescription: d\narguments:\n{arguments}\ntools: [things_get]\n---\nLook at {{{{thing}}}}.\n"
        ),
    }
}

#[test]
fn a_prompt_argument_takes_the_schema_of_the_tool_argument_it_is_like() {
    let settings = Settings {
        prompts: vec![prompt(
            "  - {name: thing, description: d, like: things_get.id}",
        )],
        ..Settings::default()
    };
    let output = generate(&one_tool(), &settings).expect("generates");
    let schema = output.prompts[0].arguments[0]
        .schema
        .as_ref()
        .expect("schema");
    assert_eq!(schema["pattern"], "^thg_[a-z0-9]{4}$");
    // The listing shows what MCP's PromptArgument has, nothing more.
    assert_eq!(
        output.catalog["prompts"][0]["arguments"][0],
        json!({"name": "thing", "description": "d", "required": false})
    );
}

#[test]
fn a_prompt_argument_schema_that_cannot_describe_text_is_an_error() {
    let cases = [
        (
            "  - {name: thing, description: d, like: things_get.nope}",
            "names no tool argument",
        ),
        (
            "  - {name: thing, description: d, like: nothing}",
            "names no tool argument",
        ),
        (
            "  - {name: thing, description: d, like: things_get.id, schema: {type: string}}",
            "not both",
        ),
        (
            "  - {name: thing, description: d, schema: {type: object}}",
            "must be string, number",
        ),
        (
            "  - {name: thing, description: d, schema: 7}",
            "JSON Schema object",
        ),
    ];
    for (arguments, expected) in cases {
        let settings = Settings {
            prompts: vec![prompt(arguments)],
            ..Settings::default()
        };
        let report = generate(&one_tool(), &settings).expect_err(arguments);
        let text = report.to_string();
        assert!(
            text.contains("p.md: argument 'thing'") && text.contains(expected),
            "{arguments}: {text}"
        );
    }
}
