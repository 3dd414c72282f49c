//! The generic MCP layer serving a second catalog (the conformance fixture), driven
//! in-process: MCP results passed through, input asked for by multi round-trip requests,
//! `Mcp-Param-*` headers checked, prompts served by operations, resources read.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use base64::Engine;
use http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;

const TOKEN: &str = "test-token";

/// One app for the whole binary, as in production: a `requestState` is sealed with the key of
/// the process that issued it.
fn app() -> Router {
    static APP: OnceLock<Router> = OnceLock::new();
    APP.get_or_init(|| conformance_fixture::app(TOKEN, conformance_fixture::settings(true)))
        .clone()
}

/// What came back: HTTP status and JSON-RPC body.
struct Reply {
    status: StatusCode,
    body: Value,
}

async fn send(request: Request<Body>) -> Reply {
    let response = app().oneshot(request).await.expect("infallible");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    Reply {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

/// A handshake-era (2025-06-18) request.
async fn legacy(method: &str, params: Value) -> Reply {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    send(
        Request::post("/mcp")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("mcp-protocol-version", "2025-06-18")
            .body(Body::from(body.to_string()))
            .expect("request"),
    )
    .await
}

/// A stateless-era request: the envelope with `capabilities`, and the headers that repeat it
/// (plus `extra` headers).
async fn stateless(
    method: &str,
    params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> Reply {
    stateless_at("/mcp", method, params, capabilities, extra).await
}

/// [`stateless`] at another path of the endpoint (a URL variant).
async fn stateless_at(
    path: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> Reply {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    let mut builder = Request::post(path)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {TOKEN}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        builder = builder.header("mcp-name", name);
    }
    for (k, v) in extra {
        builder = builder.header(*k, *v);
    }
    send(builder.body(Body::from(body.to_string())).expect("request")).await
}

fn all_capabilities() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "roots": {} })
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[tokio::test]
async fn tools_list_serves_the_second_catalog_without_its_prompt_operations() {
    let reply = legacy("tools/list", json!({})).await;
    let tools = reply.body["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names[0], "test_simple_text",
        "the suite calls tools[0] bare"
    );
    assert!(names.contains(&"test_input_required_result_elicitation"));
    assert!(
        !names.contains(&"test_prompt_with_image"),
        "a prompt, not a tool"
    );
    let schema = &tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .expect("the 2020-12 tool")["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["else"], json!({ "required": ["email"] }));
    assert_eq!(schema["additionalProperties"], false);
}

#[tokio::test]
async fn an_mcp_result_passes_through_as_the_operation_wrote_it() {
    let reply = legacy(
        "tools/call",
        json!({ "name": "test_multiple_content_types" }),
    )
    .await;
    let result = &reply.body["result"];
    let kinds: Vec<&str> = result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["type"].as_str())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    assert!(result.get("structuredContent").is_none());
    let error = legacy("tools/call", json!({ "name": "test_error_handling" })).await;
    assert_eq!(error.body["result"]["isError"], true);
}

#[tokio::test]
async fn an_operation_asks_for_input_and_reads_the_answer_on_the_retry() {
    let call = json!({ "name": "test_input_required_result_elicitation", "arguments": {} });
    let first = stateless("tools/call", call.clone(), all_capabilities(), &[]).await;
    let asked = &first.body["result"];
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(
        asked["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state = asked["requestState"].as_str().expect("a sealed state");

    let mut retry = call.clone();
    retry["inputResponses"] = json!({ "user_name": accept(json!({ "name": "Alice" })) });
    retry["requestState"] = json!(state);
    let second = stateless("tools/call", retry, all_capabilities(), &[]).await;
    assert_eq!(second.body["result"]["resultType"], "complete");
    assert_eq!(second.body["result"]["content"][0]["text"], "Hello, Alice!");
}

#[tokio::test]
async fn the_operation_state_evolves_across_rounds_and_a_tampered_state_is_refused() {
    let call = json!({ "name": "test_input_required_result_multi_round", "arguments": {} });
    let round1 = stateless("tools/call", call.clone(), all_capabilities(), &[])
        .await
        .body;
    let state1 = round1["result"]["requestState"].clone();

    let mut retry = call.clone();
    retry["inputResponses"] = json!({ "step1": accept(json!({ "name": "Alice" })) });
    retry["requestState"] = state1.clone();
    let round2 = stateless("tools/call", retry, all_capabilities(), &[])
        .await
        .body;
    assert!(round2["result"]["inputRequests"]["step2"].is_object());
    let state2 = round2["result"]["requestState"].clone();
    assert_ne!(state1, state2);

    let mut last = call.clone();
    last["inputResponses"] = json!({ "step2": accept(json!({ "color": "blue" })) });
    last["requestState"] = state2.clone();
    let done = stateless("tools/call", last.clone(), all_capabilities(), &[])
        .await
        .body;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Alice's favorite color is blue."
    );

    last["requestState"] = json!(format!("{}-TAMPERED", state2.as_str().expect("state")));
    let tampered = stateless("tools/call", last, all_capabilities(), &[]).await;
    assert_eq!(tampered.body["error"]["code"], -32602);
}

#[tokio::test]
async fn asking_through_an_undeclared_capability_is_refused_with_32021() {
    let call = json!({ "name": "test_missing_capability", "arguments": {} });
    let reply = stateless("tools/call", call, json!({}), &[]).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["error"]["code"], -32021);
    assert_eq!(
        reply.body["error"]["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );
}

#[tokio::test]
async fn the_handshake_era_cannot_ask_so_the_tool_answers_an_error_result() {
    let reply = legacy(
        "tools/call",
        json!({ "name": "test_input_required_result_elicitation", "arguments": {} }),
    )
    .await;
    let result = &reply.body["result"];
    assert_eq!(result["isError"], true);
    let problem: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .expect("problem");
    assert_eq!(problem["code"], "input_required");
}

#[tokio::test]
async fn an_argument_marked_x_mcp_header_must_be_repeated_in_its_header() {
    let call = json!({ "name": "test_header_echo", "arguments": { "region": "Hello" } });
    let caps = json!({});
    let missing = stateless("tools/call", call.clone(), caps.clone(), &[]).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert_eq!(missing.body["error"]["code"], -32020);

    let encoded = format!(
        "=?base64?{}?=",
        base64::engine::general_purpose::STANDARD.encode("Hello")
    );
    let good = stateless(
        "tools/call",
        call.clone(),
        caps.clone(),
        &[("mcp-param-region", &encoded)],
    )
    .await;
    assert_eq!(good.status, StatusCode::OK);
    assert_eq!(good.body["result"]["content"][0]["text"], "Region: Hello");

    for bad in ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "Goodbye"] {
        let reply = stateless(
            "tools/call",
            call.clone(),
            caps.clone(),
            &[("Mcp-Param-Region", bad)],
        )
        .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(reply.body["error"]["code"], -32020, "{bad}");
    }
}

#[tokio::test]
async fn discovery_mode_serves_the_second_catalog_through_search_describe_and_call() {
    let discover = |method: &'static str, params: Value| {
        stateless_at("/mcp/discover", method, params, all_capabilities(), &[])
    };
    // No `tool_prefix` in this document: the three tools are named bare.
    let listed = discover("tools/list", json!({})).await.body;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["search", "describe", "call"]);
    let found = discover(
        "tools/call",
        json!({"name": "search", "arguments": {"query": "elicitation input required", "limit": 3}}),
    )
    .await
    .body;
    let first = &found["result"]["structuredContent"]["tools"][0]["name"];
    assert_eq!(first, "test_input_required_result_elicitation", "{found}");

    // An operation that asks for input asks through `call`, and its sealed state (bound to the
    // inner tool) brings the answer back to it.
    let inner = json!({"name": "test_input_required_result_elicitation", "arguments": {}});
    let asked = discover("tools/call", json!({"name": "call", "arguments": inner})).await;
    let asked = &asked.body["result"];
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let retry = json!({
        "name": "call",
        "arguments": inner,
        "requestState": asked["requestState"],
        "inputResponses": {"user_name": accept(json!({"name": "Alice"}))},
    });
    let done = discover("tools/call", retry).await.body;
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Alice!",
        "{done}"
    );

    // `Mcp-Param-*` headers mirror the arguments of the tool in `Mcp-Name` (here `call`,
    // which marks none): the inner tool's are not asked for.
    let echo = json!({"name": "call", "arguments": {"name": "test_header_echo", "arguments": {"region": "Hello"}}});
    let reply = discover("tools/call", echo).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["result"]["content"][0]["text"], "Region: Hello");
}

#[tokio::test]
async fn a_prompt_served_by_an_operation_gets_its_arguments_and_may_ask_first() {
    let embedded = legacy(
        "prompts/get",
        json!({ "name": "test_prompt_with_embedded_resource", "arguments": { "resourceUri": "test://x" } }),
    )
    .await;
    let messages = &embedded.body["result"]["messages"];
    assert_eq!(messages[0]["content"]["resource"]["uri"], "test://x");

    let listed = legacy("prompts/list", json!({})).await;
    let names: Vec<&str> = listed.body["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&"test_simple_prompt") && names.contains(&"test_prompt_with_image"));

    let get = json!({ "name": "test_input_required_result_prompt" });
    let first = stateless("prompts/get", get.clone(), all_capabilities(), &[])
        .await
        .body;
    assert_eq!(first["result"]["resultType"], "input_required");
    let mut retry = get;
    retry["inputResponses"] = json!({ "user_context": accept(json!({ "context": "tests" })) });
    retry["requestState"] = first["result"]["requestState"].clone();
    let second = stateless("prompts/get", retry, all_capabilities(), &[])
        .await
        .body;
    assert_eq!(
        second["result"]["messages"][0]["content"]["text"],
        "Answer with this context in mind: tests"
    );
}

#[tokio::test]
async fn fixture_resources_read_as_text_blob_and_from_a_template() {
    let text = legacy("resources/read", json!({ "uri": "test://static-text" })).await;
    assert_eq!(
        text.body["result"]["contents"][0]["text"],
        "This is the content of the static text resource."
    );
    let blob = legacy("resources/read", json!({ "uri": "test://static-binary" })).await;
    assert_eq!(blob.body["result"]["contents"][0]["mimeType"], "image/png");
    assert_eq!(
        blob.body["result"]["contents"][0]["blob"],
        conformance_fixture::operations::PNG_BASE64
    );
    let templated = legacy(
        "resources/read",
        json!({ "uri": "test://template/123/data" }),
    )
    .await;
    let body: Value = serde_json::from_str(
        templated.body["result"]["contents"][0]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON");
    assert_eq!(body["data"], "Data for ID: 123");
}
