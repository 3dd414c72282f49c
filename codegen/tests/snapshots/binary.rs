/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "files_statement",
        method: HttpMethod::Get,
        path: "/statements/{id}.pdf",
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
        response: ResponseKind::Binary {
            content_type: "application/pdf",
        },
        read_only: true,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: Some("demo://statements/{id}.pdf"),
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"files_statement","description":"Debtor statement","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]},"annotations":{"title":"Debtor statement","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "files_export_download",
        method: HttpMethod::Get,
        path: "/exports/{id}/download",
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
        response: ResponseKind::Binary {
            content_type: "text/csv",
        },
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
            r#"{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"files_export_download","description":"Export download","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]},"annotations":{"title":"Export download","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[
    ResourceSpec {
        uri: "demo://statements/{id}.pdf",
        name: "files_statement",
        title: "Debtor statement",
        description: "Debtor statement",
        mime_type: "application/pdf",
        tool: "files_statement",
        text: None,
        json: r#"{"uriTemplate":"demo://statements/{id}.pdf","name":"files_statement","title":"Debtor statement","description":"Debtor statement","mimeType":"application/pdf"}"#,
    },
];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"Binary responses","version":"1"},"x-mcp":{"tool_prefix":"files_"},"paths":{"/statements/{id}.pdf":{"get":{"operationId":"statement","summary":"Debtor statement","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"x-mcp":{"resource":"demo://statements/{id}.pdf"},"responses":{"200":{"description":"The statement","content":{"application/pdf":{"schema":{"type":"string","format":"binary"}}}}}}},"/exports/{id}/download":{"get":{"operationId":"exportDownload","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"CSV or a spreadsheet","content":{"text/csv":{"schema":{"type":"string"}},"application/vnd.ms-excel":{"schema":{"type":"string","format":"binary"}}}}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"files_statement","description":"Debtor statement","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]},"annotations":{"title":"Debtor statement","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"files_export_download","description":"Export download","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"content_type":{"type":"string","description":"Media type of the file."},"byte_size":{"type":"integer","minimum":0,"description":"Size of the file in bytes."},"download_path":{"type":"string","description":"Path of the file on the REST API."},"resource_uri":{"type":"string","description":"URI of the MCP resource that serves the file, when there is one."},"note":{"type":"string","description":"What the file is and how to get it."}},"required":["content_type","byte_size","download_path","note"]},"annotations":{"title":"Export download","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[{"uriTemplate":"demo://statements/{id}.pdf","name":"files_statement","title":"Debtor statement","description":"Debtor statement","mimeType":"application/pdf"}],"resources":[]}"#;
/// All of the above, as the MCP layer takes it.
pub static CATALOG: Catalog = Catalog {
    tool_prefix: r#"files_"#,
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
    ///`files_statement`: GET /statements/{id}.pdf
    Statement,
    ///`files_export_download`: GET /exports/{id}/download
    ExportDownload,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::Statement,
        OperationId::ExportDownload,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::Statement => 0,
            OperationId::ExportDownload => 1,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Statement => None,
            OperationId::ExportDownload => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::Statement => None,
            OperationId::ExportDownload => None,
        }
    }
}
