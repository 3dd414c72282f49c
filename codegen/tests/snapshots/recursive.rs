/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "get_category",
        method: HttpMethod::Get,
        path: "/categories/{id}",
        args: &[
            ArgSpec {
                name: "id",
                wire_name: "id",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
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
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"description":"A node of the category tree.","type":"object","required":["name"],"properties":{"name":{"type":"string"},"parent":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."},"children":{"type":"array","items":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"get_category","description":"Get category","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"description":"A node of the category tree.","type":"object","required":["name"],"properties":{"name":{"type":"string"},"parent":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."},"children":{"type":"array","items":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"annotations":{"title":"Get category","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.0.3","info":{"title":"Recursive schema","version":"1"},"paths":{"/categories/{id}":{"get":{"operationId":"getCategory","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"A category and its subtree","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Category"}}}}}}}},"components":{"schemas":{"Named":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}},"Category":{"description":"A node of the category tree.","allOf":[{"$ref":"#/components/schemas/Named"},{"type":"object","properties":{"parent":{"nullable":true,"allOf":[{"$ref":"#/components/schemas/Category"}]},"children":{"type":"array","items":{"$ref":"#/components/schemas/Category"}}}}]}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"get_category","description":"Get category","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"description":"A node of the category tree.","type":"object","required":["name"],"properties":{"name":{"type":"string"},"parent":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."},"children":{"type":"array","items":{"description":"A node of the category tree.\n\nA `Category`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"annotations":{"title":"Get category","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`get_category`: GET /categories/{id}
    GetCategory,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::GetCategory];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::GetCategory => 0,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::GetCategory => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::GetCategory => None,
        }
    }
}
