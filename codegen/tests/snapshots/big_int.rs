/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "set_counter",
        method: HttpMethod::Post,
        path: "/counters",
        args: &[
            ArgSpec {
                name: "value",
                wire_name: "value",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "huge",
                wire_name: "huge",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Json,
        response: ResponseKind::NoContent,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"value":{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},"huge":{"type":"number","maximum":3.402823669209385e+38}}}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"value":{"anyOf":[{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},{"type":"null"}]},"huge":{"anyOf":[{"type":"number","maximum":3.402823669209385e+38},{"type":"null"}]}}}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"set_counter","description":"Set counter","inputSchema":{"type":"object","properties":{"value":{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},"huge":{"type":"number","maximum":3.402823669209385e+38}}},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Set counter","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"big integers","version":"1"},"paths":{"/counters":{"post":{"operationId":"setCounter","requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{"value":{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},"huge":{"type":"number","maximum":3.402823669209385e+38}}}}}},"responses":{"204":{"description":"done"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"set_counter","description":"Set counter","inputSchema":{"type":"object","properties":{"value":{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},"huge":{"type":"number","maximum":3.402823669209385e+38}}},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Set counter","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`set_counter`: POST /counters
    SetCounter,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::SetCounter];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::SetCounter => 0,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::SetCounter => {
                Some(
                    r#"{"type":"object","properties":{"value":{"type":"integer","minimum":0,"maximum":1.8446744073709552e+19},"huge":{"type":"number","maximum":3.402823669209385e+38}}}"#,
                )
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::SetCounter => None,
        }
    }
}
