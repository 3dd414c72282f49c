//! `fields=` on lists (`server/api/steps/fields.rs`): the same items with only the asked fields
//! and their `id`, on REST and through the tool; names the items do not have refused;
//! everything else about the answer (order, `meta`, paging) as without it.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

fn keys(item: &Value) -> Vec<&str> {
    item.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

#[tokio::test]
async fn a_list_with_fields_has_the_same_items_with_only_those_fields_and_their_id() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let whole = server
        .rest("GET", "/v1/charges?per_page=100", &token, None)
        .await;
    let some = server
        .rest(
            "GET",
            "/v1/charges?per_page=100&fields=status,amount_due",
            &token,
            None,
        )
        .await;
    assert_eq!(some.status, StatusCode::OK, "{}", some.text);
    let (whole_items, some_items) = (
        whole.body["data"].as_array().unwrap(),
        some.body["data"].as_array().unwrap(),
    );
    assert!(whole_items.len() >= 10);
    assert_eq!(whole_items.len(), some_items.len());
    for (w, s) in whole_items.iter().zip(some_items) {
        // The id comes first, then the asked fields in the items' own order.
        assert_eq!(keys(s), ["id", "amount_due", "status"]);
        for key in ["id", "status", "amount_due"] {
            assert_eq!(s[key], w[key]);
        }
    }
    assert_eq!(some.body["meta"], whole.body["meta"]);
    assert!(
        some.text.len() * 3 < whole.text.len(),
        "{} vs {}",
        some.text.len(),
        whole.text.len()
    );
}

#[tokio::test]
async fn a_name_the_items_do_not_have_is_refused_with_the_names_they_have() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest("GET", "/v1/customers?fields=name,balance", &token, None)
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
    assert_eq!(answer.body["code"], "VALIDATION_ERROR");
    let error = &answer.body["errors"][0];
    assert_eq!(error["field"], "fields");
    assert_eq!(error["code"], "unknown");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("Unknown field 'balance'"), "{message}");
    assert!(message.contains("document"), "{message}");
    // Not the documented form: the document's own fault.
    let answer = server
        .rest("GET", "/v1/customers?fields=Name", &token, None)
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
    assert_eq!(answer.body["errors"][0]["field"], "fields");
    assert_eq!(answer.body["errors"][0]["code"], "pattern");
}

#[tokio::test]
async fn the_tool_takes_fields_and_answers_as_rest_does() {
    let server = TestServer::start().await;
    let mcp = server.token(0, "admin", "mcp");
    let api = server.token(0, "admin", "api");
    let result = server
        .call_tool(
            &mcp,
            "dunning_charges_list",
            json!({"status": "overdue", "fields": "amount_due,due_date", "per_page": 100}),
        )
        .await;
    assert_eq!(result.get("isError"), None, "{result}");
    let rest = server
        .rest(
            "GET",
            "/v1/charges?status=overdue&fields=amount_due,due_date&per_page=100",
            &api,
            None,
        )
        .await;
    let structured = &result["structuredContent"];
    assert_eq!(structured["data"], rest.body["data"]);
    for item in structured["data"].as_array().unwrap() {
        assert_eq!(keys(item), ["id", "amount_due", "due_date"]);
    }
    // The text block says the same as the structured content.
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["data"], structured["data"]);
}
