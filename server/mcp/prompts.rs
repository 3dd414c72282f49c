//! `prompts/list` and `prompts/get`: the scripts under `templates/prompts/`, listed only to
//! callers who can run every tool they rely on.

use serde_json::{Value, json};

use super::catalog::PromptSpec;
use super::jsonrpc::{ErrorCode, RpcError};
use super::tools::{find as find_tool, reject_cursor};
use super::{Caller, generated};

/// Whether the caller can run every tool the prompt uses.
fn usable(prompt: &PromptSpec, caller: Option<&Caller>) -> bool {
    prompt
        .tools
        .iter()
        .all(|name| match (find_tool(name), caller) {
            (Some(tool), Some(caller)) => caller.may_use(tool.scopes),
            (Some(_), None) => true,
            (None, _) => false,
        })
}

/// The prompt called `name`, if this caller may use it.
pub fn find(name: &str, caller: Option<&Caller>) -> Option<&'static PromptSpec> {
    generated::PROMPTS
        .iter()
        .find(|p| p.name == name && usable(p, caller))
}

pub fn list(caller: Option<&Caller>, params: &Value) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let mut prompts = Vec::new();
    for prompt in generated::PROMPTS.iter().filter(|p| usable(p, caller)) {
        let json: Value = serde_json::from_str(prompt.json).map_err(|e| {
            RpcError::new(ErrorCode::INTERNAL_ERROR, format!("Internal error: {e}"))
                .with_status(500)
        })?;
        prompts.push(json);
    }
    Ok(json!({ "prompts": prompts }))
}

/// Fill the prompt's placeholders with the given arguments.
pub fn get(caller: Option<&Caller>, params: &Value) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.name must be the name of a prompt"))?;
    let prompt = find(name, caller)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.arguments must be an object of strings",
            ));
        }
    };
    let mut text = prompt.template.to_string();
    for arg in prompt.arguments {
        let value = match arguments.get(arg.name) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        if arg.required && value.is_empty() {
            return Err(RpcError::invalid_params(format!(
                "Missing required argument '{}' for prompt {name}",
                arg.name
            )));
        }
        text = text.replace(&format!("{{{{{}}}}}", arg.name), &value);
    }
    if let Some(unknown) = arguments
        .keys()
        .find(|k| !prompt.arguments.iter().any(|a| a.name == k.as_str()))
    {
        return Err(RpcError::invalid_params(format!(
            "Unknown argument '{unknown}' for prompt {name}"
        )));
    }
    Ok(json!({
        "description": prompt.description,
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}
