/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "webhook_delete",
        method: HttpMethod::Delete,
        path: "/webhooks/{id}",
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
        destructive: true,
        server_idempotency_key: false,
        confirm: Some("Webhook delete: this may not be reversible. Proceed?"),
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"webhook_delete","description":"Webhook delete","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Webhook delete","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true}}"#,
    },
    ToolSpec {
        name: "webhook_test",
        method: HttpMethod::Post,
        path: "/webhooks/{id}/test",
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
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"webhook_test","description":"Webhook test","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Webhook test","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "login",
        method: HttpMethod::Get,
        path: "/login",
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
        tool_json: r#"{"name":"login","description":"Login","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Login","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"No content","version":"1"},"paths":{"/webhooks/{id}":{"delete":{"operationId":"webhookDelete","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"204":{"description":"Deleted"},"404":{"description":"Not found"}}}},"/webhooks/{id}/test":{"post":{"operationId":"webhookTest","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"202":{"description":"Queued"}}}},"/login":{"get":{"operationId":"login","responses":{"302":{"description":"Redirect to the login page"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"webhook_delete","description":"Webhook delete","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Webhook delete","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true}},{"name":"webhook_test","description":"Webhook test","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Webhook test","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"login","description":"Login","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Login","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`webhook_delete`: DELETE /webhooks/{id}
    WebhookDelete,
    ///`webhook_test`: POST /webhooks/{id}/test
    WebhookTest,
    ///`login`: GET /login
    Login,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::WebhookDelete,
        OperationId::WebhookTest,
        OperationId::Login,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::WebhookDelete => 0,
            OperationId::WebhookTest => 1,
            OperationId::Login => 2,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::WebhookDelete => None,
            OperationId::WebhookTest => None,
            OperationId::Login => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::WebhookDelete => None,
            OperationId::WebhookTest => None,
            OperationId::Login => None,
        }
    }
}
