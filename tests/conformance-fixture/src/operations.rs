//! The fixture's operations: one handler per operation of `fixture.yaml`, answering what the
//! conformance suite expects. The MCP layer reaches them in-process, like the dunning
//! server's `/v1`. Each reads its input as the generated models (`crate::models`: path, query,
//! body) and writes the answers the document shapes as them too (`crate::answers`); the MCP
//! results, which the document leaves free-form (`{type: object}`), are built here.
//!
//! Most answer MCP results themselves (`x-mcp.result: mcp`). Those that ask the client for
//! input follow the layer's convention (codegen/X-MCP.md, "Asking the client for input"): they
//! answer an `InputRequiredResult`, and read the next round's `inputResponses`, their own
//! `requestState` and the client's capabilities from the `Mcp-Input-Responses`,
//! `Mcp-Request-State` and `Mcp-Client-Capabilities` headers (base64url of UTF-8).

use axum::extract::{Path, Query};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::{HeaderMap, StatusCode, header};
use serde_json::{Map, Value, json};

use crate::answers;
use crate::models::{
    template_data, test_elicitation, test_header_echo, test_prompt_with_embedded_resource,
    test_sampling,
};

/// A 1x1 red PNG.
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// One millisecond of silence: 8 kHz, mono, 8 bits.
pub const WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// Every operation of `fixture.yaml`, at its path.
pub fn router() -> Router {
    Router::new()
        .route("/tools/simple-text", get(simple_text))
        .route("/tools/image-content", get(image_content))
        .route("/tools/audio-content", get(audio_content))
        .route("/tools/embedded-resource", get(embedded_resource))
        .route("/tools/multiple-content-types", get(multiple_content_types))
        .route("/tools/error-handling", get(error_handling))
        .route("/tools/tool-with-logging", get(tool_with_logging))
        .route("/tools/tool-with-progress", get(tool_with_progress))
        .route("/tools/logging-tool", get(logging_tool))
        .route("/tools/reconnection", get(reconnection))
        .route("/tools/sampling", post(sampling))
        .route("/tools/elicitation", post(elicitation))
        .route(
            "/tools/elicitation-sep1034-defaults",
            get(elicitation_defaults),
        )
        .route("/tools/elicitation-sep1330-enums", get(elicitation_enums))
        .route("/tools/json-schema-2020-12", post(json_schema_2020_12))
        .route("/tools/header-echo", post(header_echo))
        .route("/tools/missing-capability", get(missing_capability))
        .route("/tools/streaming-elicitation", get(streaming_elicitation))
        .route("/tools/input-required/elicitation", get(ask_name))
        .route("/tools/input-required/sampling", get(ask_capital))
        .route("/tools/input-required/list-roots", get(ask_roots))
        .route("/tools/input-required/request-state", get(ask_with_state))
        .route("/tools/input-required/multiple-inputs", get(ask_three))
        .route("/tools/input-required/multi-round", get(ask_twice))
        .route(
            "/tools/input-required/tampered-state",
            get(ask_tamper_proof),
        )
        .route("/tools/input-required/capabilities", get(ask_declared))
        .route("/resources/static-text", get(static_text))
        .route("/resources/static-binary", get(static_binary))
        .route("/resources/watched", get(watched))
        .route("/resources/template/{id}/data", get(template_data))
        .route("/prompts/embedded-resource", get(prompt_embedded_resource))
        .route("/prompts/image", get(prompt_image))
        .route("/prompts/input-required", get(prompt_input_required))
}

// --- The input of a round ----------------------------------------------------------------

/// What the MCP layer sent along with this round.
struct Round {
    responses: Map<String, Value>,
    state: Option<String>,
    capabilities: Value,
}

impl Round {
    fn of(headers: &HeaderMap) -> Self {
        let text = |name: &str| {
            let value = headers.get(name)?.as_bytes();
            String::from_utf8(URL_SAFE_NO_PAD.decode(value).ok()?).ok()
        };
        let json = |name: &str| text(name).and_then(|t| serde_json::from_str::<Value>(&t).ok());
        Round {
            responses: match json("mcp-input-responses") {
                Some(Value::Object(map)) => map,
                _ => Map::new(),
            },
            state: text("mcp-request-state"),
            capabilities: json("mcp-client-capabilities").unwrap_or_else(|| json!({})),
        }
    }

    /// The content of an accepted elicitation answered under `key`.
    fn accepted(&self, key: &str) -> Option<&Map<String, Value>> {
        let answer = self.responses.get(key)?;
        (answer.get("action")? == "accept")
            .then(|| answer.get("content")?.as_object())
            .flatten()
    }

    /// The text a model answered to the sampling request under `key`.
    fn sampled(&self, key: &str) -> Option<&str> {
        self.responses
            .get(key)?
            .get("content")?
            .get("text")?
            .as_str()
    }

    /// The roots the client listed under `key`.
    fn roots(&self, key: &str) -> Option<Vec<String>> {
        let roots = self.responses.get(key)?.get("roots")?.as_array()?;
        Some(
            roots
                .iter()
                .filter_map(|r| r.get("uri")?.as_str().map(str::to_string))
                .collect(),
        )
    }

    fn declared(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }
}

// --- MCP shapes --------------------------------------------------------------------------

fn text(text: impl Into<String>) -> Json<Value> {
    Json(json!({ "content": [{ "type": "text", "text": text.into() }] }))
}

fn ask(requests: Value, state: Option<&str>) -> Json<Value> {
    let mut result = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(state) = state {
        result["requestState"] = json!(state);
    }
    Json(result)
}

fn elicit(message: &str, schema: Value) -> Value {
    json!({ "method": "elicitation/create", "params": { "message": message, "requestedSchema": schema } })
}

fn sample(prompt: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": max_tokens,
        }
    })
}

fn list_roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

fn string_field(name: &str) -> Value {
    json!({ "type": "object", "properties": { name: { "type": "string" } }, "required": [name] })
}

/// "action=<action>, content=<content>" of whatever the client answered under `key`.
fn outcome(round: &Round, key: &str) -> Option<String> {
    let answer = round.responses.get(key)?;
    Some(format!(
        "action={}, content={}",
        answer.get("action").and_then(Value::as_str).unwrap_or("?"),
        answer.get("content").unwrap_or(&json!({}))
    ))
}

// --- Content ------------------------------------------------------------------------------

async fn simple_text() -> Json<Value> {
    text("This is a simple text response for testing.")
}

async fn image_content() -> Json<Value> {
    Json(json!({ "content": [{ "type": "image", "data": PNG_BASE64, "mimeType": "image/png" }] }))
}

async fn audio_content() -> Json<Value> {
    Json(json!({ "content": [{ "type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav" }] }))
}

async fn embedded_resource() -> Json<Value> {
    Json(json!({ "content": [{
        "type": "resource",
        "resource": {
            "uri": "test://embedded-resource",
            "mimeType": "text/plain",
            "text": "This is an embedded resource content.",
        }
    }] }))
}

async fn multiple_content_types() -> Json<Value> {
    Json(json!({ "content": [
        { "type": "text", "text": "Multiple content types test:" },
        { "type": "image", "data": PNG_BASE64, "mimeType": "image/png" },
        { "type": "resource", "resource": {
            "uri": "test://mixed-content-resource",
            "mimeType": "application/json",
            "text": json!({ "test": "data", "value": 123 }).to_string(),
        } },
    ] }))
}

async fn error_handling() -> Json<Value> {
    Json(json!({
        "isError": true,
        "content": [{ "type": "text", "text": "This tool intentionally returns an error for testing" }],
    }))
}

async fn tool_with_logging() -> Json<Value> {
    text(
        "Tool execution completed. No log notifications were sent: they need an SSE stream, which this server never opens.",
    )
}

async fn tool_with_progress() -> Json<Value> {
    text(
        "Tool execution completed. No progress notifications were sent: they need an SSE stream, which this server never opens.",
    )
}

async fn logging_tool() -> Json<Value> {
    text("Logging tool executed; no log level was requested, so nothing was logged.")
}

async fn reconnection() -> Json<Value> {
    text(
        "Reconnection test completed in one JSON response: this server has no SSE stream to close and resume.",
    )
}

async fn json_schema_2020_12(Json(body): Json<Map<String, Value>>) -> Response {
    Json(answers::json_schema_2020_12(&body)).into_response()
}

async fn header_echo(Query(query): Query<test_header_echo::Query>) -> Json<Value> {
    text(format!("Region: {}", query.region))
}

// --- Asking for input -----------------------------------------------------------------------

async fn sampling(headers: HeaderMap, Json(body): Json<test_sampling::Body>) -> Json<Value> {
    let round = Round::of(&headers);
    match round.sampled("completion") {
        Some(answer) => text(format!("LLM response: {answer}")),
        None => ask(json!({ "completion": sample(&body.prompt, 100) }), None),
    }
}

async fn elicitation(headers: HeaderMap, Json(body): Json<test_elicitation::Body>) -> Json<Value> {
    let round = Round::of(&headers);
    if let Some(outcome) = outcome(&round, "user_input") {
        return text(format!("User response: {outcome}"));
    }
    let message = body.message.as_str();
    let schema = json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" },
        },
        "required": ["username", "email"],
    });
    ask(json!({ "user_input": elicit(message, schema) }), None)
}

async fn elicitation_defaults(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    if let Some(outcome) = outcome(&round, "defaults") {
        return text(format!("Elicitation completed: {outcome}"));
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "score": { "type": "number", "default": 95.5 },
            "status": { "type": "string", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "default": true },
        },
    });
    ask(
        json!({ "defaults": elicit("Please review the defaults", schema) }),
        None,
    )
}

async fn elicitation_enums(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    if let Some(outcome) = outcome(&round, "enums") {
        return text(format!("Elicitation completed: {outcome}"));
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
            "titledSingle": { "type": "string", "oneOf": [
                { "const": "value1", "title": "First Option" },
                { "const": "value2", "title": "Second Option" },
                { "const": "value3", "title": "Third Option" },
            ] },
            "legacyEnum": { "type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"] },
            "untitledMulti": { "type": "array", "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
            "titledMulti": { "type": "array", "items": { "anyOf": [
                { "const": "value1", "title": "First Choice" },
                { "const": "value2", "title": "Second Choice" },
                { "const": "value3", "title": "Third Choice" },
            ] } },
        },
    });
    ask(json!({ "enums": elicit("Please choose", schema) }), None)
}

async fn missing_capability(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    match round.sampled("completion") {
        Some(answer) => text(format!("The model said: {answer}")),
        // Asked whatever the client declared: the MCP layer refuses with -32021 when the
        // client cannot answer.
        None => ask(json!({ "completion": sample("Say hello", 20) }), None),
    }
}

async fn streaming_elicitation(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    if let Some(outcome) = outcome(&round, "question") {
        return text(format!("Answered: {outcome}"));
    }
    let schema = json!({ "type": "object", "properties": { "continue": { "type": "boolean" } }, "required": ["continue"] });
    ask(
        json!({ "question": elicit("Do you want to continue?", schema) }),
        None,
    )
}

async fn ask_name(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    if let Some(name) = round
        .accepted("user_name")
        .and_then(|c| c.get("name")?.as_str())
    {
        return text(format!("Hello, {name}!"));
    }
    // Asked again when the answer is missing, under another key, or declined.
    ask(
        json!({ "user_name": elicit("What is your name?", string_field("name")) }),
        None,
    )
}

async fn ask_capital(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    match round.sampled("capital_question") {
        Some(answer) => text(format!("The model answered: {answer}")),
        None => ask(
            json!({ "capital_question": sample("What is the capital of France?", 100) }),
            None,
        ),
    }
}

async fn ask_roots(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    match round.roots("client_roots") {
        Some(roots) => text(format!("The client's roots: {}", roots.join(", "))),
        None => ask(json!({ "client_roots": list_roots() }), None),
    }
}

/// The state this operation issues, and expects back with the confirmation.
const AWAITING_CONFIRMATION: &str = "awaiting-confirmation";

async fn ask_with_state(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    let confirmed = round.accepted("confirm").is_some();
    if confirmed && round.state.as_deref() == Some(AWAITING_CONFIRMATION) {
        return text("state-ok: the request state came back and the user confirmed.");
    }
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
    ask(
        json!({ "confirm": elicit("Please confirm", schema) }),
        Some(AWAITING_CONFIRMATION),
    )
}

async fn ask_three(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    if let (Some(name), Some(greeting), Some(roots)) = (
        round
            .accepted("user_name")
            .and_then(|c| c.get("name")?.as_str()),
        round.sampled("greeting"),
        round.roots("client_roots"),
    ) {
        return text(format!("{greeting} {name}; roots: {}", roots.join(", ")));
    }
    ask(
        json!({
            "user_name": elicit("What is your name?", string_field("name")),
            "greeting": sample("Generate a greeting", 50),
            "client_roots": list_roots(),
        }),
        Some("all-three"),
    )
}

async fn ask_twice(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    let step2 = round
        .state
        .as_deref()
        .and_then(|s| s.strip_prefix("round-2:"));
    if let (Some(name), Some(color)) = (
        step2,
        round
            .accepted("step2")
            .and_then(|c| c.get("color")?.as_str()),
    ) {
        return text(format!("{name}'s favorite color is {color}."));
    }
    if round.state.as_deref() == Some("round-1")
        && let Some(name) = round
            .accepted("step1")
            .and_then(|c| c.get("name")?.as_str())
    {
        return ask(
            json!({ "step2": elicit("Step 2: What is your favorite color?", string_field("color")) }),
            Some(&format!("round-2:{name}")),
        );
    }
    ask(
        json!({ "step1": elicit("Step 1: What is your name?", string_field("name")) }),
        Some("round-1"),
    )
}

async fn ask_tamper_proof(headers: HeaderMap) -> Json<Value> {
    // A tampered state never gets here: the MCP layer checks its seal first.
    let round = Round::of(&headers);
    if round.accepted("confirm").is_some() && round.state.as_deref() == Some("issued") {
        return text("Confirmed with an intact request state.");
    }
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
    ask(
        json!({ "confirm": elicit("Please confirm", schema) }),
        Some("issued"),
    )
}

async fn ask_declared(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    let mut requests = Map::new();
    if round.declared("sampling") && round.sampled("summary").is_none() {
        requests.insert("summary".into(), sample("Summarise the day", 50));
    }
    if round.declared("elicitation") && round.accepted("user_name").is_none() {
        requests.insert(
            "user_name".into(),
            elicit("What is your name?", string_field("name")),
        );
    }
    if round.declared("roots") && round.roots("client_roots").is_none() {
        requests.insert("client_roots".into(), list_roots());
    }
    if requests.is_empty() {
        return text("Everything the client could answer was answered.");
    }
    ask(Value::Object(requests), None)
}

// --- Resources ------------------------------------------------------------------------------

async fn static_text() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "This is the content of the static text resource.",
    )
        .into_response()
}

async fn static_binary() -> Response {
    match STANDARD.decode(PNG_BASE64) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "image/png")], bytes).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn watched() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "A resource worth watching; this server sends no update notifications.",
    )
        .into_response()
}

async fn template_data(Path(path): Path<template_data::Path>) -> Response {
    let text = format!("Data for ID: {}", path.id);
    Json(answers::template_data(&path, &text)).into_response()
}

// --- Prompts --------------------------------------------------------------------------------

async fn prompt_embedded_resource(
    Query(query): Query<test_prompt_with_embedded_resource::Query>,
) -> Json<Value> {
    let uri = query.resource_uri;
    Json(json!({
        "description": "A prompt with an embedded resource",
        "messages": [
            { "role": "user", "content": { "type": "resource", "resource": {
                "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing.",
            } } },
            { "role": "user", "content": { "type": "text", "text": "Please process the embedded resource above." } },
        ],
    }))
}

async fn prompt_image() -> Json<Value> {
    Json(json!({
        "description": "A prompt with an image",
        "messages": [
            { "role": "user", "content": { "type": "image", "data": PNG_BASE64, "mimeType": "image/png" } },
            { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } },
        ],
    }))
}

async fn prompt_input_required(headers: HeaderMap) -> Json<Value> {
    let round = Round::of(&headers);
    match round
        .accepted("user_context")
        .and_then(|c| c.get("context")?.as_str())
    {
        Some(context) => Json(json!({
            "description": "A prompt built from the context the user gave",
            "messages": [{ "role": "user", "content": { "type": "text",
                "text": format!("Answer with this context in mind: {context}") } }],
        })),
        None => ask(
            json!({ "user_context": elicit("What context should the prompt use?", string_field("context")) }),
            None,
        ),
    }
}
