//! `tools/list` and `tools/call`: the generated catalog, filtered per caller, dispatched
//! in-process to the same handlers as REST.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, assert_mcp_schema, tool_problem};

async fn tool_names(server: &TestServer, token: &str) -> Vec<String> {
    let answer = server.mcp(token, "tools/list", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_mcp_schema("2025-06-18", "ListToolsResult", &answer.body["result"]);
    answer.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_viewer_sees_only_read_tools_and_an_admin_sees_all() {
    let server = TestServer::start().await;
    let viewer = server
        .mcp(&server.token(0, "viewer", "mcp"), "tools/list", json!({}))
        .await;
    let tools = viewer.body["result"]["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    for tool in tools {
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "{} is not a read",
            tool["name"]
        );
        assert!(
            !tool["name"]
                .as_str()
                .unwrap()
                .starts_with("dunning_webhook"),
            "viewers do not see webhooks"
        );
    }
    let admin = tool_names(&server, &server.token(0, "admin", "mcp")).await;
    let all: Value = serde_json::from_str(kobana_dunning::generated::CATALOG_JSON).unwrap();
    assert_eq!(
        admin.len(),
        all["tools"].as_array().unwrap().len(),
        "an admin sees the whole catalog"
    );
    assert_eq!(admin.len(), 68);
    let manager = tool_names(&server, &server.token(0, "manager", "mcp")).await;
    assert!(manager.iter().all(|n| !n.contains("webhook")));
    assert!(!manager.contains(&"dunning_pix_settings_update".to_string()));
    let collector = tool_names(&server, &server.token(0, "collector", "mcp")).await;
    assert!(collector.contains(&"dunning_charges_notify".to_string()));
    assert!(!collector.contains(&"dunning_collection_plans_create".to_string()));
    assert!(
        tools.len() < collector.len()
            && collector.len() < manager.len()
            && manager.len() < admin.len()
    );
}

#[tokio::test]
async fn the_tool_list_is_the_generated_catalog_in_its_order() {
    let server = TestServer::start().await;
    let listed = server
        .mcp(&server.token(0, "admin", "mcp"), "tools/list", json!({}))
        .await;
    let catalog: Value = serde_json::from_str(kobana_dunning::generated::CATALOG_JSON).unwrap();
    let listed = listed.body["result"]["tools"].as_array().unwrap();
    let generated = catalog["tools"].as_array().unwrap();
    assert_eq!(listed.len(), generated.len());
    let mut named = 0;
    for (listed, generated) in listed.iter().zip(generated) {
        let name = generated["name"].as_str().unwrap();
        let spec = kobana_dunning::generated::TOOLS
            .iter()
            .find(|t| t.name == name)
            .unwrap();
        // Every tool is listed, the admin sees the read tools too: an output another tool
        // has in full names it.
        let mut expected = generated.clone();
        if let Some(shared) = &spec.shared_output {
            assert_eq!(catalog["sharedOutputs"][name], shared.like, "{name}");
            expected["outputSchema"] = serde_json::from_str(shared.output_schema).unwrap();
            named += 1;
        }
        assert_eq!(listed, &expected, "{name}");
    }
    assert!(named > 30, "{named} tools name another's output");
}

#[tokio::test]
async fn charges_list_returns_what_get_charges_returns_with_the_same_filters() {
    let server = TestServer::start().await;
    let query = "status=pending,overdue&per_page=10&sort_by=due_date&sort_order=asc&amount_min=100";
    let rest = server
        .rest(
            "GET",
            &format!("/v1/charges?{query}"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    let result = server
        .call_tool(
            &server.token(0, "viewer", "mcp"),
            "dunning_charges_list",
            json!({"status": "pending,overdue", "per_page": 10, "sort_by": "due_date", "sort_order": "asc", "amount_min": 100}),
        )
        .await;
    assert_mcp_schema("2025-06-18", "CallToolResult", &result);
    let structured = &result["structuredContent"];
    assert_eq!(structured["data"], rest.body["data"]);
    for key in ["total", "page", "per_page", "total_pages"] {
        assert_eq!(
            structured["meta"][key], rest.body["meta"][key],
            "meta.{key}"
        );
    }
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured, "the text is the same JSON");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\n  "),
        "indented"
    );
}

#[tokio::test]
async fn structured_content_matches_the_output_schema() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let listed = server.mcp(&token, "tools/list", json!({})).await;
    let tools = listed.body["result"]["tools"].as_array().unwrap().clone();
    let schema_of =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["outputSchema"].clone();
    let charges = server
        .call_tool(&token, "dunning_charges_list", json!({"per_page": 3}))
        .await;
    let id = charges["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cases = [
        ("dunning_charges_list", charges.clone()),
        (
            "dunning_me",
            server.call_tool(&token, "dunning_me", json!({})).await,
        ),
        (
            "dunning_charges_get",
            server
                .call_tool(&token, "dunning_charges_get", json!({"id": id}))
                .await,
        ),
        (
            "dunning_customers_list",
            server
                .call_tool(&token, "dunning_customers_list", json!({"q": "a"}))
                .await,
        ),
    ];
    for (name, result) in cases {
        let validator = jsonschema::validator_for(&schema_of(name)).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&result["structuredContent"])
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[tokio::test]
async fn a_detail_read_reports_its_etag_and_a_stale_one_is_refused() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let customers = server
        .call_tool(&token, "dunning_customers_list", json!({}))
        .await;
    let id = customers["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let read = server
        .call_tool(&token, "dunning_customers_get", json!({"id": id}))
        .await;
    assert_eq!(read["structuredContent"]["meta"]["etag"], "\"v1\"");
    let update = server
        .call_tool(
            &token,
            "dunning_customers_update",
            json!({"id": id, "notes": "ok", "if_match": "\"v1\""}),
        )
        .await;
    assert!(update.get("isError").is_none(), "{update}");
    assert_eq!(update["structuredContent"]["meta"]["etag"], "\"v2\"");
    let stale = server
        .call_tool(
            &token,
            "dunning_customers_update",
            json!({"id": id, "notes": "again", "if_match": "\"v1\""}),
        )
        .await;
    assert_eq!(tool_problem(&stale)["status"], 412);
}

#[tokio::test]
async fn a_read_with_an_unknown_argument_names_the_key() {
    let server = TestServer::start().await;
    let result = server
        .call_tool(
            &server.token(0, "viewer", "mcp"),
            "dunning_charges_list",
            json!({"statuss": "paid"}),
        )
        .await;
    let problem = tool_problem(&result);
    assert_eq!(problem["code"], "VALIDATION_ERROR");
    assert_eq!(problem["errors"][0]["field"], "statuss");
    assert!(problem["detail"].as_str().unwrap().contains("'statuss'"));
    assert_mcp_schema("2025-06-18", "CallToolResult", &result);
}

#[tokio::test]
async fn missing_and_mistyped_arguments_name_the_key() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let missing = tool_problem(
        &server
            .call_tool(&token, "dunning_charges_get", json!({}))
            .await,
    );
    assert_eq!(missing["errors"][0]["field"], "id");
    assert!(missing["detail"].as_str().unwrap().contains("'id'"));
    let mistyped = tool_problem(
        &server
            .call_tool(&token, "dunning_charges_list", json!({"per_page": "many"}))
            .await,
    );
    assert_eq!(mistyped["errors"][0]["field"], "per_page");
    let out_of_range = tool_problem(
        &server
            .call_tool(&token, "dunning_charges_list", json!({"per_page": 1000}))
            .await,
    );
    assert_eq!(out_of_range["errors"][0]["field"], "per_page");
}

#[tokio::test]
async fn money_with_two_decimals_passes_the_schema_and_reaches_the_endpoint() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let customers = server
        .call_tool(&token, "dunning_customers_list", json!({}))
        .await;
    let customer = customers["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // 0.29 / 0.01 is not a whole number in binary floating point; it must still be valid.
    let created = server
        .call_tool(&token, "dunning_charges_create", json!({"customer_id": customer, "description": "Taxa", "amount": 0.29, "due_date": crate::agreements::day(300)}))
        .await;
    assert!(created.get("isError").is_none(), "{created}");
    assert_eq!(created["structuredContent"]["data"]["amount"], 0.29);
}

#[tokio::test]
async fn a_write_without_the_scope_is_an_insufficient_scope_error() {
    let server = TestServer::start().await;
    let result = server
        .call_tool(
            &server.token(0, "viewer", "mcp"),
            "dunning_customers_create",
            json!({"name": "X", "document": "11144477735"}),
        )
        .await;
    let problem = tool_problem(&result);
    assert_eq!(problem["status"], 403);
    assert_eq!(problem["code"], "insufficient_scope");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("customers:write")
    );
}

#[tokio::test]
async fn writes_pass_extra_fields_to_the_endpoint_which_judges_them() {
    let server = TestServer::start().await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_customers_create",
            json!({"name": "X", "document": "11144477735", "favourite_colour": "blue"}),
        )
        .await;
    let problem = tool_problem(&result);
    assert_eq!(problem["status"], 400);
    assert_eq!(problem["errors"][0]["field"], "favourite_colour");
}

#[tokio::test]
async fn an_unknown_id_is_a_404_result() {
    let server = TestServer::start().await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_get",
            json!({"id": "chg_doesnotexist0000"}),
        )
        .await;
    let problem = tool_problem(&result);
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["code"], "not_found");
}

#[tokio::test]
async fn another_organizations_charge_is_not_reachable_through_mcp() {
    let server = TestServer::start().await;
    let theirs = server
        .call_tool(
            &server.token(1, "admin", "mcp"),
            "dunning_charges_list",
            json!({"per_page": 1}),
        )
        .await;
    let id = theirs["structuredContent"]["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_get",
            json!({"id": id}),
        )
        .await;
    assert_eq!(tool_problem(&result)["status"], 404);
}

#[tokio::test]
async fn the_audit_trail_tool_answers_what_rest_answers() {
    let server = TestServer::start().await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_events_list",
            json!({"type": "charge.created", "per_page": 5}),
        )
        .await;
    assert!(result.get("isError").is_none(), "{result}");
    let rest = server
        .rest(
            "GET",
            "/v1/events?type=charge.created&per_page=5",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(result["structuredContent"]["data"], rest.body["data"]);
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(
            &server.token(0, "admin", "mcp"),
            "tools/call",
            json!({"name": "dunning_launch_rockets", "arguments": {}}),
        )
        .await;
    assert_eq!(answer.body["error"]["code"], -32602);
    let malformed = server
        .mcp(
            &server.token(0, "admin", "mcp"),
            "tools/call",
            json!({"name": "dunning_me", "arguments": [1]}),
        )
        .await;
    assert_eq!(malformed.body["error"]["code"], -32602);
}

#[tokio::test]
async fn a_list_cursor_that_was_never_issued_is_refused() {
    let server = TestServer::start().await;
    let answer = server
        .mcp(
            &server.token(0, "admin", "mcp"),
            "tools/list",
            json!({"cursor": "abc"}),
        )
        .await;
    assert_eq!(answer.body["error"]["code"], -32602);
}

#[tokio::test]
async fn every_tool_is_a_valid_mcp_tool_with_explicit_annotations() {
    let server = TestServer::start().await;
    let listed = server
        .mcp(&server.token(0, "admin", "mcp"), "tools/list", json!({}))
        .await;
    for tool in listed.body["result"]["tools"].as_array().unwrap() {
        assert_mcp_schema("2025-11-25", "Tool", tool);
        let name = tool["name"].as_str().unwrap();
        assert!(
            name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{name}"
        );
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(
                tool["annotations"][hint].is_boolean(),
                "{name} lacks {hint}"
            );
        }
        if tool["annotations"]["destructiveHint"] == true {
            assert_eq!(
                tool["_meta"]["anthropic/requiresUserInteraction"], true,
                "{name}"
            );
        }
        assert!(
            !tool["inputSchema"]["properties"]
                .as_object()
                .is_some_and(|p| p.contains_key("organization_id")),
            "{name} takes no organization"
        );
    }
}

/// mcp-use's agent tools and LlamaIndex send `null` for every optional argument the model
/// did not fill in: that is "not given", on reads and on writes.
#[tokio::test]
async fn null_for_an_optional_argument_means_not_given() {
    let server = TestServer::start().await;
    let viewer = server.token(0, "viewer", "mcp");
    let plain = server
        .call_tool(
            &viewer,
            "dunning_charges_list",
            json!({"status": "overdue"}),
        )
        .await;
    let with_nulls = server
        .call_tool(
            &viewer,
            "dunning_charges_list",
            json!({"status": "overdue", "customer_id": null, "due_date_from": null,
                   "due_date_to": null, "amount_min": null, "amount_max": null, "tag": null,
                   "sort_by": null, "sort_order": null, "page": null, "per_page": null}),
        )
        .await;
    assert_ne!(with_nulls["isError"], json!(true), "{with_nulls}");
    assert_eq!(
        with_nulls["structuredContent"]["data"],
        plain["structuredContent"]["data"]
    );
    assert_eq!(
        with_nulls["structuredContent"]["meta"]["total"],
        plain["structuredContent"]["meta"]["total"]
    );

    let admin = server.token(0, "admin", "mcp");
    let customer = server
        .rest(
            "GET",
            "/v1/customers?per_page=1",
            &server.token(0, "admin", "api"),
            None,
        )
        .await
        .body["data"][0]["id"]
        .clone();
    let created = server
        .call_tool(
            &admin,
            "dunning_charges_create",
            json!({"customer_id": customer, "description": "Mensalidade", "amount": 120.5,
                   "due_date": "2030-01-10", "fine_percent": null, "interest_percent": null,
                   "tags": null, "collection_plan_id": null, "idempotency_key": null}),
        )
        .await;
    assert_ne!(created["isError"], json!(true), "{created}");
    assert_eq!(
        created["structuredContent"]["data"]["fine_percent"],
        json!(2.0)
    );

    // A required argument given as null is still missing.
    let missing = tool_problem(
        &server
            .call_tool(&viewer, "dunning_charges_get", json!({"id": null}))
            .await,
    );
    assert_eq!(missing["errors"][0]["field"], "id");
}

/// Where the schema accepts `null` (an update's "clear it"), `null` reaches the endpoint.
#[tokio::test]
async fn null_where_the_schema_accepts_it_clears_the_field() {
    let server = TestServer::start().await;
    let api = server.token(0, "admin", "api");
    let plan = server
        .rest("GET", "/v1/collection_plans?per_page=1", &api, None)
        .await
        .body["data"][0]["id"]
        .clone();
    let charge = server
        .rest("GET", "/v1/charges?status=pending&per_page=1", &api, None)
        .await
        .body["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let attached = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{charge}"),
            &api,
            Some(json!({"collection_plan_id": plan})),
        )
        .await;
    assert_eq!(
        attached.body["data"]["collection_plan_id"], plan,
        "{attached:?}"
    );
    let cleared = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_update",
            json!({"id": charge, "collection_plan_id": null, "description": null}),
        )
        .await;
    assert_ne!(cleared["isError"], json!(true), "{cleared}");
    assert_eq!(
        cleared["structuredContent"]["data"]["collection_plan_id"],
        Value::Null
    );
}

/// The router a tool call is sent through (`/v1` with its layers) hands the body of a JSON
/// answer on with the marker naming it and its members, so `tools/call` takes them from there
/// without proving it JSON again (`mcpgen_axum::WrittenJson`); a body the marker does not name would
/// be read the long way.
#[tokio::test]
async fn a_v1_answer_reaches_a_tool_call_vouched_for_by_its_writer() {
    use axum::body::Body;
    use tower::ServiceExt;

    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let list = server
        .call_tool(&token, "dunning_charges_list", json!({}))
        .await;
    let charge = list["structuredContent"]["data"][0]["id"]
        .as_str()
        .expect("a charge")
        .to_string();
    let v1 = kobana_dunning::api::router(server.state.clone());
    for path in [
        "/v1/charges?per_page=3".to_string(),
        format!("/v1/charges/{charge}"),
    ] {
        let request = http::Request::get(&path)
            .header(
                "authorization",
                format!("Bearer {}", server.token(0, "admin", "api")),
            )
            .body(Body::empty())
            .expect("a request");
        let response = v1.clone().oneshot(request).await.expect("infallible");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX).await.expect("body");
        let marker = parts
            .extensions
            .get::<mcpgen_axum::WrittenJson>()
            .expect("the answer is vouched for");
        assert!(
            marker.names(&body),
            "{path}: the marker names the body sent"
        );
        let text = std::str::from_utf8(&body).expect("UTF-8");
        let read: serde_json::Map<String, Value> = serde_json::from_str(text).expect("an object");
        let noted: Vec<(String, Value)> = marker
            .members(text)
            .expect("members inside the body")
            .into_iter()
            .map(|(key, value)| {
                (
                    key.to_string(),
                    serde_json::from_str(value).expect("a value"),
                )
            })
            .collect();
        assert_eq!(noted, read.into_iter().collect::<Vec<_>>(), "{path}");
    }
}
