//! Turning an operation's HTTP answer into a `tools/call` result.
//!
//! Success: the JSON body as indented text plus `structuredContent`, with `meta` enriched by
//! what the headers said (rate limit, ETag, idempotency). Errors the caller can act on: an
//! `isError` result whose text is the problem document. Files: a description, never bytes.

use serde_json::{Map, Value, json};

use super::catalog::{ResponseKind, ToolSpec};
use super::dispatch::Answer;

/// An `isError` result carrying a problem document.
pub fn error(problem: &Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": pretty(problem) }],
        "isError": true,
    })
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

fn header<'a>(answer: &'a Answer, name: &str) -> Option<&'a str> {
    answer.headers.get(name).and_then(|v| v.to_str().ok())
}

/// The result of a call, from the operation's answer.
pub fn from_response(tool: &ToolSpec, arguments: &Map<String, Value>, answer: Answer) -> Value {
    if !answer.status.is_success() {
        return error(&problem_of(&answer));
    }
    let structured = match tool.response {
        _ if answer.status == http::StatusCode::NO_CONTENT => json!({ "status": 204 }),
        ResponseKind::NoContent => json!({ "status": answer.status.as_u16() }),
        ResponseKind::Binary { content_type } => {
            return binary(tool, arguments, &answer, content_type);
        }
        // Operations that answer MCP results are read by `tools::call_mcp`; should one get
        // here, its JSON is data like any other.
        ResponseKind::Json
        | ResponseKind::JsonWrapped
        | ResponseKind::McpResult
        | ResponseKind::PromptResult => match serde_json::from_slice::<Value>(&answer.body) {
            Ok(Value::Object(map)) if tool.response == ResponseKind::Json => Value::Object(map),
            Ok(other) => json!({ "result": other }),
            Err(_) if answer.body.is_empty() => json!({ "status": answer.status.as_u16() }),
            Err(e) => {
                return error(&internal_problem(&format!(
                    "the operation answered invalid JSON: {e}"
                )));
            }
        },
    };
    let structured = enrich(structured, &answer);
    json!({
        "content": [{ "type": "text", "text": pretty(&structured) }],
        "structuredContent": structured,
    })
}

/// Add `meta.rate_limit`, `meta.etag` and the idempotency facts from the response headers.
fn enrich(mut structured: Value, answer: &Answer) -> Value {
    let Some(object) = structured.as_object_mut() else {
        return structured;
    };
    let mut additions = Map::new();
    let number = |name: &str| header(answer, name).and_then(|v| v.parse::<u64>().ok());
    if let (Some(limit), Some(remaining), Some(reset)) = (
        number("ratelimit-limit"),
        number("ratelimit-remaining"),
        number("ratelimit-reset"),
    ) {
        additions.insert(
            "rate_limit".into(),
            json!({ "limit": limit, "remaining": remaining, "reset": reset }),
        );
    }
    if let Some(etag) = header(answer, "etag") {
        additions.insert("etag".into(), json!(etag));
    }
    if let Some(key) = header(answer, "idempotency-key") {
        additions.insert("idempotency_key".into(), json!(key));
        additions.insert(
            "idempotent_replay".into(),
            json!(header(answer, "idempotent-replayed") == Some("true")),
        );
    }
    if additions.is_empty() {
        return structured;
    }
    let meta = object.entry("meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.extend(additions);
    }
    structured
}

/// The problem document of an error answer, or one made up when the body is not one.
fn problem_of(answer: &Answer) -> Value {
    match serde_json::from_slice::<Value>(&answer.body) {
        Ok(Value::Object(map)) if map.contains_key("status") => Value::Object(map),
        _ => {
            let status = answer.status;
            json!({
                "type": "about:blank",
                "title": status.canonical_reason().unwrap_or("Error"),
                "status": status.as_u16(),
                "detail": String::from_utf8_lossy(&answer.body).chars().take(500).collect::<String>(),
                "code": format!("http_{}", status.as_u16()),
                "errors": [],
            })
        }
    }
}

/// A 500 problem for a fault of ours: the story goes to the log, the client reads
/// "internal error".
pub fn internal_problem(detail: &str) -> Value {
    tracing::error!("{detail}");
    json!({ "type": "about:blank", "title": "Internal Server Error", "status": 500, "detail": "internal error", "code": "internal_error", "errors": [] })
}

/// Describe a file instead of returning it: models gain nothing from base64.
fn binary(
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    answer: &Answer,
    declared: &str,
) -> Value {
    let content_type = header(answer, "content-type")
        .unwrap_or(declared)
        .to_string();
    let resource_uri = tool
        .resource_uri
        .map(|template| fill_template(template, arguments));
    let note = match &resource_uri {
        Some(uri) => format!(
            "Binary payload ({content_type}, {} bytes), not included. Read it as the MCP resource {uri}, or download {} from the REST API with a token issued for the API.",
            answer.body.len(),
            answer.path
        ),
        None => format!(
            "Binary payload ({content_type}, {} bytes), not included. Download {} from the REST API with a token issued for the API.",
            answer.body.len(),
            answer.path
        ),
    };
    let mut descriptor = json!({
        "content_type": content_type,
        "byte_size": answer.body.len(),
        "download_path": answer.path,
        "note": note,
    });
    let mut content = vec![json!({ "type": "text", "text": pretty(&descriptor) })];
    if let Some(uri) = resource_uri {
        descriptor["resource_uri"] = json!(uri);
        content[0] = json!({ "type": "text", "text": pretty(&descriptor) });
        content.push(json!({
            "type": "resource_link",
            "uri": uri,
            "name": tool.name,
            "mimeType": declared,
        }));
    }
    json!({ "content": content, "structuredContent": descriptor })
}

/// Fill `{name}` variables of a URI template from the arguments.
pub fn fill_template(template: &str, arguments: &Map<String, Value>) -> String {
    let mut out = template.to_string();
    for (key, value) in arguments {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out = out.replace(&format!("{{{key}}}"), &text);
    }
    out
}
