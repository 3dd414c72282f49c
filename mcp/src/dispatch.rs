//! Running a tool: check its arguments, turn them into the HTTP request the operation
//! expects, and send that request in-process through the `/v1` router (same middleware,
//! same handler, no network).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Body;
use http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode, header};
use mcpgen_catalog::{ArgLocation, ArgSpec, BodyEncoding, Catalog, QueryStyle, ToolSpec};
use serde_json::{Map, Value, json};
use tower::ServiceExt;
use tracing::Instrument;

use super::{Caller, Endpoint, Settings};

/// Largest response body read back from an operation. A file a tool describes is not read
/// at all (its size is its `Content-Length`); a resource read of a larger file is refused.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// What the operation answered.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: axum::body::Bytes,
    /// The size of the whole body in bytes: `body.len()` when it was read; else what the
    /// answer declared (`Content-Length`, the body's exact size) or counted as it streamed
    /// past. A successful answer of a tool that describes a file (`ResponseKind::Binary`) is
    /// not read, and a body over [`MAX_RESPONSE_BYTES`] is not kept (at least that many and
    /// one more, when undeclared): `body` is then empty.
    pub body_size: u64,
    /// What the operation's serializer said of the body ([`crate::WrittenJson`]), when it
    /// names these very bytes.
    pub written: Option<crate::WrittenJson>,
    /// The concrete request path (for binary descriptors).
    pub path: String,
    /// Whether what its headers say goes into the result's `meta` ([`Settings::response_meta`]).
    pub response_meta: bool,
}

/// The problem (`code`: [`Settings::validation_error_code`]) naming each argument at fault.
pub fn validation_problem(
    settings: &Settings,
    errors: Vec<(String, &'static str, String)>,
) -> Value {
    let detail = errors
        .iter()
        .map(|(_, _, m)| m.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    json!({
        "type": settings.problem_type("validation-error"),
        "title": "Bad Request",
        "status": 400,
        "detail": detail,
        "code": settings.validation_error_code,
        "errors": errors.into_iter().map(|(field, code, message)| json!({"field": field, "code": code, "message": message})).collect::<Vec<_>>(),
    })
}

/// What is checked on every call, per tool name: the compiled `inputSchema`, and the
/// arguments its `x-mcp-header` marks mirror into `Mcp-Param-<Name>` headers. Per prompt
/// argument: the schema its value must fit.
#[derive(Default)]
pub struct Checks {
    validators: HashMap<&'static str, jsonschema::Validator>,
    param_headers: HashMap<&'static str, Vec<ParamHeader>>,
    prompt_arguments: HashMap<(&'static str, &'static str), PromptArgumentCheck>,
}

/// A prompt argument's schema, and how its text is read before the schema judges it.
struct PromptArgumentCheck {
    reading: Reading,
    validator: jsonschema::Validator,
}

/// Prompt arguments are strings on the wire; a schema of another type means a string that
/// reads as a value of that type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Text,
    Integer,
    Number,
    Boolean,
}

impl Reading {
    fn of(schema: &Value) -> Reading {
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let has = |t: &str| types.contains(&t);
        if types.is_empty() || has("string") {
            Reading::Text
        } else if has("integer") {
            Reading::Integer
        } else if has("number") {
            Reading::Number
        } else if has("boolean") {
            Reading::Boolean
        } else {
            Reading::Text
        }
    }

    /// The value `text` stands for, or what it should have looked like.
    fn read(self, text: &str) -> Result<Value, &'static str> {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        let unsigned = text.strip_prefix('-').unwrap_or(text);
        match self {
            Reading::Text => Ok(Value::String(text.to_string())),
            Reading::Integer if digits(unsigned) => {
                serde_json::from_str(text).map_err(|_| "must be an integer")
            }
            Reading::Integer => Err("must be an integer"),
            Reading::Number => {
                let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
                if digits(whole) && digits(fraction) {
                    serde_json::from_str(text).map_err(|_| "must be a number")
                } else {
                    Err("must be a number such as 12.5")
                }
            }
            Reading::Boolean => match text {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err("must be true or false"),
            },
        }
    }
}

/// An argument that the 2026-07-28 client repeats in the header `Mcp-Param-<name>`.
#[derive(Debug, Clone)]
pub struct ParamHeader {
    pub argument: String,
    /// The `<name>` as the schema declares it.
    pub name: String,
}

impl Checks {
    /// Leave out of `arguments` every `null` given for an argument of `tool` that is not
    /// required and to which the document gives no meaning for `null`: several agent
    /// frameworks send `null` for each optional argument the model did not fill in, strict
    /// function-calling modes make the model send one (strict-mode schemas declare optional
    /// arguments nullable for them), and it means "not given". A `null` the document admits
    /// (clear this field) stays, and so does one for a required argument (refused as missing).
    pub fn unset_nulls(&self, tool: &ToolSpec, arguments: &mut Map<String, Value>) {
        arguments.retain(|key, value| {
            !value.is_null()
                || tool
                    .args
                    .iter()
                    .any(|a| a.name == key && (a.required || a.admits_null))
        });
    }

    /// The arguments of `tool` that travel in headers too.
    pub fn param_headers(&self, tool: &str) -> &[ParamHeader] {
        self.param_headers.get(tool).map_or(&[], Vec::as_slice)
    }

    /// Whether `text` fits the schema declared for `argument` of `prompt` (anything fits an
    /// argument without one); the error says why not, without repeating the value.
    pub fn prompt_argument(&self, prompt: &str, argument: &str, text: &str) -> Result<(), String> {
        let Some(check) = self.prompt_arguments.get(&(prompt, argument)) else {
            return Ok(());
        };
        let value = check.reading.read(text).map_err(str::to_string)?;
        match check.validator.iter_errors(&value).next() {
            None => Ok(()),
            Some(error) => Err(error.masked().to_string()),
        }
    }
}

/// The checks of `catalog`, compiled on first use and kept for the life of the process: the
/// tables are `'static`, so the address of the tool table names a catalog, and the many
/// routers tests build over one catalog share one compilation.
pub fn checks(catalog: &Catalog) -> Arc<Checks> {
    static CACHE: OnceLock<Mutex<HashMap<usize, Arc<Checks>>>> = OnceLock::new();
    let key = catalog.tools.as_ptr() as usize;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return found.clone();
    }
    let built = Arc::new(compile(catalog));
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(built)
        .clone()
}

fn compile(catalog: &Catalog) -> Checks {
    let mut checks = Checks::default();
    for prompt in catalog.prompts {
        for argument in prompt.arguments {
            let Some(text) = argument.schema else {
                continue;
            };
            let compiled = serde_json::from_str::<Value>(text)
                .map_err(|e| e.to_string())
                .and_then(|schema| {
                    let validator = jsonschema::options()
                        .should_validate_formats(true)
                        .build(&schema)
                        .map_err(|e| e.to_string())?;
                    Ok(PromptArgumentCheck {
                        reading: Reading::of(&schema),
                        validator,
                    })
                });
            match compiled {
                Ok(check) => {
                    checks
                        .prompt_arguments
                        .insert((prompt.name, argument.name), check);
                }
                Err(e) => tracing::error!(
                    prompt = prompt.name,
                    argument = argument.name,
                    "prompt argument schema does not compile: {e}"
                ),
            }
        }
    }
    for tool in catalog.tools {
        let schema: Value = match serde_json::from_str(tool.input_schema) {
            Ok(schema) => schema,
            Err(e) => {
                tracing::error!(tool = tool.name, "inputSchema is not JSON: {e}");
                continue;
            }
        };
        let headers: Vec<ParamHeader> = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(argument, property)| {
                let name = property.get("x-mcp-header")?.as_str()?;
                Some(ParamHeader {
                    argument: argument.clone(),
                    name: name.to_string(),
                })
            })
            .collect();
        if !headers.is_empty() {
            checks.param_headers.insert(tool.name, headers);
        }
        match jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
        {
            Ok(validator) => {
                checks.validators.insert(tool.name, validator);
            }
            Err(e) => tracing::error!(tool = tool.name, "inputSchema does not compile: {e}"),
        }
    }
    checks
}

/// Refuse unknown arguments of reads, missing required ones, and values that do not fit the
/// tool's `inputSchema`, naming each key. Writes accept extra keys: the endpoint judges them.
/// `arguments` is lent to the schema as a `Value` and given back as it was (`&mut` only so
/// that it is not copied for that).
pub fn check_arguments(
    endpoint: &Endpoint,
    tool: &ToolSpec,
    arguments: &mut Map<String, Value>,
) -> Result<(), Value> {
    let mut errors: Vec<(String, &'static str, String)> = Vec::new();
    let known = |key: &str| tool.args.iter().any(|a| a.name == key);
    let takes_extra = !tool.read_only && tool.body == BodyEncoding::Json;
    for key in arguments.keys().filter(|k| !known(k)) {
        if !takes_extra {
            errors.push((
                key.clone(),
                "unknown",
                format!("Unknown argument '{key}' for tool {}", tool.name),
            ));
        }
    }
    for arg in tool.args.iter().filter(|a| a.required) {
        if arguments.get(arg.name).is_none_or(Value::is_null) {
            errors.push((
                arg.name.to_string(),
                "required",
                format!("Missing required argument '{}'", arg.name),
            ));
        }
    }
    if let Some(validator) = endpoint.checks.validators.get(tool.name) {
        let instance = Value::Object(std::mem::take(arguments));
        for error in validator.iter_errors(&instance) {
            let path = error.instance_path().to_string();
            let field = path
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or_default()
                .to_string();
            // Unknown and missing keys were reported above in plainer words.
            if field.is_empty() || errors.iter().any(|e| e.0 == field) {
                continue;
            }
            let pointer = path.trim_start_matches('/').replace('/', ".");
            errors.push((
                field,
                "invalid",
                format!("Argument '{pointer}': {}", error.masked()),
            ));
        }
        if let Value::Object(lent) = instance {
            *arguments = lent;
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(validation_problem(&endpoint.settings, errors))
    }
}

/// Send the operation's request through the API router and read the answer. `extra` are
/// headers the MCP layer adds itself (the multi round-trip ones, see `input`). The file a
/// tool describes rather than returns is not read: only its size is wanted.
pub async fn run(
    endpoint: &Endpoint,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    extra: Vec<(HeaderName, HeaderValue)>,
) -> Answer {
    let keep_files = false;
    send(endpoint, caller, tool, arguments, extra, keep_files).await
}

/// [`run`], reading a file too (up to [`MAX_RESPONSE_BYTES`]): what `resources/read` returns.
pub async fn run_for_contents(
    endpoint: &Endpoint,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
) -> Answer {
    let keep_files = true;
    send(endpoint, caller, tool, arguments, Vec::new(), keep_files).await
}

async fn send(
    endpoint: &Endpoint,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    extra: Vec<(HeaderName, HeaderValue)>,
    keep_files: bool,
) -> Answer {
    let (request, path) = match build_request(tool, arguments) {
        Ok(built) => built,
        Err(message) => {
            let body = validation_problem(
                &endpoint.settings,
                vec![("arguments".into(), "invalid", message)],
            )
            .to_string();
            return Answer {
                status: StatusCode::BAD_REQUEST,
                headers: HeaderMap::new(),
                body_size: body.len() as u64,
                body: body.into(),
                written: None,
                path: tool.path.into(),
                response_meta: false,
            };
        }
    };
    let mut request = request;
    // Set, not appended: these headers are the layer's word, whatever the arguments held.
    for (name, value) in extra {
        request.headers_mut().insert(name, value);
    }
    request.extensions_mut().extend(caller.extensions.clone());
    if let Some(forwarded) = request
        .extensions_mut()
        .remove::<crate::forward::Forwarded>()
    {
        forwarded.apply(&mut request);
    }
    // The in-process request, a child of the message's span: the operation's route template
    // and status, never its path (ids) or body.
    let span = tracing::info_span!(
        "MCP dispatch",
        otel.name = format!("dispatch {}", tool.name),
        gen_ai.tool.name = tool.name,
        http.request.method = request.method().as_str(),
        http.route = tool.path,
        http.response.status_code = tracing::field::Empty,
    );
    let response = match endpoint
        .api
        .clone()
        .oneshot(request)
        .instrument(span.clone())
        .await
    {
        Ok(response) => response,
        Err(never) => match never {},
    };
    span.record("http.response.status_code", response.status().as_u16());
    let (parts, body) = response.into_parts();
    let describe_only = parts.status.is_success()
        && !keep_files
        && matches!(tool.response, mcpgen_catalog::ResponseKind::Binary { .. });
    let (body, body_size) = read_body(&parts.headers, body, !describe_only).await;
    let written = parts
        .extensions
        .get::<crate::WrittenJson>()
        .filter(|marker| marker.names(&body))
        .cloned();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body,
        body_size,
        written,
        path,
        response_meta: endpoint.settings.response_meta,
    }
}

/// An answer's body, and its size: read whole when `keep` (up to [`MAX_RESPONSE_BYTES`],
/// else left empty), or only measured: by what it declares, else by counting what streams
/// past, holding none of it.
async fn read_body(headers: &HeaderMap, mut body: Body, keep: bool) -> (axum::body::Bytes, u64) {
    use http_body::Body as _;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| body.size_hint().exact());
    if keep {
        return match axum::body::to_bytes(body, MAX_RESPONSE_BYTES).await {
            Ok(bytes) => {
                let size = bytes.len() as u64;
                (bytes, size)
            }
            Err(_) => (
                axum::body::Bytes::new(),
                declared.unwrap_or(MAX_RESPONSE_BYTES as u64 + 1),
            ),
        };
    }
    if let Some(size) = declared {
        return (axum::body::Bytes::new(), size);
    }
    let mut size = 0u64;
    while let Some(Ok(frame)) =
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
    {
        if let Some(data) = frame.data_ref() {
            size += data.len() as u64;
        }
    }
    (axum::body::Bytes::new(), size)
}

/// Text of a scalar argument as it goes into a path, query or header.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn build_request(
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
) -> Result<(Request<Body>, String), String> {
    let mut path = tool.path.to_string();
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::new();
    let mut body = Map::new();
    let mut whole_body: Option<Value> = None;
    for arg in tool.args {
        // A `null` left by `Checks::unset_nulls` clears a body field; elsewhere (a path, a
        // query string, a header) it cannot be said, and is not sent.
        let Some(value) = arguments
            .get(arg.name)
            .filter(|v| !v.is_null() || arg.location == ArgLocation::Body)
        else {
            continue;
        };
        match arg.location {
            ArgLocation::Path => fill_path(&mut path, arg.wire_name, &scalar_text(value)),
            ArgLocation::Query => append_query(&mut query, arg, value),
            ArgLocation::Header => {
                let name = HeaderName::from_bytes(arg.wire_name.as_bytes())
                    .map_err(|e| format!("{}: {e}", arg.name))?;
                let text = scalar_text(value);
                let value = HeaderValue::from_str(&text)
                    .map_err(|_| format!("Argument '{}' must be printable ASCII", arg.name))?;
                headers.push((name, value));
            }
            ArgLocation::Body => {
                body.insert(arg.wire_name.to_string(), value.clone());
            }
            ArgLocation::WholeBody => whole_body = Some(value.clone()),
        }
    }
    if !tool.read_only && tool.body == BodyEncoding::Json {
        for (key, value) in arguments
            .iter()
            .filter(|(k, _)| !tool.args.iter().any(|a| a.name == *k))
        {
            body.insert(key.clone(), value.clone());
        }
    }
    let query = query.finish();
    let mut uri = String::with_capacity(path.len() + 1 + query.len());
    uri.push_str(&path);
    if !query.is_empty() {
        uri.push('?');
        uri.push_str(&query);
    }
    // Built in place rather than through `Request::builder`, whose every step re-checks
    // the request and copies header values given as text.
    let uri = http::Uri::try_from(uri).map_err(|e| format!("cannot build the request: {e}"))?;
    let (content_type, request_body) = match tool.body {
        BodyEncoding::None => (None, Body::empty()),
        BodyEncoding::Json => {
            let value = whole_body.unwrap_or(Value::Object(body));
            (
                Some(HeaderValue::from_static("application/json")),
                Body::from(value.to_string()),
            )
        }
        BodyEncoding::Form => {
            let mut form = form_urlencoded::Serializer::new(String::new());
            for (key, value) in &body {
                append_form(&mut form, key, value);
            }
            (
                Some(HeaderValue::from_static(
                    "application/x-www-form-urlencoded",
                )),
                Body::from(form.finish()),
            )
        }
        BodyEncoding::Raw { content_type } => {
            let value = HeaderValue::from_str(content_type)
                .map_err(|e| format!("cannot build the request: {e}"))?;
            let text = whole_body.as_ref().map(scalar_text).unwrap_or_default();
            (Some(value), Body::from(text))
        }
    };
    let mut request = Request::new(request_body);
    *request.method_mut() = tool.method.as_http();
    *request.uri_mut() = uri;
    let sent = request.headers_mut();
    sent.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        sent.append(name, value);
    }
    if let Some(content_type) = content_type {
        sent.append(header::CONTENT_TYPE, content_type);
    }
    Ok((request, path))
}

/// Put `value`, percent-encoded, in place of `{name}` in `path`.
fn fill_path(path: &mut String, name: &str, value: &str) {
    let mut encoded = String::with_capacity(value.len());
    for piece in form_urlencoded::byte_serialize(value.as_bytes()) {
        // byte_serialize writes spaces as '+', which a path would keep literally.
        encoded.push_str(if piece == "+" { "%20" } else { piece });
    }
    let placeholder_len = name.len() + 2;
    let mut from = 0;
    while let Some(at) = path[from..].find('{').map(|at| from + at) {
        let named =
            path[at + 1..].starts_with(name) && path[at + 1 + name.len()..].starts_with('}');
        if named {
            path.replace_range(at..at + placeholder_len, &encoded);
            from = at + encoded.len();
        } else {
            from = at + 1;
        }
    }
}

fn append_query(query: &mut form_urlencoded::Serializer<'_, String>, arg: &ArgSpec, value: &Value) {
    match (value, arg.style) {
        (Value::Array(items), QueryStyle::FormJoined) => {
            let joined = items.iter().map(scalar_text).collect::<Vec<_>>().join(",");
            query.append_pair(arg.wire_name, &joined);
        }
        (Value::Array(items), _) => {
            for item in items {
                query.append_pair(arg.wire_name, &scalar_text(item));
            }
        }
        (Value::Object(_), _) => append_form(query, arg.wire_name, value),
        (scalar, _) => {
            query.append_pair(arg.wire_name, &scalar_text(scalar));
        }
    }
}

/// Nested values as `key[sub]=value` and `key[]=item`, the form convention of
/// form-encoded APIs.
fn append_form(form: &mut form_urlencoded::Serializer<'_, String>, key: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (sub, v) in map {
                append_form(form, &format!("{key}[{sub}]"), v);
            }
        }
        Value::Array(items) => {
            for item in items {
                append_form(form, &format!("{key}[]"), item);
            }
        }
        scalar => {
            form.append_pair(key, &scalar_text(scalar));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_argument_fills_each_of_its_placeholders_percent_encoded_and_no_other() {
        let mut path = "/v1/a/{id}/b/{id_step}/{id}/{i}".to_string();
        fill_path(&mut path, "id", "x y/z+é{id}");
        assert_eq!(
            path,
            "/v1/a/x%20y%2Fz%2B%C3%A9%7Bid%7D/b/{id_step}/x%20y%2Fz%2B%C3%A9%7Bid%7D/{i}"
        );
        fill_path(&mut path, "id_step", "s");
        fill_path(&mut path, "i", "");
        assert_eq!(
            path,
            "/v1/a/x%20y%2Fz%2B%C3%A9%7Bid%7D/b/s/x%20y%2Fz%2B%C3%A9%7Bid%7D/"
        );
    }
}
