//! Every error of a document is reported in one run, each with its JSON pointer.

use codegen::{Settings, generate};
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
