//! Rust source for the static tables the server dispatches from.
//!
//! The output is items only (no inner attributes, no `//!`, no `use`): the includer wraps it
//! in a module with the MCP layer's `catalog::*` in scope, where `Catalog`, `ToolSpec`,
//! `ArgSpec`, `ResourceSpec`, `PromptSpec` and their enums live (`OperationId` needs nothing
//! more: its schemas are JSON text the server compiles). Each emitter below turns one
//! IR value into one small token fragment; `source` assembles them and `prettyplease` formats
//! the file.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use crate::ir::{
    Arg, ArgLocation, BodyEncoding, Method, Operation, QueryStyle, Resource, ResponseKind,
};
use crate::prompts::Prompt;
use crate::toolsets::Toolset;
use crate::views::View;

/// Everything `source` writes out besides the operations.
pub(crate) struct Texts<'a> {
    /// `x-mcp.tool_prefix` (empty when the document sets none).
    pub(crate) tool_prefix: &'a str,
    pub(crate) instructions: &'a str,
    /// The original document as compact JSON.
    pub(crate) openapi_json: &'a str,
    /// The catalog as compact JSON.
    pub(crate) catalog_json: &'a str,
}

/// The formatted source of all the tables. `tools` holds each operation's tool JSON, in the
/// same order as `ops`.
pub(crate) fn source(
    ops: &[Operation],
    toolsets: &[Toolset],
    tools: &[Value],
    prompts: &[Prompt],
    views: &[View],
    texts: &Texts<'_>,
) -> String {
    let tool_specs = ops.iter().zip(tools).map(|(op, json)| tool_spec(op, json));
    let prompt_specs = prompts.iter().map(prompt_spec);
    let toolset_specs = toolsets.iter().map(toolset_spec);
    let resources = ops.iter().filter_map(|op| {
        op.resource
            .as_ref()
            .filter(|r| !r.is_template)
            .map(|r| resource_spec(r, op))
    });
    let resources = resources.chain(views.iter().map(view_spec));
    let templates = ops.iter().filter_map(|op| {
        op.resource
            .as_ref()
            .filter(|r| r.is_template)
            .map(|r| resource_spec(r, op))
    });
    let tool_prefix = lit(texts.tool_prefix);
    let instructions = lit(texts.instructions);
    let openapi_json = lit(texts.openapi_json);
    let catalog_json = lit(texts.catalog_json);
    let operation_id = operation_id(ops);
    let tokens = quote! {
        /// One entry per operation, in `tools/list` order: the MCP tools, and the operations
        /// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
        pub static TOOLS: &[ToolSpec] = &[#(#tool_specs),*];
        /// The toolsets a connection chooses tools by, in the document's order.
        pub static TOOLSETS: &[ToolsetSpec] = &[#(#toolset_specs),*];
        /// Resources with a fixed URI.
        pub static RESOURCES: &[ResourceSpec] = &[#(#resources),*];
        /// Resource templates (URIs with `{variables}`).
        pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[#(#templates),*];
        /// Prompts, in `prompts/list` order.
        pub static PROMPTS: &[PromptSpec] = &[#(#prompt_specs),*];
        /// The server's `instructions`.
        pub static INSTRUCTIONS: &str = #instructions;
        /// The OpenAPI document the tables were generated from, as compact JSON.
        pub static OPENAPI_JSON: &str = #openapi_json;
        /// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
        pub static CATALOG_JSON: &str = #catalog_json;
        /// All of the above, as the MCP layer takes it.
        pub static CATALOG: Catalog = Catalog {
            tool_prefix: #tool_prefix,
            tools: TOOLS,
            toolsets: TOOLSETS,
            resources: RESOURCES,
            resource_templates: RESOURCE_TEMPLATES,
            prompts: PROMPTS,
            instructions: INSTRUCTIONS,
            openapi_json: OPENAPI_JSON,
            catalog_json: CATALOG_JSON,
        };
        #operation_id
    };
    let file: syn::File = syn::parse2(tokens).expect("the emitters produce valid Rust items");
    prettyplease::unparse(&file)
}

fn tool_spec(op: &Operation, json: &Value) -> TokenStream {
    let name = op.name.as_str();
    let method = method(op.method);
    let path = &op.path;
    let args = op.args.iter().map(arg_spec);
    let body = body(&op.body);
    let response = response(&op.response);
    let read_only = op.annotations.read_only;
    let destructive = op.annotations.destructive;
    let server_key = op.server_idempotency_key;
    let confirm = option_str(op.confirm.as_deref());
    let scopes = &op.scopes;
    let toolset = &op.toolset;
    let keywords = &op.keywords;
    let resource_uri = option_str(op.resource.as_ref().map(|r| r.uri.as_str()));
    let input_schema = lit(&compact(&op.input_schema));
    let strict_input_schema = match &op.strict_input_schema {
        Some(schema) => {
            let schema = lit(&compact(schema));
            quote!(Some(#schema))
        }
        None => quote!(None),
    };
    let output_schema = match &op.output_schema {
        Some(schema) => {
            let schema = lit(&compact(schema));
            quote!(Some(#schema))
        }
        None => quote!(None),
    };
    let shared_output = match &op.shared_output {
        Some(shared) => {
            let like = &shared.like;
            let schema = lit(&compact(&shared.output_schema));
            quote!(Some(SharedOutput { like: #like, output_schema: #schema }))
        }
        None => quote!(None),
    };
    let tool_json = lit(&compact(json));
    quote! {
        ToolSpec {
            name: #name,
            method: #method,
            path: #path,
            args: &[#(#args),*],
            body: #body,
            response: #response,
            read_only: #read_only,
            destructive: #destructive,
            server_idempotency_key: #server_key,
            confirm: #confirm,
            scopes: &[#(#scopes),*],
            toolset: #toolset,
            keywords: &[#(#keywords),*],
            resource_uri: #resource_uri,
            input_schema: #input_schema,
            strict_input_schema: #strict_input_schema,
            output_schema: #output_schema,
            shared_output: #shared_output,
            tool_json: #tool_json,
        }
    }
}

fn toolset_spec(toolset: &Toolset) -> TokenStream {
    let (name, description, always) = (&toolset.name, &toolset.description, toolset.always);
    quote! {
        ToolsetSpec { name: #name, description: #description, always: #always }
    }
}

/// `OperationId`: one variant per entry of `TOOLS`, in the same order, so a server's handler
/// table can be an exhaustive `match` (a new operation is a compile error until it is
/// handled), with the schemas the REST side validates requests against.
fn operation_id(ops: &[Operation]) -> TokenStream {
    let variants: Vec<syn::Ident> = ops
        .iter()
        .map(|op| syn::Ident::new(&op.variant, proc_macro2::Span::call_site()))
        .collect();
    let docs = ops.iter().map(|op| {
        format!(
            "`{}`: {} {}",
            op.name.as_str(),
            op.method.as_str().to_uppercase(),
            op.path
        )
    });
    let indices = (0..ops.len()).map(proc_macro2::Literal::usize_unsuffixed);
    let body_schemas = ops.iter().map(|op| match &op.body_schema {
        Some(schema) => {
            let schema = lit(&compact(schema));
            quote!(Some(#schema))
        }
        None => quote!(None),
    });
    let query_schemas = ops.iter().map(|op| match &op.query_schema {
        Some(schema) => {
            let schema = lit(&compact(schema));
            quote!(Some(#schema))
        }
        None => quote!(None),
    });
    quote! {
        /// The operations of the document, one per entry of `TOOLS` and in the same order.
        // A service that serves the catalog and never names an operation itself is fine.
        #[allow(dead_code)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum OperationId {
            #(#[doc = #docs] #variants),*
        }
        #[allow(dead_code)]
        impl OperationId {
            /// Every operation, in `TOOLS` order.
            pub const ALL: &'static [OperationId] = &[#(OperationId::#variants),*];
            /// The position of the operation in `TOOLS` (and in `ALL`).
            pub fn index(self) -> usize {
                match self {
                    #(OperationId::#variants => #indices),*
                }
            }
            /// The operation's entry in `TOOLS`.
            pub fn tool(self) -> &'static ToolSpec {
                &TOOLS[self.index()]
            }
            /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
            pub fn body_schema(self) -> Option<&'static str> {
                match self {
                    #(OperationId::#variants => #body_schemas),*
                }
            }
            /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
            pub fn query_schema(self) -> Option<&'static str> {
                match self {
                    #(OperationId::#variants => #query_schemas),*
                }
            }
        }
    }
}

fn prompt_spec(prompt: &Prompt) -> TokenStream {
    let name = &prompt.name;
    let title = &prompt.title;
    let description = &prompt.description;
    let arguments = prompt.arguments.iter().map(|a| {
        let name = &a.name;
        let description = &a.description;
        let required = a.required;
        let complete = option_str(a.complete.as_deref());
        let schema = a.schema.as_ref().map(compact);
        let schema = option_str(schema.as_deref());
        quote! {
            PromptArgSpec { name: #name, description: #description, required: #required, complete: #complete, schema: #schema }
        }
    });
    let tools = &prompt.tools;
    let template = lit(&prompt.template);
    let operation = option_str(prompt.operation.as_deref());
    let json = lit(&compact(&crate::prompts::json(prompt)));
    quote! {
        PromptSpec {
            name: #name,
            title: #title,
            description: #description,
            arguments: &[#(#arguments),*],
            tools: &[#(#tools),*],
            template: #template,
            operation: #operation,
            json: #json,
        }
    }
}

fn arg_spec(arg: &Arg) -> TokenStream {
    let name = &arg.name;
    let wire_name = &arg.wire_name;
    let location = match arg.location {
        ArgLocation::Path => quote!(ArgLocation::Path),
        ArgLocation::Query => quote!(ArgLocation::Query),
        ArgLocation::Header => quote!(ArgLocation::Header),
        ArgLocation::Body => quote!(ArgLocation::Body),
        ArgLocation::WholeBody => quote!(ArgLocation::WholeBody),
    };
    let required = arg.required;
    let admits_null = crate::schema::admits_null(&arg.schema);
    let style = match arg.style {
        QueryStyle::FormExploded => quote!(QueryStyle::FormExploded),
        QueryStyle::FormJoined => quote!(QueryStyle::FormJoined),
        QueryStyle::DeepObject => quote!(QueryStyle::DeepObject),
    };
    quote! {
        ArgSpec {
            name: #name,
            wire_name: #wire_name,
            location: #location,
            required: #required,
            admits_null: #admits_null,
            style: #style,
        }
    }
}

/// HEAD, OPTIONS and TRACE name variants `catalog.rs` does not have yet: a document with
/// such operations fails to compile until it gains them, rather than being dispatched with
/// the wrong method.
fn method(m: Method) -> TokenStream {
    match m {
        Method::Get => quote!(HttpMethod::Get),
        Method::Post => quote!(HttpMethod::Post),
        Method::Put => quote!(HttpMethod::Put),
        Method::Patch => quote!(HttpMethod::Patch),
        Method::Delete => quote!(HttpMethod::Delete),
        Method::Head => quote!(HttpMethod::Head),
        Method::Options => quote!(HttpMethod::Options),
        Method::Trace => quote!(HttpMethod::Trace),
    }
}

/// `Raw` (uploads) likewise names a variant `catalog.rs` does not have yet.
fn body(b: &BodyEncoding) -> TokenStream {
    match b {
        BodyEncoding::None => quote!(BodyEncoding::None),
        BodyEncoding::Json => quote!(BodyEncoding::Json),
        BodyEncoding::Form => quote!(BodyEncoding::Form),
        BodyEncoding::Raw { content_type } => {
            quote!(BodyEncoding::Raw { content_type: #content_type })
        }
    }
}

fn response(r: &ResponseKind) -> TokenStream {
    match r {
        ResponseKind::Json => quote!(ResponseKind::Json),
        ResponseKind::JsonWrapped => quote!(ResponseKind::JsonWrapped),
        ResponseKind::NoContent => quote!(ResponseKind::NoContent),
        ResponseKind::Binary { content_type } => {
            quote!(ResponseKind::Binary { content_type: #content_type })
        }
        ResponseKind::McpResult => quote!(ResponseKind::McpResult),
        ResponseKind::PromptResult => quote!(ResponseKind::PromptResult),
    }
}

fn resource_spec(r: &Resource, op: &Operation) -> TokenStream {
    let json = compact(&crate::catalog::resource(r));
    let fields = ResourceFields {
        uri: &r.uri,
        name: &r.name,
        title: &r.title,
        description: &r.description,
        mime_type: &r.mime_type,
        tool: op.name.as_str(),
    };
    resource_tokens(fields, quote!(None), &json)
}

/// A view: a fixed resource with its HTML embedded and no tool behind it.
fn view_spec(view: &View) -> TokenStream {
    let html = lit(&view.html);
    let json = compact(&crate::views::json(view));
    let fields = ResourceFields {
        uri: &view.uri,
        name: &view.name,
        title: &view.title,
        description: &view.description,
        mime_type: crate::views::MIME_TYPE,
        tool: "",
    };
    resource_tokens(fields, quote!(Some(#html)), &json)
}

/// The text fields of a `ResourceSpec`.
struct ResourceFields<'a> {
    uri: &'a str,
    name: &'a str,
    title: &'a str,
    description: &'a str,
    mime_type: &'a str,
    tool: &'a str,
}

/// A `ResourceSpec` literal: the fields, its embedded `text` (`None` or `Some(..)`) and its
/// catalog entry as compact JSON.
fn resource_tokens(f: ResourceFields<'_>, text: TokenStream, json: &str) -> TokenStream {
    let ResourceFields {
        uri,
        name,
        title,
        description,
        mime_type,
        tool,
    } = f;
    let json = lit(json);
    quote! {
        ResourceSpec {
            uri: #uri,
            name: #name,
            title: #title,
            description: #description,
            mime_type: #mime_type,
            tool: #tool,
            text: #text,
            json: #json,
        }
    }
}

fn option_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    }
}

/// A string literal that reads well in the generated file: raw (`r#"..."#`, with enough `#`s)
/// so JSON needs no escaping, or ordinary when the text has a carriage return, which raw
/// literals cannot hold.
fn lit(text: &str) -> TokenStream {
    if text.contains('\r') {
        return quote!(#text);
    }
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    let raw = format!("r{hashes}\"{text}\"{hashes}");
    match raw.parse::<proc_macro2::Literal>() {
        Ok(literal) => quote!(#literal),
        Err(_) => quote!(#text),
    }
}

/// Compact JSON text of a value.
pub(crate) fn compact(v: &Value) -> String {
    // Serialising a `Value` cannot fail: its keys are strings and it has no non-finite floats.
    serde_json::to_string(v).unwrap_or_default()
}
