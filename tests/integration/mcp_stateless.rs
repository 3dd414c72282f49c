//! The stateless era (2026-07-28): the envelope, the header checks in their order, discover,
//! and what every result carries.

use base64::Engine;
use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

const JSON: (&str, &str) = ("content-type", "application/json");

fn envelope(method: &str, version: &str, capabilities: Option<Value>, extra: Value) -> Value {
    let mut meta = json!({ "io.modelcontextprotocol/protocolVersion": version });
    if let Some(c) = capabilities {
        meta["io.modelcontextprotocol/clientCapabilities"] = c;
    }
    let mut params = extra;
    params["_meta"] = meta;
    json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params })
}

#[tokio::test]
async fn discover_lists_every_revision_and_is_private() {
    let server = TestServer::start().await;
    let answer = server
        .mcp26(
            &server.token(0, "viewer", "mcp"),
            "server/discover",
            json!({}),
            json!({}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(answer.header("mcp-protocol-version"), Some("2026-07-28"));
    let result = &answer.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "kobana-dunning"
    );
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("never instructions")
    );
}

#[tokio::test]
async fn lists_and_calls_carry_result_type_and_lists_are_private() {
    let server = TestServer::start().await;
    let token = server.token(0, "viewer", "mcp");
    let list = server
        .mcp26(&token, "tools/list", json!({}), json!({}))
        .await;
    assert_eq!(list.body["result"]["cacheScope"], "private");
    assert_eq!(list.body["result"]["ttlMs"], 0);
    let call = server
        .mcp26(
            &token,
            "tools/call",
            json!({"name": "dunning_me", "arguments": {}}),
            json!({}),
        )
        .await;
    assert_eq!(call.body["result"]["resultType"], "complete");
    assert!(
        call.body["result"].get("cacheScope").is_none(),
        "a call is not a listing"
    );
}

#[tokio::test]
async fn headers_must_repeat_the_body() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let call = envelope(
        "tools/call",
        "2026-07-28",
        Some(json!({})),
        json!({"name": "dunning_me", "arguments": {}}),
    );
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (
            vec![("mcp-method", "tools/call"), ("mcp-name", "dunning_me")],
            "MCP-Protocol-Version",
        ),
        (
            vec![
                ("mcp-protocol-version", "2025-06-18"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "dunning_me"),
            ],
            "MCP-Protocol-Version",
        ),
        (
            vec![
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-name", "dunning_me"),
            ],
            "Mcp-Method",
        ),
        (
            vec![
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
                ("mcp-name", "dunning_me"),
            ],
            "Mcp-Method",
        ),
        (
            vec![
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
            ],
            "Mcp-Name",
        ),
        (
            vec![
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "dunning_charges_list"),
            ],
            "Mcp-Name",
        ),
    ];
    for (extra, which) in cases {
        let mut headers = vec![JSON, ("authorization", auth.as_str())];
        headers.extend(extra.iter().copied());
        let answer = server.mcp_raw(&headers, &call.to_string()).await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{which}: {}",
            answer.text
        );
        assert_eq!(answer.body["error"]["code"], -32020, "{which}");
        assert!(
            answer.body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Header mismatch: "),
            "{which}"
        );
        assert!(
            answer.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(which),
            "{which}: {}",
            answer.text
        );
    }
}

#[tokio::test]
async fn a_base64_encoded_name_header_is_decoded_before_comparing() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let call = envelope(
        "tools/call",
        "2026-07-28",
        Some(json!({})),
        json!({"name": "dunning_me", "arguments": {}}),
    );
    let encoded = format!(
        "=?base64?{}?=",
        base64::engine::general_purpose::STANDARD.encode("dunning_me")
    );
    let headers = [
        JSON,
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", encoded.as_str()),
    ];
    let answer = server.mcp_raw(&headers, &call.to_string()).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(
        answer.body["result"]["structuredContent"]["data"]["person"]["role"],
        "viewer"
    );
}

#[tokio::test]
async fn the_checks_run_in_order_mismatch_then_version_then_capabilities() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    // A version this era does not speak, repeated faithfully in the header: -32022.
    let old = envelope("tools/list", "2025-06-18", None, json!({}));
    let headers = [
        JSON,
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
        ("mcp-method", "tools/list"),
    ];
    let answer = server.mcp_raw(&headers, &old.to_string()).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["error"]["code"], -32022);
    assert_eq!(answer.body["error"]["data"]["requested"], "2025-06-18");
    assert!(
        answer.body["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    // The same with a mismatching header: the mismatch is reported first.
    let headers = [
        JSON,
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let answer = server.mcp_raw(&headers, &old.to_string()).await;
    assert_eq!(answer.body["error"]["code"], -32020);
    // A good version without client capabilities: -32602.
    let bare = envelope("tools/list", "2026-07-28", None, json!({}));
    let answer = server.mcp_raw(&headers, &bare.to_string()).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["error"]["code"], -32602);
    let not_object = envelope("tools/list", "2026-07-28", Some(json!("all")), json!({}));
    let answer = server.mcp_raw(&headers, &not_object.to_string()).await;
    assert_eq!(answer.body["error"]["code"], -32602);
}

#[tokio::test]
async fn unknown_methods_including_initialize_and_ping_are_http_404() {
    let server = TestServer::start().await;
    let token = server.token(0, "viewer", "mcp");
    for method in ["initialize", "ping", "tools/dance"] {
        let answer = server.mcp26(&token, method, json!({}), json!({})).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(answer.body["error"]["code"], -32601, "{method}");
    }
}

#[tokio::test]
async fn unknown_resources_are_invalid_params_in_this_era() {
    let server = TestServer::start().await;
    let answer = server
        .mcp26(
            &server.token(0, "viewer", "mcp"),
            "resources/read",
            json!({"uri": "kobana://dunning/charges/chg_nope"}),
            json!({}),
        )
        .await;
    assert_eq!(answer.body["error"]["code"], -32602);
    assert_eq!(
        answer.body["error"]["data"]["uri"],
        "kobana://dunning/charges/chg_nope"
    );
}
