/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "list_pets",
        method: HttpMethod::Get,
        path: "/pets",
        args: &[
            ArgSpec {
                name: "limit",
                wire_name: "limit",
                location: ArgLocation::Query,
                required: false,
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
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}},"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"limit":{"anyOf":[{"type":"integer","minimum":1,"maximum":100},{"type":"null"}]}},"additionalProperties":false}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}}},"required":["result"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"list_pets","description":"List pets","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}}},"required":["result"]},"annotations":{"title":"List pets","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "create_pet",
        method: HttpMethod::Post,
        path: "/pets",
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
                name: "owner_id",
                wire_name: "owner_id",
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
        input_schema: r#"{"type":"object","properties":{"name":{"type":"string"},"owner_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["name"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"name":{"type":"string"},"owner_id":{"anyOf":[{"type":"string","pattern":"^pet_[a-z0-9]+$"},{"type":"null"}]}},"required":["name"]}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}"#,
        ),
        shared_output: Some(SharedOutput {
            like: "get_pet",
            output_schema: r#"{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","description":"Same as `owner` of get_pet."},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}"#,
        }),
        tool_json: r#"{"name":"create_pet","description":"Create pet","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"owner_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["name"]},"outputSchema":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}},"annotations":{"title":"Create pet","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "get_pet",
        method: HttpMethod::Get,
        path: "/pets/{petId}",
        args: &[
            ArgSpec {
                name: "pet_id",
                wire_name: "petId",
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
        input_schema: r#"{"type":"object","properties":{"pet_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["pet_id"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(
            r#"{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"get_pet","description":"Get pet","inputSchema":{"type":"object","properties":{"pet_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["pet_id"],"additionalProperties":false},"outputSchema":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}},"annotations":{"title":"Get pet","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "health",
        method: HttpMethod::Get,
        path: "/health",
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
        tool_json: r#"{"name":"health","description":"Health","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Health","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r##"{"openapi":"3.0.3","info":{"title":"multi-file pets","version":"1"},"paths":{"/pets":{"get":{"operationId":"listPets","parameters":[{"$ref":"#/components/parameters/limit"}],"responses":{"200":{"description":"the pets","headers":{"X-Total":{"$ref":"#/components/headers/X-Total"}},"content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}}}}},"post":{"operationId":"createPet","requestBody":{"$ref":"#/components/requestBodies/NewPet"},"responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}},"/pets/{petId}":{"parameters":[{"name":"petId","in":"path","required":true,"schema":{"$ref":"#/components/schemas/PetId"}}],"get":{"operationId":"getPet","responses":{"200":{"description":"the pet","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},"404":{"$ref":"#/components/responses/NotFound"}}}},"/health":{"get":{"operationId":"health","responses":{"200":{"$ref":"#/components/responses/Ok"}}}}},"components":{"schemas":{"Tag":{"type":"object","properties":{"label":{"type":"string"}}},"PetId":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"Owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}},"Pet":{"type":"object","required":["id","name"],"properties":{"id":{"$ref":"#/components/schemas/PetId"},"name":{"type":"string"},"owner":{"$ref":"#/components/schemas/Owner"},"tags":{"type":"array","items":{"$ref":"#/components/schemas/Tag"}}}},"AnyId":{"$ref":"#/components/schemas/PetId"},"Problem":{"type":"object","properties":{"title":{"type":"string"}}}},"parameters":{"limit":{"name":"limit","in":"query","schema":{"type":"integer","minimum":1,"maximum":100}}},"headers":{"X-Total":{"description":"how many pets there are","schema":{"type":"integer"}}},"requestBodies":{"NewPet":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"owner_id":{"$ref":"#/components/schemas/AnyId"}}}}}}},"responses":{"NotFound":{"description":"no such pet","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Problem"}}}},"Ok":{"description":"fine"}}}}"##;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"list_pets","description":"List pets","inputSchema":{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}}},"required":["result"]},"annotations":{"title":"List pets","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"create_pet","description":"Create pet","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"owner_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["name"]},"outputSchema":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}},"annotations":{"title":"Create pet","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},{"name":"get_pet","description":"Get pet","inputSchema":{"type":"object","properties":{"pet_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}},"required":["pet_id"],"additionalProperties":false},"outputSchema":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","pattern":"^pet_[a-z0-9]+$"},"name":{"type":"string"},"owner":{"type":"object","properties":{"name":{"type":"string"},"pets":{"type":"array","items":{"type":"object","description":"A `Pet`, the same schema as an enclosing value: not expanded again (recursive schema)."}}}},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}},"annotations":{"title":"Get pet","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"health","description":"Health","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"status":{"type":"integer"}},"required":["status"]},"annotations":{"title":"Health","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[],"sharedOutputs":{"create_pet":"get_pet"}}"#;
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
    ///`list_pets`: GET /pets
    ListPets,
    ///`create_pet`: POST /pets
    CreatePet,
    ///`get_pet`: GET /pets/{petId}
    GetPet,
    ///`health`: GET /health
    Health,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::ListPets,
        OperationId::CreatePet,
        OperationId::GetPet,
        OperationId::Health,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::ListPets => 0,
            OperationId::CreatePet => 1,
            OperationId::GetPet => 2,
            OperationId::Health => 3,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::ListPets => None,
            OperationId::CreatePet => {
                Some(
                    r#"{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"owner_id":{"type":"string","pattern":"^pet_[a-z0-9]+$"}}}"#,
                )
            }
            OperationId::GetPet => None,
            OperationId::Health => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::ListPets => {
                Some(
                    r#"{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}},"additionalProperties":false}"#,
                )
            }
            OperationId::CreatePet => None,
            OperationId::GetPet => None,
            OperationId::Health => None,
        }
    }
}
