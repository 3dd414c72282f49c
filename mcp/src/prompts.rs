//! `prompts/list` and `prompts/get`. A prompt is either a script from the catalog's prompt
//! files, filled in here and listed only to callers who can run every tool it relies on, or
//! served by an operation (`x-mcp.prompt`), which answers the `GetPromptResult` itself and
//! may ask the client for input first (see `input`). Argument values are checked against the
//! schema each argument declares before they are inserted or sent.

use mcpgen_catalog::{Catalog, PromptSpec, ToolSpec};
use serde_json::{Map, Value, json};

use super::input::{self, Reply, Round};
use super::jsonrpc::{ErrorCode, RpcError};
use super::protocol::Context;
use super::tools::{self, reject_cursor};
use super::toolsets::Selection;
use super::{Caller, Endpoint, bounds, dispatch};

/// Whether the caller can run every tool the prompt uses (or the operation that serves it) on
/// this request: a prompt that needs a tool the connection did not load is hidden with it.
fn usable(
    catalog: &Catalog,
    prompt: &PromptSpec,
    caller: Option<&Caller>,
    selection: &Selection,
) -> bool {
    let allowed = |tool: Option<&ToolSpec>| match (tool, caller) {
        (Some(tool), _) if !selection.admits(catalog, tool) => false,
        (Some(tool), Some(caller)) => caller.may_use(tool.scopes),
        (Some(_), None) => true,
        (None, _) => false,
    };
    match prompt.operation {
        Some(operation) => allowed(tools::operation(catalog, operation)),
        None => prompt
            .tools
            .iter()
            .all(|name| allowed(tools::find(catalog, name))),
    }
}

/// The prompt called `name`, if this caller may use it.
pub fn find(
    catalog: &Catalog,
    name: &str,
    caller: Option<&Caller>,
    selection: &Selection,
) -> Option<&'static PromptSpec> {
    catalog
        .prompts
        .iter()
        .find(|p| p.name == name && usable(catalog, p, caller, selection))
}

pub fn list(
    catalog: &Catalog,
    caller: Option<&Caller>,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let mut prompts = Vec::new();
    for prompt in catalog
        .prompts
        .iter()
        .filter(|p| usable(catalog, p, caller, selection))
    {
        let json: Value = serde_json::from_str(prompt.json).map_err(|e| {
            RpcError::new(ErrorCode::INTERNAL_ERROR, format!("Internal error: {e}"))
                .with_status(500)
        })?;
        prompts.push(json);
    }
    Ok(json!({ "prompts": prompts }))
}

/// Fill the prompt's placeholders with the given arguments, or run its operation.
pub async fn get(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.name must be the name of a prompt"))?;
    bounds::check("params.name", name, bounds::MAX_NAME_CHARS)?;
    let prompt = find(&endpoint.catalog, name, caller, selection)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.arguments must be an object of strings",
            ));
        }
    };
    for key in arguments.keys() {
        bounds::check("An argument name", key, bounds::MAX_NAME_CHARS)?;
    }
    let mut values = Map::new();
    for arg in prompt.arguments {
        let value = match arguments.get(arg.name) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        if bounds::too_long(&value, bounds::MAX_PROMPT_ARGUMENT_CHARS) {
            return Err(invalid_argument(
                name,
                arg.name,
                &format!(
                    "longer than {} characters",
                    bounds::MAX_PROMPT_ARGUMENT_CHARS
                ),
            ));
        }
        if arg.required && value.is_empty() {
            return Err(RpcError::invalid_params(format!(
                "Missing required argument '{}' for prompt {name}",
                arg.name
            )));
        }
        // The value becomes part of a text a model reads: it must be what the argument
        // declares (an id, a date, a number), and nothing hidden from the person reading it.
        if let Some(c) = value.chars().find(|c| is_hidden(*c)) {
            return Err(invalid_argument(
                name,
                arg.name,
                &format!(
                    "contains the control or bidirectional character U+{:04X}",
                    u32::from(c)
                ),
            ));
        }
        if !value.is_empty()
            && let Err(why) = endpoint
                .checks
                .prompt_argument(prompt.name, arg.name, &value)
        {
            return Err(invalid_argument(name, arg.name, &why));
        }
        values.insert(arg.name.to_string(), Value::String(value));
    }
    if let Some(unknown) = arguments
        .keys()
        .find(|k| !prompt.arguments.iter().any(|a| a.name == k.as_str()))
    {
        return Err(RpcError::invalid_params(format!(
            "Unknown argument '{unknown}' for prompt {name}"
        )));
    }
    if let Some(operation) = prompt.operation {
        let caller =
            caller.ok_or_else(|| RpcError::invalid_params("prompts/get needs a credential"))?;
        return served(endpoint, context, caller, operation, &values, params).await;
    }
    let mut text = prompt.template.to_string();
    for (key, value) in &values {
        text = text.replace(
            &format!("{{{{{key}}}}}"),
            value.as_str().unwrap_or_default(),
        );
    }
    Ok(json!({
        "description": prompt.description,
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}

/// Characters that change what a text shows without showing themselves: controls other than
/// tab and line breaks, and the bidirectional embeddings, overrides and isolates.
fn is_hidden(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `-32602` naming the argument at fault, in the message and in `data.argument`.
fn invalid_argument(prompt: &str, argument: &str, why: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "Invalid argument '{argument}' for prompt {prompt}: {why}"
    ))
    .with_data(json!({ "argument": argument }))
}

/// A prompt served by an operation: the prompt's arguments (named as the document names the
/// parameters) go to the operation, whose `GetPromptResult` is passed on.
async fn served(
    endpoint: &Endpoint,
    context: &Context,
    caller: &Caller,
    operation: &str,
    values: &Map<String, Value>,
    params: &Value,
) -> Result<Value, RpcError> {
    let internal = |why: String| {
        tracing::error!(operation, "prompt operation: {why}");
        RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
    };
    let spec = tools::operation(&endpoint.catalog, operation)
        .ok_or_else(|| internal("not in the catalog".into()))?;
    let arguments: Map<String, Value> = spec
        .args
        .iter()
        .filter_map(|a| {
            let value = values.get(a.wire_name)?;
            (value.as_str() != Some("")).then(|| (a.name.to_string(), value.clone()))
        })
        .collect();
    let round = Round::new(&endpoint.settings, context, caller, operation, &arguments);
    let headers = round.headers(params)?;
    let answer = dispatch::run(endpoint, caller, spec, &arguments, headers).await;
    if !answer.status.is_success() {
        let problem: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        let detail = problem
            .get("detail")
            .and_then(Value::as_str)
            .unwrap_or("the operation failed")
            .to_string();
        let code = if answer.status.is_client_error() {
            ErrorCode::INVALID_PARAMS
        } else {
            ErrorCode::INTERNAL_ERROR
        };
        return Err(
            RpcError::new(code, format!("Prompt could not be built: {detail}"))
                .with_data(json!({ "problem": problem })),
        );
    }
    match input::read(&answer).map_err(internal)? {
        Reply::Complete(result) if result.get("messages").is_some_and(Value::is_array) => {
            Ok(Value::Object(result))
        }
        Reply::Complete(_) => Err(internal("the result has no messages array".into())),
        Reply::InputRequired { requests, .. } if !context.version.is_stateless() => Err(
            RpcError::invalid_params(input::handshake_refusal(context, &requests)),
        ),
        Reply::InputRequired { requests, state } => round.ask(requests, state),
    }
}
