/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "droplets_create",
        method: HttpMethod::Post,
        path: "/v2/droplets",
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
                name: "region",
                wire_name: "region",
                location: ArgLocation::Body,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "tags",
                wire_name: "tags",
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
        input_schema: r#"{"type":"object","properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","region"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."},"tags":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}},"required":["name","region"]}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"droplets_create","description":"Create a droplet from an image.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","region"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Create a droplet","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.0.0","info":{"title":"References where OpenAPI allows none","version":"2.0","description":"The API to manage droplets.\n"},"paths":{"/v2/droplets":{"post":{"operationId":"droplets_create","summary":"Create a droplet","description":"Create a droplet from an image.","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/droplet_create"}}}},"responses":{"202":{"description":"Accepted"}}}}},"components":{"schemas":{"droplet_create":{"type":"object","required":["name","region"],"allOf":[{"properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."}}},{"properties":{"tags":{"type":"array","items":{"type":"string"}}}}]}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"droplets_create","description":"Create a droplet from an image.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","region"]},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Create a droplet","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`droplets_create`: POST /v2/droplets
    DropletsCreate,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::DropletsCreate];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::DropletsCreate => 0,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::DropletsCreate => {
                Some(
                    r#"{"type":"object","required":["name","region"],"properties":{"name":{"type":"string","description":"The droplet's name."},"region":{"type":"string","description":"The slug of the region, e.g. nyc3."},"tags":{"type":"array","items":{"type":"string"}}}}"#,
                )
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::DropletsCreate => None,
        }
    }
}
