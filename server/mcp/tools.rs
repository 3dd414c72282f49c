//! `tools/list` and `tools/call`.

use serde_json::{Map, Value, json};

use super::catalog::{ArgLocation, Catalog, ResponseKind, ToolSpec};
use super::confirm::{self, Decision};
use super::input::{self, Reply, Round};
use super::jsonrpc::{ErrorCode, RpcError};
use super::protocol::{self, Context};
use super::{Caller, Endpoint, Settings, bounds, dispatch, results};

/// The tools this caller can use (all of them for an anonymous public-catalog listing), in
/// the generator's order.
pub fn list(catalog: &Catalog, caller: Option<&Caller>, params: &Value) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let mut tools = Vec::new();
    for tool in catalog
        .tools
        .iter()
        .filter(|t| t.is_tool() && caller.is_none_or(|c| c.may_use(t.scopes)))
    {
        let json: Value = serde_json::from_str(tool.tool_json).map_err(|e| internal(tool, e))?;
        tools.push(json);
    }
    Ok(json!({ "tools": tools }))
}

/// Lists come in one page; a cursor can only be one we never issued.
pub fn reject_cursor(params: &Value) -> Result<(), RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(RpcError::invalid_params(
            "Invalid cursor: this server returns every list in one page",
        )),
    }
}

/// The 403 problem of a tool the caller holds no scope for (the API answers the same).
fn insufficient_scope(settings: &Settings, scope: &str) -> Value {
    json!({
        "type": settings.problem_type("insufficient-scope"),
        "title": "Forbidden",
        "status": 403,
        "detail": format!("This credential lacks the scope '{scope}' that this tool requires"),
        "code": "insufficient_scope",
        "errors": [],
    })
}

fn internal(tool: &ToolSpec, e: impl std::fmt::Display) -> RpcError {
    tracing::error!(tool = tool.name, "generated tool JSON is invalid: {e}");
    RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
}

/// Find the tool, check that the caller may run it, check the arguments, ask for
/// confirmation when it is destructive, run the operation in-process, shape the result.
pub async fn call(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    params: &Value,
) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.name must be the name of a tool"))?;
    bounds::check("params.name", name, bounds::MAX_NAME_CHARS)?;
    let tool = find(&endpoint.catalog, name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
    let mut arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.arguments must be an object",
            ));
        }
    };
    let Some(caller) = caller else {
        return Err(RpcError::invalid_params("tools/call needs a credential"));
    };
    // Authorization comes first: a caller who may not run the tool learns that and nothing
    // else — not which arguments are missing, not a confirmation form to fill in for nothing.
    if let Some(scope) = caller.missing_scope(tool.scopes) {
        return Ok(results::error(&insufficient_scope(
            &endpoint.settings,
            scope,
        )));
    }
    check_param_headers(endpoint, context, tool, &arguments)?;
    if let Err(problem) = dispatch::check_arguments(endpoint, tool, &arguments) {
        return Ok(results::error(&problem));
    }
    if tool.response == ResponseKind::McpResult {
        return call_mcp(endpoint, context, caller, tool, &arguments, params).await;
    }
    if let Decision::Answer(answer) = confirm::decide(
        &endpoint.settings,
        context,
        caller,
        tool,
        &arguments,
        params,
    )? {
        return Ok(answer);
    }
    if tool.server_idempotency_key
        && let Some(arg) = idempotency_argument(tool).filter(|a| !arguments.contains_key(*a))
    {
        let key = confirm::derived_idempotency_key(caller, tool, &arguments);
        arguments.insert(arg.to_string(), Value::String(key));
    }
    let response = dispatch::run(endpoint, caller, tool, &arguments, Vec::new()).await;
    Ok(results::from_response(tool, &arguments, response))
}

/// A tool whose operation answers MCP results: its `CallToolResult` goes through as it is,
/// and its `InputRequiredResult` becomes the client's next round (see `input`).
async fn call_mcp(
    endpoint: &Endpoint,
    context: &Context,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    params: &Value,
) -> Result<Value, RpcError> {
    let round = Round::new(&endpoint.settings, context, caller, tool.name, arguments);
    let headers = round.headers(params)?;
    let answer = dispatch::run(endpoint, caller, tool, arguments, headers).await;
    if !answer.status.is_success() {
        return Ok(results::from_response(tool, arguments, answer));
    }
    match input::read(&answer) {
        Ok(Reply::Complete(result)) if result.get("content").is_some_and(Value::is_array) => {
            Ok(Value::Object(result))
        }
        Ok(Reply::Complete(_)) => Ok(results::error(&results::internal_problem(&format!(
            "{}: the operation's result has no content array",
            tool.name
        )))),
        Ok(Reply::InputRequired { requests, .. }) if !context.version.is_stateless() => {
            Ok(results::error(&json!({
                "type": endpoint.settings.problem_type("input-required"),
                "title": "Precondition Required",
                "status": 428,
                "detail": input::handshake_refusal(context, &requests),
                "code": "input_required",
                "errors": [],
            })))
        }
        Ok(Reply::InputRequired { requests, state }) => round.ask(requests, state),
        Err(why) => Ok(results::error(&results::internal_problem(&format!(
            "{}: {why}",
            tool.name
        )))),
    }
}

/// 2026-07-28: an argument the tool's schema marks with `x-mcp-header` must be repeated in
/// `Mcp-Param-<Name>` (decoded when Base64), and the header must hold exactly its value;
/// otherwise 400 with `HeaderMismatch` (-32020), as for the standard headers.
fn check_param_headers(
    endpoint: &Endpoint,
    context: &Context,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
) -> Result<(), RpcError> {
    if !context.version.is_stateless() {
        return Ok(());
    }
    let mismatch = |message: String| {
        RpcError::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {message}"),
        )
        .with_status(400)
    };
    for param in endpoint.checks.param_headers(tool.name) {
        let sent = context
            .param_headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(&param.name))
            .map(|(_, value)| value);
        let header = format!("Mcp-Param-{}", param.name);
        let expected = arguments.get(&param.argument).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        });
        match (expected, sent) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "{header} is missing but arguments.{} is set",
                    param.argument
                )));
            }
            (expected, Some(raw)) => {
                let decoded = raw
                    .as_deref()
                    .and_then(protocol::decode_header_value)
                    .ok_or_else(|| {
                        mismatch(format!("{header} is not a valid (Base64) header value"))
                    })?;
                if expected.as_deref() != Some(decoded.as_str()) {
                    return Err(mismatch(format!(
                        "{header} does not match arguments.{}",
                        param.argument
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The argument that carries the `Idempotency-Key` header, if the tool has one.
fn idempotency_argument(tool: &ToolSpec) -> Option<&'static str> {
    tool.args
        .iter()
        .find(|a| {
            a.location == ArgLocation::Header && a.wire_name.eq_ignore_ascii_case("idempotency-key")
        })
        .map(|a| a.name)
}

/// The tool called `name` (operations that serve prompts are not tools).
pub fn find(catalog: &Catalog, name: &str) -> Option<&'static ToolSpec> {
    catalog.tools.iter().find(|t| t.name == name && t.is_tool())
}

/// The operation called `name`, tool or not.
pub fn operation(catalog: &Catalog, name: &str) -> Option<&'static ToolSpec> {
    catalog.tools.iter().find(|t| t.name == name)
}
