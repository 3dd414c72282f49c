/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "demo_me",
        method: HttpMethod::Get,
        path: "/me",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "context",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_me","description":"Me","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Me","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "demo_charges_list",
        method: HttpMethod::Get,
        path: "/charges",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::NoContent,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "charges",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charges_list","description":"Charges list","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Charges list","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "demo_charges_pay",
        method: HttpMethod::Post,
        path: "/charges/{id}/pay",
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
        response: ResponseKind::NoContent,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "collection",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charges_pay","description":"Charges pay","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Charges pay","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[
    ToolsetSpec {
        name: "context",
        description: "Who is calling.",
        always: true,
    },
    ToolsetSpec {
        name: "charges",
        description: "Charges.",
        always: false,
    },
    ToolsetSpec {
        name: "collection",
        description: "Acting on charges.",
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.1.0","info":{"title":"Toolsets","version":"1"},"x-mcp":{"tool_prefix":"demo_","toolsets":{"context":{"description":"Who is calling.","tags":["me"],"always":true},"charges":{"description":"Charges.","tags":["charges"]},"collection":{"description":"Acting on charges."},"empty":{"description":"Nothing lands here.","tags":["nothing"]}}},"paths":{"/me":{"get":{"operationId":"me","tags":["me"],"responses":{"200":{"description":"ok"}}}},"/charges":{"get":{"operationId":"charges_list","tags":["charges"],"responses":{"200":{"description":"ok"}}}},"/charges/{id}/pay":{"post":{"operationId":"charges_pay","tags":["charges"],"x-mcp":{"toolset":"collection"},"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"paid"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"demo_me","description":"Me","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Me","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"demo_charges_list","description":"Charges list","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Charges list","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"demo_charges_pay","description":"Charges pay","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Charges pay","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[],"toolsets":[{"name":"context","description":"Who is calling.","tools":["demo_me"],"always":true},{"name":"charges","description":"Charges.","tools":["demo_charges_list"]},{"name":"collection","description":"Acting on charges.","tools":["demo_charges_pay"]}]}"#;
/// All of the above, as the MCP layer takes it.
pub static CATALOG: Catalog = Catalog {
    tool_prefix: r#"demo_"#,
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
    ///`demo_me`: GET /me
    Me,
    ///`demo_charges_list`: GET /charges
    ChargesList,
    ///`demo_charges_pay`: POST /charges/{id}/pay
    ChargesPay,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::Me,
        OperationId::ChargesList,
        OperationId::ChargesPay,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::Me => 0,
            OperationId::ChargesList => 1,
            OperationId::ChargesPay => 2,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Me => None,
            OperationId::ChargesList => None,
            OperationId::ChargesPay => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Me => None,
            OperationId::ChargesList => None,
            OperationId::ChargesPay => None,
        }
    }
}
