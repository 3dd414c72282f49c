//! The HTTP side of `/mcp`: methods, media types, sizes, batches, headers, authentication.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

const JSON: (&str, &str) = ("content-type", "application/json");

fn list_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

#[tokio::test]
async fn get_and_delete_are_405_with_allow_post() {
    let server = TestServer::start().await;
    for method in ["GET", "DELETE"] {
        let request = http::Request::builder()
            .method(method)
            .uri("/mcp")
            .body(axum::body::Body::empty())
            .unwrap();
        let answer = server.send(request).await;
        assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(answer.header("allow"), Some("POST"));
        assert_eq!(answer.body["error"]["code"], -32000);
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_rpc_is_refused_with_the_right_code() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let cases = [
        (
            vec![("content-type", "text/plain")],
            "{}",
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32600,
        ),
        (vec![JSON], "{not json", StatusCode::BAD_REQUEST, -32700),
        (vec![JSON], "42", StatusCode::BAD_REQUEST, -32600),
        (
            vec![JSON],
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            StatusCode::BAD_REQUEST,
            -32600,
        ),
    ];
    for (mut headers, body, status, code) in cases {
        headers.push(("authorization", &auth));
        let answer = server.mcp_raw(&headers, body).await;
        assert_eq!(answer.status, status, "{body}");
        assert_eq!(answer.body["error"]["code"], code, "{body}");
    }
}

#[tokio::test]
async fn a_body_over_two_megabytes_is_413() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(2 * 1024 * 1024 + 1)
    );
    let answer = server
        .mcp_raw(&[JSON, ("authorization", &auth)], &big)
        .await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.body["error"]["code"], -32600);
    assert_eq!(answer.body["error"]["message"], "Request body too large");
}

#[tokio::test]
async fn every_response_is_uncacheable_and_names_the_revision() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let answers = [
        server
            .mcp_raw(
                &[
                    JSON,
                    ("authorization", &auth),
                    ("mcp-protocol-version", "2025-06-18"),
                ],
                &list_request(1).to_string(),
            )
            .await,
        server
            .mcp_raw(
                &[JSON, ("mcp-protocol-version", "2025-06-18")],
                &list_request(1).to_string(),
            )
            .await,
        server
            .mcp_raw(&[JSON, ("authorization", &auth)], "{oops")
            .await,
    ];
    for answer in answers {
        assert_eq!(
            answer.header("cache-control"),
            Some("no-store"),
            "{}",
            answer.status
        );
        assert!(
            answer.header("mcp-protocol-version").is_some(),
            "{}",
            answer.status
        );
    }
}

#[tokio::test]
async fn batches_run_in_order_only_in_2025_03_26() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "dunning_me", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
    ]);
    let answer = server
        .mcp_raw(&[JSON, ("authorization", &auth)], &batch.to_string())
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let responses = answer.body.as_array().unwrap();
    let ids: Vec<i64> = responses
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3], "in order, no entry for the notification");
    assert_eq!(
        responses[1]["result"]["structuredContent"]["data"]["person"]["role"],
        "viewer"
    );
    assert_eq!(
        responses[2]["error"]["code"], -32600,
        "initialize cannot be batched"
    );

    let other_revision = server
        .mcp_raw(
            &[
                JSON,
                ("authorization", &auth),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &batch.to_string(),
        )
        .await;
    assert_eq!(other_revision.status, StatusCode::BAD_REQUEST);
    assert!(
        other_revision.body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Batching not supported")
    );

    let too_many = Value::Array((0..21).map(list_request).collect());
    let answer = server
        .mcp_raw(&[JSON, ("authorization", &auth)], &too_many.to_string())
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Batch too large")
    );

    let empty = server
        .mcp_raw(&[JSON, ("authorization", &auth)], "[]")
        .await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn without_a_token_the_answer_is_401_with_the_resource_metadata() {
    let server = TestServer::start().await;
    let answer = server
        .mcp_raw(
            &[JSON, ("host", "127.0.0.1:8080")],
            &list_request(1).to_string(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer.header("content-type"),
        Some("application/problem+json")
    );
    let challenge = answer.header("www-authenticate").unwrap();
    assert!(
        challenge.contains(
            r#"resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource""#
        ),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"customers:read"), "{challenge}");
    assert!(!challenge.contains("invalid_token"));
}

#[tokio::test]
async fn a_bad_or_api_token_is_an_invalid_token() {
    let server = TestServer::start().await;
    for token in [
        "kd_mcp_made_up".to_string(),
        server.token(0, "admin", "api"),
    ] {
        let auth = format!("Bearer {token}");
        let answer = server
            .mcp_raw(
                &[JSON, ("authorization", &auth)],
                &list_request(1).to_string(),
            )
            .await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
        assert!(
            answer
                .header("www-authenticate")
                .unwrap()
                .contains(r#"error="invalid_token""#)
        );
    }
}

#[tokio::test]
async fn the_public_catalog_lists_without_a_token_but_never_calls() {
    let server = TestServer::start_public().await;
    let listed = server.mcp_raw(&[JSON], &list_request(1).to_string()).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.body["result"]["tools"].as_array().unwrap().len(), 68);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "dunning_me", "arguments": {}}});
    let answer = server.mcp_raw(&[JSON], &call.to_string()).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    let bad = server
        .mcp_raw(
            &[JSON, ("authorization", "Bearer nope")],
            &list_request(3).to_string(),
        )
        .await;
    assert_eq!(
        bad.status,
        StatusCode::UNAUTHORIZED,
        "a credential that is present must be valid"
    );
}

#[tokio::test]
async fn a_real_client_over_a_socket_lists_and_calls() {
    let server = TestServer::start().await;
    let base = server.listen().await;
    let client = reqwest::Client::new();
    let token = server.token(0, "collector", "mcp");
    let listed: Value = client
        .post(format!("{base}/mcp"))
        .bearer_auth(&token)
        .json(&list_request(1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(listed["result"]["tools"].as_array().unwrap().len() > 10);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "dunning_me", "arguments": {}}});
    let response = client
        .post(format!("{base}/mcp"))
        .bearer_auth(&token)
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["data"]["person"]["role"],
        "collector"
    );
}

#[tokio::test]
async fn a_batch_of_notifications_only_is_accepted_without_a_body() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    ]);
    let answer = server
        .mcp_raw(&[JSON, ("authorization", &auth)], &batch.to_string())
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED);
    assert!(answer.text.is_empty());
}

#[tokio::test]
async fn the_public_catalog_covers_the_handshake_and_discovery_too() {
    let server = TestServer::start_public().await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    assert_eq!(
        server.mcp_raw(&[JSON], &init.to_string()).await.status,
        StatusCode::OK
    );
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(
        server
            .mcp_raw(
                &[JSON, ("mcp-protocol-version", "2025-06-18")],
                &ping.to_string()
            )
            .await
            .status,
        StatusCode::OK
    );
    let discover = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        JSON,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let answer = server.mcp_raw(&headers, &discover.to_string()).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let resources = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/list"});
    let answer = server
        .mcp_raw(
            &[JSON, ("mcp-protocol-version", "2025-06-18")],
            &resources.to_string(),
        )
        .await;
    assert_eq!(
        answer.status,
        StatusCode::UNAUTHORIZED,
        "only the catalog methods are public"
    );
}

/// A JSON request's headers with `auth` at revision 2025-06-18.
fn versioned(auth: &str) -> [(&str, &str); 3] {
    [
        JSON,
        ("authorization", auth),
        ("mcp-protocol-version", "2025-06-18"),
    ]
}

/// The `id` of an answer as the server wrote it, byte for byte.
fn raw_id(text: &str) -> String {
    let message: std::collections::HashMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    message["id"].get().to_string()
}

#[tokio::test]
async fn request_ids_come_back_exactly_as_sent() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let headers = versioned(&auth);
    let ids = [
        "99999999999999999999",
        "-123456789012345678901234567890",
        "9007199254740993",
        "0",
        r#""req-1""#,
        r#""caf\u00e9 \"quoted\"""#,
        r#""""#,
    ];
    for id in ids {
        for method in ["tools/list", "no/such_method"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
            let answer = server.mcp_raw(&headers, &body).await;
            assert_eq!(answer.status, StatusCode::OK, "{body}: {}", answer.text);
            assert_eq!(raw_id(&answer.text), id, "{method}: {}", answer.text);
        }
    }
    // In a batch (2025-03-26), each answer names its own request.
    let batch = r#"[{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"},{"jsonrpc":"2.0","id":99999999999999999998,"method":"ping"}]"#;
    let answer = server
        .mcp_raw(&[JSON, ("authorization", auth.as_str())], batch)
        .await;
    let answers: Vec<Box<serde_json::value::RawValue>> =
        serde_json::from_str(&answer.text).expect("an array");
    let ids: Vec<String> = answers.iter().map(|a| raw_id(a.get())).collect();
    assert_eq!(ids, ["99999999999999999999", "99999999999999999998"]);
}

#[tokio::test]
async fn ids_that_are_not_a_string_or_an_integer_are_invalid_requests() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let headers = versioned(&auth);
    for id in ["null", "true", "{}", "[1]", "1.5", "1e3"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        let answer = server.mcp_raw(&headers, &body).await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{id}: {}",
            answer.text
        );
        assert_eq!(answer.body["error"]["code"], -32600, "{id}");
        assert_eq!(raw_id(&answer.text), "null", "{id}");
    }
}

#[tokio::test]
async fn a_message_with_two_ids_is_an_invalid_request_answered_without_an_id() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let headers = versioned(&auth);
    // Which of the two the client meant cannot be known, so neither is answered to.
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","id":"a"}"#,
    ] {
        let answer = server.mcp_raw(&headers, body).await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            answer.text
        );
        assert_eq!(answer.body["error"]["code"], -32600, "{body}");
        assert_eq!(
            answer.body["error"]["message"], "Invalid Request: id must appear once",
            "{body}"
        );
        assert_eq!(raw_id(&answer.text), "null", "{body}");
    }
}
