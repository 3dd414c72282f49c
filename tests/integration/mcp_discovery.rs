//! Discovery mode on our server: a connection that opts in (the `X-MCP-Discovery` header,
//! `/mcp/discover` and `/mcp/x/{toolsets}/discover`, the operator's `--mcp-discovery`) lists
//! `dunning_search`, `dunning_describe` and `dunning_call` instead of the catalog; the search
//! finds the right tool for tasks put in Portuguese or English (bench/discovery_phrasings.json)
//! and only tools the caller may call; `dunning_call` answers what `tools/call` answers, asks
//! for confirmation of destructive tools and counts against the rate limit.

use std::collections::BTreeSet;

use axum::body::Body;
use http::{Request, StatusCode};
use kobana_dunning::config::Config;
use kobana_dunning::generated::CATALOG;
use serde_json::{Value, json};

use crate::common::{Answer, TestServer, at, check_exchange, listed, tool_problem};
use crate::mcp_authorization::{mcp_token, mcp_token_with};

const TRIO: [&str; 3] = ["dunning_search", "dunning_describe", "dunning_call"];

/// `tools/call` of `name` at `path`: the JSON-RPC result.
async fn call_at(
    server: &TestServer,
    path: &str,
    token: &str,
    name: &str,
    arguments: Value,
) -> Value {
    let answer = at(
        server,
        path,
        token,
        &[],
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["result"].clone()
}

/// The names `dunning_search` finds for `query` at `path`, best first.
async fn found(
    server: &TestServer,
    path: &str,
    token: &str,
    query: &str,
    limit: u64,
) -> Vec<String> {
    let result = call_at(
        server,
        path,
        token,
        "dunning_search",
        json!({"query": query, "limit": limit}),
    )
    .await;
    result["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

/// The written phrasings: (query, the tool that should rank first).
fn phrasings() -> Vec<(String, String)> {
    let text = std::fs::read_to_string("bench/discovery_phrasings.json").expect("phrasings");
    let file: Value = serde_json::from_str(&text).expect("phrasings JSON");
    file["phrasings"]
        .as_array()
        .expect("phrasings")
        .iter()
        .map(|p| {
            (
                p["query"].as_str().expect("query").to_string(),
                p["expected"].as_str().expect("expected").to_string(),
            )
        })
        .collect()
}

async fn server_with(config: Config) -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    TestServer::start_configured(url, dir, config).await
}

#[tokio::test]
async fn a_connection_opts_in_by_header_by_url_or_by_the_operator_s_setting() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "mcp");
    let catalog = listed(&server, "/mcp", &admin, &[]).await;
    assert!(catalog.len() > 60, "{catalog:?}");
    assert_eq!(
        listed(&server, "/mcp", &admin, &[("x-mcp-discovery", "true")]).await,
        TRIO
    );
    for path in [
        "/mcp/discover",
        "/mcp/readonly/discover",
        "/mcp/x/charges,collection/discover",
    ] {
        assert_eq!(listed(&server, path, &admin, &[]).await, TRIO, "{path}");
    }
    // The URL's toolsets bound the search: only charges and collection (and `context`).
    let names = found(
        &server,
        "/mcp/x/charges,collection/discover",
        &admin,
        "cliente devedor customer debtor webhook acordo",
        20,
    )
    .await;
    assert!(!names.is_empty());
    for name in &names {
        let toolset = CATALOG
            .tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .toolset;
        assert!(
            ["charges", "collection", "context"].contains(&toolset),
            "{name} is in {toolset}"
        );
    }

    let operator = server_with(Config {
        mcp_discovery: true,
        ..TestServer::config(false)
    })
    .await;
    let admin = operator.token(0, "admin", "mcp");
    assert_eq!(listed(&operator, "/mcp", &admin, &[]).await, TRIO);
    // A default, not a bound: a connection may ask for the catalog.
    assert_eq!(
        listed(&operator, "/mcp", &admin, &[("x-mcp-discovery", "false")]).await,
        catalog
    );
    // The instructions say how the tools named in them are reached.
    let initialize = at(
        &operator,
        "/mcp",
        &admin,
        &[],
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    )
    .await;
    let instructions = initialize.body["result"]["instructions"].as_str().unwrap();
    assert!(instructions.contains("dunning_search"), "{instructions}");
    // Resources and prompts are what they were.
    for method in ["resources/list", "resources/templates/list", "prompts/list"] {
        let plain = at(
            &operator,
            "/mcp",
            &admin,
            &[("x-mcp-discovery", "false")],
            method,
            json!({}),
        )
        .await;
        let discovering = at(&operator, "/mcp", &admin, &[], method, json!({})).await;
        assert_eq!(plain.body["result"], discovering.body["result"], "{method}");
    }
}

/// An admin's MCP token that asks for discovery mode or declines it (`token create
/// --discovery on|off`).
async fn token_asking(server: &TestServer, discovery: bool) -> String {
    mcp_token_with(server, "admin", None, None, Some(discovery)).await
}

#[tokio::test]
async fn a_token_may_ask_for_discovery_mode_and_a_request_still_decides() {
    let server = server_with({
        let mut config = TestServer::config(false);
        config.mcp_discovery = true;
        config
    })
    .await;
    let asks = token_asking(&server, true).await;
    let declines = token_asking(&server, false).await;
    let plain = server.token(0, "admin", "mcp");
    // The operator's default is discovery: a token that declines it gets the catalog.
    assert_eq!(listed(&server, "/mcp", &asks, &[]).await, TRIO);
    assert!(listed(&server, "/mcp", &declines, &[]).await.len() > 60);
    assert_eq!(listed(&server, "/mcp", &plain, &[]).await, TRIO);
    // The request's header and URL still decide.
    assert!(
        listed(&server, "/mcp", &asks, &[("x-mcp-discovery", "false")])
            .await
            .len()
            > 60
    );
    assert_eq!(listed(&server, "/mcp/discover", &declines, &[]).await, TRIO);
    // Without the operator's default, the token's own choice is the default.
    let server = TestServer::start().await;
    let asks = token_asking(&server, true).await;
    assert_eq!(listed(&server, "/mcp", &asks, &[]).await, TRIO);
    let plain = server.token(0, "admin", "mcp");
    assert!(listed(&server, "/mcp", &plain, &[]).await.len() > 60);
}

#[tokio::test]
async fn search_ranks_the_expected_tool_first_for_the_written_phrasings() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "mcp");
    let mut first = 0;
    let mut report = String::new();
    let phrasings = phrasings();
    assert_eq!(phrasings.len(), 30);
    for (query, expected) in &phrasings {
        let names = found(&server, "/mcp/discover", &admin, query, 20).await;
        let rank = names.iter().position(|n| n == expected).map(|r| r + 1);
        if rank == Some(1) {
            first += 1;
        }
        report.push_str(&format!(
            "{:>4}  {query}  →  {expected}  (first: {})\n",
            rank.map_or("-".to_string(), |r| r.to_string()),
            names.first().map_or("nothing", String::as_str)
        ));
    }
    eprintln!("{report}{first} of {} first", phrasings.len());
    // The two the issue names, first; and nearly all of the others.
    for (query, expected) in [
        (
            "quem está devendo há mais de 60 dias",
            "dunning_reports_aging",
        ),
        ("send a reminder by WhatsApp", "dunning_charges_notify"),
    ] {
        assert_eq!(
            found(&server, "/mcp/discover", &admin, query, 3).await[0],
            expected
        );
    }
    assert!(first >= 27, "{first} of 30 first:\n{report}");
}

#[tokio::test]
async fn a_viewer_s_search_finds_only_what_its_tools_list_has_and_never_a_write() {
    let server = TestServer::start().await;
    let viewer = server.token(0, "viewer", "mcp");
    let menu: BTreeSet<String> = listed(&server, "/mcp", &viewer, &[])
        .await
        .into_iter()
        .collect();
    let mut queries: Vec<String> = phrasings().into_iter().map(|(q, _)| q).collect();
    queries.extend(
        [
            "cancelar excluir apagar",
            "delete cancel remove",
            "negativar protestar",
            "criar cadastrar registrar",
        ]
        .map(String::from),
    );
    let mut seen = BTreeSet::new();
    for query in &queries {
        for name in found(&server, "/mcp/discover", &viewer, query, 20).await {
            let tool = CATALOG.tools.iter().find(|t| t.name == name).unwrap();
            assert!(tool.read_only, "a viewer found {name} for {query:?}");
            assert!(menu.contains(&name), "{name} is not on the viewer's menu");
            seen.insert(name);
        }
    }
    assert!(seen.len() >= 8, "{seen:?}");
    // Asking for every toolset widens to the viewer's scopes, and no further.
    let wider = found(
        &server,
        "/mcp/x/all/discover",
        &viewer,
        "webhook exportar events",
        20,
    )
    .await;
    assert!(
        wider
            .iter()
            .all(|n| CATALOG.tools.iter().any(|t| t.name == n && t.read_only))
    );
}

#[tokio::test]
async fn describe_or_call_of_a_hidden_tool_is_not_found_exactly_like_a_tool_that_does_not_exist() {
    let server = TestServer::start().await;
    let viewer = server.token(0, "viewer", "mcp");
    let problem = |result: &Value| tool_problem(result);
    let hidden = problem(
        &call_at(
            &server,
            "/mcp/discover",
            &viewer,
            "dunning_describe",
            json!({"names": ["dunning_charges_cancel"]}),
        )
        .await,
    );
    let never = problem(
        &call_at(
            &server,
            "/mcp/discover",
            &viewer,
            "dunning_describe",
            json!({"names": ["dunning_charges_burn"]}),
        )
        .await,
    );
    assert_eq!(hidden["code"], "unknown_tool");
    assert_eq!(
        hidden.to_string().replace("dunning_charges_cancel", "NAME"),
        never.to_string().replace("dunning_charges_burn", "NAME")
    );
    let arguments = |name: &str| json!({"name": name, "arguments": {"id": "chg_x"}});
    let hidden = problem(
        &call_at(
            &server,
            "/mcp/discover",
            &viewer,
            "dunning_call",
            arguments("dunning_charges_cancel"),
        )
        .await,
    );
    let never = problem(
        &call_at(
            &server,
            "/mcp/discover",
            &viewer,
            "dunning_call",
            arguments("dunning_charges_burn"),
        )
        .await,
    );
    assert_eq!(
        hidden.to_string().replace("dunning_charges_cancel", "NAME"),
        never.to_string().replace("dunning_charges_burn", "NAME")
    );
    // Hidden by the connection's choice too (here: read-only), for an admin.
    let admin = server.token(0, "admin", "mcp");
    let result = call_at(
        &server,
        "/mcp/readonly/discover",
        &admin,
        "dunning_describe",
        json!({"names": ["dunning_charges_cancel"]}),
    )
    .await;
    assert_eq!(problem(&result)["code"], "unknown_tool");
    // What is visible is described as `tools/list` lists it, with the complete input schema
    // (the bounds and patterns the listing leaves out too).
    let result = call_at(
        &server,
        "/mcp/discover",
        &viewer,
        "dunning_describe",
        json!({"names": ["dunning_charges_get"]}),
    )
    .await;
    let list = at(&server, "/mcp", &viewer, &[], "tools/list", json!({})).await;
    let listed = list.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "dunning_charges_get")
        .cloned()
        .unwrap();
    let mut described = listed.clone();
    let spec = kobana_dunning::generated::TOOLS
        .iter()
        .find(|t| t.name == "dunning_charges_get")
        .unwrap();
    described["inputSchema"] = serde_json::from_str(spec.input_schema).unwrap();
    assert_ne!(described, listed, "the listing leaves the id's pattern out");
    assert_eq!(result["structuredContent"]["tools"], json!([described]));
}

#[tokio::test]
async fn call_of_a_read_tool_answers_byte_for_byte_what_tools_call_answers() {
    let server = TestServer::start().await;
    let charges = server
        .rest(
            "GET",
            "/v1/charges?per_page=1",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let id = charges.body["data"][0]["id"].as_str().unwrap().to_string();
    let cases = [
        (
            "dunning_charges_list",
            json!({"status": "overdue", "per_page": 3}),
        ),
        ("dunning_charges_get", json!({"id": id})),
        (
            "dunning_customers_statement",
            json!({"id": charges.body["data"][0]["customer_id"]}),
        ),
        ("dunning_charges_list", json!({"status": "nonsense"})),
        ("dunning_charges_get", json!({"id": "chg_does_not_exist"})),
    ];
    for (name, arguments) in cases {
        crate::common::room_in_the_rate_window(60).await;
        // Two fresh tokens of the same person, so that `meta.rate_limit` counts alike; its
        // `reset` counts whole seconds, so a pair that fell on either side of one is tried again.
        let mut same = false;
        let mut last = String::new();
        for _ in 0..3 {
            let a = mcp_token(&server, "admin", None, Some((1000, 60))).await;
            let b = mcp_token(&server, "admin", None, Some((1000, 60))).await;
            let direct = call_at(&server, "/mcp", &a, name, arguments.clone()).await;
            let through = call_at(
                &server,
                "/mcp/discover",
                &b,
                "dunning_call",
                json!({"name": name, "arguments": arguments}),
            )
            .await;
            let text = |r: &Value| r["content"].to_string();
            let structured = |r: &Value| r.get("structuredContent").map(Value::to_string);
            same = text(&direct) == text(&through)
                && structured(&direct) == structured(&through)
                && direct["isError"] == through["isError"]
                && direct == through;
            if same {
                break;
            }
            last = format!("{direct}\n---\n{through}");
        }
        assert!(same, "{name} {arguments}:\n{last}");
    }
}

fn elicitation() -> Value {
    json!({ "elicitation": { "form": {} } })
}

/// A stateless-era request to `/mcp/discover`.
async fn discover26(server: &TestServer, token: &str, params: Value) -> Answer {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": elicitation(),
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let request = Request::builder()
        .method("POST")
        .uri("/mcp/discover")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "dunning_call")
        .body(Body::from(body.to_string()))
        .expect("request");
    let answer = server.send(request).await;
    check_exchange("tools/call", &answer);
    answer
}

async fn status_of(server: &TestServer, id: &str) -> String {
    let charge = server
        .rest(
            "GET",
            &format!("/v1/charges/{id}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    charge.body["data"]["status"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn call_of_a_destructive_tool_asks_for_confirmation_and_runs_only_once_accepted() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let pending = server
        .rest(
            "GET",
            "/v1/charges?status=pending&per_page=1",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let id = pending.body["data"][0]["id"].as_str().unwrap().to_string();
    let inner = json!({"name": "dunning_charges_cancel", "arguments": {"id": id, "reason": "Emitida em duplicidade"}});
    let first = discover26(
        &server,
        &token,
        json!({"name": "dunning_call", "arguments": inner}),
    )
    .await;
    let result = &first.body["result"];
    assert_eq!(result["resultType"], "input_required", "{}", first.text);
    let form = &result["inputRequests"]["confirm"];
    assert!(
        form["params"]["message"].as_str().unwrap().contains(&id),
        "{form}"
    );
    let state = result["requestState"].as_str().unwrap().to_string();
    assert_eq!(
        status_of(&server, &id).await,
        "pending",
        "nothing happened yet"
    );

    // Declined: nothing happens.
    let declined = discover26(
        &server,
        &token,
        json!({"name": "dunning_call", "arguments": inner, "requestState": state, "inputResponses": {"confirm": {"action": "decline"}}}),
    )
    .await;
    assert_eq!(
        tool_problem(&declined.body["result"])["code"],
        "confirmation_declined"
    );
    assert_eq!(status_of(&server, &id).await, "pending");

    // The state is bound to the inner tool and its arguments.
    let other = json!({"name": "dunning_charges_cancel", "arguments": {"id": id, "reason": "outro motivo"}});
    let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let moved = discover26(
        &server,
        &token,
        json!({"name": "dunning_call", "arguments": other, "requestState": state, "inputResponses": accept}),
    )
    .await;
    assert_eq!(moved.body["error"]["code"], -32602, "{}", moved.text);
    assert!(moved.text.contains("other arguments"), "{}", moved.text);
    assert_eq!(status_of(&server, &id).await, "pending");

    let done = discover26(
        &server,
        &token,
        json!({"name": "dunning_call", "arguments": inner, "requestState": state, "inputResponses": accept}),
    )
    .await;
    assert_eq!(
        done.body["result"]["resultType"], "complete",
        "{}",
        done.text
    );
    assert_eq!(
        done.body["result"]["structuredContent"]["data"]["status"],
        "canceled"
    );
    assert_eq!(status_of(&server, &id).await, "canceled");
}

#[tokio::test]
async fn call_counts_against_the_rate_limit_like_tools_call() {
    let server = TestServer::start().await;
    crate::common::room_in_the_rate_window(60).await;
    let token = mcp_token(&server, "admin", None, Some((3, 60))).await;
    let search = call_at(
        &server,
        "/mcp/discover",
        &token,
        "dunning_search",
        json!({"query": "cobranças"}),
    )
    .await;
    assert!(search.get("isError").is_none(), "{search}");
    let me = json!({"name": "dunning_me", "arguments": {}});
    for _ in 0..2 {
        let result = call_at(&server, "/mcp/discover", &token, "dunning_call", me.clone()).await;
        assert!(result.get("isError").is_none(), "{result}");
    }
    let answer = at(
        &server,
        "/mcp/discover",
        &token,
        &[],
        "tools/call",
        json!({"name": "dunning_call", "arguments": me}),
    )
    .await;
    let problem = tool_problem(&answer.body["result"]);
    assert_eq!(problem["code"], "rate_limited", "{problem}");
    assert!(answer.header("retry-after").is_some());
}

#[tokio::test]
async fn the_three_tool_definitions_stay_under_two_thousand_tokens() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "mcp");
    let answer = at(
        &server,
        "/mcp/discover",
        &admin,
        &[],
        "tools/list",
        json!({}),
    )
    .await;
    let tools = answer.body["result"]["tools"].as_array().unwrap();
    let bytes: usize = tools.iter().map(|t| t.to_string().len()).sum();
    let whole = at(&server, "/mcp", &admin, &[], "tools/list", json!({})).await;
    let catalog: usize = whole.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.to_string().len())
        .sum();
    eprintln!(
        "discovery: {} tools, {bytes} bytes, ~{} tokens; the admin's catalog: {catalog} bytes, ~{} tokens",
        tools.len(),
        bytes / 4,
        catalog / 4
    );
    // About four bytes a token: 2 000 tokens.
    assert!(bytes <= 8_000, "{bytes} bytes");
}

#[test]
fn every_tool_of_our_document_has_keywords() {
    for tool in CATALOG.tools.iter().filter(|t| t.is_tool()) {
        assert!(
            tool.keywords.len() >= 5,
            "{} has {:?}",
            tool.name,
            tool.keywords
        );
    }
}

#[tokio::test]
async fn call_of_a_write_keeps_idempotency_and_the_key_the_server_derives() {
    let server = TestServer::start().await;
    let token = server.token(0, "collector", "mcp");
    let through = |name: &str, arguments: Value| {
        let token = token.clone();
        let params = json!({"name": name, "arguments": arguments});
        let server = &server;
        async move { call_at(server, "/mcp/discover", &token, "dunning_call", params).await }
    };
    // A key sent: the write made by tools/call is replayed through dunning_call.
    let args =
        json!({"name": "Via Descoberta", "document": "12312312387", "idempotency_key": "disc-1"});
    let first = server
        .call_tool(&token, "dunning_customers_create", args.clone())
        .await;
    assert_eq!(
        first["structuredContent"]["meta"]["idempotent_replay"], false,
        "{first}"
    );
    let again = through("dunning_customers_create", args).await;
    assert_eq!(
        again["structuredContent"]["meta"]["idempotent_replay"], true,
        "{again}"
    );
    assert_eq!(
        again["structuredContent"]["data"]["id"],
        first["structuredContent"]["data"]["id"]
    );

    // No key sent to a tool that must not repeat (notify): the key the server derives from the
    // caller, the inner tool and its arguments is the same whichever way it was called.
    let customers = server
        .call_tool(&token, "dunning_customers_list", json!({"per_page": 100}))
        .await;
    let with_email: Vec<&str> = customers["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["email"].is_string())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let charges = server
        .call_tool(
            &token,
            "dunning_charges_list",
            json!({"status": "pending", "per_page": 100}),
        )
        .await;
    let charge = charges["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| with_email.contains(&c["customer_id"].as_str().unwrap()))
        .expect("a pending charge of a customer with an e-mail");
    let args = json!({"id": charge["id"], "channel": "email"});
    let sent = through("dunning_charges_notify", args.clone()).await;
    let key = sent["structuredContent"]["meta"]["idempotency_key"].clone();
    assert!(
        key.as_str().is_some_and(|k| k.starts_with("auto-")),
        "{sent}"
    );
    assert_eq!(
        sent["structuredContent"]["meta"]["idempotent_replay"],
        false
    );
    let direct = server
        .call_tool(&token, "dunning_charges_notify", args)
        .await;
    assert_eq!(direct["structuredContent"]["meta"]["idempotency_key"], key);
    assert_eq!(
        direct["structuredContent"]["meta"]["idempotent_replay"], true,
        "{direct}"
    );
    assert_eq!(
        direct["structuredContent"]["data"]["id"],
        sent["structuredContent"]["data"]["id"]
    );
}
