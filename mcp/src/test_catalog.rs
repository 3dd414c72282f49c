//! A small catalog for the layer's own unit tests, written by hand the way `codegen` writes
//! one: tools with different scopes, a JSON answer, a destructive write, and an MCP Apps
//! view that the read tool names in its `_meta.ui`.

use mcpgen_catalog::{
    ArgLocation, ArgSpec, BodyEncoding, Catalog, HttpMethod, QueryStyle, ResourceSpec,
    ResponseKind, ToolSpec, ToolsetSpec,
};

use super::Settings;

const ID: ArgSpec = ArgSpec {
    name: "id",
    wire_name: "id",
    location: ArgLocation::Path,
    required: true,
    admits_null: false,
    style: QueryStyle::FormExploded,
};

const INPUT: &str = r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#;

/// A tool taking one `id` in its path, answering JSON.
pub(crate) const fn tool(
    name: &'static str,
    method: HttpMethod,
    path: &'static str,
    scopes: &'static [&'static str],
    toolset: &'static str,
    keywords: &'static [&'static str],
    tool_json: &'static str,
) -> ToolSpec {
    let read_only = matches!(method, HttpMethod::Get);
    ToolSpec {
        name,
        method,
        path,
        args: &[ID],
        body: BodyEncoding::None,
        response: if read_only {
            ResponseKind::Json
        } else {
            ResponseKind::NoContent
        },
        read_only,
        destructive: !read_only,
        server_idempotency_key: !read_only,
        confirm: if read_only {
            None
        } else {
            Some("Delete thing {id}?")
        },
        scopes,
        toolset,
        keywords,
        resource_uri: None,
        input_schema: INPUT,
        strict_input_schema: None,
        output_schema: None,
        shared_output: None,
        tool_json,
    }
}

static TOOLS: &[ToolSpec] = &[
    tool(
        "things_get",
        HttpMethod::Get,
        "/v1/things/{id}",
        &["things:read"],
        "things",
        &["coisa", "objeto"],
        r#"{"name":"things_get","description":"Read a thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"readOnlyHint":true},"_meta":{"ui":{"resourceUri":"ui://test/thing","visibility":["model","app"]}}}"#,
    ),
    tool(
        "others_get",
        HttpMethod::Get,
        "/v1/others/{id}",
        &["others:read"],
        "others",
        &["outra coisa"],
        r#"{"name":"others_get","description":"Read another thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"readOnlyHint":true}}"#,
    ),
    tool(
        "things_delete",
        HttpMethod::Delete,
        "/v1/things/{id}",
        &["things:write", "things:read"],
        "things",
        &["apagar", "excluir", "remoção"],
        r#"{"name":"things_delete","description":"Delete a thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"destructiveHint":true}}"#,
    ),
];

static TOOLSETS: &[ToolsetSpec] = &[
    ToolsetSpec {
        name: "things",
        description: "Things.",
        always: false,
    },
    ToolsetSpec {
        name: "others",
        description: "Other things.",
        always: false,
    },
];

/// The HTML of the view.
pub const VIEW_HTML: &str = "<!doctype html><title>Thing</title><p id=thing></p>";

static RESOURCES: &[ResourceSpec] = &[ResourceSpec {
    uri: "ui://test/thing",
    name: "thing",
    title: "Thing",
    description: "Interactive view (MCP Apps) of the results of `things_get`.",
    mime_type: "text/html;profile=mcp-app",
    tool: "",
    text: Some(VIEW_HTML),
    json: r#"{"uri":"ui://test/thing","name":"thing","title":"Thing","description":"Interactive view (MCP Apps) of the results of `things_get`.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}}"#,
}];

/// The catalog: three tools in two toolsets and one view.
pub const CATALOG: Catalog = Catalog {
    tool_prefix: "",
    tools: TOOLS,
    toolsets: TOOLSETS,
    resources: RESOURCES,
    resource_templates: &[],
    prompts: &[],
    instructions: "Test catalog.",
    openapi_json: "{}",
    catalog_json: "{}",
};

/// Settings as a server on loopback would have them.
pub fn settings() -> Settings {
    Settings {
        path: "/mcp".to_string(),
        public_catalog: true,
        server_name: "test",
        server_title: "Test",
        server_version: "0.0.0",
        loopback_only: true,
        canonical_url: None,
        allowed_origins: Vec::new(),
        confirmation_secret: b"test secret".to_vec(),
        reject_unconfirmed_in_handshake_era: false,
        openapi_resource_uri: "test://openapi".to_string(),
        authorization_servers: vec!["/".to_string()],
        problem_type_base: String::new(),
        toolsets: None,
        read_only: false,
        discovery: false,
        strict_schemas: false,
        authentication: crate::Authentication::Bearer,
        forward: crate::Forward::default(),
        validation_error_code: "VALIDATION_ERROR",
        response_meta: true,
    }
}

/// `request` and `params` in the era `capabilities` says: the stateless era (2026-07-28) with
/// those client capabilities in the envelope and the headers that repeat it, or the handshake
/// era (2025-06-18) when `None`.
pub fn in_era(
    request: http::request::Builder,
    method: &str,
    params: &mut serde_json::Value,
    capabilities: Option<&serde_json::Value>,
) -> http::request::Builder {
    let Some(capabilities) = capabilities else {
        return request.header("mcp-protocol-version", "2025-06-18");
    };
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let request = request
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(serde_json::Value::as_str)
        .filter(|_| matches!(method, "tools/call" | "prompts/get" | "resources/read"));
    match name {
        Some(name) => request.header("mcp-name", name),
        None => request,
    }
}
