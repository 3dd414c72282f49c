//! The shapes of the catalog the generator emits: tools, resources, prompts and the text
//! around them, gathered in a [`Catalog`].
//!
//! This crate is the contract the generator (`mcpgen`) emits against and the MCP layer
//! (`mcpgen-axum`) serves: `mcpgen` writes Rust source that builds these structs as `static`
//! tables, ending with a `CATALOG` of this type; the application includes that source
//! (`use mcpgen_axum::catalog::*;` then `include!`) and hands the catalog to
//! `mcpgen_axum::router`.
//!
//! ```
//! use mcpgen_catalog::{Catalog, canonical_json};
//!
//! static EMPTY: Catalog = Catalog {
//!     tool_prefix: "",
//!     tools: &[],
//!     toolsets: &[],
//!     resources: &[],
//!     resource_templates: &[],
//!     prompts: &[],
//!     instructions: "",
//!     openapi_json: r#"{"openapi":"3.1.0"}"#,
//!     catalog_json: r#"{"tools":[]}"#,
//! };
//! assert!(EMPTY.tools.is_empty());
//! assert_eq!(canonical_json(&serde_json::json!({"b": 1, "a": [true]})), r#"{"a":[true],"b":1}"#);
//! ```
//! Nothing here
//! knows about any one application: a second OpenAPI document gives a second `Catalog`, and
//! the MCP layer serves it unchanged. It also holds [`canonical_json`], the one JSON
//! spelling that digests and hashes of arguments are taken over.

#![deny(missing_docs)]

use serde_json::Value;

/// Everything the generator produced from one OpenAPI document: what an MCP endpoint serves.
#[derive(Debug, Clone, Copy)]
pub struct Catalog {
    /// What the document puts before every tool name (`x-mcp.tool_prefix`: `todos_`; empty
    /// when it sets none); the MCP layer's own tools take it too (`todos_search`).
    pub tool_prefix: &'static str,
    /// Every operation, in `tools/list` order (those serving prompts are not listed).
    pub tools: &'static [ToolSpec],
    /// The toolsets a connection chooses tools by (empty: every tool is always loaded).
    pub toolsets: &'static [ToolsetSpec],
    /// Resources with a fixed URI.
    pub resources: &'static [ResourceSpec],
    /// Resource templates (URIs with `{variables}`).
    pub resource_templates: &'static [ResourceSpec],
    /// Prompts, in `prompts/list` order.
    pub prompts: &'static [PromptSpec],
    /// The server's `instructions`.
    pub instructions: &'static str,
    /// The OpenAPI document the catalog was generated from, as compact JSON.
    pub openapi_json: &'static str,
    /// The catalog (`tools`, `resourceTemplates`, `resources`, `prompts`) as compact JSON.
    pub catalog_json: &'static str,
}

/// HTTP method of the operation behind a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
    /// `HEAD`.
    Head,
    /// `OPTIONS`.
    Options,
    /// `TRACE`.
    Trace,
}

impl ToolSpec {
    /// Whether `tools/list` and `tools/call` know this operation (all but prompt servers).
    pub fn is_tool(&self) -> bool {
        self.response != ResponseKind::PromptResult
    }
}

impl HttpMethod {
    /// The method as `http` knows it.
    pub fn as_http(self) -> http::Method {
        match self {
            HttpMethod::Get => http::Method::GET,
            HttpMethod::Post => http::Method::POST,
            HttpMethod::Put => http::Method::PUT,
            HttpMethod::Patch => http::Method::PATCH,
            HttpMethod::Delete => http::Method::DELETE,
            HttpMethod::Head => http::Method::HEAD,
            HttpMethod::Options => http::Method::OPTIONS,
            HttpMethod::Trace => http::Method::TRACE,
        }
    }
}

/// Where an argument goes in the HTTP request the dispatcher builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgLocation {
    /// Substituted into the path template (`{wire_name}`), percent-encoded.
    Path,
    /// Added to the query string.
    Query,
    /// Sent as the header `wire_name`.
    Header,
    /// A property of the request body object.
    Body,
    /// The whole request body (documents whose body is not an object).
    WholeBody,
}

/// How a query argument whose value is an array or object is serialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryStyle {
    /// `name=a&name=b` (OpenAPI `form`, `explode: true`, the default).
    FormExploded,
    /// `name=a,b` (OpenAPI `form`, `explode: false`).
    FormJoined,
    /// `name[key]=value` (OpenAPI `deepObject`).
    DeepObject,
}

/// One argument of a tool: its MCP name and where its value goes on the wire.
#[derive(Debug)]
pub struct ArgSpec {
    /// The key in the tool's `arguments` object (snake_case).
    pub name: &'static str,
    /// The name in the HTTP request: path variable, query key, header or body property.
    pub wire_name: &'static str,
    /// Where the value goes.
    pub location: ArgLocation,
    /// The tool's `inputSchema` lists it as required.
    pub required: bool,
    /// The document gives `null` a meaning here (a body field `null` clears). A `null` for any
    /// other argument that is not required means "not given": strict-mode schemas (see
    /// `mcpgen-axum`'s `Settings::strict_schemas`) declare such arguments nullable so that
    /// strict function-calling modes, which make every property required, can say so.
    pub admits_null: bool,
    /// How an array or object value is written in a query string.
    pub style: QueryStyle,
}

/// Encoding of the request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    /// The operation takes no body.
    None,
    /// `application/json`.
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// Any other media type (uploads): the `body` argument is sent as is, as text.
    Raw {
        /// The media type sent as `Content-Type`.
        content_type: &'static str,
    },
}

/// What the operation's success response is, which decides the shape of the tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseKind {
    /// A JSON object: it becomes `structuredContent` as is.
    Json,
    /// JSON that is not an object (an array, a scalar): `structuredContent` is `{"result": <it>}`.
    JsonWrapped,
    /// 204 or no content: the result is `{"status": 204}`.
    NoContent,
    /// A file (PDF, CSV, ...): the result describes it and never carries the bytes.
    Binary {
        /// The media type the operation answers with.
        content_type: &'static str,
    },
    /// The JSON body already is an MCP `CallToolResult`, passed through; or an
    /// `InputRequiredResult`, by which the operation asks the client for input (see `input`).
    McpResult,
    /// The operation serves a prompt (it is not a tool): its JSON body is an MCP
    /// `GetPromptResult`, or an `InputRequiredResult`.
    PromptResult,
}

/// One MCP tool, bound to one HTTP operation.
#[derive(Debug)]
pub struct ToolSpec {
    /// MCP tool name: unique, at most 64 characters of `[a-z0-9_]`.
    pub name: &'static str,
    /// HTTP method of the operation.
    pub method: HttpMethod,
    /// Path template with `{wire_name}` variables, as in the document (e.g. `/v1/todos/{id}`).
    pub path: &'static str,
    /// Arguments, in `inputSchema` order.
    pub args: &'static [ArgSpec],
    /// How the request body is written.
    pub body: BodyEncoding,
    /// What a success answer is.
    pub response: ResponseKind,
    /// GET/HEAD (or `x-mcp`): unknown arguments are refused.
    pub read_only: bool,
    /// The operation deletes or cancels something (`destructiveHint`): callers confirm it.
    pub destructive: bool,
    /// The server derives an `Idempotency-Key` from caller and arguments when none is given.
    pub server_idempotency_key: bool,
    /// Confirmation message template with `{argument}` placeholders, for destructive tools.
    pub confirm: Option<&'static str>,
    /// OAuth2 scopes the operation's `security` requirement names (all of them are needed).
    pub scopes: &'static [&'static str],
    /// The toolset the tool belongs to (a [`ToolsetSpec::name`]; empty: none).
    pub toolset: &'static str,
    /// Words people use for what the tool does (`x-mcp.keywords`, in any language): a catalog
    /// search matches them besides the name, title and description. Not in [`tool_json`]:
    /// they cost the model nothing in `tools/list`.
    ///
    /// [`tool_json`]: ToolSpec::tool_json
    pub keywords: &'static [&'static str],
    /// URI template of the resource that serves this operation's result, if any.
    pub resource_uri: Option<&'static str>,
    /// The complete input schema as JSON text: what a call's arguments are checked against.
    /// The `inputSchema` in [`tool_json`](ToolSpec::tool_json) may say less (the generator's
    /// `lean_input` leaves the server's bounds and patterns out of the listing).
    pub input_schema: &'static str,
    /// The `inputSchema` strict function-calling modes need, as JSON text, when it differs:
    /// every optional argument to which `null` means nothing ([`ArgSpec::admits_null`]) also
    /// admitting it, so a model there, which must give every property, can leave one out. The
    /// MCP layer serves it to a connection that asks (`X-MCP-Strict-Schemas: true`).
    pub strict_input_schema: Option<&'static str>,
    /// The tool's `outputSchema` as JSON text, when it has one.
    pub output_schema: Option<&'static str>,
    /// The tool's `outputSchema` with an object another tool's says in full named instead of
    /// repeated, served when that tool is listed beside it (see [`SharedOutput`]).
    pub shared_output: Option<SharedOutput>,
    /// The whole `Tool` object exactly as `tools/list` returns it, as JSON text.
    pub tool_json: &'static str,
}

/// An `outputSchema` said once: writes answer the object a read returns (recording a payment
/// answers the charge), and lists return it per item, so the generator names the read tool
/// whose `outputSchema` has the object in full instead of repeating its fields. A listing
/// serves this form only when [`like`](SharedOutput::like) is listed too; otherwise the tool
/// carries its full `outputSchema`, so what a model can read is never lost.
#[derive(Debug)]
pub struct SharedOutput {
    /// The tool whose `outputSchema` has the object in full.
    pub like: &'static str,
    /// This tool's `outputSchema` with the object named instead, as JSON text.
    pub output_schema: &'static str,
}

/// A group of tools a connection may load or leave out (`X-MCP-Toolsets`).
#[derive(Debug)]
pub struct ToolsetSpec {
    /// What a connection writes to choose it (`todos`).
    pub name: &'static str,
    /// What its tools are for.
    pub description: &'static str,
    /// Loaded whatever a connection chooses.
    pub always: bool,
}

/// A resource (fixed URI) or resource template (URI with `{variables}`) served by a tool, or
/// a fixed resource whose contents were embedded at build time (an MCP Apps view).
#[derive(Debug)]
pub struct ResourceSpec {
    /// A URI (`todo://me`) or RFC 6570 level-1 template (`todo://items/{id}`).
    pub uri: &'static str,
    /// Its `name`.
    pub name: &'static str,
    /// Its `title`.
    pub title: &'static str,
    /// Its `description`.
    pub description: &'static str,
    /// Its `mimeType`.
    pub mime_type: &'static str,
    /// Name of the tool whose call produces the contents; template variables are its arguments.
    /// Empty when the contents are [`text`](ResourceSpec::text).
    pub tool: &'static str,
    /// The contents, when they were fixed at build time: an MCP Apps view's HTML
    /// (`ui://todos/board`, `text/html;profile=mcp-app`), served as they are, with the
    /// `_meta` of [`json`](ResourceSpec::json). `None`: a tool's call produces them.
    pub text: Option<&'static str>,
    /// The object exactly as `resources/list` or `resources/templates/list` returns it, as JSON text.
    pub json: &'static str,
}

impl ResourceSpec {
    /// Whether this is an MCP Apps view (SEP-1865): a `ui://` resource whose HTML was embedded
    /// at build time, which a host renders beside the results of the tools naming it in
    /// their `_meta.ui.resourceUri`.
    pub fn is_view(&self) -> bool {
        self.text.is_some() && self.uri.starts_with("ui://")
    }
}

/// An argument of a prompt.
#[derive(Debug)]
pub struct PromptArgSpec {
    /// The argument's name.
    pub name: &'static str,
    /// What it is, for the user.
    pub description: &'static str,
    /// `prompts/get` needs it.
    pub required: bool,
    /// Where completion values come from (`projects`, `todos`, ...), if anywhere.
    pub complete: Option<&'static str>,
    /// JSON Schema (as JSON text) the value must fit before it is used; a schema of type
    /// `integer`, `number` or `boolean` means a string that reads as one.
    pub schema: Option<&'static str>,
}

/// A ready-made script from `templates/prompts/`.
#[derive(Debug)]
pub struct PromptSpec {
    /// The prompt's `name`.
    pub name: &'static str,
    /// Its `title`.
    pub title: &'static str,
    /// Its `description`.
    pub description: &'static str,
    /// Its arguments, in order.
    pub arguments: &'static [PromptArgSpec],
    /// Tools the script relies on: the prompt is listed only to callers who can run them all.
    pub tools: &'static [&'static str],
    /// The text with `{{argument}}` placeholders (empty when an operation serves the prompt).
    pub template: &'static str,
    /// Name of the operation (in `Catalog::tools`) that serves the prompt, if one does:
    /// `prompts/get` runs it with the arguments (by their names in the document).
    pub operation: Option<&'static str>,
    /// The object exactly as `prompts/list` returns it, as JSON text.
    pub json: &'static str,
}

/// JSON with object keys sorted at every level, for digests and hashes: two spellings of the
/// same arguments give the same text.
pub fn canonical_json(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sort(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}
