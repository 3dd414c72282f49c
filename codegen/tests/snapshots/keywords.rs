/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "library_books_search",
        method: HttpMethod::Get,
        path: "/books",
        args: &[
            ArgSpec {
                name: "q",
                wire_name: "q",
                location: ArgLocation::Query,
                required: false,
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
        toolset: "books",
        keywords: &["find a book", "livro", "acervo", "título", "autor", "ISBN"],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"q":{"anyOf":[{"type":"string"},{"type":"null"}]}},"additionalProperties":false}"#,
        ),
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"library_books_search","description":"Search the catalogue","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Search the catalogue","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "library_loans_create",
        method: HttpMethod::Post,
        path: "/loans",
        args: &[
            ArgSpec {
                name: "book_id",
                wire_name: "book_id",
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
        toolset: "loans",
        keywords: &["borrow", "check out", "empréstimo", "emprestar", "retirar"],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"book_id":{"type":"string"}}}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"book_id":{"anyOf":[{"type":"string"},{"type":"null"}]}}}"#,
        ),
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"library_loans_create","description":"Lend a book","inputSchema":{"type":"object","properties":{"book_id":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"title":"Lend a book","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "library_loans_return",
        method: HttpMethod::Post,
        path: "/loans/{id}/return",
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
        toolset: "loans",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"library_loans_return","description":"Take a book back","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Take a book back","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[
    ToolsetSpec {
        name: "books",
        description: "The operations tagged `books`.",
        always: false,
    },
    ToolsetSpec {
        name: "loans",
        description: "The operations tagged `loans`.",
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.1.0","info":{"title":"Library","version":"1"},"x-mcp":{"tool_prefix":"library_"},"paths":{"/books":{"get":{"operationId":"books_search","summary":"Search the catalogue","tags":["books"],"parameters":[{"name":"q","in":"query","schema":{"type":"string"}}],"x-mcp":{"keywords":["find a book","livro","acervo","título","autor","ISBN"]},"responses":{"200":{"description":"Books","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/loans":{"post":{"operationId":"loans_create","summary":"Lend a book","tags":["loans"],"x-mcp":{"keywords":["borrow","check out","empréstimo","emprestar","retirar"]},"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"book_id":{"type":"string"}},"required":["book_id"]}}}},"responses":{"201":{"description":"Lent","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/loans/{id}/return":{"post":{"operationId":"loans_return","summary":"Take a book back","tags":["loans"],"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"Returned"}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"library_books_search","description":"Search the catalogue","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Search the catalogue","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"library_loans_create","description":"Lend a book","inputSchema":{"type":"object","properties":{"book_id":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"title":"Lend a book","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"library_loans_return","description":"Take a book back","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Take a book back","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[],"toolsets":[{"name":"books","description":"The operations tagged `books`.","tools":["library_books_search"]},{"name":"loans","description":"The operations tagged `loans`.","tools":["library_loans_create","library_loans_return"]}],"keywords":{"library_books_search":["find a book","livro","acervo","título","autor","ISBN"],"library_loans_create":["borrow","check out","empréstimo","emprestar","retirar"]}}"#;
/// All of the above, as the MCP layer takes it.
pub static CATALOG: Catalog = Catalog {
    tool_prefix: r#"library_"#,
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
    ///`library_books_search`: GET /books
    BooksSearch,
    ///`library_loans_create`: POST /loans
    LoansCreate,
    ///`library_loans_return`: POST /loans/{id}/return
    LoansReturn,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::BooksSearch,
        OperationId::LoansCreate,
        OperationId::LoansReturn,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::BooksSearch => 0,
            OperationId::LoansCreate => 1,
            OperationId::LoansReturn => 2,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::BooksSearch => None,
            OperationId::LoansCreate => {
                Some(
                    r#"{"type":"object","properties":{"book_id":{"type":"string"}},"required":["book_id"]}"#,
                )
            }
            OperationId::LoansReturn => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::BooksSearch => {
                Some(
                    r#"{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}"#,
                )
            }
            OperationId::LoansCreate => None,
            OperationId::LoansReturn => None,
        }
    }
}
