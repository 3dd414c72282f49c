/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "move_customer",
        method: HttpMethod::Post,
        path: "/customers/{customer}/move",
        args: &[
            ArgSpec {
                name: "customer",
                wire_name: "customer",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "dry_run",
                wire_name: "dry_run",
                location: ArgLocation::Query,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "body_customer",
                wire_name: "customer",
                location: ArgLocation::Body,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "body_dry_run",
                wire_name: "dryRun",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Json,
        response: ResponseKind::Json,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"customer":{"type":"string"},"dry_run":{"type":"boolean"},"body_customer":{"type":"string","description":"The customer to merge into."},"body_dry_run":{"type":"boolean"}},"required":["customer","body_customer"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"customer":{"type":"string"},"dry_run":{"anyOf":[{"type":"boolean"},{"type":"null"}]},"body_customer":{"type":"string","description":"The customer to merge into."},"body_dry_run":{"anyOf":[{"type":"boolean"},{"type":"null"}]}},"required":["customer","body_customer"]}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"move_customer","description":"Move customer","inputSchema":{"type":"object","properties":{"customer":{"type":"string"},"dry_run":{"type":"boolean"},"body_customer":{"type":"string","description":"The customer to merge into."},"body_dry_run":{"type":"boolean"}},"required":["customer","body_customer"]},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}},"annotations":{"title":"Move customer","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"Argument clash","version":"1"},"paths":{"/customers/{customer}/move":{"post":{"operationId":"moveCustomer","parameters":[{"name":"customer","in":"path","required":true,"schema":{"type":"string"}},{"name":"dry_run","in":"query","schema":{"type":"boolean"}}],"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["customer"],"properties":{"customer":{"type":"string","description":"The customer to merge into."},"dryRun":{"type":"boolean"}}}}}},"responses":{"200":{"description":"Moved","content":{"application/json":{"schema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"move_customer","description":"Move customer","inputSchema":{"type":"object","properties":{"customer":{"type":"string"},"dry_run":{"type":"boolean"},"body_customer":{"type":"string","description":"The customer to merge into."},"body_dry_run":{"type":"boolean"}},"required":["customer","body_customer"]},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}},"annotations":{"title":"Move customer","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`move_customer`: POST /customers/{customer}/move
    MoveCustomer,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::MoveCustomer];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::MoveCustomer => 0,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::MoveCustomer => {
                Some(
                    r#"{"type":"object","required":["customer"],"properties":{"customer":{"type":"string","description":"The customer to merge into."},"dryRun":{"type":"boolean"}}}"#,
                )
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::MoveCustomer => {
                Some(
                    r#"{"type":"object","properties":{"dry_run":{"type":"boolean"}},"additionalProperties":false}"#,
                )
            }
        }
    }
}
