/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "create_thing",
        method: HttpMethod::Post,
        path: "/things",
        args: &[
            ArgSpec {
                name: "name",
                wire_name: "name",
                location: ArgLocation::Body,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "ghost",
                wire_name: "ghost",
                location: ArgLocation::Body,
                required: true,
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
        input_schema: r#"{"type":"object","properties":{"name":{"type":"string"},"ghost":{"description":"Required by the API; its schema does not describe it."}},"required":["name","ghost"]}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"create_thing","description":"Create thing","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"ghost":{"description":"Required by the API; its schema does not describe it."}},"required":["name","ghost"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Create thing","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "create_part",
        method: HttpMethod::Post,
        path: "/parts",
        args: &[
            ArgSpec {
                name: "size",
                wire_name: "size",
                location: ArgLocation::Body,
                required: true,
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
        input_schema: r#"{"type":"object","properties":{"size":{"type":"integer"}},"required":["size"]}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"create_part","description":"Create part","inputSchema":{"type":"object","properties":{"size":{"type":"integer"}},"required":["size"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Create part","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"required but undeclared","version":"1"},"paths":{"/things":{"post":{"operationId":"createThing","requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","additionalProperties":false,"required":["name","ghost"],"properties":{"name":{"type":"string"}}}}}},"responses":{"204":{"description":"done"}}}},"/parts":{"post":{"operationId":"createPart","requestBody":{"required":true,"content":{"application/json":{"schema":{"allOf":[{"type":"object","required":["size"]},{"type":"object","properties":{"size":{"type":"integer"}}}]}}}},"responses":{"204":{"description":"done"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"create_thing","description":"Create thing","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"ghost":{"description":"Required by the API; its schema does not describe it."}},"required":["name","ghost"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Create thing","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"create_part","description":"Create part","inputSchema":{"type":"object","properties":{"size":{"type":"integer"}},"required":["size"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Create part","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`create_thing`: POST /things
    CreateThing,
    ///`create_part`: POST /parts
    CreatePart,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::CreateThing,
        OperationId::CreatePart,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::CreateThing => 0,
            OperationId::CreatePart => 1,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::CreateThing => {
                Some(
                    r#"{"type":"object","additionalProperties":false,"required":["name","ghost"],"properties":{"name":{"type":"string"},"ghost":{"description":"Required by the API; its schema does not describe it."}}}"#,
                )
            }
            OperationId::CreatePart => {
                Some(
                    r#"{"type":"object","required":["size"],"properties":{"size":{"type":"integer"}}}"#,
                )
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::CreateThing => None,
            OperationId::CreatePart => None,
        }
    }
}
