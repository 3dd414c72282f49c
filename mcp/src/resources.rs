//! `resources/list`, `resources/templates/list` and `resources/read`.
//!
//! Resources are declared on GET operations (`x-mcp.resource`) and read through the same
//! in-process dispatch as tools, so permissions and organization isolation are the API's.
//! JSON comes back as `text`, files as `blob` (base64) unless they are text (CSV).
//!
//! MCP Apps views (`ui://`, see `views`) are the exception: their HTML was embedded at build
//! time and holds no data (a view gets its data from the host, as a tool's result), so they
//! are read from the catalog, by whoever may read resources and is offered views.

use base64::Engine;
use mcpgen_catalog::{Catalog, ResourceSpec};
use serde_json::{Map, Value, json};

use super::jsonrpc::{ErrorCode, RpcError};
use super::protocol::Context;
use super::tools::{find, reject_cursor};
use super::toolsets::Selection;
use super::{Caller, Endpoint, bounds, dispatch, views};

/// Whether the caller may read what `spec` serves on this request: the tool serving it is
/// selected and its scopes held (anonymous listings see every selected one).
pub fn readable(
    catalog: &Catalog,
    spec: &ResourceSpec,
    caller: Option<&Caller>,
    selection: &Selection,
) -> bool {
    match (find(catalog, spec.tool), caller) {
        (Some(tool), _) if !selection.admits(catalog, tool) => false,
        (Some(tool), Some(caller)) => caller.may_use(tool.scopes),
        (Some(_), None) => true,
        (None, _) => false,
    }
}

fn visible<'a>(
    catalog: &'a Catalog,
    specs: &'a [ResourceSpec],
    caller: Option<&'a Caller>,
    selection: &'a Selection,
) -> impl Iterator<Item = &'a ResourceSpec> {
    specs
        .iter()
        .filter(move |spec| readable(catalog, spec, caller, selection))
}

fn parse(json: &str) -> Result<Value, RpcError> {
    serde_json::from_str(json).map_err(|e| {
        tracing::error!("generated resource JSON is invalid: {e}");
        RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
    })
}

/// Fixed resources this caller can read, plus the OpenAPI document, plus the views when
/// `views` (see [`views::offered`]).
pub fn list(
    endpoint: &Endpoint,
    caller: Option<&Caller>,
    selection: &Selection,
    views: bool,
    params: &Value,
) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let mut resources = vec![json!({
        "uri": endpoint.settings.openapi_resource_uri,
        "name": "openapi",
        "title": "OpenAPI document",
        "description": "The OpenAPI document of the REST API this server's tools were generated from.",
        "mimeType": "application/json",
    })];
    let catalog = &endpoint.catalog;
    for spec in visible(catalog, catalog.resources, caller, selection) {
        resources.push(parse(spec.json)?);
    }
    if views {
        for spec in catalog.resources.iter().filter(|s| s.is_view()) {
            resources.push(parse(spec.json)?);
        }
    }
    Ok(json!({ "resources": resources }))
}

/// Resource templates this caller can read.
pub fn templates(
    catalog: &Catalog,
    caller: Option<&Caller>,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    reject_cursor(params)?;
    let templates = visible(catalog, catalog.resource_templates, caller, selection)
        .map(|s| parse(s.json))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "resourceTemplates": templates }))
}

/// The error for a URI that is unknown or that this caller may not read: the same either
/// way, so that a forbidden URI reveals nothing.
fn not_found(context: &Context, uri: &str) -> RpcError {
    let code = if context.version.is_stateless() {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::RESOURCE_NOT_FOUND
    };
    RpcError::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// Read one resource by URI.
pub async fn read(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.uri must be a string"))?;
    bounds::check("params.uri", uri, bounds::MAX_URI_CHARS)?;
    let Some(caller) = caller else {
        return Err(not_found(context, uri));
    };
    if uri == endpoint.settings.openapi_resource_uri {
        return Ok(
            json!({ "contents": [{ "uri": uri, "mimeType": "application/json", "text": endpoint.catalog.openapi_json }] }),
        );
    }
    let catalog = &endpoint.catalog;
    let (spec, mut arguments) = resolve(catalog, uri).ok_or_else(|| not_found(context, uri))?;
    if let Some(text) = spec.text {
        if !spec.is_view() || !views::offered(context) {
            return Err(not_found(context, uri));
        }
        return view_contents(spec, text);
    }
    let tool = find(catalog, spec.tool).ok_or_else(|| not_found(context, uri))?;
    if !caller.may_use(tool.scopes)
        || !selection.admits(catalog, tool)
        || dispatch::check_arguments(endpoint, tool, &mut arguments).is_err()
    {
        return Err(not_found(context, uri));
    }
    let answer = dispatch::run_for_contents(endpoint, caller, tool, &arguments).await;
    if answer.status == http::StatusCode::NOT_FOUND || answer.status == http::StatusCode::FORBIDDEN
    {
        return Err(not_found(context, uri));
    }
    if !answer.status.is_success() {
        let problem: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        let detail = problem
            .get("detail")
            .and_then(Value::as_str)
            .unwrap_or("the operation failed")
            .to_string();
        return Err(RpcError::new(
            ErrorCode::SERVER_ERROR,
            format!("Resource could not be read: {detail}"),
        )
        .with_data(json!({ "uri": uri, "problem": problem })));
    }
    if answer.body.len() as u64 != answer.body_size {
        return Err(RpcError::new(
            ErrorCode::SERVER_ERROR,
            format!(
                "Resource could not be read: it is {} bytes, over the {} MiB a resource read returns; download it from the REST API",
                answer.body_size,
                dispatch::MAX_RESPONSE_BYTES / (1024 * 1024)
            ),
        )
        .with_data(json!({ "uri": uri, "byte_size": answer.body_size })));
    }
    let mime = answer
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or(spec.mime_type);
    let mime = mime.split(';').next().unwrap_or(mime).trim().to_string();
    let content = if mime == "application/json" || mime.ends_with("+json") {
        let value: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        json!({ "uri": uri, "mimeType": mime, "text": serde_json::to_string_pretty(&value).unwrap_or_default() })
    } else if mime.starts_with("text/") {
        json!({ "uri": uri, "mimeType": mime, "text": String::from_utf8_lossy(&answer.body) })
    } else {
        json!({ "uri": uri, "mimeType": mime, "blob": base64::engine::general_purpose::STANDARD.encode(&answer.body) })
    };
    Ok(json!({ "contents": [content] }))
}

/// A view's `resources/read` result: its HTML with the `_meta` of its listing (the content
/// security policy and border preference, which hosts read from the contents).
fn view_contents(spec: &ResourceSpec, text: &str) -> Result<Value, RpcError> {
    let listing = parse(spec.json)?;
    let mut content = json!({ "uri": spec.uri, "mimeType": spec.mime_type, "text": text });
    if let Some(meta) = listing.get("_meta") {
        content["_meta"] = meta.clone();
    }
    Ok(json!({ "contents": [content] }))
}

/// The resource spec a URI belongs to and the tool arguments it carries.
fn resolve(catalog: &Catalog, uri: &str) -> Option<(&'static ResourceSpec, Map<String, Value>)> {
    if let Some(spec) = catalog.resources.iter().find(|s| s.uri == uri) {
        return Some((spec, Map::new()));
    }
    catalog
        .resource_templates
        .iter()
        .find_map(|spec| match_template(spec.uri, uri).map(|args| (spec, args)))
}

/// Match a level-1 URI template (`todo://items/{id}`) against a URI; each
/// variable takes one non-empty path segment.
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut arguments = Map::new();
    let mut rest = uri;
    let mut pieces = template.split('{');
    let first = pieces.next()?;
    rest = rest.strip_prefix(first)?;
    for piece in pieces {
        let (name, literal) = piece.split_once('}')?;
        // The value runs to the next literal (or the end), never across a '/'.
        let end = if literal.is_empty() {
            rest.len()
        } else {
            rest.find(literal)?
        };
        let value = &rest[..end];
        if value.is_empty() || value.contains('/') {
            return None;
        }
        arguments.insert(name.to_string(), Value::String(percent_decode(value)?));
        rest = &rest[end..];
        rest = rest.strip_prefix(literal)?;
    }
    rest.is_empty().then_some(arguments)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments() {
        let t = "kobana://dunning/charges/{id}";
        assert_eq!(
            match_template(t, "kobana://dunning/charges/chg_1").unwrap()["id"],
            "chg_1"
        );
        assert!(match_template(t, "kobana://dunning/charges/").is_none());
        assert!(match_template(t, "kobana://dunning/charges/a/b").is_none());
        assert!(match_template(t, "kobana://dunning/customers/x").is_none());
        let pdf = "kobana://dunning/agreements/{id}/term.pdf";
        assert_eq!(
            match_template(pdf, "kobana://dunning/agreements/agr_9/term.pdf").unwrap()["id"],
            "agr_9"
        );
        assert!(match_template(pdf, "kobana://dunning/agreements/agr_9/term.csv").is_none());
        assert_eq!(
            match_template(t, "kobana://dunning/charges/a%20b").unwrap()["id"],
            "a b"
        );
    }
}
