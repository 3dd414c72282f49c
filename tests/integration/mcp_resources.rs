//! Resources, prompts and completions: listed per caller, read through the same dispatch.

use http::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn resources_and_templates_are_listed_per_caller() {
    let server = TestServer::start().await;
    let viewer = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "resources/list",
            json!({}),
        )
        .await;
    let uris: Vec<&str> = viewer.body["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    // The Pix settings resource is served by a tool of the `pix` toolset, which a viewer's
    // connection does not load by default (see `mcp_toolsets`); the calendar's by one of
    // `charges`, which it does. The views are fixed documents (HTML without data), listed to
    // every caller in the handshake era like the OpenAPI document (`mcp_views`).
    assert_eq!(
        uris,
        [
            "kobana://dunning/openapi",
            "kobana://dunning/me",
            "kobana://dunning/calendar",
            "ui://dunning/charge",
            "ui://dunning/aging",
            "ui://dunning/agreement"
        ]
    );
    let templates = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "resources/templates/list",
            json!({}),
        )
        .await;
    let list: Vec<&str> = templates.body["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(list.contains(&"kobana://dunning/charges/{id}"));
    assert!(list.contains(&"kobana://dunning/customers/{id}/statement.pdf"));
    assert!(list.contains(&"kobana://dunning/charges/{id}/pix"));
    let bad_cursor = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "resources/list",
            json!({"cursor": "x"}),
        )
        .await;
    assert_eq!(bad_cursor.body["error"]["code"], -32602);
}

#[tokio::test]
async fn reading_a_json_resource_returns_the_api_answer_as_text() {
    let server = TestServer::start().await;
    let token = server.token(0, "collector", "mcp");
    let me = server
        .mcp(
            &token,
            "resources/read",
            json!({"uri": "kobana://dunning/me"}),
        )
        .await;
    let content = &me.body["result"]["contents"][0];
    assert_eq!(content["uri"], "kobana://dunning/me");
    assert_eq!(content["mimeType"], "application/json");
    let parsed: serde_json::Value =
        serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
    assert_eq!(parsed["data"]["person"]["role"], "collector");

    let charges = server
        .call_tool(&token, "dunning_charges_list", json!({"per_page": 1}))
        .await;
    let id = charges["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap();
    let uri = format!("kobana://dunning/charges/{id}");
    let read = server
        .mcp(&token, "resources/read", json!({"uri": uri}))
        .await;
    let parsed: serde_json::Value =
        serde_json::from_str(read.body["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(parsed["data"]["id"], id);

    let openapi = server
        .mcp(
            &token,
            "resources/read",
            json!({"uri": "kobana://dunning/openapi"}),
        )
        .await;
    assert!(
        openapi.body["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"openapi\"")
    );
}

#[tokio::test]
async fn unknown_and_foreign_resources_are_not_found_with_the_uri() {
    let server = TestServer::start().await;
    let theirs = server
        .call_tool(
            &server.token(1, "admin", "mcp"),
            "dunning_charges_list",
            json!({"per_page": 1}),
        )
        .await;
    let foreign = format!(
        "kobana://dunning/charges/{}",
        theirs["structuredContent"]["data"][0]["id"]
            .as_str()
            .unwrap()
    );
    for uri in [
        "kobana://dunning/nothing",
        "kobana://dunning/charges/chg_aaaaaaaaaaaaaaaa",
        foreign.as_str(),
        "https://example.com/",
    ] {
        let answer = server
            .mcp(
                &server.token(0, "admin", "mcp"),
                "resources/read",
                json!({"uri": uri}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            answer.body["error"]["code"], -32002,
            "{uri}: {}",
            answer.text
        );
        assert_eq!(answer.body["error"]["data"]["uri"], uri);
    }
}

#[tokio::test]
async fn prompts_are_listed_only_when_their_tools_can_run() {
    let server = TestServer::start().await;
    let names = |answer: &crate::common::Answer| -> Vec<String> {
        answer.body["result"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let admin = server
        .mcp(&server.token(0, "admin", "mcp"), "prompts/list", json!({}))
        .await;
    assert_eq!(
        names(&admin),
        [
            "dispute_review",
            "overdue_triage",
            "propose_agreement",
            "weekly_collection_report"
        ]
    );
    let viewer = server
        .mcp(&server.token(0, "viewer", "mcp"), "prompts/list", json!({}))
        .await;
    assert!(
        !names(&viewer).contains(&"propose_agreement".to_string()),
        "a viewer cannot create agreements"
    );
    assert!(names(&viewer).contains(&"overdue_triage".to_string()));
}

#[tokio::test]
async fn a_prompt_is_filled_with_its_arguments() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let answer = server
        .mcp(&token, "prompts/get", json!({"name": "propose_agreement", "arguments": {"customer_id": "cus_8f3k2m9x7q1w5e4r", "installments": "6"}}))
        .await;
    let text = answer.body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("customer cus_8f3k2m9x7q1w5e4r") && text.contains("6 monthly instalments"),
        "{text}"
    );
    assert!(!text.contains("{{"), "every placeholder filled: {text}");
    let missing = server
        .mcp(
            &token,
            "prompts/get",
            json!({"name": "propose_agreement", "arguments": {}}),
        )
        .await;
    assert_eq!(missing.body["error"]["code"], -32602);
    assert!(
        missing.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("customer_id")
    );
    let unknown = server
        .mcp(&token, "prompts/get", json!({"name": "launch_rockets"}))
        .await;
    assert_eq!(unknown.body["error"]["code"], -32602);
    let hidden = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "prompts/get",
            json!({"name": "propose_agreement", "arguments": {"customer_id": "x"}}),
        )
        .await;
    assert_eq!(
        hidden.body["error"]["code"], -32602,
        "a prompt the caller cannot use does not exist for it"
    );
}

#[tokio::test]
async fn completions_come_from_the_callers_organization() {
    let server = TestServer::start().await;
    let token = server.token(0, "viewer", "mcp");
    let by_name = server
        .mcp(&token, "completion/complete", json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/customers/{id}"}, "argument": {"name": "id", "value": "conc"}}))
        .await;
    let completion = &by_name.body["result"]["completion"];
    assert_eq!(completion["total"], 1, "{}", by_name.text);
    assert_eq!(completion["hasMore"], false);
    let id = completion["values"][0].as_str().unwrap();
    let customer = server
        .call_tool(&token, "dunning_customers_get", json!({"id": id}))
        .await;
    assert_eq!(
        customer["structuredContent"]["data"]["name"],
        "Conceição Araújo"
    );

    let all = server
        .mcp(&token, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "dispute_review"}, "argument": {"name": "charge_id", "value": ""}}))
        .await;
    let completion = &all.body["result"]["completion"];
    assert_eq!(
        completion["total"], 30,
        "the 30 charges of this organization only"
    );
    assert_eq!(completion["values"].as_array().unwrap().len(), 30);

    let foreign = server
        .mcp(&token, "completion/complete", json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/customers/{id}"}, "argument": {"name": "id", "value": "gabriela"}}))
        .await;
    assert_eq!(
        foreign.body["result"]["completion"]["total"], 0,
        "Gabriela is a customer of the other organization"
    );

    let unknown = server.mcp(&token, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}})).await;
    assert_eq!(unknown.body["error"]["code"], -32602);
}

#[tokio::test]
async fn a_pdf_is_described_by_the_tool_and_served_as_a_blob_resource() {
    use base64::Engine;
    let server = TestServer::start().await;
    let token = server.token(0, "viewer", "mcp");
    let customers = server
        .call_tool(&token, "dunning_customers_list", json!({"q": "Conceição"}))
        .await;
    let id = customers["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let rest = server
        .rest(
            "GET",
            &format!("/v1/customers/{id}/statement"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(rest.status, StatusCode::OK);
    assert_eq!(rest.header("content-type"), Some("application/pdf"));
    assert!(rest.text.starts_with("%PDF-"));

    let described = server
        .call_tool(&token, "dunning_customers_statement", json!({"id": id}))
        .await;
    let descriptor = &described["structuredContent"];
    let uri = format!("kobana://dunning/customers/{id}/statement.pdf");
    assert_eq!(descriptor["content_type"], "application/pdf");
    assert_eq!(
        descriptor["download_path"],
        format!("/v1/customers/{id}/statement")
    );
    assert_eq!(descriptor["resource_uri"], uri);
    assert!(descriptor["byte_size"].as_u64().unwrap() > 1000);
    assert!(
        !described["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("%PDF"),
        "never the bytes"
    );
    assert_eq!(described["content"][1]["type"], "resource_link");
    assert_eq!(described["content"][1]["uri"], uri);

    let read = server
        .mcp(&token, "resources/read", json!({"uri": uri}))
        .await;
    let content = &read.body["result"]["contents"][0];
    assert_eq!(content["mimeType"], "application/pdf");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(content["blob"].as_str().unwrap())
        .unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert_eq!(
        bytes.len() as u64,
        descriptor["byte_size"].as_u64().unwrap()
    );
}
