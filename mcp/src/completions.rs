//! `completion/complete`: suggestions for prompt arguments and resource template variables,
//! answered by the host from the caller's own data. What the user typed is bounded
//! ([`bounds::MAX_COMPLETION_VALUE_CHARS`]) before the host searches with it.

use serde_json::{Value, json};

use super::jsonrpc::RpcError;
use super::toolsets::Selection;
use super::{Caller, CompletionRequest, Endpoint, bounds, prompts, resources};

/// At most this many values per answer (the MCP limit).
const MAX_VALUES: usize = 100;

pub async fn complete(
    endpoint: &Endpoint,
    caller: Option<&Caller>,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    let reference = params
        .get("ref")
        .ok_or_else(|| RpcError::invalid_params("params.ref is required"))?;
    let argument = params
        .get("argument")
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.argument.name is required"))?;
    let value = params
        .get("argument")
        .and_then(|a| a.get("value"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    bounds::check("params.argument.name", argument, bounds::MAX_NAME_CHARS)?;
    bounds::check(
        "params.argument.value",
        value,
        bounds::MAX_COMPLETION_VALUE_CHARS,
    )?;
    let Some(caller) = caller else {
        return Err(RpcError::invalid_params(
            "completion/complete needs a credential",
        ));
    };
    let request = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            bounds::check("params.ref.name", name, bounds::MAX_NAME_CHARS)?;
            let prompt = prompts::find(&endpoint.catalog, name, Some(caller), selection)
                .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
            let arg = prompt
                .arguments
                .iter()
                .find(|a| a.name == argument)
                .ok_or_else(|| {
                    RpcError::invalid_params(format!("Prompt {name} has no argument '{argument}'"))
                })?;
            CompletionRequest {
                source: arg.complete,
                template: None,
                argument,
                value,
            }
        }
        Some("ref/resource") => {
            let uri = reference
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            bounds::check("params.ref.uri", uri, bounds::MAX_URI_CHARS)?;
            let catalog = &endpoint.catalog;
            let template = catalog
                .resource_templates
                .iter()
                .find(|t| t.uri == uri && resources::readable(catalog, t, Some(caller), selection))
                .ok_or_else(|| {
                    RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                })?;
            if !template.uri.contains(&format!("{{{argument}}}")) {
                return Err(RpcError::invalid_params(format!(
                    "Template {uri} has no variable '{argument}'"
                )));
            }
            CompletionRequest {
                source: None,
                template: Some(template.uri),
                argument,
                value,
            }
        }
        _ => {
            return Err(RpcError::invalid_params(
                "params.ref.type must be ref/prompt or ref/resource",
            ));
        }
    };
    let found = endpoint.host.complete(caller, request).await.map_err(|e| {
        tracing::error!("completion failed: {e}");
        RpcError::new(super::ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
    })?;
    let mut values = found.values;
    values.truncate(MAX_VALUES);
    let has_more = found.total > values.len();
    Ok(json!({ "completion": { "values": values, "total": found.total, "hasMore": has_more } }))
}
