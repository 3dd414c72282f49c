/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "list_pets",
        method: HttpMethod::Get,
        path: "/pets",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "pet_store",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"list_pets","description":"List pets","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"List pets","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "list_users",
        method: HttpMethod::Get,
        path: "/users",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "users",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"list_users","description":"List users","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"List users","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "health",
        method: HttpMethod::Get,
        path: "/health",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"health","description":"Health","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Health","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[
    ToolsetSpec {
        name: "pet_store",
        description: "Everything about pets.",
        always: false,
    },
    ToolsetSpec {
        name: "users",
        description: "The operations tagged `users`.",
        always: false,
    },
];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"Pet store","version":"1"},"tags":[{"name":"Pet Store","description":"Everything about pets."}],"paths":{"/pets":{"get":{"operationId":"listPets","tags":["Pet Store"],"responses":{"200":{"description":"ok"}}}},"/users":{"get":{"operationId":"listUsers","tags":["users","Pet Store"],"responses":{"200":{"description":"ok"}}}},"/health":{"get":{"operationId":"health","responses":{"200":{"description":"ok"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"list_pets","description":"List pets","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"List pets","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"list_users","description":"List users","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"List users","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"health","description":"Health","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Health","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[],"toolsets":[{"name":"pet_store","description":"Everything about pets.","tools":["list_pets"]},{"name":"users","description":"The operations tagged `users`.","tools":["list_users"]}]}"#;
/// All of the above, as the MCP layer takes it.
pub static CATALOG: Catalog = Catalog {
    tool_prefix: r#""#,
    tools: TOOLS,
    toolsets: TOOLSETS,
    resources: RESOURCES,
    resource_templates: RESOURCE_TEMPLATES,
    prompts: PROMPTS,
    instructions: INSTRUCTIONS,
    openapi_json: OPENAPI_JSON,
    catalog_json: CATALOG_JSON,
};
/// The operations of the document, one per entry of `TOOLS` and in the same order.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationId {
    ///`list_pets`: GET /pets
    ListPets,
    ///`list_users`: GET /users
    ListUsers,
    ///`health`: GET /health
    Health,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::ListPets,
        OperationId::ListUsers,
        OperationId::Health,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::ListPets => 0,
            OperationId::ListUsers => 1,
            OperationId::Health => 2,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::ListPets => None,
            OperationId::ListUsers => None,
            OperationId::Health => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::ListPets => None,
            OperationId::ListUsers => None,
            OperationId::Health => None,
        }
    }
}
