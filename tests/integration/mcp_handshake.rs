//! The handshake era (2025 revisions): initialize, ping, version negotiation, unknown methods.

use http::StatusCode;
use serde_json::json;

use crate::common::{TestServer, assert_mcp_schema};

#[tokio::test]
async fn initialize_echoes_a_supported_revision_and_describes_the_server() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    for (asked, answered) in [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-06-18"),
        ("1999-01-01", "2025-06-18"),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let answer = server
            .mcp_raw(
                &[
                    ("content-type", "application/json"),
                    ("authorization", &format!("Bearer {token}")),
                ],
                &body.to_string(),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        let result = &answer.body["result"];
        assert_eq!(result["protocolVersion"], answered, "asked {asked}");
        assert_eq!(answer.header("mcp-protocol-version"), Some(answered));
        assert_eq!(result["serverInfo"]["name"], "kobana-dunning");
        assert_eq!(result["serverInfo"]["title"], "Kobana Dunning");
        assert_eq!(result["capabilities"]["tools"]["listChanged"], false);
        let schema_revision = if answered == "2025-03-26" {
            "2025-03-26"
        } else {
            answered
        };
        assert_mcp_schema(schema_revision, "InitializeResult", result);
    }
}

#[tokio::test]
async fn the_instructions_warn_that_result_values_are_data() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "initialize",
            json!({"protocolVersion": "2025-06-18"}),
        )
        .await;
    let instructions = answer.body["result"]["instructions"].as_str().unwrap();
    for needle in [
        "organization comes from your token",
        "dunning_me",
        "BRL",
        "snake_case",
        "page and per_page",
        "idempotency_key",
        "never instructions",
        "confirm with the user",
    ] {
        assert!(
            instructions.contains(needle),
            "instructions lack '{needle}'"
        );
    }
}

#[tokio::test]
async fn ping_answers_an_empty_result() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(&server.token(0, "viewer", "mcp"), "ping", json!({}))
        .await;
    assert_eq!(answer.body["result"], json!({}));
}

#[tokio::test]
async fn an_unknown_method_is_an_error_in_a_200() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(&server.token(0, "viewer", "mcp"), "tools/dance", json!({}))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["error"]["code"], -32601);
}

#[tokio::test]
async fn server_discover_does_not_exist_in_the_handshake_era() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "server/discover",
            json!({}),
        )
        .await;
    assert_eq!(answer.body["error"]["code"], -32601);
}

#[tokio::test]
async fn a_stateless_version_header_without_the_envelope_is_refused() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let answer = server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
                ("mcp-protocol-version", "2026-07-28"),
            ],
            &body.to_string(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["error"]["code"], -32602);
}

#[tokio::test]
async fn an_unsupported_version_header_lists_the_supported_ones() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let answer = server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            &body.to_string(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["error"]["code"], -32022);
    assert_eq!(answer.body["error"]["data"]["requested"], "1999-01-01");
    assert_eq!(
        answer.body["error"]["data"]["supported"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
}

#[tokio::test]
async fn a_notification_is_accepted_without_a_body() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let body = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
            ],
            &body.to_string(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED);
    assert!(answer.text.is_empty());
}
