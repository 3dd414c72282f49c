/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "demo_me",
        method: HttpMethod::Get,
        path: "/v1/me",
        args: &[],
        body: BodyEncoding::None,
        response: ResponseKind::Json,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &["me:read", "org:read"],
        toolset: "",
        keywords: &[],
        resource_uri: Some("demo://me"),
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"organization":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_me","description":"Who is this token","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"organization":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}}}},"annotations":{"title":"Who is this token","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/maxResultSizeChars":20000}}"#,
    },
    ToolSpec {
        name: "demo_charges_get",
        method: HttpMethod::Get,
        path: "/v1/charges/{id}",
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
        scopes: &["read"],
        toolset: "",
        keywords: &[],
        resource_uri: Some("demo://charges/{id}"),
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string","description":"Charge id."}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"data":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charges_get","description":"Get a charge","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Charge id."}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}}}},"annotations":{"title":"Get a charge","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "demo_charges_delete",
        method: HttpMethod::Delete,
        path: "/v1/charges/{id}",
        args: &[
            ArgSpec {
                name: "id",
                wire_name: "id",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "if_match",
                wire_name: "If-Match",
                location: ArgLocation::Header,
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
        confirm: Some("Delete charge {id}? This cannot be undone."),
        scopes: &["read"],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string","description":"Charge id."},"if_match":{"type":"string"}},"required":["id","if_match"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charges_delete","description":"Delete a charge","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Charge id."},"if_match":{"type":"string"}},"required":["id","if_match"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Delete a charge","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true}}"#,
    },
    ToolSpec {
        name: "demo_charges_notify",
        method: HttpMethod::Post,
        path: "/v1/charges/{id}/notify",
        args: &[
            ArgSpec {
                name: "id",
                wire_name: "id",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "idempotency_key",
                wire_name: "Idempotency-Key",
                location: ArgLocation::Header,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "channel",
                wire_name: "channel",
                location: ArgLocation::Body,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "message_id",
                wire_name: "id",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Json,
        response: ResponseKind::Json,
        read_only: false,
        destructive: true,
        server_idempotency_key: true,
        confirm: Some("Send a {channel} message about charge {id} to the debtor?"),
        scopes: &["read"],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"},"idempotency_key":{"type":"string","maxLength":255},"channel":{"type":"string","enum":["email","sms","whatsapp"]},"message_id":{"type":"string","description":"Client-chosen message id."}},"required":["id","channel"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"id":{"type":"string"},"idempotency_key":{"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]},"channel":{"type":"string","enum":["email","sms","whatsapp"]},"message_id":{"description":"Client-chosen message id.","anyOf":[{"type":"string"},{"type":"null"}]}},"required":["id","channel"]}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charges_notify","description":"Notify the debtor","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"idempotency_key":{"type":"string","maxLength":255},"channel":{"type":"string","enum":["email","sms","whatsapp"]},"message_id":{"type":"string","description":"Client-chosen message id."}},"required":["id","channel"]},"outputSchema":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}},"annotations":{"title":"Notify the debtor","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true},"_meta":{"anthropic/requiresUserInteraction":true,"demo/category":"outbound"}}"#,
    },
    ToolSpec {
        name: "demo_charge_preview",
        method: HttpMethod::Post,
        path: "/v1/charges/{id}/preview",
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
        response: ResponseKind::JsonWrapped,
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &["read"],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"result":{"type":"string"}},"required":["result"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"demo_charge_preview","description":"Preview the message","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"string"}},"required":["result"]},"annotations":{"title":"Preview the message","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[
    ResourceSpec {
        uri: "demo://me",
        name: "demo_me",
        title: "Who is this token",
        description: "Who is this token",
        mime_type: "application/json",
        tool: "demo_me",
        text: None,
        json: r#"{"uri":"demo://me","name":"demo_me","title":"Who is this token","description":"Who is this token","mimeType":"application/json"}"#,
    },
];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[
    ResourceSpec {
        uri: "demo://charges/{id}",
        name: "charge",
        title: "Get a charge",
        description: "Get a charge",
        mime_type: "application/json",
        tool: "demo_charges_get",
        text: None,
        json: r#"{"uriTemplate":"demo://charges/{id}","name":"charge","title":"Get a charge","description":"Get a charge","mimeType":"application/json"}"#,
    },
];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.0.3","info":{"title":"x-mcp overrides","version":"1"},"x-mcp":{"tool_prefix":"demo_","resource_scheme":"demo"},"security":[{"oauth":["read"]}],"paths":{"/v1/me":{"get":{"operationId":"me","summary":"Who is this token","security":[{"oauth":["me:read"],"apiKey":["me:read","org:read"]},{"basic":[]}],"x-mcp":{"resource":"demo://me","max_result_chars":20000},"responses":{"200":{"description":"The caller","content":{"application/json":{"schema":{"type":"object","additionalProperties":false,"properties":{"organization":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}}}}}}}}}},"/v1/charges/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"},"description":"Charge id."}],"get":{"operationId":"charges_get","summary":"Get a charge","x-mcp":{"resource":"demo://charges/{id}","resource_name":"charge"},"responses":{"200":{"description":"The charge","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/Charge"}}}}}}}},"delete":{"operationId":"charges_delete","summary":"Delete a charge","parameters":[{"name":"If-Match","in":"header","required":true,"schema":{"type":"string"}}],"x-mcp":{"confirm":"Delete charge {id}? This cannot be undone."},"responses":{"204":{"description":"Deleted"}}}},"/v1/charges/{id}/notify":{"post":{"operationId":"charges_notify","summary":"Notify the debtor","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}},{"name":"Idempotency-Key","in":"header","schema":{"type":"string","maxLength":255}}],"x-mcp":{"destructive":true,"idempotent":false,"open_world":true,"server_idempotency_key":true,"confirm":"Send a {channel} message about charge {id} to the debtor?","meta":{"demo/category":"outbound"},"rename":{"body.id":"message_id"}},"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["channel"],"properties":{"channel":{"type":"string","enum":["email","sms","whatsapp"]},"id":{"type":"string","description":"Client-chosen message id."}}}}}},"responses":{"202":{"description":"Queued","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Charge"}}}}}}},"/v1/charges/{id}/preview":{"post":{"operationId":"charges_preview_message","summary":"Preview the message","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"x-mcp":{"name":"charge_preview","read_only":true},"responses":{"200":{"description":"The text","content":{"application/json":{"schema":{"type":"string"}}}}}}},"/v1/internal/reindex":{"post":{"operationId":"reindex","x-mcp":{"exclude":true},"responses":{"204":{"description":"Done"}}}}},"components":{"schemas":{"Charge":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","minimum":0,"exclusiveMinimum":true,"example":10.5},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":"string","nullable":true}}}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"demo_me","description":"Who is this token","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"organization":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}}}},"annotations":{"title":"Who is this token","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/maxResultSizeChars":20000}},{"name":"demo_charges_get","description":"Get a charge","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Charge id."}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}}}},"annotations":{"title":"Get a charge","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"demo_charges_delete","description":"Delete a charge","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Charge id."},"if_match":{"type":"string"}},"required":["id","if_match"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Delete a charge","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true}},{"name":"demo_charges_notify","description":"Notify the debtor","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"idempotency_key":{"type":"string","maxLength":255},"channel":{"type":"string","enum":["email","sms","whatsapp"]},"message_id":{"type":"string","description":"Client-chosen message id."}},"required":["id","channel"]},"outputSchema":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"string","readOnly":true},"amount":{"type":"number","exclusiveMinimum":0,"examples":[10.5]},"status":{"type":"string","enum":["open","paid","canceled"]},"customer_id":{"type":["string","null"]}}},"annotations":{"title":"Notify the debtor","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true},"_meta":{"anthropic/requiresUserInteraction":true,"demo/category":"outbound"}},{"name":"demo_charge_preview","description":"Preview the message","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"string"}},"required":["result"]},"annotations":{"title":"Preview the message","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[{"uriTemplate":"demo://charges/{id}","name":"charge","title":"Get a charge","description":"Get a charge","mimeType":"application/json"}],"resources":[{"uri":"demo://me","name":"demo_me","title":"Who is this token","description":"Who is this token","mimeType":"application/json"}]}"#;
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
    ///`demo_me`: GET /v1/me
    Me,
    ///`demo_charges_get`: GET /v1/charges/{id}
    ChargesGet,
    ///`demo_charges_delete`: DELETE /v1/charges/{id}
    ChargesDelete,
    ///`demo_charges_notify`: POST /v1/charges/{id}/notify
    ChargesNotify,
    ///`demo_charge_preview`: POST /v1/charges/{id}/preview
    ChargePreview,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::Me,
        OperationId::ChargesGet,
        OperationId::ChargesDelete,
        OperationId::ChargesNotify,
        OperationId::ChargePreview,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::Me => 0,
            OperationId::ChargesGet => 1,
            OperationId::ChargesDelete => 2,
            OperationId::ChargesNotify => 3,
            OperationId::ChargePreview => 4,
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
            OperationId::ChargesGet => None,
            OperationId::ChargesDelete => None,
            OperationId::ChargesNotify => {
                Some(
                    r#"{"type":"object","required":["channel"],"properties":{"channel":{"type":"string","enum":["email","sms","whatsapp"]},"id":{"type":"string","description":"Client-chosen message id."}}}"#,
                )
            }
            OperationId::ChargePreview => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Me => None,
            OperationId::ChargesGet => None,
            OperationId::ChargesDelete => None,
            OperationId::ChargesNotify => None,
            OperationId::ChargePreview => None,
        }
    }
}
