/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "post_customers",
        method: HttpMethod::Post,
        path: "/v1/customers",
        args: &[
            ArgSpec {
                name: "idempotency_key",
                wire_name: "Idempotency-Key",
                location: ArgLocation::Header,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "email",
                wire_name: "email",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "metadata",
                wire_name: "metadata",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "status_callback",
                wire_name: "StatusCallback",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Form,
        response: ResponseKind::NoContent,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"idempotency_key":{"type":"string"},"email":{"type":"string"},"metadata":{"type":"object","additionalProperties":{"type":"string"}},"status_callback":{"type":"string","format":"uri"}},"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"idempotency_key":{"anyOf":[{"type":"string"},{"type":"null"}]},"email":{"anyOf":[{"type":"string"},{"type":"null"}]},"metadata":{"anyOf":[{"type":"object","additionalProperties":{"type":"string"}},{"type":"null"}]},"status_callback":{"anyOf":[{"type":"string","format":"uri"},{"type":"null"}]}},"additionalProperties":false}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"post_customers","description":"Post customers","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"},"email":{"type":"string"},"metadata":{"type":"object","additionalProperties":{"type":"string"}},"status_callback":{"type":"string","format":"uri"}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Post customers","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "batch",
        method: HttpMethod::Post,
        path: "/v1/batch",
        args: &[
            ArgSpec {
                name: "body",
                wire_name: "body",
                location: ArgLocation::WholeBody,
                required: true,
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
        input_schema: r#"{"type":"object","properties":{"body":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"}}}}},"required":["body"]}"#,
        strict_input_schema: None,
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"batch","description":"Batch","inputSchema":{"type":"object","properties":{"body":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"}}}}},"required":["body"]},"outputSchema":{"type":"object"},"annotations":{"title":"Batch","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "upload_file",
        method: HttpMethod::Post,
        path: "/v1/files",
        args: &[
            ArgSpec {
                name: "file",
                wire_name: "file",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "purpose",
                wire_name: "purpose",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Form,
        response: ResponseKind::Json,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"file":{"type":"string","format":"binary"},"purpose":{"type":"string"}},"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"file":{"anyOf":[{"type":"string","format":"binary"},{"type":"null"}]},"purpose":{"anyOf":[{"type":"string"},{"type":"null"}]}},"additionalProperties":false}"#,
        ),
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"upload_file","description":"Upload file","inputSchema":{"type":"object","properties":{"file":{"type":"string","format":"binary"},"purpose":{"type":"string"}},"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Upload file","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "replace_file_content",
        method: HttpMethod::Put,
        path: "/v1/files/{id}/content",
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
                name: "body",
                wire_name: "body",
                location: ArgLocation::WholeBody,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::Raw {
            content_type: "application/octet-stream",
        },
        response: ResponseKind::NoContent,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"},"body":{"type":"string","description":"The request body, sent as `application/octet-stream`."}},"required":["id","body"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"replace_file_content","description":"Replace file content","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"body":{"type":"string","description":"The request body, sent as `application/octet-stream`."}},"required":["id","body"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Replace file content","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"Request bodies","version":"1"},"paths":{"/v1/customers":{"post":{"operationId":"PostCustomers","parameters":[{"name":"Idempotency-Key","in":"header","schema":{"type":"string"}},{"name":"Authorization","in":"header","schema":{"type":"string"}},{"name":"session","in":"cookie","schema":{"type":"string"}}],"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":{"type":"object","required":["email"],"properties":{"email":{"type":"string"},"metadata":{"type":"object","additionalProperties":{"type":"string"}},"StatusCallback":{"type":"string","format":"uri"}}}}}}}},"/v1/batch":{"post":{"operationId":"batch","requestBody":{"required":true,"content":{"application/json-patch+json":{"schema":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"}}}}}}},"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/v1/files":{"post":{"operationId":"uploadFile","requestBody":{"required":true,"content":{"multipart/form-data":{"schema":{"type":"object","properties":{"file":{"type":"string","format":"binary"},"purpose":{"type":"string"}}}}}},"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/v1/files/{id}/content":{"put":{"operationId":"replaceFileContent","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"requestBody":{"required":true,"description":"The new bytes.","content":{"application/octet-stream":{"schema":{"type":"string","format":"binary"}}}},"responses":{"204":{"description":"Replaced"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"post_customers","description":"Post customers","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"},"email":{"type":"string"},"metadata":{"type":"object","additionalProperties":{"type":"string"}},"status_callback":{"type":"string","format":"uri"}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Post customers","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"batch","description":"Batch","inputSchema":{"type":"object","properties":{"body":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"}}}}},"required":["body"]},"outputSchema":{"type":"object"},"annotations":{"title":"Batch","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"upload_file","description":"Upload file","inputSchema":{"type":"object","properties":{"file":{"type":"string","format":"binary"},"purpose":{"type":"string"}},"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Upload file","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"replace_file_content","description":"Replace file content","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"body":{"type":"string","description":"The request body, sent as `application/octet-stream`."}},"required":["id","body"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Replace file content","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`post_customers`: POST /v1/customers
    PostCustomers,
    ///`batch`: POST /v1/batch
    Batch,
    ///`upload_file`: POST /v1/files
    UploadFile,
    ///`replace_file_content`: PUT /v1/files/{id}/content
    ReplaceFileContent,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::PostCustomers,
        OperationId::Batch,
        OperationId::UploadFile,
        OperationId::ReplaceFileContent,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::PostCustomers => 0,
            OperationId::Batch => 1,
            OperationId::UploadFile => 2,
            OperationId::ReplaceFileContent => 3,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::PostCustomers => None,
            OperationId::Batch => {
                Some(
                    r#"{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"},"path":{"type":"string"}}}}"#,
                )
            }
            OperationId::UploadFile => None,
            OperationId::ReplaceFileContent => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::PostCustomers => None,
            OperationId::Batch => None,
            OperationId::UploadFile => None,
            OperationId::ReplaceFileContent => None,
        }
    }
}
