//! The intermediate representation: one [`Operation`] per tool, decided before any Rust is
//! written.
//!
//! Everything the catalog and the generated tables say about a tool lives here, so the
//! emitters (`catalog`, `emit`) only translate. The `lower` module builds it.

use serde_json::{Map, Value};

use crate::names::ToolName;

/// HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
    /// HEAD
    Head,
    /// OPTIONS
    Options,
    /// TRACE
    Trace,
}

impl Method {
    /// The method in lower case, as OpenAPI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
            Method::Put => "put",
            Method::Patch => "patch",
            Method::Delete => "delete",
            Method::Head => "head",
            Method::Options => "options",
            Method::Trace => "trace",
        }
    }

    /// Safe methods (RFC 9110 §9.2.1): they change nothing on the server.
    pub fn is_safe(self) -> bool {
        matches!(
            self,
            Method::Get | Method::Head | Method::Options | Method::Trace
        )
    }
}

/// Where an argument goes in the HTTP request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgLocation {
    /// A path template variable.
    Path,
    /// A query string parameter.
    Query,
    /// A request header.
    Header,
    /// A property of the request body object.
    Body,
    /// The whole request body (a body that is not an object, or not JSON or a form).
    WholeBody,
}

impl ArgLocation {
    /// The word used in `x-mcp.rename` keys and in lenient clash renames (`body_project`).
    pub fn as_str(self) -> &'static str {
        match self {
            ArgLocation::Path => "path",
            ArgLocation::Query => "query",
            ArgLocation::Header => "header",
            ArgLocation::Body | ArgLocation::WholeBody => "body",
        }
    }
}

/// How a query argument holding an array or object is serialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryStyle {
    /// `name=a&name=b` (form, explode: true; the default).
    FormExploded,
    /// `name=a,b` (form, explode: false).
    FormJoined,
    /// `name[key]=value` (deepObject).
    DeepObject,
}

/// One tool argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// Key in the tool's `arguments` (snake_case, unique within the tool).
    pub name: String,
    /// Name on the wire: path variable, query key, header or body property.
    pub wire_name: String,
    /// Where the value goes.
    pub location: ArgLocation,
    /// Its JSON Schema (2020-12, self-contained).
    pub schema: Value,
    /// Whether the tool call must carry it.
    pub required: bool,
    /// Serialisation of array/object query values.
    pub style: QueryStyle,
}

/// Encoding of the request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyEncoding {
    /// No body.
    None,
    /// `application/json` or `*+json`.
    Json,
    /// `application/x-www-form-urlencoded`, and `multipart/form-data` sent the same way.
    Form,
    /// Any other media type (an upload): the `body` argument is sent as it is.
    Raw {
        /// The media type to send.
        content_type: String,
    },
}

/// What the success response is, which decides the shape of the tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseKind {
    /// A JSON object, used as the structured result as it is.
    Json,
    /// JSON that is not (known to be) an object: the result is `{"result": <it>}`.
    JsonWrapped,
    /// No content: the result is `{"status": <code>}`.
    NoContent,
    /// A file: the result describes it and never carries the bytes.
    Binary {
        /// Media type of the file (the first one the document lists).
        content_type: String,
    },
    /// `x-mcp.result: mcp`: the JSON body already is an MCP `CallToolResult` (or an
    /// `InputRequiredResult` asking the client for input), passed through.
    McpResult,
    /// `x-mcp.prompt`: the operation serves a prompt, not a tool; its JSON body is an MCP
    /// `GetPromptResult` (or an `InputRequiredResult`).
    PromptResult,
}

impl ResponseKind {
    /// Whether the operation is a tool (every operation but those serving prompts).
    pub fn is_tool(&self) -> bool {
        *self != ResponseKind::PromptResult
    }
}

/// MCP tool annotations (the hints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`
    pub read_only: bool,
    /// `destructiveHint`
    pub destructive: bool,
    /// `idempotentHint`
    pub idempotent: bool,
    /// `openWorldHint`
    pub open_world: bool,
}

/// A resource (fixed URI) or resource template (URI with `{variables}`) served by a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The URI or URI template.
    pub uri: String,
    /// Whether `uri` has `{variables}`.
    pub is_template: bool,
    /// Resource name.
    pub name: String,
    /// Human title (the tool's).
    pub title: String,
    /// Description (the tool's).
    pub description: String,
    /// Media type of the contents.
    pub mime_type: String,
}

/// `x-mcp.ui`: the MCP Apps view (SEP-1865) a host renders with this tool's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewRef {
    /// The view's file in the views folder (`board.html`).
    pub template: String,
    /// Who may call the tool, as `_meta.ui.visibility` says it: `model`, `app` or both.
    pub visibility: Vec<String>,
    /// `_meta.ui.prefersBorder` of the view, when the document says.
    pub prefers_border: Option<bool>,
    /// The browser permissions the view asks the host for (`clipboard_write`, ...).
    pub permissions: Vec<String>,
    /// JSON pointer of the `x-mcp.ui` object.
    pub pointer: String,
}

/// One tool, bound to one HTTP operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// MCP tool name.
    pub name: ToolName,
    /// The document's `operationId`, if any.
    pub operation_id: Option<String>,
    /// JSON pointer of the operation in the document.
    pub pointer: String,
    /// Human title: `summary`, else made from the name.
    pub title: String,
    /// `description`, else `summary`, else the title.
    pub description: String,
    /// HTTP method.
    pub method: Method,
    /// Path template as in the document (`/v1/todos/{id}`).
    pub path: String,
    /// Arguments: path, query, header, then body, each in document order.
    pub args: Vec<Arg>,
    /// Request body encoding.
    pub body: BodyEncoding,
    /// Kind of success response.
    pub response: ResponseKind,
    /// The hints.
    pub annotations: Annotations,
    /// OAuth2 scopes the operation needs (all of them).
    pub scopes: Vec<String>,
    /// The toolset the tool belongs to (`toolsets`); empty when the document has none.
    pub toolset: String,
    /// Confirmation message template (`{argument}` placeholders), for destructive tools.
    pub confirm: Option<String>,
    /// The resource this operation serves, if any.
    pub resource: Option<Resource>,
    /// `x-mcp.max_result_chars`.
    pub max_result_chars: Option<u64>,
    /// `x-mcp.keywords`: words people use for what the tool does (any language), which a
    /// catalog search matches besides the name, title and description. Not part of the
    /// `Tool` object.
    pub keywords: Vec<String>,
    /// The tool's complete `_meta` (empty: no `_meta`), `ui` included once the views are
    /// settled.
    pub meta: Map<String, Value>,
    /// `x-mcp.ui`: the view that shows this tool's results, if any.
    pub ui: Option<ViewRef>,
    /// The server derives an idempotency key when the caller sends none.
    pub server_idempotency_key: bool,
    /// The complete input schema: what the arguments of a call are checked against.
    pub input_schema: Value,
    /// The `inputSchema` as listed, when it says less than `input_schema` (the budget's
    /// `lean_input` leaves the server's checks out).
    pub listed_input_schema: Option<Value>,
    /// The listed `inputSchema` strict function-calling modes need (every optional argument
    /// also admitting `null`), when it differs from the listed one.
    pub strict_input_schema: Option<Value>,
    /// The tool's `outputSchema` (none when the operation answers MCP results itself).
    pub output_schema: Option<Value>,
    /// The `outputSchema` that names another tool's instead of repeating an object it says in
    /// full (see `shared`), served when that tool is listed too.
    pub shared_output: Option<SharedOutput>,
    /// The operation's identity in Rust: an `UpperCamelCase` variant name, unique, made from
    /// the tool name without its prefix (`todos_list` → `TodosList`).
    pub variant: String,
    /// The JSON request body's schema as the document states it (self-contained, 2020-12;
    /// `additionalProperties: false` kept), which the REST side validates bodies against.
    /// Unlike the tool's `inputSchema`, it is not flattened into arguments.
    pub body_schema: Option<Value>,
    /// The query parameters as one object schema (wire names, `required`, no other keys), which
    /// the REST side validates query strings against; none when the operation has no query
    /// parameters.
    pub query_schema: Option<Value>,
}

impl Operation {
    /// The `inputSchema` a listing carries.
    pub fn listed_input_schema(&self) -> &Value {
        self.listed_input_schema
            .as_ref()
            .unwrap_or(&self.input_schema)
    }
}

/// An `outputSchema` with an object of another tool's named instead of repeated.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedOutput {
    /// The read tool whose `outputSchema` has the object in full.
    pub like: String,
    /// This tool's `outputSchema`, the object replaced by a line naming `like`.
    pub output_schema: Value,
}
