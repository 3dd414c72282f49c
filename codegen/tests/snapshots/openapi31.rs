/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "create_thing",
        method: HttpMethod::Post,
        path: "/things",
        args: &[
            ArgSpec {
                name: "name",
                wire_name: "name",
                location: ArgLocation::Body,
                required: true,
                admits_null: true,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "kind",
                wire_name: "kind",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "weight",
                wire_name: "weight",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "count",
                wire_name: "count",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "anything",
                wire_name: "anything",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "nothing",
                wire_name: "nothing",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "code",
                wire_name: "code",
                location: ArgLocation::Body,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "level",
                wire_name: "level",
                location: ArgLocation::Body,
                required: false,
                admits_null: true,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "errors",
                wire_name: "errors",
                location: ArgLocation::Body,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "sneaky",
                wire_name: "sneaky",
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
        input_schema: r#"{"type":"object","properties":{"name":{"examples":["Lamp"],"anyOf":[{"type":"string"},{"type":"null"}]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"anyOf":[{"type":"integer","enum":[1,2]},{"type":"null"}]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}},"required":["name","code"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"name":{"examples":["Lamp"],"anyOf":[{"type":"string"},{"type":"null"}]},"kind":{"anyOf":[{"enum":["gadget"]},{"type":"null"}]},"weight":{"anyOf":[{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},{"type":"null"}]},"count":{"anyOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]},"anything":{"anyOf":[{},{"type":"null"}]},"nothing":{"anyOf":[{"not":{}},{"type":"null"}]},"code":{"type":"string"},"level":{"anyOf":[{"type":"integer","enum":[1,2]},{"type":"null"}]},"errors":{"anyOf":[{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},{"type":"null"}]},"sneaky":{"anyOf":[{"type":"object","properties":{"x":{"type":"string"}}},{"type":"null"}]}},"required":["name","code"]}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"data":{"description":"The thing, as stored.","type":"object","required":["name","code"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":["string","null"],"examples":["Lamp"]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"type":["integer","null"],"enum":[null,1,2]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"create_thing","description":"Create a thing","inputSchema":{"type":"object","properties":{"name":{"examples":["Lamp"],"anyOf":[{"type":"string"},{"type":"null"}]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"anyOf":[{"type":"integer","enum":[1,2]},{"type":"null"}]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}},"required":["name","code"]},"outputSchema":{"type":"object","properties":{"data":{"description":"The thing, as stored.","type":"object","required":["name","code"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":["string","null"],"examples":["Lamp"]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"type":["integer","null"],"enum":[null,1,2]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}}}}},"annotations":{"title":"Create a thing","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.1.0","info":{"title":"OpenAPI 3.1 constructs","version":"1"},"paths":{"/things":{"post":{"operationId":"createThing","summary":"Create a thing","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Thing"}}}},"responses":{"201":{"description":"Created","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/Thing","description":"The thing, as stored."}}}}}}}}}},"components":{"schemas":{"Thing":{"type":"object","required":["name"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":["string","null"],"examples":["Lamp","Chair"]},"kind":{"const":"gadget"},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"type":["integer","string"]},"anything":true,"nothing":false,"code":{"type":"string","required":true},"level":{"type":"integer","enum":[null,1,2]},"errors":{"type":"object","items":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","create":{"type":"object"},"properties":{"x":{"type":"string"}}}}}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"create_thing","description":"Create a thing","inputSchema":{"type":"object","properties":{"name":{"examples":["Lamp"],"anyOf":[{"type":"string"},{"type":"null"}]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"anyOf":[{"type":"integer","enum":[1,2]},{"type":"null"}]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}},"required":["name","code"]},"outputSchema":{"type":"object","properties":{"data":{"description":"The thing, as stored.","type":"object","required":["name","code"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":["string","null"],"examples":["Lamp"]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"type":["integer","null"],"enum":[null,1,2]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}}}}},"annotations":{"title":"Create a thing","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`create_thing`: POST /things
    CreateThing,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[OperationId::CreateThing];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::CreateThing => 0,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::CreateThing => {
                Some(
                    r#"{"type":"object","required":["name","code"],"properties":{"name":{"type":["string","null"],"examples":["Lamp"]},"kind":{"enum":["gadget"]},"weight":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1000},"count":{"anyOf":[{"type":"integer"},{"type":"string"}]},"anything":{},"nothing":{"not":{}},"code":{"type":"string"},"level":{"type":["integer","null"],"enum":[null,1,2]},"errors":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},"sneaky":{"type":"object","properties":{"x":{"type":"string"}}}}}"#,
                )
            }
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::CreateThing => None,
        }
    }
}
