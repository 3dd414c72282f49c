/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "todo_list",
        method: HttpMethod::Get,
        path: "/todos",
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
            r#"{"type":"object","properties":{"data":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"todo_list","description":"List the todos","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}}}}},"annotations":{"title":"List the todos","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"ui":{"resourceUri":"ui://app/board","visibility":["model","app"]}}}"#,
    },
    ToolSpec {
        name: "todo_get",
        method: HttpMethod::Get,
        path: "/todos/{id}",
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
            r#"{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"todo_get","description":"Get a todo","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}},"annotations":{"title":"Get a todo","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"ui":{"resourceUri":"ui://app/todo","visibility":["model","app"]}}}"#,
    },
    ToolSpec {
        name: "todo_delete",
        method: HttpMethod::Delete,
        path: "/todos/{id}",
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
        confirm: Some("Delete a todo: this may not be reversible. Proceed?"),
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"todo_delete","description":"Delete a todo","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Delete a todo","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true,"ui":{"resourceUri":"ui://app/board","visibility":["app"]}}}"#,
    },
];
/// The toolsets a connection chooses tools by, in the document's order.
pub static TOOLSETS: &[ToolsetSpec] = &[];
/// Resources with a fixed URI.
pub static RESOURCES: &[ResourceSpec] = &[
    ResourceSpec {
        uri: "ui://app/board",
        name: "board",
        title: "Todo board",
        description: "Interactive view (MCP Apps) of the results of `todo_list`, `todo_delete`.",
        mime_type: "text/html;profile=mcp-app",
        tool: "",
        text: Some(
            r#"<!doctype html>
<html lang="en">
<head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-ZRuJa6c12wVhytcV0w7su+uyuAxr3YJ2kuWGscD/wVU='; style-src 'none'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'"><meta charset="utf-8"><title>Todo board</title></head>
<body>
<ul id="todos"></ul>
<script>
  // The host hands the tool's result over postMessage (ui/notifications/tool-result).
  window.addEventListener("message", (event) => {
    const todos = event.data?.params?.structuredContent?.data ?? [];
    document.getElementById("todos").replaceChildren(
      ...todos.map((todo) => Object.assign(document.createElement("li"), { textContent: todo.title })),
    );
  });
</script>
</body>
</html>
"#,
        ),
        json: r#"{"uri":"ui://app/board","name":"board","title":"Todo board","description":"Interactive view (MCP Apps) of the results of `todo_list`, `todo_delete`.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}}"#,
    },
    ResourceSpec {
        uri: "ui://app/todo",
        name: "todo",
        title: "todo",
        description: "Interactive view (MCP Apps) of the results of `todo_get`.",
        mime_type: "text/html;profile=mcp-app",
        tool: "",
        text: Some(
            r#"<!doctype html>
<html lang="en"><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'none'; style-src 'none'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'"><meta charset="utf-8"></head><body><p id="title"></p></body></html>
"#,
        ),
        json: r#"{"uri":"ui://app/todo","name":"todo","title":"todo","description":"Interactive view (MCP Apps) of the results of `todo_get`.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"permissions":{"clipboardWrite":{}},"prefersBorder":false}}}"#,
    },
];
/// Resource templates (URIs with `{variables}`).
pub static RESOURCE_TEMPLATES: &[ResourceSpec] = &[];
/// Prompts, in `prompts/list` order.
pub static PROMPTS: &[PromptSpec] = &[];
/// The server's `instructions`.
pub static INSTRUCTIONS: &str = r#"Test instructions: the organization comes from the token."#;
/// The OpenAPI document the tables were generated from, as compact JSON.
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.0.3","info":{"title":"Todo list with views","version":"1"},"x-mcp":{"tool_prefix":"todo_"},"paths":{"/todos":{"get":{"operationId":"list","summary":"List the todos","x-mcp":{"ui":{"template":"board.html"}},"responses":{"200":{"description":"The todos","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":{"$ref":"#/components/schemas/Todo"}}}}}}}}}},"/todos/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"get":{"operationId":"get","summary":"Get a todo","x-mcp":{"ui":{"template":"todo.html","visibility":["model","app"],"prefers_border":false,"permissions":["clipboard_write"]}},"responses":{"200":{"description":"The todo","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Todo"}}}}}},"delete":{"operationId":"delete","summary":"Delete a todo","x-mcp":{"ui":{"template":"board.html","visibility":["app"]}},"responses":{"204":{"description":"Deleted"}}}}},"components":{"schemas":{"Todo":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"todo_list","description":"List the todos","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}}}}},"annotations":{"title":"List the todos","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"ui":{"resourceUri":"ui://app/board","visibility":["model","app"]}}},{"name":"todo_get","description":"Get a todo","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"done":{"type":"boolean"}}},"annotations":{"title":"Get a todo","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"ui":{"resourceUri":"ui://app/todo","visibility":["model","app"]}}},{"name":"todo_delete","description":"Delete a todo","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer","const":204}},"required":["status"]},"annotations":{"title":"Delete a todo","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},"_meta":{"anthropic/requiresUserInteraction":true,"ui":{"resourceUri":"ui://app/board","visibility":["app"]}}}],"resourceTemplates":[],"resources":[{"uri":"ui://app/board","name":"board","title":"Todo board","description":"Interactive view (MCP Apps) of the results of `todo_list`, `todo_delete`.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}},{"uri":"ui://app/todo","name":"todo","title":"todo","description":"Interactive view (MCP Apps) of the results of `todo_get`.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"permissions":{"clipboardWrite":{}},"prefersBorder":false}}}]}"#;
/// All of the above, as the MCP layer takes it.
pub static CATALOG: Catalog = Catalog {
    tool_prefix: r#"todo_"#,
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
    ///`todo_list`: GET /todos
    List,
    ///`todo_get`: GET /todos/{id}
    Get,
    ///`todo_delete`: DELETE /todos/{id}
    Delete,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::List,
        OperationId::Get,
        OperationId::Delete,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::List => 0,
            OperationId::Get => 1,
            OperationId::Delete => 2,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::List => None,
            OperationId::Get => None,
            OperationId::Delete => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::List => None,
            OperationId::Get => None,
            OperationId::Delete => None,
        }
    }
}
