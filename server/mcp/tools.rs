//! `tools/list` and `tools/call`.

use serde_json::{Map, Value, json};

use super::catalog::{ArgLocation, ToolSpec};
use super::confirm::{self, Decision};
use super::jsonrpc::RpcError;
use super::protocol::Context;
use super::{Caller, Endpoint, dispatch, generated, results};

/// The tools this caller can use (all of them for an anonymous public-catalog listing), in
/// the generator's order.
pub fn list(caller: Option<&Caller>, params: &Value) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let mut tools = Vec::new();
    for tool in generated::TOOLS
        .iter()
        .filter(|t| caller.is_none_or(|c| c.may_use(t.scopes)))
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

fn internal(tool: &ToolSpec, e: impl std::fmt::Display) -> RpcError {
    tracing::error!(tool = tool.name, "generated tool JSON is invalid: {e}");
    RpcError::new(super::ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
}

/// Find the tool, check the arguments, ask for confirmation when it is destructive, run the
/// operation in-process, shape the result.
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
    let tool =
        find(name).ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
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
    if let Err(problem) = dispatch::check_arguments(tool, &arguments) {
        return Ok(results::error(&problem));
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
    let response = dispatch::run(endpoint, caller, tool, &arguments).await;
    Ok(results::from_response(tool, &arguments, response))
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

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    generated::TOOLS.iter().find(|t| t.name == name)
}
