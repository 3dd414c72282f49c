/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "picture",
        method: HttpMethod::Get,
        path: "/picture",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::McpResult,
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
        output_schema: None,
        shared_output: None,
        tool_json: r#"{"name":"picture","description":"A picture as image content","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"annotations":{"title":"A picture as image content","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "greet",
        method: HttpMethod::Post,
        path: "/greet",
        args: &[
            ArgSpec {
                name: "name",
                wire_name: "name",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Json,
        response: ResponseKind::McpResult,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"name":{"type":"string"}}}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}]}}}"#,
        ),
        output_schema: None,
        shared_output: None,
        tool_json: r#"{"name":"greet","description":"Greet someone, asking their name first when it is not given","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}},"annotations":{"title":"Greet someone, asking their name first when it is not given","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.1.0","info":{"title":"MCP results","version":"1"},"x-mcp":{"tool_prefix":""},"paths":{"/picture":{"get":{"operationId":"picture","summary":"A picture as image content","x-mcp":{"result":"mcp"},"responses":{"200":{"description":"A CallToolResult","content":{"application/json":{"schema":{"$ref":"#/components/schemas/CallToolResult"}}}}}}},"/greet":{"post":{"operationId":"greet","summary":"Greet someone, asking their name first when it is not given","x-mcp":{"result":"mcp"},"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"responses":{"200":{"description":"A CallToolResult, or an InputRequiredResult","content":{"application/json":{"schema":{"type":"object"}}}}}}}},"components":{"schemas":{"CallToolResult":{"type":"object","required":["content"],"properties":{"content":{"type":"array","items":{"type":"object"}},"isError":{"type":"boolean"}}}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"picture","description":"A picture as image content","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"annotations":{"title":"A picture as image content","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"greet","description":"Greet someone, asking their name first when it is not given","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}},"annotations":{"title":"Greet someone, asking their name first when it is not given","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`picture`: GET /picture
    Picture,
    ///`greet`: POST /greet
    Greet,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::Picture, OperationId::Greet];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::Picture => 0,
            OperationId::Greet => 1,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Picture => None,
            OperationId::Greet => {
                Some(r#"{"type":"object","properties":{"name":{"type":"string"}}}"#)
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Picture => None,
            OperationId::Greet => None,
        }
    }
}
