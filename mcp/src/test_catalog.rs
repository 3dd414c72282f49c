//! A small catalog for the layer's own unit tests, written by hand the way `codegen` writes
//! one: tools with different scopes, a JSON answer, a destructive write.

use catalog::{
    ArgLocation, ArgSpec, BodyEncoding, Catalog, HttpMethod, QueryStyle, ResponseKind, ToolSpec,
};

use super::Settings;

const ID: ArgSpec = ArgSpec {
    name: "id",
    wire_name: "id",
    location: ArgLocation::Path,
    required: true,
    style: QueryStyle::FormExploded,
};

static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "things_get",
        method: HttpMethod::Get,
        path: "/v1/things/{id}",
        args: &[ID],
        body: BodyEncoding::None,
        response: ResponseKind::Json,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &["things:read"],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#,
        output_schema: None,
        tool_json: r#"{"name":"things_get","description":"Read a thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"readOnlyHint":true}}"#,
    },
    ToolSpec {
        name: "others_get",
        method: HttpMethod::Get,
        path: "/v1/others/{id}",
        args: &[ID],
        body: BodyEncoding::None,
        response: ResponseKind::Json,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &["others:read"],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#,
        output_schema: None,
        tool_json: r#"{"name":"others_get","description":"Read another thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"readOnlyHint":true}}"#,
    },
    ToolSpec {
        name: "things_delete",
        method: HttpMethod::Delete,
        path: "/v1/things/{id}",
        args: &[ID],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: false,
        destructive: true,
        server_idempotency_key: true,
        confirm: Some("Delete thing {id}?"),
        scopes: &["things:write", "things:read"],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#,
        output_schema: None,
        tool_json: r#"{"name":"things_delete","description":"Delete a thing.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"destructiveHint":true}}"#,
    },
];

/// The catalog: three tools, nothing else.
pub const CATALOG: Catalog = Catalog {
    tools: TOOLS,
    resources: &[],
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
    }
}
