/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "summary_prompt",
        method: HttpMethod::Get,
        path: "/prompts/summary/{topic}",
        args: &[
            ArgSpec {
                name: "topic",
                wire_name: "topic",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "resource_uri",
                wire_name: "resourceUri",
                location: ArgLocation::Query,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::None,
        response: ResponseKind::PromptResult,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"topic":{"type":"string","description":"What to summarise."},"resource_uri":{"type":"string","description":"A resource to embed."}},"required":["topic"],"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"topic":{"type":"string","description":"What to summarise."},"resource_uri":{"description":"A resource to embed.","anyOf":[{"type":"string"},{"type":"null"}]}},"required":["topic"],"additionalProperties":false}"#,
        ),
        output_schema: None,
        shared_output: None,
        tool_json: r#"{"name":"summary_prompt","description":"Asks the model to summarise a topic, with a resource embedded.","inputSchema":{"type":"object","properties":{"topic":{"type":"string","description":"What to summarise."},"resource_uri":{"type":"string","description":"A resource to embed."}},"required":["topic"],"additionalProperties":false},"annotations":{"title":"Summarise a topic","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "things_list",
        method: HttpMethod::Get,
        path: "/things",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::Json,
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
            r#"{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"things_list","description":"List things","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}}}},"annotations":{"title":"List things","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[
    PromptSpec {
        name: "summary_prompt",
        title: "Summarise a topic",
        description: "Asks the model to summarise a topic, with a resource embedded.",
        arguments: &[
            PromptArgSpec {
                name: "topic",
                description: "What to summarise.",
                required: true,
                complete: None,
                schema: Some(
                    "{\"type\":\"string\",\"description\":\"What to summarise.\"}",
                ),
            },
            PromptArgSpec {
                name: "resourceUri",
                description: "A resource to embed.",
                required: false,
                complete: None,
                schema: Some(
                    "{\"type\":\"string\",\"description\":\"A resource to embed.\"}",
                ),
            },
        ],
        tools: &[],
        template: r#""#,
        operation: Some("summary_prompt"),
        json: r#"{"name":"summary_prompt","title":"Summarise a topic","description":"Asks the model to summarise a topic, with a resource embedded.","arguments":[{"name":"topic","description":"What to summarise.","required":true},{"name":"resourceUri","description":"A resource to embed.","required":false}]}"#,
    },
];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.1.0","info":{"title":"Prompts served by operations","version":"1"},"x-mcp":{"tool_prefix":""},"paths":{"/prompts/summary/{topic}":{"get":{"operationId":"summary_prompt","summary":"Summarise a topic","description":"Asks the model to summarise a topic, with a resource embedded.","x-mcp":{"prompt":true},"parameters":[{"name":"topic","in":"path","required":true,"schema":{"type":"string"},"description":"What to summarise."},{"name":"resourceUri","in":"query","schema":{"type":"string"},"description":"A resource to embed."}],"responses":{"200":{"description":"A GetPromptResult","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/things":{"get":{"operationId":"things_list","summary":"List things","responses":{"200":{"description":"Things","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}}}}}}}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"things_list","description":"List things","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}}}},"annotations":{"title":"List things","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[],"prompts":[{"name":"summary_prompt","title":"Summarise a topic","description":"Asks the model to summarise a topic, with a resource embedded.","arguments":[{"name":"topic","description":"What to summarise.","required":true},{"name":"resourceUri","description":"A resource to embed.","required":false}]}]}"#;
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
    ///`summary_prompt`: GET /prompts/summary/{topic}
    SummaryPrompt,
    ///`things_list`: GET /things
    ThingsList,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::SummaryPrompt,
        OperationId::ThingsList,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::SummaryPrompt => 0,
            OperationId::ThingsList => 1,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::SummaryPrompt => None,
            OperationId::ThingsList => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::SummaryPrompt => {
                Some(
                    r#"{"type":"object","properties":{"resourceUri":{"type":"string","description":"A resource to embed."}},"additionalProperties":false}"#,
                )
            }
            OperationId::ThingsList => None,
        }
    }
}
