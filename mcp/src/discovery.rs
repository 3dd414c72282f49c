//! Discovery mode: three tools in place of the catalog — search it, describe tools, call one —
//! so that an assistant reaches every operation for the price of three definitions.
//!
//! A whole catalog is sent to the model on every turn (tens of thousands of tokens for a
//! large API); in discovery mode `tools/list` gives only `<prefix>search`,
//! `<prefix>describe` and `<prefix>call`, and the model finds what it needs as it goes. A
//! connection opts in the way it chooses toolsets (see `toolsets`: the `X-MCP-Discovery`
//! header, the `/discover` URL variants, the operator's [`crate::Settings::discovery`]).
//!
//! Rules that hold for all three:
//!
//! - **What is visible is what `tools/list` would list** for this request (scopes, toolsets,
//!   read-only mode): nothing else is found, described or called, and a tool that exists but
//!   is hidden is "unknown" in the very words a name that never existed gets.
//! - **`call` is `tools/call`**: it hands the inner name and arguments (and the round's
//!   `requestState` and `inputResponses`) to the same function `tools/call` runs, so scopes,
//!   argument checks, the confirmation of destructive tools (bound to the inner tool and its
//!   arguments), binary descriptors, idempotency and the result are the same, byte for byte.
//!   The one step left out is the `Mcp-Param-*` header check: those headers mirror the
//!   arguments of the tool named in `Mcp-Name`, here `<prefix>call`, which has none.
//! - `tools/call` of a catalog tool by its own name still works in discovery mode (a name the
//!   model learnt from a search): the same visibility applies.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::jsonrpc::{Outcome, RpcError};
use super::offer::{self, Offer};
use super::protocol::Context;
use super::search::Index;
use super::toolsets::Selection;
use super::{Caller, Endpoint, bounds, dispatch, results, tools, views};

/// Results a search gives when the caller does not say.
pub const DEFAULT_LIMIT: u64 = 8;
/// Results a search gives at most.
pub const MAX_LIMIT: u64 = 20;
/// Tools one `describe` takes at most.
pub const MAX_DESCRIBE: usize = 10;
/// Characters of a search query at most.
pub const MAX_QUERY_CHARS: usize = 500;
/// Characters of a tool's summary in search results at most.
const SUMMARY_CHARS: usize = 200;

/// The three tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meta {
    Search,
    Describe,
    Call,
}

/// What discovery mode needs of a catalog, prepared on first use: the search index, each
/// tool's title and one-line summary, and the three tools' definitions.
#[derive(Debug)]
pub struct Prepared {
    index: Index,
    /// Per catalog tool: its title and summary.
    digests: Vec<(String, String)>,
    names: [String; 3],
    /// The `tools/list` result of discovery mode.
    listing: Value,
}

impl Prepared {
    fn new(endpoint: &Endpoint) -> Prepared {
        let catalog = &endpoint.catalog;
        let prefix = catalog.tool_prefix;
        let names = [
            format!("{prefix}search"),
            format!("{prefix}describe"),
            format!("{prefix}call"),
        ];
        for name in &names {
            if tools::find(catalog, name).is_some() {
                tracing::warn!(
                    tool = name.as_str(),
                    "a catalog tool has the name of a discovery tool: in discovery mode the discovery tool answers to it"
                );
            }
        }
        let digests = catalog
            .tools
            .iter()
            .map(|tool| {
                let json: Value = serde_json::from_str(tool.tool_json).unwrap_or_default();
                let text = |key: &str| json.get(key).and_then(Value::as_str).unwrap_or("");
                let title = match super::search::title(&json) {
                    "" => tool.name.to_string(),
                    title => title.to_string(),
                };
                (title, summary(text("description")))
            })
            .collect();
        Prepared {
            index: Index::new(catalog),
            digests,
            listing: json!({ "tools": definitions(&names) }),
            names,
        }
    }

    fn meta(&self, name: &str) -> Option<Meta> {
        let at = self.names.iter().position(|n| n == name)?;
        Some([Meta::Search, Meta::Describe, Meta::Call][at])
    }
}

/// Discovery mode's preparation for `endpoint`, made once.
pub fn prepared(endpoint: &Endpoint) -> &Prepared {
    endpoint.discovery.get_or_init(|| Prepared::new(endpoint))
}

/// Where an endpoint keeps its [`Prepared`].
pub type Slot = std::sync::Arc<OnceLock<Prepared>>;

/// The first sentence of `description` (up to a full stop followed by a space or the end),
/// on one line, at most [`SUMMARY_CHARS`] characters (cut at a word, with `…`).
fn summary(description: &str) -> String {
    let line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match line.find(". ") {
        Some(at) => &line[..=at],
        None => line.as_str(),
    };
    if first.chars().count() <= SUMMARY_CHARS {
        return first.to_string();
    }
    let cut: String = first.chars().take(SUMMARY_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':']))
}

/// The three `Tool` objects, as `tools/list` gives them in discovery mode.
fn definitions(names: &[String; 3]) -> Vec<Value> {
    let [search, describe, call] = names;
    let hints = |read_only: bool| {
        json!({
            "readOnlyHint": read_only,
            "destructiveHint": !read_only,
            "idempotentHint": read_only,
            "openWorldHint": !read_only,
        })
    };
    let annotations = |title: &str, read_only: bool| {
        let mut hints = hints(read_only);
        hints["title"] = json!(title);
        hints
    };
    vec![
        json!({
            "name": search,
            "title": "Find tools",
            "description": format!("Find the tools for a task, described in words (Portuguese or English; accents and case do not matter): the best matches first, each with its name, title, one-line summary and toolset. Only tools this connection may call are found. Then read a tool's arguments with {describe} and run it with {call}."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": "The task in a few words."},
                    "limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}, {"type": "null"}], "description": format!("How many tools at most (default {DEFAULT_LIMIT}).")},
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "tools": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "title": {"type": "string"},
                        "summary": {"type": "string"}, "toolset": {"type": "string"},
                    }}},
                },
                "required": ["tools"],
            },
            "annotations": annotations("Find tools", true),
        }),
        json!({
            "name": describe,
            "title": "Describe tools",
            "description": format!("The full definitions of tools found with {search}: title, description, inputSchema, outputSchema and annotations, as a tool list gives them. Read a tool's before calling it with {call}."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBE, "description": "Tool names, as the search gives them."},
                },
                "required": ["names"],
                "additionalProperties": false,
            },
            "outputSchema": {
                "type": "object",
                "properties": {"tools": {"type": "array", "items": {"type": "object"}}},
                "required": ["tools"],
            },
            "annotations": annotations("Describe tools", true),
        }),
        json!({
            "name": call,
            "title": "Call a tool",
            "description": format!("Run a tool found with {search}, with the arguments its inputSchema asks for ({describe}), and get its result exactly as if it were called directly: the same permissions and checks, and destructive tools ask the user first."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name."},
                    "arguments": {"anyOf": [{"type": "object"}, {"type": "null"}], "description": "The tool's arguments."},
                },
                "required": ["name"],
                "additionalProperties": false,
            },
            "annotations": annotations("Call a tool", false),
        }),
    ]
}

/// Whether `name` is discovery mode's call tool (`<prefix>call`), without preparing anything.
pub fn is_call_name(catalog: &mcpgen_catalog::Catalog, name: &str) -> bool {
    name.strip_prefix(catalog.tool_prefix) == Some("call")
}

/// A note for the server's `instructions` in discovery mode.
pub fn instructions(endpoint: &Endpoint) -> String {
    let [search, describe, call] = &prepared(endpoint).names;
    format!(
        "This connection is in discovery mode: the tool list has three tools. Find the tool for a task with {search}, read its arguments with {describe}, and run it with {call} (its name and arguments); the tools named above are reached that way."
    )
}

/// `tools/list` in discovery mode: the three tools.
pub fn list(endpoint: &Endpoint, params: &Value) -> Result<Value, RpcError> {
    tools::reject_cursor(params)?;
    Ok(prepared(endpoint).listing.clone())
}

/// `tools/call` in discovery mode: one of the three, or a catalog tool called by its name.
pub async fn call(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    params: Value,
) -> Result<Outcome, RpcError> {
    let prepared = prepared(endpoint);
    let meta = params
        .get("name")
        .and_then(Value::as_str)
        .and_then(|name| prepared.meta(name));
    let Some(meta) = meta else {
        return tools::call(endpoint, context, caller, selection, params).await;
    };
    let Some(caller) = caller else {
        return Err(RpcError::invalid_params("tools/call needs a credential"));
    };
    let visible = |tool: &mcpgen_catalog::ToolSpec| {
        tools::listed(&endpoint.catalog, tool, Some(caller), selection)
    };
    if meta == Meta::Call {
        return call_tool(endpoint, context, caller, selection, params).await;
    }
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.arguments must be an object",
            ));
        }
    };
    let answer = if meta == Meta::Search {
        search(endpoint, prepared, &arguments, &|index| {
            visible(&endpoint.catalog.tools[index])
        })
    } else {
        describe(endpoint, prepared, context, selection, &arguments, &visible)
    };
    Ok(Outcome::Value(
        answer.unwrap_or_else(|problem| results::error(&problem)),
    ))
}

/// A problem for arguments of one of the three tools that do not fit it.
type Refusal = Value;

fn invalid(endpoint: &Endpoint, field: &str, message: String) -> Refusal {
    dispatch::validation_problem(
        &endpoint.settings,
        vec![(field.to_string(), "invalid", message)],
    )
}

/// Refuse any argument besides `known`, naming it.
fn only(
    endpoint: &Endpoint,
    tool: &str,
    arguments: &Map<String, Value>,
    known: &[&str],
) -> Result<(), Refusal> {
    let unknown: Vec<(String, &'static str, String)> = arguments
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| {
            (
                k.clone(),
                "unknown",
                format!("Unknown argument '{k}' for tool {tool}"),
            )
        })
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(dispatch::validation_problem(&endpoint.settings, unknown))
    }
}

/// The same answer for a tool that does not exist and one this request may not see.
fn unknown_tools(endpoint: &Endpoint, field: &str, names: &[&str]) -> Refusal {
    let search = &prepared(endpoint).names[0];
    let list = names.join(", ");
    let detail = if names.len() == 1 {
        format!("Unknown tool: {list}. Find tools with {search}.")
    } else {
        format!("Unknown tools: {list}. Find tools with {search}.")
    };
    json!({
        "type": endpoint.settings.problem_type("unknown-tool"),
        "title": "Not Found",
        "status": 404,
        "detail": detail,
        "code": "unknown_tool",
        "errors": names.iter().map(|name| json!({"field": field, "code": "unknown", "message": format!("Unknown tool: {name}")})).collect::<Vec<_>>(),
    })
}

/// A successful result: the value as indented text and as `structuredContent`.
fn complete(value: Value) -> Value {
    let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string());
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": value,
    })
}

fn search(
    endpoint: &Endpoint,
    prepared: &Prepared,
    arguments: &Map<String, Value>,
    visible: &dyn Fn(usize) -> bool,
) -> Result<Value, Refusal> {
    only(endpoint, &prepared.names[0], arguments, &["query", "limit"])?;
    let query = match arguments.get("query") {
        Some(Value::String(q)) if !q.trim().is_empty() => q,
        None | Some(Value::Null) => {
            return Err(dispatch::validation_problem(
                &endpoint.settings,
                vec![(
                    "query".into(),
                    "required",
                    "Missing required argument 'query'".into(),
                )],
            ));
        }
        Some(_) => {
            return Err(invalid(
                endpoint,
                "query",
                "Argument 'query' must be words saying what to do".into(),
            ));
        }
    };
    if bounds::too_long(query, MAX_QUERY_CHARS) {
        return Err(invalid(
            endpoint,
            "query",
            format!("Argument 'query' is longer than {MAX_QUERY_CHARS} characters"),
        ));
    }
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(value) => match value.as_u64() {
            Some(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => {
                return Err(invalid(
                    endpoint,
                    "limit",
                    format!("Argument 'limit' must be an integer from 1 to {MAX_LIMIT}"),
                ));
            }
        },
    };
    let hits = prepared.index.search(query, limit as usize, visible);
    let found: Vec<Value> = hits
        .iter()
        .map(|hit| {
            let tool = &endpoint.catalog.tools[hit.index];
            let (title, summary) = &prepared.digests[hit.index];
            let mut entry = json!({"name": tool.name, "title": title, "summary": summary});
            if !tool.toolset.is_empty() {
                entry["toolset"] = json!(tool.toolset);
            }
            entry
        })
        .collect();
    Ok(complete(json!({ "tools": found })))
}

fn describe(
    endpoint: &Endpoint,
    prepared: &Prepared,
    context: &Context,
    selection: &Selection,
    arguments: &Map<String, Value>,
    visible: &dyn Fn(&mcpgen_catalog::ToolSpec) -> bool,
) -> Result<Value, Refusal> {
    only(endpoint, &prepared.names[1], arguments, &["names"])?;
    let names: Vec<&str> = match arguments.get("names") {
        None | Some(Value::Null) => {
            return Err(dispatch::validation_problem(
                &endpoint.settings,
                vec![(
                    "names".into(),
                    "required",
                    "Missing required argument 'names'".into(),
                )],
            ));
        }
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(_) => Vec::new(),
    };
    let count = arguments["names"].as_array().map_or(0, Vec::len);
    if names.len() != count || names.is_empty() || names.len() > MAX_DESCRIBE {
        return Err(invalid(
            endpoint,
            "names",
            format!("Argument 'names' must be a list of 1 to {MAX_DESCRIBE} tool names"),
        ));
    }
    let mut wanted: Vec<&str> = Vec::new();
    for name in names {
        if !wanted.contains(&name) {
            wanted.push(name);
        }
    }
    let offered = views::offered(context);
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for name in wanted {
        let tool = (!bounds::too_long(name, bounds::MAX_NAME_CHARS))
            .then(|| tools::find(&endpoint.catalog, name))
            .flatten()
            .filter(|tool| visible(tool));
        // Each in full: a described tool names no other one, which might not be described.
        let offer = Offer {
            views: offered,
            strict_schemas: selection.strict_schemas(),
            listed: None,
        };
        match tool.and_then(|t| offer::tool(t, offer).ok()) {
            Some(json) => found.push(json),
            None => missing.push(name),
        }
    }
    if !missing.is_empty() {
        return Err(unknown_tools(endpoint, "names", &missing));
    }
    Ok(complete(json!({ "tools": found })))
}

/// `<prefix>call`: the inner tool through `tools/call`'s own function.
async fn call_tool(
    endpoint: &Endpoint,
    context: &Context,
    caller: &Caller,
    selection: &Selection,
    mut params: Value,
) -> Result<Outcome, RpcError> {
    let prepared = prepared(endpoint);
    let arguments = params
        .get_mut("arguments")
        .and_then(Value::as_object_mut)
        .map(std::mem::take)
        .unwrap_or_default();
    let refused = |problem: Value| Ok(Outcome::Value(results::error(&problem)));
    if let Err(problem) = only(
        endpoint,
        &prepared.names[2],
        &arguments,
        &["name", "arguments"],
    ) {
        return refused(problem);
    }
    let name = match arguments.get("name") {
        Some(Value::String(name)) => name.as_str(),
        None | Some(Value::Null) => {
            return refused(dispatch::validation_problem(
                &endpoint.settings,
                vec![(
                    "name".into(),
                    "required",
                    "Missing required argument 'name'".into(),
                )],
            ));
        }
        Some(_) => {
            return refused(invalid(
                endpoint,
                "name",
                "Argument 'name' must be a tool's name".into(),
            ));
        }
    };
    let tool = (!bounds::too_long(name, bounds::MAX_NAME_CHARS))
        .then(|| tools::find(&endpoint.catalog, name))
        .flatten()
        .filter(|tool| tools::listed(&endpoint.catalog, tool, Some(caller), selection));
    let Some(tool) = tool else {
        return refused(unknown_tools(endpoint, "name", &[name]));
    };
    let inner_arguments = match arguments.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(_) => {
            return refused(invalid(
                endpoint,
                "arguments",
                "Argument 'arguments' must be an object: the tool's arguments".into(),
            ));
        }
    };
    // The round's other members (`requestState`, `inputResponses`, `_meta`) stay as they are.
    params["name"] = json!(tool.name);
    params["arguments"] = inner_arguments;
    tools::call_through(
        endpoint,
        context,
        Some(caller),
        selection,
        params,
        tools::Route::Discovery,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_sentence_on_one_line_and_short() {
        assert_eq!(
            summary("Lists charges.  Filters: status."),
            "Lists charges."
        );
        assert_eq!(
            summary("Lists\n  charges by status"),
            "Lists charges by status"
        );
        assert_eq!(summary("Version 1.2 of it"), "Version 1.2 of it");
        let long = format!("{}, and more words. Second.", "word ".repeat(60));
        let cut = summary(&long);
        assert!(cut.ends_with("word…"), "{cut}");
        assert!(cut.chars().count() <= SUMMARY_CHARS + 1);
        assert_eq!(summary(""), "");
    }

    #[test]
    fn the_three_definitions_fit_in_two_thousand_tokens() {
        let names = ["dunning_search", "dunning_describe", "dunning_call"].map(String::from);
        let bytes: usize = definitions(&names)
            .iter()
            .map(|t| t.to_string().len())
            .sum();
        // About four bytes a token.
        assert!(bytes <= 8_000, "{bytes} bytes");
    }
}

/// Discovery mode through the whole endpoint, over the layer's own test catalog (not any
/// application's): a service with its own handlers, a host with two kinds of caller and a
/// rate limit.
#[cfg(test)]
mod served {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use axum::Router;
    use axum::body::Body;
    use axum::extract::Path;
    use http::{Request, StatusCode, header};
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use crate::test_catalog::{CATALOG, settings};
    use crate::{Admission, AuthFailure, Caller, Host, HostFuture};

    /// `admin` holds every scope, `reader` the reads; `limited` may send three requests.
    struct Callers {
        limited: AtomicU32,
    }

    impl Host for Callers {
        fn authenticate<'a>(
            &'a self,
            token: &'a str,
        ) -> HostFuture<'a, Result<Caller, AuthFailure>> {
            Box::pin(async move {
                let scopes: &[&str] = match token {
                    "admin" | "limited" => &["things:read", "things:write", "others:read"],
                    "reader" => &["things:read", "others:read"],
                    _ => return Err(AuthFailure::InvalidToken("unknown token")),
                };
                Ok(Caller {
                    subject: token.to_string(),
                    scopes: Arc::new(scopes.iter().map(|s| s.to_string()).collect()),
                    toolsets: Default::default(),
                    extensions: http::Extensions::new(),
                })
            })
        }

        fn admit<'a>(
            &'a self,
            caller: &'a mut Caller,
        ) -> HostFuture<'a, Result<Admission, String>> {
            Box::pin(async move {
                if caller.subject == "limited" && self.limited.fetch_add(1, Ordering::SeqCst) >= 3 {
                    return Ok(Admission::Limited { retry_after: 7 });
                }
                Ok(Admission::Admitted)
            })
        }
    }

    /// The service's own handlers: a thing, another, and deleting a thing.
    fn api() -> Router {
        async fn thing(Path(id): Path<String>) -> axum::Json<Value> {
            axum::Json(json!({"data": {"id": id, "kind": "thing", "name": "Cadeira"}}))
        }
        async fn other(Path(id): Path<String>) -> axum::Json<Value> {
            axum::Json(json!({"data": {"id": id, "kind": "other"}}))
        }
        async fn delete(Path(_): Path<String>) -> StatusCode {
            StatusCode::NO_CONTENT
        }
        Router::new()
            .route("/v1/things/{id}", axum::routing::get(thing).delete(delete))
            .route("/v1/others/{id}", axum::routing::get(other))
    }

    fn endpoint(settings: crate::Settings) -> Router {
        let host = Arc::new(Callers {
            limited: AtomicU32::new(0),
        });
        crate::router(CATALOG, host, api(), settings)
    }

    /// A client of one era: the handshake era (2025-06-18) when `capabilities` is `None`.
    struct Client<'a> {
        app: &'a Router,
        path: &'a str,
        token: &'a str,
        headers: Vec<(&'a str, &'a str)>,
        capabilities: Option<Value>,
    }

    impl<'a> Client<'a> {
        fn new(app: &'a Router, path: &'a str, token: &'a str) -> Client<'a> {
            Client {
                app,
                path,
                token,
                headers: Vec::new(),
                capabilities: None,
            }
        }

        async fn send(&self, method: &str, mut params: Value) -> (StatusCode, Value) {
            let mut request = Request::post(self.path)
                .header(header::HOST, "127.0.0.1")
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::AUTHORIZATION, format!("Bearer {}", self.token));
            for (name, value) in &self.headers {
                request = request.header(*name, *value);
            }
            let request = crate::test_catalog::in_era(
                request,
                method,
                &mut params,
                self.capabilities.as_ref(),
            );
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            let response = self
                .app
                .clone()
                .oneshot(request.body(Body::from(body.to_string())).unwrap())
                .await
                .unwrap();
            let status = response.status();
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            (status, serde_json::from_slice(&bytes).unwrap_or_default())
        }

        async fn names(&self) -> Vec<String> {
            let (_, answer) = self.send("tools/list", json!({})).await;
            answer["result"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("{answer}"))
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        }

        /// `tools/call`: the JSON-RPC result.
        async fn call(&self, name: &str, arguments: Value) -> Value {
            let (_, answer) = self
                .send("tools/call", json!({"name": name, "arguments": arguments}))
                .await;
            answer["result"].clone()
        }

        async fn found(&self, query: &str) -> Vec<String> {
            let result = self.call("search", json!({"query": query})).await;
            result["structuredContent"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("{result}"))
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        }
    }

    fn problem(result: &Value) -> Value {
        assert_eq!(result["isError"], true, "{result}");
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
    }

    const TRIO: [&str; 3] = ["search", "describe", "call"];

    #[tokio::test]
    async fn a_connection_opts_in_by_header_url_or_operator_and_lists_the_three_tools() {
        let app = endpoint(settings());
        assert_eq!(
            Client::new(&app, "/mcp", "admin").names().await,
            ["things_get", "others_get", "things_delete"]
        );
        let mut by_header = Client::new(&app, "/mcp", "admin");
        by_header.headers.push(("x-mcp-discovery", "true"));
        assert_eq!(by_header.names().await, TRIO);
        for path in ["/mcp/discover", "/mcp/x/things/readonly/discover"] {
            assert_eq!(
                Client::new(&app, path, "admin").names().await,
                TRIO,
                "{path}"
            );
        }
        let operator = endpoint(settings().discovery(true));
        assert_eq!(Client::new(&operator, "/mcp", "admin").names().await, TRIO);
        let mut off = Client::new(&operator, "/mcp", "admin");
        off.headers.push(("x-mcp-discovery", "false"));
        assert_eq!(off.names().await.len(), 3);
        assert_eq!(off.names().await[0], "things_get");
        // Both eras; the instructions say how the tools are reached.
        let mut stateless = Client::new(&app, "/mcp/discover", "admin");
        stateless.capabilities = Some(json!({}));
        assert_eq!(stateless.names().await, TRIO);
        let (_, discover) = stateless.send("server/discover", json!({})).await;
        let instructions = discover["result"]["instructions"].as_str().unwrap();
        assert!(instructions.starts_with("Test catalog."), "{instructions}");
        assert!(instructions.contains("discovery mode"), "{instructions}");
    }

    #[tokio::test]
    async fn search_finds_by_keyword_and_only_what_the_caller_may_call() {
        let app = endpoint(settings());
        let admin = Client::new(&app, "/mcp/discover", "admin");
        assert_eq!(admin.found("Excluir").await[0], "things_delete");
        let result = admin
            .call("search", json!({"query": "apagar", "limit": 1}))
            .await;
        assert_eq!(
            result["structuredContent"],
            json!({"tools": [{"name": "things_delete", "title": "things_delete", "summary": "Delete a thing.", "toolset": "things"}]})
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        // A reader's search never finds the write; neither does a read-only connection's,
        // nor one that loaded only `others`.
        let reader = Client::new(&app, "/mcp/discover", "reader");
        assert!(
            reader
                .found("excluir apagar thing")
                .await
                .iter()
                .all(|n| n != "things_delete")
        );
        let read_only = Client::new(&app, "/mcp/readonly/discover", "admin");
        assert!(
            !read_only
                .found("excluir")
                .await
                .contains(&"things_delete".to_string())
        );
        let others = Client::new(&app, "/mcp/x/others/discover", "admin");
        assert_eq!(others.found("thing").await, ["others_get"]);
        // Arguments are checked like a tool's.
        for (arguments, field) in [
            (json!({}), "query"),
            (json!({"query": " "}), "query"),
            (json!({"query": "x", "limit": 21}), "limit"),
            (json!({"query": "x", "extra": 1}), "extra"),
        ] {
            let refused = problem(&admin.call("search", arguments.clone()).await);
            assert_eq!(refused["code"], "VALIDATION_ERROR", "{arguments}");
            assert_eq!(refused["errors"][0]["field"], field, "{arguments}");
        }
    }

    #[tokio::test]
    async fn describe_gives_the_listed_definition_and_a_hidden_tool_is_unknown_like_no_tool() {
        let app = endpoint(settings());
        let admin = Client::new(&app, "/mcp/discover", "admin");
        let result = admin
            .call(
                "describe",
                json!({"names": ["things_delete", "things_get"]}),
            )
            .await;
        let (_, listed) = Client::new(&app, "/mcp", "admin")
            .send("tools/list", json!({}))
            .await;
        let listed = &listed["result"]["tools"];
        assert_eq!(
            result["structuredContent"]["tools"],
            json!([listed[2], listed[0]])
        );
        let reader = Client::new(&app, "/mcp/discover", "reader");
        let hidden = problem(
            &reader
                .call("describe", json!({"names": ["things_delete"]}))
                .await,
        );
        let never = problem(
            &reader
                .call("describe", json!({"names": ["things_burn"]}))
                .await,
        );
        assert_eq!(hidden["code"], "unknown_tool");
        assert_eq!(hidden["status"], 404);
        assert_eq!(
            hidden.to_string().replace("things_delete", "NAME"),
            never.to_string().replace("things_burn", "NAME")
        );
        let hidden = problem(
            &reader
                .call(
                    "call",
                    json!({"name": "things_delete", "arguments": {"id": "1"}}),
                )
                .await,
        );
        let never = problem(
            &reader
                .call(
                    "call",
                    json!({"name": "things_burn", "arguments": {"id": "1"}}),
                )
                .await,
        );
        assert_eq!(
            hidden.to_string().replace("things_delete", "NAME"),
            never.to_string().replace("things_burn", "NAME")
        );
    }

    #[tokio::test]
    async fn call_answers_what_tools_call_answers() {
        let app = endpoint(settings());
        // The handshake era, and the stateless one (whose results carry more of their own).
        for capabilities in [None, Some(json!({}))] {
            let mut direct = Client::new(&app, "/mcp", "admin");
            let mut discovered = Client::new(&app, "/mcp/discover", "admin");
            direct.capabilities = capabilities.clone();
            discovered.capabilities = capabilities;
            answers_alike(&direct, &discovered).await;
        }
    }

    async fn answers_alike(direct: &Client<'_>, discovered: &Client<'_>) {
        for (name, arguments) in [
            ("things_get", json!({"id": "t-1"})),
            ("others_get", json!({"id": "o-1"})),
            ("things_get", json!({"id": "t-1", "unknown": true})),
            ("things_get", json!({})),
        ] {
            let expected = direct.call(name, arguments.clone()).await;
            assert!(expected["content"].is_array(), "{name}: {expected}");
            let got = discovered
                .call("call", json!({"name": name, "arguments": arguments}))
                .await;
            assert_eq!(got, expected, "{name}");
        }
        // A catalog tool called by its own name still works in discovery mode.
        assert_eq!(
            discovered.call("things_get", json!({"id": "t-1"})).await,
            direct.call("things_get", json!({"id": "t-1"})).await
        );
    }

    #[tokio::test]
    async fn a_destructive_call_asks_for_confirmation_bound_to_the_inner_tool() {
        let app = endpoint(settings());
        let mut client = Client::new(&app, "/mcp/discover", "admin");
        client.capabilities = Some(json!({"elicitation": {"form": {}}}));
        let outer = |id: &str| json!({"name": "things_delete", "arguments": {"id": id}});
        let (status, first) = client
            .send(
                "tools/call",
                json!({"name": "call", "arguments": outer("9")}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{first}");
        let result = &first["result"];
        assert_eq!(result["resultType"], "input_required", "{result}");
        assert_eq!(
            result["inputRequests"]["confirm"]["params"]["message"],
            "Delete thing 9?"
        );
        let state = result["requestState"].as_str().unwrap();
        let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        // The state is the inner tool's and arguments': another id is refused.
        let (_, moved) = client
            .send(
                "tools/call",
                json!({"name": "call", "arguments": outer("8"), "requestState": state, "inputResponses": accept}),
            )
            .await;
        assert_eq!(moved["error"]["code"], -32602, "{moved}");
        let (_, done) = client
            .send(
                "tools/call",
                json!({"name": "call", "arguments": outer("9"), "requestState": state, "inputResponses": accept}),
            )
            .await;
        assert_eq!(
            done["result"]["structuredContent"],
            json!({"status": 204}),
            "{done}"
        );
        // The same state confirms the same call made directly: it is one decision.
        let mut direct = Client::new(&app, "/mcp", "admin");
        direct.capabilities = client.capabilities.clone();
        let (_, again) = direct
            .send(
                "tools/call",
                json!({"name": "things_delete", "arguments": {"id": "9"}, "requestState": state, "inputResponses": accept}),
            )
            .await;
        assert_eq!(
            again["result"]["structuredContent"],
            json!({"status": 204}),
            "{again}"
        );
    }

    #[tokio::test]
    async fn search_describe_and_call_count_against_the_rate_limit() {
        let app = endpoint(settings());
        let limited = Client::new(&app, "/mcp/discover", "limited");
        assert!(limited.call("search", json!({"query": "thing"})).await["isError"].is_null());
        assert!(
            limited
                .call("describe", json!({"names": ["things_get"]}))
                .await["isError"]
                .is_null()
        );
        let result = limited
            .call(
                "call",
                json!({"name": "things_get", "arguments": {"id": "1"}}),
            )
            .await;
        assert!(result["isError"].is_null(), "{result}");
        let refused = problem(
            &limited
                .call(
                    "call",
                    json!({"name": "things_get", "arguments": {"id": "1"}}),
                )
                .await,
        );
        assert_eq!(refused["code"], "rate_limited");
        assert_eq!(refused["retry_after"], 7);
    }
}
