//! Lowering the parsed document into the IR: arguments from parameters and bodies, the
//! response kind and schemas, hints, scopes, final names, confirmations and resources.
//!
//! Each operation is built on its own first (a [`Draft`]); names, which must be unique across
//! the document, and what depends on them (titles, resources) are settled afterwards.

use std::collections::HashMap;

use openapiv3::{Parameter, ParameterSchemaOrContent, QueryStyle as OaQueryStyle, ReferenceOr};
use openapiv3::{RequestBody, Response, StatusCode};
use serde_json::{Map, Value, json};

use crate::annotations;
use crate::diagnostics::{Diagnostics, join};
use crate::ir::{Arg, ArgLocation, BodyEncoding, Operation, QueryStyle, Resource, ResponseKind};
use crate::names::{self, MAX_TOOL_NAME_LEN, ToolName, Uniquer};
use crate::parse::{Document, RawOperation, resolve};
use crate::schema::{self, Direction};
use crate::xmcp::{OperationExt, RootExt};

/// Headers OpenAPI says are described elsewhere and ignored as parameters.
const IGNORED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

/// Builds the IR of every operation of `doc` that is not excluded, in tool order.
/// `original` is the document as written, for schemas kept verbatim (`x-mcp.arguments: body`).
pub(crate) fn build(
    doc: &Document<'_>,
    original: &Value,
    root: &RootExt,
    strict: bool,
    diags: &mut Diagnostics,
) -> Vec<Operation> {
    let mut drafts = Vec::new();
    for raw in &doc.operations {
        let ext = crate::xmcp::operation(raw.op.extensions.get("x-mcp"), &raw.pointer, diags);
        if ext.exclude {
            continue;
        }
        let toolset = crate::toolsets::of(&raw.op.tags, &ext, &raw.pointer, root, diags);
        let builder = Builder {
            doc,
            original,
            raw,
            ext,
            strict,
            diags,
            body_schema: None,
        };
        let mut draft = builder.build(&root.tool_prefix);
        draft.op.toolset = toolset;
        drafts.push(draft);
    }
    assign_names(&mut drafts, strict, diags);
    finish(drafts, &root.tool_prefix, diags)
}

/// An operation on its way to the IR: the name is not final yet.
struct Draft {
    op: Operation,
    ext: OperationExt,
    /// Name wanted before length limits and uniqueness.
    wanted_name: String,
    explicit_name: bool,
    summary: Option<String>,
    description: Option<String>,
    response_media: Option<String>,
}

struct Builder<'b, 'a> {
    doc: &'b Document<'a>,
    original: &'b Value,
    raw: &'b RawOperation,
    ext: OperationExt,
    strict: bool,
    diags: &'b mut Diagnostics,
    /// The JSON body's schema, once `body` or `body_arguments` has read it.
    body_schema: Option<Value>,
}

impl Builder<'_, '_> {
    fn build(mut self, prefix: &str) -> Draft {
        let raw = self.raw;
        let (wanted_name, explicit_name) = match &self.ext.name {
            Some(name) => {
                if name.is_empty()
                    || !name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                {
                    self.diags.error(
                        join(&join(&raw.pointer, "x-mcp"), "name"),
                        format!("tool name `{name}` must be snake_case (a-z, 0-9 and _)"),
                    );
                }
                (format!("{prefix}{name}"), true)
            }
            None => (
                names::tool_name_candidate(
                    prefix,
                    raw.op.operation_id.as_deref(),
                    raw.method.as_str(),
                    &raw.path,
                ),
                false,
            ),
        };

        let (mut args, body, mut verbatim) = if self.ext.body_arguments {
            self.body_arguments()
        } else {
            let mut args = self.parameters();
            let body = self.body(&mut args);
            (args, body, None)
        };
        self.apply_renames(&mut args);
        self.resolve_clashes(&mut args);
        self.param_headers(&mut args, verbatim.as_mut());
        let (response, output_schema, response_media) = self.response();
        let annotations = annotations::derive(raw.method, &self.ext);
        let x_ptr = join(&raw.pointer, "x-mcp");
        if annotations.read_only && annotations.destructive {
            self.diags.error(
                x_ptr.clone(),
                "a tool cannot be both read-only and destructive",
            );
        }
        if (self.ext.mcp_result || self.ext.prompt) && annotations.destructive {
            // Such an operation asks the client for input itself, over the same round trip
            // the confirmation of destructive tools uses.
            self.diags.error(
                x_ptr.clone(),
                "an operation that answers MCP results (`result: mcp` or `prompt`) cannot be destructive",
            );
        }
        if self.ext.prompt {
            self.check_prompt_arguments(&args);
        }
        let input_schema = match verbatim.take() {
            Some(schema) => schema,
            None => input_schema(&args, !annotations.read_only && body == BodyEncoding::Json),
        };
        let input_schema = schema::without_text_patterns(self.doc.json, input_schema);
        let input_schema = schema::converter_friendly(input_schema);
        let scopes = scopes(raw.op.security.as_ref().or(self.doc.security.as_ref()));
        let query_schema = query_schema(&args);
        let body_schema = self.body_schema.take();
        let ext = std::mem::take(&mut self.ext);
        // `x-mcp.description`: what the tool says to a model, when the REST description says
        // more than a model needs on every turn (the codes of each refusal, say).
        let description = ext
            .description
            .clone()
            .or_else(|| trimmed(raw.op.description.as_deref()));
        Draft {
            op: Operation {
                // Replaced by `assign_names` once every operation is known.
                name: ToolName::new("unnamed").expect("a valid literal"),
                operation_id: raw.op.operation_id.clone(),
                pointer: raw.pointer.clone(),
                title: String::new(),
                description: String::new(),
                method: raw.method,
                path: raw.path.clone(),
                args,
                body,
                response,
                annotations,
                scopes,
                // Set by `build`, which knows the root's toolsets.
                toolset: String::new(),
                confirm: None,
                resource: None,
                max_result_chars: ext.max_result_chars,
                keywords: ext.keywords.clone(),
                meta: Map::new(),
                ui: ext.ui.clone(),
                server_idempotency_key: ext.server_idempotency_key,
                input_schema,
                // Written once the budget has trimmed `input_schema` (see `generate`).
                listed_input_schema: None,
                strict_input_schema: None,
                output_schema,
                shared_output: None,
                // Set by `finish` with the final name.
                variant: String::new(),
                body_schema,
                query_schema,
            },
            ext,
            wanted_name,
            explicit_name,
            summary: trimmed(raw.op.summary.as_deref()),
            description,
            response_media,
        }
    }

    /// Path-level parameters overridden by the operation's own (same name and location).
    fn parameters(&mut self) -> Vec<Arg> {
        let raw = self.raw;
        let mut params: Vec<(Parameter, String)> = Vec::new();
        let own = raw
            .op
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p, join(&join(&raw.pointer, "parameters"), &i.to_string())));
        let inherited = raw.path_params.iter().map(|(p, ptr)| (p, ptr.clone()));
        for (param, ptr) in inherited.chain(own) {
            let Some((param, at)) = resolve(self.doc.json, param, &ptr, self.diags) else {
                continue;
            };
            let key = param_key(&param);
            match params.iter_mut().find(|(p, _)| param_key(p) == key) {
                Some(slot) => *slot = (param, at),
                None => params.push((param, at)),
            }
        }
        self.check_path_template(&params);
        let mut args: Vec<Arg> = Vec::new();
        for (param, at) in &params {
            if let Some(arg) = self.parameter(param, at) {
                args.push(arg);
            }
        }
        // Path, query, header: the order a reader expects; stable within a location.
        args.sort_by_key(|a| a.location as u8);
        args
    }

    /// Every `{variable}` of the path needs a path parameter and every path parameter a
    /// variable: without them the tool cannot build its URL, so either is an error.
    fn check_path_template(&mut self, params: &[(Parameter, String)]) {
        let path = &self.raw.path;
        let vars = placeholders(path);
        let declared: Vec<(&str, &str)> = params
            .iter()
            .filter(|(p, _)| matches!(p, Parameter::Path { .. }))
            .map(|(p, at)| (p.parameter_data_ref().name.as_str(), at.as_str()))
            .collect();
        for var in &vars {
            if !declared.iter().any(|(name, _)| name == var) {
                self.diags.error(
                    self.raw.pointer.clone(),
                    format!(
                        "path `{path}` has the variable `{{{var}}}` but no path parameter `{var}`: the tool could not build its URL"
                    ),
                );
            }
        }
        for (name, at) in declared {
            if !vars.iter().any(|v| v == name) {
                self.diags.error(
                    at,
                    format!("path parameter `{name}` is not a variable of the path `{path}`"),
                );
            }
        }
    }

    fn parameter(&mut self, param: &Parameter, at: &str) -> Option<Arg> {
        let data = param.parameter_data_ref();
        let (location, style) = match param {
            Parameter::Path { .. } => (ArgLocation::Path, QueryStyle::FormExploded),
            Parameter::Header { .. } => {
                if IGNORED_HEADERS.contains(&data.name.to_ascii_lowercase().as_str()) {
                    return None;
                }
                (ArgLocation::Header, QueryStyle::FormExploded)
            }
            Parameter::Query { style, .. } => {
                let style = match style {
                    OaQueryStyle::Form if data.explode == Some(false) => QueryStyle::FormJoined,
                    OaQueryStyle::Form => QueryStyle::FormExploded,
                    OaQueryStyle::DeepObject => QueryStyle::DeepObject,
                    OaQueryStyle::SpaceDelimited | OaQueryStyle::PipeDelimited => {
                        self.diags.warn(
                            join(at, "style"),
                            "spaceDelimited and pipeDelimited are not supported: values are joined with commas",
                        );
                        QueryStyle::FormJoined
                    }
                };
                (ArgLocation::Query, style)
            }
            Parameter::Cookie { .. } => {
                self.diags.warn(
                    at,
                    format!(
                        "cookie parameter `{}` is not a tool argument: tools cannot send cookies",
                        data.name
                    ),
                );
                return None;
            }
        };
        let schema_ptr = match &data.format {
            ParameterSchemaOrContent::Schema(_) => join(at, "schema"),
            ParameterSchemaOrContent::Content(content) => match content.keys().next() {
                Some(media) => join(&join(&join(at, "content"), media), "schema"),
                None => join(at, "content"),
            },
        };
        let mut schema = self.schema_at(&schema_ptr, Direction::Input);
        if let Some(obj) = schema.as_object_mut() {
            // `x-mcp-description`: what the argument says to a model, when the REST
            // description is longer than a tool needs (the server's instructions say the rest
            // once, instead of every tool repeating it); `false` when the argument's name and
            // the instructions say it all.
            let for_tools = data.extensions.get("x-mcp-description");
            if let Some(d) = for_tools
                .and_then(Value::as_str)
                .filter(|d| !d.trim().is_empty())
            {
                obj.insert("description".into(), json!(d.trim()));
            } else if for_tools == Some(&Value::Bool(false)) {
                obj.remove("description");
            } else if for_tools.is_some() {
                self.diags.error(
                    join(at, "x-mcp-description"),
                    "`x-mcp-description` must be a non-empty string, or false for none",
                );
            } else if let Some(d) = data.description.as_ref().filter(|d| !d.trim().is_empty()) {
                obj.insert("description".into(), json!(d));
            }
            if data.deprecated == Some(true) {
                obj.insert("deprecated".into(), json!(true));
            }
            if let Some(example) = &data.example
                && !obj.contains_key("examples")
            {
                obj.insert("examples".into(), json!([example]));
            }
        }
        Some(Arg {
            name: names::arg_name(&data.name),
            wire_name: data.name.clone(),
            location,
            schema,
            // OpenAPI requires path parameters; a document that forgets to say so still
            // cannot build the URL without them.
            required: location == ArgLocation::Path || data.required,
            style,
        })
    }

    fn schema_at(&mut self, ptr: &str, dir: Direction) -> Value {
        match self.doc.json.pointer(ptr) {
            Some(raw) => schema::convert(self.doc.json, raw, ptr, dir, self.diags),
            None => json!({}),
        }
    }

    /// The request body: flattened into arguments when it is a JSON or form object, one
    /// `body` argument otherwise.
    fn body(&mut self, args: &mut Vec<Arg>) -> BodyEncoding {
        let raw = self.raw;
        let Some(body) = &raw.op.request_body else {
            return BodyEncoding::None;
        };
        let ptr = join(&raw.pointer, "requestBody");
        let Some((body, at)) = resolve::<RequestBody>(self.doc.json, body, &ptr, self.diags) else {
            return BodyEncoding::None;
        };
        let Some((media, encoding)) = pick_body_media(&body) else {
            return BodyEncoding::None;
        };
        let schema_ptr = join(&join(&join(&at, "content"), &media), "schema");
        let schema = self.schema_at(&schema_ptr, Direction::Input);
        if encoding == BodyEncoding::Json {
            self.body_schema = Some(schema.clone());
        }
        let flatten =
            matches!(encoding, BodyEncoding::Json | BodyEncoding::Form) && is_plain_object(&schema);
        if flatten {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (wire, prop) in props {
                    args.push(Arg {
                        name: names::arg_name(wire),
                        wire_name: wire.clone(),
                        location: ArgLocation::Body,
                        schema: prop.clone(),
                        required: body.required && required.contains(&wire.as_str()),
                        style: QueryStyle::FormExploded,
                    });
                }
            }
        } else {
            let mut schema = schema;
            if let BodyEncoding::Raw { content_type } = &encoding {
                // Uploads arrive as text in a JSON tool call; the server sends it as is.
                let mut s = json!({"type": "string"});
                let described = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!("{d}\n\n"))
                    .unwrap_or_default();
                s["description"] = json!(format!(
                    "{described}The request body, sent as `{content_type}`."
                ));
                schema = s;
            }
            if let Some(d) = body.description.as_ref().filter(|d| !d.trim().is_empty())
                && let Some(obj) = schema.as_object_mut()
                && !obj.contains_key("description")
            {
                obj.insert("description".into(), json!(d));
            }
            args.push(Arg {
                name: "body".into(),
                wire_name: "body".into(),
                location: ArgLocation::WholeBody,
                schema,
                required: body.required,
                style: QueryStyle::FormExploded,
            });
        }
        encoding
    }

    /// `x-mcp.arguments: body`: the arguments object is the JSON request body, and the tool's
    /// `inputSchema` is the body's schema exactly as the document wrote it (JSON Schema
    /// 2020-12 keywords that the ordinary conversion drops or merges are kept). Returns the
    /// arguments (the body's top-level properties), the encoding and that schema.
    fn body_arguments(&mut self) -> (Vec<Arg>, BodyEncoding, Option<Value>) {
        let raw = self.raw;
        let at = join(&join(&raw.pointer, "x-mcp"), "arguments");
        if !raw.op.parameters.is_empty() || !raw.path_params.is_empty() {
            self.diags.error(
                at.clone(),
                "`arguments: body` takes every argument from the body: the operation may have no parameters",
            );
        }
        let Some(body) = &raw.op.request_body else {
            self.diags
                .error(at, "`arguments: body` needs a JSON request body");
            return (Vec::new(), BodyEncoding::None, None);
        };
        let ptr = join(&raw.pointer, "requestBody");
        let Some((body, body_at)) = resolve::<RequestBody>(self.doc.json, body, &ptr, self.diags)
        else {
            return (Vec::new(), BodyEncoding::None, None);
        };
        let Some(media) = body.content.keys().find(|m| is_json(m)).cloned() else {
            self.diags
                .error(at, "`arguments: body` needs a JSON request body");
            return (Vec::new(), BodyEncoding::None, None);
        };
        let schema_ptr = join(&join(&join(&body_at, "content"), &media), "schema");
        let Some(schema) = verbatim_schema(self.original, &schema_ptr) else {
            self.diags.error(
                schema_ptr,
                "the body schema of an `arguments: body` operation must be an object schema (`type: object`)",
            );
            return (Vec::new(), BodyEncoding::Json, None);
        };
        for reference in foreign_refs(&schema) {
            self.diags.error(
                schema_ptr.clone(),
                format!(
                    "`$ref: {reference}` does not point into the schema's own `$defs`: a verbatim input schema must stand alone"
                ),
            );
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut args = Vec::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (wire, prop) in props {
                args.push(Arg {
                    // The arguments are the body itself: its property names stay as they are.
                    name: wire.clone(),
                    wire_name: wire.clone(),
                    location: ArgLocation::Body,
                    schema: prop.clone(),
                    required: body.required && required.contains(&wire.as_str()),
                    style: QueryStyle::FormExploded,
                });
            }
        }
        self.body_schema = Some(schema.clone());
        (args, BodyEncoding::Json, Some(schema))
    }

    /// `x-mcp.param_headers`: mark each named argument with `x-mcp-header` in the input
    /// schema (in `verbatim` too, when the schema is the body's own), so 2026-07-28 clients
    /// mirror its value into `Mcp-Param-<Name>`; only primitive arguments qualify.
    fn param_headers(&mut self, args: &mut [Arg], mut verbatim: Option<&mut Value>) {
        let entries = std::mem::take(&mut self.ext.param_headers);
        for entry in &entries {
            let Some(arg) = args.iter_mut().find(|a| a.name == entry.argument) else {
                self.diags.error(
                    entry.pointer.clone(),
                    format!("`{}` is not an argument of this tool", entry.argument),
                );
                continue;
            };
            let kind = arg.schema.get("type").and_then(Value::as_str);
            if !matches!(kind, Some("string" | "integer" | "boolean")) {
                self.diags.error(
                    entry.pointer.clone(),
                    format!(
                        "argument `{}` must be a string, integer or boolean to travel in a header (it is {})",
                        entry.argument,
                        kind.map_or_else(|| "untyped".to_owned(), |k| format!("`{k}`"))
                    ),
                );
                continue;
            }
            let header = Value::String(entry.header.clone());
            if let Some(obj) = arg.schema.as_object_mut() {
                obj.insert("x-mcp-header".into(), header.clone());
            }
            if let Some(prop) = verbatim
                .as_deref_mut()
                .and_then(|s| s.get_mut("properties"))
                .and_then(|p| p.get_mut(&entry.argument))
                .and_then(Value::as_object_mut)
            {
                prop.insert("x-mcp-header".into(), header);
            }
        }
        self.ext.param_headers = entries;
    }

    /// A prompt's arguments are strings the client types in: path and query parameters of
    /// string type only.
    fn check_prompt_arguments(&mut self, args: &[Arg]) {
        let at = join(&join(&self.raw.pointer, "x-mcp"), "prompt");
        for arg in args {
            let is_string = arg.schema.get("type").is_none_or(|t| *t == "string");
            if !matches!(arg.location, ArgLocation::Path | ArgLocation::Query) || !is_string {
                self.diags.error(
                    at.clone(),
                    format!(
                        "prompt arguments are strings in the path or query; `{}` is a {} argument{}",
                        arg.wire_name,
                        arg.location.as_str(),
                        if is_string { "" } else { " that is not a string" }
                    ),
                );
            }
        }
    }

    fn apply_renames(&mut self, args: &mut [Arg]) {
        if self.ext.body_arguments && !self.ext.rename.is_empty() {
            self.diags.error(
                join(&join(&self.raw.pointer, "x-mcp"), "rename"),
                "`rename` cannot be combined with `arguments: body`: the arguments are the body's own properties",
            );
            return;
        }
        for rename in &mut self.ext.rename {
            for arg in args.iter_mut() {
                if arg.location.as_str() == rename.location && arg.wire_name == rename.wire_name {
                    arg.name.clone_from(&rename.new_name);
                    rename.used = true;
                }
            }
        }
        for rename in self.ext.rename.iter().filter(|r| !r.used) {
            self.diags.error(
                rename.pointer.clone(),
                format!(
                    "rename `{}.{}` matches no argument of this operation",
                    rename.location, rename.wire_name
                ),
            );
        }
    }

    /// Two arguments with one name: an error in strict mode, else the later one is renamed
    /// `<location>_<name>` (path wins over query over header over body).
    fn resolve_clashes(&mut self, args: &mut [Arg]) {
        let raw = self.raw;
        let mut taken: HashMap<String, usize> = HashMap::new();
        let mut uniquer = Uniquer::default();
        for a in args.iter() {
            uniquer.reserve(&a.name);
        }
        for i in 0..args.len() {
            let name = args[i].name.clone();
            let Some(&first) = taken.get(&name) else {
                taken.insert(name, i);
                continue;
            };
            let (a, b) = (&args[first], &args[i]);
            let who = match &raw.op.operation_id {
                Some(id) => format!("operation `{id}`"),
                None => format!(
                    "operation {} {}",
                    raw.method.as_str().to_uppercase(),
                    raw.path
                ),
            };
            let what = format!(
                "argument `{name}` of {who} comes from both {} `{}` and {} `{}`",
                a.location.as_str(),
                a.wire_name,
                b.location.as_str(),
                b.wire_name
            );
            if self.strict {
                self.diags.error(
                    raw.pointer.clone(),
                    format!(
                        "{what}: rename one with `x-mcp.rename`, e.g. {{\"{}.{}\": \"{}_{}\"}}",
                        b.location.as_str(),
                        b.wire_name,
                        b.location.as_str(),
                        name
                    ),
                );
                continue;
            }
            let new = uniquer.claim(&format!("{}_{}", b.location.as_str(), name), usize::MAX);
            self.diags.warn(
                raw.pointer.clone(),
                format!("{what}: the {} one is renamed `{new}`", b.location.as_str()),
            );
            args[i].name.clone_from(&new);
            taken.insert(new, i);
        }
    }

    /// The first 2xx response: its kind, the tool's `outputSchema`, and its media type.
    fn response(&mut self) -> (ResponseKind, Option<Value>, Option<String>) {
        if self.ext.prompt || self.ext.mcp_result {
            return self.mcp_response();
        }
        let (kind, schema, media) = self.data_response();
        (kind, Some(schema), media)
    }

    /// `result: mcp` and `prompt`: the body is an MCP result, so there must be a JSON 2xx
    /// response, and the tool has no `outputSchema` of its own.
    fn mcp_response(&mut self) -> (ResponseKind, Option<Value>, Option<String>) {
        let raw = self.raw;
        let kind = if self.ext.prompt {
            ResponseKind::PromptResult
        } else {
            ResponseKind::McpResult
        };
        let has_json = raw.op.responses.responses.iter().any(|(code, response)| {
            let success = match code {
                StatusCode::Code(c) => (200..300).contains(c) && *c != 204,
                StatusCode::Range(r) => *r == 2,
            };
            success
                && match response {
                    ReferenceOr::Item(r) => r.content.keys().any(|m| is_json(m)),
                    // A shared response is checked where it is defined; trust its reference.
                    ReferenceOr::Reference { .. } => true,
                }
        });
        if !has_json {
            let key = if self.ext.prompt { "prompt" } else { "result" };
            self.diags.error(
                join(&join(&raw.pointer, "x-mcp"), key),
                "an operation that answers MCP results needs a 2xx response with a JSON body",
            );
        }
        (kind, None, Some("application/json".into()))
    }

    /// The first 2xx response of an ordinary operation: its kind, schema and media type.
    fn data_response(&mut self) -> (ResponseKind, Value, Option<String>) {
        let raw = self.raw;
        let responses = &raw.op.responses.responses;
        let mut success: Vec<(&StatusCode, &ReferenceOr<Response>)> = responses
            .iter()
            .filter(|(code, _)| match code {
                StatusCode::Code(c) => (200..300).contains(c),
                StatusCode::Range(r) => *r == 2,
            })
            .collect();
        success.sort_by_key(|(code, _)| match code {
            StatusCode::Code(c) => *c,
            StatusCode::Range(_) => 299,
        });
        let Some((code, response)) = success.first().copied() else {
            self.diags.warn(
                join(&raw.pointer, "responses"),
                "no 2xx response: the tool's result is the status alone",
            );
            return (ResponseKind::NoContent, status_schema(None), None);
        };
        let code_str = code.to_string();
        let ptr = join(&join(&raw.pointer, "responses"), &code_str);
        let Some((response, at)) = resolve(self.doc.json, response, &ptr, self.diags) else {
            return (ResponseKind::NoContent, status_schema(None), None);
        };
        let code_num = match code {
            StatusCode::Code(c) => Some(*c),
            StatusCode::Range(_) => None,
        };
        if response.content.is_empty() || code_num == Some(204) {
            return (ResponseKind::NoContent, status_schema(code_num), None);
        }
        let json_media = response.content.keys().find(|m| is_json(m));
        match json_media {
            Some(media) => {
                let schema_ptr = join(&join(&join(&at, "content"), media), "schema");
                let schema = self.schema_at(&schema_ptr, Direction::Output);
                if schema::is_object(&schema) {
                    (
                        ResponseKind::Json,
                        schema::with_object_type(schema),
                        Some("application/json".into()),
                    )
                } else {
                    let wrapped = json!({
                        "type": "object",
                        "properties": {"result": schema},
                        "required": ["result"]
                    });
                    (
                        ResponseKind::JsonWrapped,
                        wrapped,
                        Some("application/json".into()),
                    )
                }
            }
            None => {
                let content_type = response
                    .content
                    .keys()
                    .next()
                    .map(|m| essence(m).to_owned())
                    .unwrap_or_default();
                (
                    ResponseKind::Binary {
                        content_type: content_type.clone(),
                    },
                    binary_schema(),
                    Some(content_type),
                )
            }
        }
    }
}

/// The schema at `ptr` in the document as written, following `$ref`s to other schemas of
/// the document; `None` unless it is an object schema.
fn verbatim_schema(original: &Value, ptr: &str) -> Option<Value> {
    let mut schema = original.pointer(ptr)?;
    // A few hops cover `requestBody -> components/schemas/X -> ...`; more is a loop.
    for _ in 0..8 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) if schema.as_object().is_some_and(|o| o.len() == 1) => {
                schema = original.pointer(reference.strip_prefix('#')?)?;
            }
            _ => break,
        }
    }
    (schema.get("type").and_then(Value::as_str) == Some("object")).then(|| schema.clone())
}

/// Every `$ref` in `schema` that does not resolve inside it (a verbatim schema travels alone).
fn foreign_refs(schema: &Value) -> Vec<String> {
    fn walk(root: &Value, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    let local = reference.strip_prefix("#/$defs/").is_some()
                        && reference
                            .strip_prefix('#')
                            .and_then(|p| root.pointer(p))
                            .is_some();
                    if !local {
                        out.push(reference.to_owned());
                    }
                }
                for v in map.values() {
                    walk(root, v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(root, v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(schema, schema, &mut out);
    out
}

/// Text without surrounding blank space (real documents start descriptions with newlines),
/// `None` when nothing is left.
fn trimmed(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

fn param_key(p: &Parameter) -> (String, u8) {
    let loc = match p {
        Parameter::Path { .. } => 0,
        Parameter::Query { .. } => 1,
        Parameter::Header { .. } => 2,
        Parameter::Cookie { .. } => 3,
    };
    let name = p.parameter_data_ref().name.clone();
    // Header names are case-insensitive.
    if loc == 2 {
        (name.to_ascii_lowercase(), loc)
    } else {
        (name, loc)
    }
}

/// The media type without parameters, lower-cased: `Application/JSON; charset=utf-8` →
/// `application/json`.
fn essence(media: &str) -> &str {
    media.split(';').next().unwrap_or(media).trim()
}

/// `application/json`, `text/json` and any `*/*+json`.
fn is_json(media: &str) -> bool {
    let m = essence(media).to_ascii_lowercase();
    m == "application/json" || m == "text/json" || m.ends_with("+json")
}

/// Chooses the body media type: JSON, else a URL-encoded form, else multipart (sent as a
/// form), else the first one listed (sent raw).
fn pick_body_media(body: &RequestBody) -> Option<(String, BodyEncoding)> {
    let find = |pred: &dyn Fn(&str) -> bool| {
        body.content
            .keys()
            .find(|m| pred(&essence(m).to_ascii_lowercase()))
            .cloned()
    };
    if let Some(m) = find(&|m| is_json(m)) {
        return Some((m, BodyEncoding::Json));
    }
    if let Some(m) = find(&|m| m == "application/x-www-form-urlencoded") {
        return Some((m, BodyEncoding::Form));
    }
    if let Some(m) = find(&|m| m == "multipart/form-data") {
        return Some((m, BodyEncoding::Form));
    }
    let m = body.content.keys().next()?.clone();
    let content_type = essence(&m).to_owned();
    Some((m, BodyEncoding::Raw { content_type }))
}

/// A body whose properties can sit beside the other arguments: an object that is not a
/// choice between several shapes.
fn is_plain_object(schema: &Value) -> bool {
    let typed_object = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(list)) => list.contains(&json!("object")),
        Some(_) => false,
        None => schema.get("properties").is_some(),
    };
    typed_object
        && schema.get("anyOf").is_none()
        && schema.get("oneOf").is_none()
        && schema.get("allOf").is_none()
}

/// The query parameters as one object: what a query string, read into a JSON object by wire
/// name, must satisfy. Unknown parameters are refused, as they are in a read's `inputSchema`.
fn query_schema(args: &[Arg]) -> Option<Value> {
    let query: Vec<&Arg> = args
        .iter()
        .filter(|a| a.location == ArgLocation::Query)
        .collect();
    if query.is_empty() {
        return None;
    }
    let properties: Map<String, Value> = query
        .iter()
        .map(|a| (a.wire_name.clone(), a.schema.clone()))
        .collect();
    let required: Vec<Value> = query
        .iter()
        .filter(|a| a.required)
        .map(|a| json!(a.wire_name))
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Some(Value::Object(schema))
}

/// The tool's arguments as one object schema. A tool that refuses other keys says so
/// (`additionalProperties: false`: an unknown argument is a mistake worth reporting); a write
/// with a JSON body, which passes other fields to its endpoint to judge, leaves the keyword out
/// — the same to a validator, and OpenAI's strict mode (the OpenAI Agents SDK's
/// `ensure_strict_json_schema`) refuses a schema that sets it to `true`.
fn input_schema(args: &[Arg], takes_extra: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for arg in args {
        properties.insert(arg.name.clone(), arg.schema.clone());
        if arg.required {
            required.push(json!(arg.name));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if !takes_extra {
        schema.insert("additionalProperties".into(), json!(false));
    }
    Value::Object(schema)
}

/// `{"status": <code>}` for responses without content. The code is fixed only for 204, the
/// one the contract names.
fn status_schema(code: Option<u16>) -> Value {
    let status = if code == Some(204) {
        json!({"type": "integer", "const": 204})
    } else {
        json!({"type": "integer"})
    };
    json!({
        "type": "object",
        "properties": {"status": status},
        "required": ["status"]
    })
}

/// The descriptor a binary response becomes (the bytes never go through MCP).
fn binary_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content_type": {"type": "string", "description": "Media type of the file."},
            "byte_size": {"type": "integer", "minimum": 0, "description": "Size of the file in bytes."},
            "download_path": {"type": "string", "description": "Path of the file on the REST API."},
            "resource_uri": {"type": "string", "description": "URI of the MCP resource that serves the file, when there is one."},
            "note": {"type": "string", "description": "What the file is and how to get it."}
        },
        "required": ["content_type", "byte_size", "download_path", "note"]
    })
}

/// The scopes of the first security requirement (all of its schemes together).
fn scopes(security: Option<&Vec<openapiv3::SecurityRequirement>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(first) = security.and_then(|s| s.first()) {
        for scopes in first.values() {
            for scope in scopes {
                if !out.contains(scope) {
                    out.push(scope.clone());
                }
            }
        }
    }
    out
}

/// Final names: explicit and derived names must be valid, fit and be unique. In strict mode
/// (first-party documents) a problem is an error; otherwise it is repaired with a warning.
fn assign_names(drafts: &mut [Draft], strict: bool, diags: &mut Diagnostics) {
    let mut uniquer = Uniquer::default();
    let mut owner: HashMap<String, String> = HashMap::new();
    for draft in drafts.iter_mut() {
        let wanted = draft.wanted_name.clone();
        let ptr = if draft.explicit_name {
            join(&join(&draft.op.pointer, "x-mcp"), "name")
        } else {
            draft.op.pointer.clone()
        };
        let too_long = wanted.len() > MAX_TOOL_NAME_LEN;
        let fitted = names::fit_length(&wanted, MAX_TOOL_NAME_LEN);
        let first_owner = uniquer
            .is_taken(&fitted)
            .then(|| owner.get(&fitted).cloned().unwrap_or_default());
        let name = uniquer.claim(&wanted, MAX_TOOL_NAME_LEN);
        let mut problems = Vec::new();
        if too_long {
            problems.push(format!(
                "is {} characters long, more than {MAX_TOOL_NAME_LEN}",
                wanted.len()
            ));
        }
        if let Some(first) = &first_owner {
            problems.push(format!("is already the name of #{first}"));
        }
        if !problems.is_empty() {
            let problem = format!("tool name `{wanted}` {}", problems.join(" and "));
            if strict {
                diags.error(ptr, format!("{problem}: set `x-mcp.name`"));
            } else {
                diags.warn(ptr, format!("{problem}: named `{name}`"));
            }
        }
        owner
            .entry(name.clone())
            .or_insert(draft.op.pointer.clone());
        // `claim` only hands out valid names when `wanted` is `[a-z0-9_]`; an invalid
        // explicit name was reported already and is sanitised here so generation goes on.
        let name = ToolName::new(&name)
            .or_else(|_| {
                ToolName::new(&names::fit_length(
                    &names::snake_case(&name),
                    MAX_TOOL_NAME_LEN,
                ))
            })
            .unwrap_or_else(|_| ToolName::new("invalid_name").expect("a valid literal"));
        draft.op.name = name;
    }
}

/// Everything that needs the final name: title, description, confirmation, resource, meta.
fn finish(drafts: Vec<Draft>, prefix: &str, diags: &mut Diagnostics) -> Vec<Operation> {
    let mut uris: HashMap<String, String> = HashMap::new();
    let mut variants: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let Draft {
            mut op,
            ext,
            summary,
            description,
            response_media,
            ..
        } = draft;
        let x_ptr = join(&op.pointer, "x-mcp");
        let name = op.name.as_str();
        op.variant = names::variant_name(name.strip_prefix(prefix).unwrap_or(name), &variants);
        variants.push(op.variant.clone());
        op.title = summary
            .clone()
            .unwrap_or_else(|| names::title_from_name(name.strip_prefix(prefix).unwrap_or(name)));
        op.description = description.or(summary).unwrap_or_else(|| op.title.clone());

        op.confirm = match ext.confirm.clone() {
            Some(message) => {
                let at = join(&x_ptr, "confirm");
                if !op.annotations.destructive {
                    diags.error(
                        at.clone(),
                        "`confirm` is only for destructive tools: set `destructive: true` or remove it",
                    );
                }
                for placeholder in placeholders(&message) {
                    if !op.args.iter().any(|a| a.name == placeholder) {
                        diags.error(
                            at.clone(),
                            format!(
                                "placeholder `{{{placeholder}}}` is not an argument of this tool"
                            ),
                        );
                    }
                }
                Some(message)
            }
            None if op.annotations.destructive => Some(annotations::default_confirm(&op.title)),
            None => None,
        };

        if let Some(uri) = ext.resource.clone() {
            let at = join(&x_ptr, "resource");
            if ext.mcp_result || ext.prompt {
                diags.error(
                    at.clone(),
                    "a resource is served by an operation that answers data, not MCP results",
                );
            }
            if !op.annotations.read_only {
                diags.error(
                    at.clone(),
                    "a resource must be served by a read-only operation (GET)",
                );
            }
            let vars = placeholders(&uri);
            for var in &vars {
                if !op.args.iter().any(|a| &a.name == var) {
                    diags.error(
                        at.clone(),
                        format!("template variable `{{{var}}}` is not an argument of this tool"),
                    );
                }
            }
            if let Some(first) = uris.get(&uri) {
                diags.error(
                    at.clone(),
                    format!("resource `{uri}` is already served by #{first}"),
                );
            }
            uris.insert(uri.clone(), op.pointer.clone());
            let mime_type = match response_media {
                Some(m) => m,
                None => {
                    diags.error(
                        at,
                        "a resource needs a response with content (this operation has none)",
                    );
                    String::new()
                }
            };
            op.resource = Some(Resource {
                is_template: !vars.is_empty(),
                uri,
                name: ext
                    .resource_name
                    .clone()
                    .unwrap_or_else(|| op.name.to_string()),
                title: op.title.clone(),
                description: op.description.clone(),
                mime_type,
            });
        } else if ext.resource_name.is_some() {
            diags.error(
                join(&x_ptr, "resource_name"),
                "`resource_name` without `resource`",
            );
        }
        if let Some(view) = &op.ui
            && ext.prompt
        {
            diags.error(
                view.pointer.clone(),
                "a view shows a tool's results; this operation serves a prompt",
            );
        }
        op.meta = annotations::meta(&op.annotations, &ext);
        out.push(op);
    }
    out
}

/// The `{name}` placeholders of a template, in order.
fn placeholders(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { break };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::{Settings, generate};

    /// The `page` argument of a list whose parameter says `x-mcp-description: <said>`.
    fn page_argument(said: Value) -> Result<Value, String> {
        let doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/todos": {"get": {
                "operationId": "todos_list",
                "parameters": [{"name": "page", "in": "query", "description": "Page number.",
                                "x-mcp-description": said, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "ok"}}
            }}}
        });
        let output = generate(&doc, &Settings::default()).map_err(|r| format!("{r:?}"))?;
        Ok(output.operations[0].input_schema["properties"]["page"].clone())
    }

    #[test]
    fn an_argument_says_its_mcp_description_or_nothing_when_it_is_false() {
        assert_eq!(
            page_argument(json!("Page.")).unwrap(),
            json!({"type": "integer", "description": "Page."})
        );
        assert_eq!(
            page_argument(json!(false)).unwrap(),
            json!({"type": "integer"})
        );
        let refused = page_argument(json!(true)).unwrap_err();
        assert!(refused.contains("or false for none"), "{refused}");
    }
}
