/// One entry per operation, in `tools/list` order: the MCP tools, and the operations
/// that serve prompts (`ResponseKind::PromptResult`, never listed as tools).
pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "get_v2_charge_automatic_pix_recurrences_recurrence_uid_requests",
        method: HttpMethod::Get,
        path: "/v2/charge/automatic_pix/recurrences/{recurrence_uid}/requests",
        args: &[
            ArgSpec {
                name: "recurrence_uid",
                wire_name: "recurrence_uid",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "page",
                wire_name: "page",
                location: ArgLocation::Query,
                required: false,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "status",
                wire_name: "status",
                location: ArgLocation::Query,
                required: false,
                admits_null: false,
                style: QueryStyle::FormJoined,
            },
            ArgSpec {
                name: "created",
                wire_name: "created",
                location: ArgLocation::Query,
                required: false,
                admits_null: false,
                style: QueryStyle::DeepObject,
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
        input_schema: r#"{"type":"object","properties":{"recurrence_uid":{"type":"string"},"page":{"type":"integer","default":1},"status":{"type":"array","items":{"type":"string"}},"created":{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}}},"required":["recurrence_uid"],"additionalProperties":false}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"recurrence_uid":{"type":"string"},"page":{"default":1,"anyOf":[{"type":"integer"},{"type":"null"}]},"status":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"created":{"anyOf":[{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}},{"type":"null"}]}},"required":["recurrence_uid"],"additionalProperties":false}"#,
        ),
        output_schema: Some(
            r#"{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","properties":{"uid":{"type":"string"}}}}},"required":["result"]}"#,
        ),
        shared_output: None,
        tool_json: r#"{"name":"get_v2_charge_automatic_pix_recurrences_recurrence_uid_requests","description":"Get v2 charge automatic pix recurrences recurrence uid requests","inputSchema":{"type":"object","properties":{"recurrence_uid":{"type":"string"},"page":{"type":"integer","default":1},"status":{"type":"array","items":{"type":"string"}},"created":{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}}},"required":["recurrence_uid"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","properties":{"uid":{"type":"string"}}}}},"required":["result"]},"annotations":{"title":"Get v2 charge automatic pix recurrences recurrence uid requests","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "put_v2_financial_accounts_account_uid_statements_transact_d69957",
        method: HttpMethod::Put,
        path: "/v2/financial/accounts/{account_uid}/statements/transactions/reconciliations/pending/{transaction_uid}",
        args: &[
            ArgSpec {
                name: "account_uid",
                wire_name: "account_uid",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
            ArgSpec {
                name: "transaction_uid",
                wire_name: "transaction_uid",
                location: ArgLocation::Path,
                required: true,
                admits_null: false,
                style: QueryStyle::FormExploded,
            },
        ],
        body: BodyEncoding::None,
        response: ResponseKind::Json,
        read_only: false,
        destructive: false,
        server_idempotency_key: false,
        confirm: None,
        scopes: &[],
        toolset: "",
        keywords: &[],
        resource_uri: None,
        input_schema: r#"{"type":"object","properties":{"account_uid":{"type":"string"},"transaction_uid":{"type":"string"}},"required":["account_uid","transaction_uid"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"put_v2_financial_accounts_account_uid_statements_transact_d69957","description":"Put v2 financial accounts account uid statements transact d69957","inputSchema":{"type":"object","properties":{"account_uid":{"type":"string"},"transaction_uid":{"type":"string"}},"required":["account_uid","transaction_uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Put v2 financial accounts account uid statements transact d69957","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "get_charge_full",
        method: HttpMethod::Get,
        path: "/v2/charges/{uid}",
        args: &[
            ArgSpec {
                name: "uid",
                wire_name: "uid",
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
        input_schema: r#"{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"get_charge_full","description":"Get charge full","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Get charge full","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
    },
    ToolSpec {
        name: "get_charge_full_2",
        method: HttpMethod::Get,
        path: "/v2/charges/{uid}/full",
        args: &[
            ArgSpec {
                name: "uid",
                wire_name: "uid",
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
        input_schema: r#"{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false}"#,
        strict_input_schema: None,
        output_schema: Some(r#"{"type":"object"}"#),
        shared_output: None,
        tool_json: r#"{"name":"get_charge_full_2","description":"Get charge full 2","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Get charge full 2","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#,
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
pub static OPENAPI_JSON: &str = r#"{"openapi":"3.0.3","info":{"title":"No operationId","version":"1"},"paths":{"/v2/charge/automatic_pix/recurrences/{recurrence_uid}/requests":{"get":{"parameters":[{"name":"recurrence_uid","in":"path","required":true,"schema":{"type":"string"}},{"name":"page","in":"query","schema":{"type":"integer","default":1}},{"name":"status","in":"query","explode":false,"schema":{"type":"array","items":{"type":"string"}}},{"name":"created","in":"query","style":"deepObject","schema":{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}}}],"responses":{"200":{"description":"A page","content":{"application/json":{"schema":{"type":"array","items":{"type":"object","properties":{"uid":{"type":"string"}}}}}}}}}},"/v2/financial/accounts/{account_uid}/statements/transactions/reconciliations/pending/{transaction_uid}":{"put":{"parameters":[{"name":"account_uid","in":"path","required":true,"schema":{"type":"string"}},{"name":"transaction_uid","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"Done","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/v2/charges/{uid}":{"get":{"operationId":"get_charge#full","parameters":[{"name":"uid","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},"/v2/charges/{uid}/full":{"get":{"operationId":"get_charge-full","parameters":[{"name":"uid","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}"#;
/// The whole catalog (`tools`, `resourceTemplates`, `resources`) as compact JSON.
pub static CATALOG_JSON: &str = r#"{"tools":[{"name":"get_v2_charge_automatic_pix_recurrences_recurrence_uid_requests","description":"Get v2 charge automatic pix recurrences recurrence uid requests","inputSchema":{"type":"object","properties":{"recurrence_uid":{"type":"string"},"page":{"type":"integer","default":1},"status":{"type":"array","items":{"type":"string"}},"created":{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}}},"required":["recurrence_uid"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","properties":{"uid":{"type":"string"}}}}},"required":["result"]},"annotations":{"title":"Get v2 charge automatic pix recurrences recurrence uid requests","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"put_v2_financial_accounts_account_uid_statements_transact_d69957","description":"Put v2 financial accounts account uid statements transact d69957","inputSchema":{"type":"object","properties":{"account_uid":{"type":"string"},"transaction_uid":{"type":"string"}},"required":["account_uid","transaction_uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Put v2 financial accounts account uid statements transact d69957","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"get_charge_full","description":"Get charge full","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Get charge full","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},{"name":"get_charge_full_2","description":"Get charge full 2","inputSchema":{"type":"object","properties":{"uid":{"type":"string"}},"required":["uid"],"additionalProperties":false},"outputSchema":{"type":"object"},"annotations":{"title":"Get charge full 2","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}],"resourceTemplates":[],"resources":[]}"#;
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
    ///`get_v2_charge_automatic_pix_recurrences_recurrence_uid_requests`: GET /v2/charge/automatic_pix/recurrences/{recurrence_uid}/requests
    GetV2ChargeAutomaticPixRecurrencesRecurrenceUidRequests,
    ///`put_v2_financial_accounts_account_uid_statements_transact_d69957`: PUT /v2/financial/accounts/{account_uid}/statements/transactions/reconciliations/pending/{transaction_uid}
    PutV2FinancialAccountsAccountUidStatementsTransactD69957,
    ///`get_charge_full`: GET /v2/charges/{uid}
    GetChargeFull,
    ///`get_charge_full_2`: GET /v2/charges/{uid}/full
    GetChargeFull2,
}
#[allow(dead_code)]
impl OperationId {
    /// Every operation, in `TOOLS` order.
    pub const ALL: &'static [OperationId] = &[
        OperationId::GetV2ChargeAutomaticPixRecurrencesRecurrenceUidRequests,
        OperationId::PutV2FinancialAccountsAccountUidStatementsTransactD69957,
        OperationId::GetChargeFull,
        OperationId::GetChargeFull2,
    ];
    /// The position of the operation in `TOOLS` (and in `ALL`).
    pub fn index(self) -> usize {
        match self {
            OperationId::GetV2ChargeAutomaticPixRecurrencesRecurrenceUidRequests => 0,
            OperationId::PutV2FinancialAccountsAccountUidStatementsTransactD69957 => 1,
            OperationId::GetChargeFull => 2,
            OperationId::GetChargeFull2 => 3,
        }
    }
    /// The operation's entry in `TOOLS`.
    pub fn tool(self) -> &'static ToolSpec {
        &TOOLS[self.index()]
    }
    /// The JSON request body's schema as the document states it (JSON Schema 2020-12).
    pub fn body_schema(self) -> Option<&'static str> {
        match self {
            OperationId::GetV2ChargeAutomaticPixRecurrencesRecurrenceUidRequests => None,
            OperationId::PutV2FinancialAccountsAccountUidStatementsTransactD69957 => None,
            OperationId::GetChargeFull => None,
            OperationId::GetChargeFull2 => None,
        }
    }
    /// The query parameters as one object schema, by wire name (JSON Schema 2020-12).
    pub fn query_schema(self) -> Option<&'static str> {
        match self {
            OperationId::GetV2ChargeAutomaticPixRecurrencesRecurrenceUidRequests => {
                Some(
                    r#"{"type":"object","properties":{"page":{"type":"integer","default":1},"status":{"type":"array","items":{"type":"string"}},"created":{"type":"object","properties":{"gte":{"type":"string"},"lte":{"type":"string"}}}},"additionalProperties":false}"#,
                )
            }
            OperationId::PutV2FinancialAccountsAccountUidStatementsTransactD69957 => None,
            OperationId::GetChargeFull => None,
            OperationId::GetChargeFull2 => None,
        }
    }
}
