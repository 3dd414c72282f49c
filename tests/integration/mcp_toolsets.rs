//! Toolsets and read-only mode over HTTP: what each way of choosing (the role's default, the
//! `X-MCP-Toolsets` and `X-MCP-Readonly` headers, the `/mcp/x/{toolsets}` and `/mcp/readonly`
//! URLs, the operator's `--mcp-toolsets` and `--mcp-read-only`) leaves in `tools/list`, and
//! that what is hidden is refused when called and takes its resources and prompts with it.

use std::collections::BTreeSet;

use http::StatusCode;
use kobana_dunning::config::Config;
use kobana_dunning::generated::CATALOG;
use serde_json::json;

use crate::common::{TestServer, at, listed};

fn toolset_of(name: &str) -> &'static str {
    CATALOG
        .tools
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.toolset)
        .expect("a catalog tool")
}

/// The tools of these toolsets the role may use, in catalog order, by the rule
/// docs/choosing-tools.md states: the operator's bound ∩ (the request's choice, else the role's
/// default), `context` always, read-only when either says so; scopes on top.
fn expected(
    role: &str,
    operator: Option<&[&str]>,
    operator_read_only: bool,
    header: Option<&str>,
    url: &str,
) -> Vec<String> {
    let permitted = kobana_dunning::auth::roles::permissions(role);
    let mut chosen: Option<BTreeSet<String>> = None;
    let mut narrow = |by: Option<BTreeSet<String>>| {
        if let Some(by) = by {
            chosen = Some(match chosen.take() {
                Some(c) => c.intersection(&by).cloned().collect(),
                None => by,
            });
        }
    };
    let list = |text: &str| -> Option<BTreeSet<String>> {
        (text != "all").then(|| text.split(',').map(str::to_string).collect())
    };
    narrow(operator.map(|names| names.iter().map(|n| n.to_string()).collect()));
    let from_url = url
        .strip_prefix("/mcp/x/")
        .map(|rest| rest.strip_suffix("/readonly").unwrap_or(rest).to_string());
    let request_chose = header.is_some() || from_url.is_some();
    if let Some(url_list) = &from_url {
        narrow(list(url_list));
    }
    if let Some(header) = header {
        narrow(list(header));
    }
    if !request_chose {
        narrow(
            kobana_dunning::auth::roles::default_toolsets(role)
                .map(|names| names.iter().map(|n| n.to_string()).collect()),
        );
    }
    let read_only = operator_read_only || url.ends_with("/readonly");
    CATALOG
        .tools
        .iter()
        .filter(|t| t.is_tool())
        .filter(|t| t.scopes.iter().all(|s| permitted.contains(s)))
        .filter(|t| !read_only || t.read_only)
        .filter(|t| t.toolset == "context" || chosen.as_ref().is_none_or(|c| c.contains(t.toolset)))
        .map(|t| t.name.to_string())
        .collect()
}

#[tokio::test]
async fn every_combination_of_operator_role_header_and_url_lists_what_the_rule_says() {
    let operators: [(Option<&[&str]>, bool); 3] = [
        (None, false),
        (Some(&["customers", "charges", "collection"]), false),
        (None, true),
    ];
    let headers = [None, Some("all"), Some("charges"), Some("plans,webhooks")];
    let urls = [
        "/mcp",
        "/mcp/readonly",
        "/mcp/x/customers,charges",
        "/mcp/x/all/readonly",
    ];
    let mut combinations = 0;
    for (operator, operator_read_only) in operators {
        let config = Config {
            mcp_toolsets: operator.map(|names| names.iter().map(|n| n.to_string()).collect()),
            mcp_read_only: operator_read_only,
            ..TestServer::config(false)
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
        let server = TestServer::start_configured(url, dir, config).await;
        for role in ["admin", "manager", "collector", "viewer"] {
            let token = server.token(0, role, "mcp");
            for header in headers {
                for url in urls {
                    let sent: Vec<(&str, &str)> =
                        header.map(|h| ("x-mcp-toolsets", h)).into_iter().collect();
                    let got = listed(&server, url, &token, &sent).await;
                    let want = expected(role, operator, operator_read_only, header, url);
                    assert_eq!(
                        got, want,
                        "operator {operator:?} read-only {operator_read_only}, {role}, header {header:?}, {url}"
                    );
                    combinations += 1;
                }
            }
        }
    }
    assert_eq!(combinations, 3 * 4 * 4 * 4);
}

#[tokio::test]
async fn each_role_loads_its_default_toolsets_and_all_brings_the_rest_within_its_scopes() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "mcp");
    assert_eq!(listed(&server, "/mcp", &admin, &[]).await.len(), 68);

    let collector = server.token(0, "collector", "mcp");
    let default = listed(&server, "/mcp", &collector, &[]).await;
    let everything = listed(&server, "/mcp", &collector, &[("x-mcp-toolsets", "all")]).await;
    assert!(default.len() < everything.len(), "{default:?}");
    let sets: BTreeSet<&str> = default.iter().map(|n| toolset_of(n)).collect();
    assert_eq!(
        sets,
        BTreeSet::from([
            "agreements",
            "charges",
            "collection",
            "context",
            "customers",
            "deliveries",
            "disputes"
        ])
    );
    // `all` gives back what the role's scopes allow, no more: no webhooks for a collector.
    assert!(everything.iter().any(|n| toolset_of(n) == "plans"));
    assert!(!everything.iter().any(|n| toolset_of(n) == "webhooks"));
}

#[tokio::test]
async fn a_tool_the_connection_did_not_load_is_refused_and_changes_nothing() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let api = server.token(0, "admin", "api");
    let charges = server
        .rest("GET", "/v1/charges?status=pending", &api, None)
        .await;
    let id = charges.body["data"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a pending charge: {}", charges.text))
        .to_string();

    // A read-only connection: the cancel is refused before anything runs.
    let params = json!({ "name": "dunning_charges_cancel", "arguments": { "id": id } });
    let refused = at(
        &server,
        "/mcp/readonly",
        &token,
        &[],
        "tools/call",
        params.clone(),
    )
    .await;
    assert_eq!(refused.body["error"]["code"], -32602, "{}", refused.text);
    let message = refused.body["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("read-only"), "{message}");
    let after = server
        .rest("GET", &format!("/v1/charges/{id}"), &api, None)
        .await;
    assert_eq!(after.body["data"]["status"], "pending");

    // A tool of a toolset not chosen, by header: refused, naming the toolset.
    let get = json!({ "name": "dunning_charges_get", "arguments": { "id": id } });
    let hidden = at(
        &server,
        "/mcp",
        &token,
        &[("x-mcp-toolsets", "customers")],
        "tools/call",
        get.clone(),
    )
    .await;
    let message = hidden.body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`charges`"), "{}", hidden.text);
    // The same call where it is loaded works.
    let shown = at(&server, "/mcp/x/charges", &token, &[], "tools/call", get).await;
    assert!(shown.body["result"]["isError"] != true, "{}", shown.text);
    assert_eq!(
        shown.body["result"]["structuredContent"]["data"]["id"],
        id.as_str()
    );
}

#[tokio::test]
async fn an_unknown_toolset_is_a_400_naming_the_toolsets() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    for (path, headers) in [
        ("/mcp", vec![("x-mcp-toolsets", "charges,chrages")]),
        ("/mcp/x/nope", vec![]),
        ("/mcp", vec![("x-mcp-readonly", "sure")]),
    ] {
        let answer = at(&server, path, &token, &headers, "tools/list", json!({})).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{path} {headers:?}");
        assert_eq!(answer.body["error"]["code"], -32602, "{}", answer.text);
        // Refused by its headers, the request is still named (`id` is not null).
        assert_eq!(answer.body["id"], 1, "{}", answer.text);
        if path == "/mcp/x/nope" {
            assert!(
                answer.text.contains("customers, charges, collection"),
                "{}",
                answer.text
            );
        }
    }
}

#[tokio::test]
async fn resources_templates_and_prompts_follow_the_chosen_toolsets() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let customers_only = [("x-mcp-toolsets", "customers")];

    let templates = at(
        &server,
        "/mcp",
        &token,
        &customers_only,
        "resources/templates/list",
        json!({}),
    )
    .await;
    let uris: Vec<&str> = templates.body["result"]["resourceTemplates"]
        .as_array()
        .expect("templates")
        .iter()
        .map(|t| t["uriTemplate"].as_str().expect("uri"))
        .collect();
    assert!(
        !uris.is_empty() && uris.iter().all(|u| u.contains("/customers/")),
        "{uris:?}"
    );

    let resources = at(
        &server,
        "/mcp",
        &token,
        &customers_only,
        "resources/list",
        json!({}),
    )
    .await;
    // `me` is in `context`, which every connection keeps.
    assert!(
        resources.text.contains("kobana://dunning/me"),
        "{}",
        resources.text
    );

    let api = server.token(0, "admin", "api");
    let charges = server.rest("GET", "/v1/charges", &api, None).await;
    let id = charges.body["data"][0]["id"].as_str().expect("a charge");
    let read = at(
        &server,
        "/mcp",
        &token,
        &customers_only,
        "resources/read",
        json!({ "uri": format!("kobana://dunning/charges/{id}") }),
    )
    .await;
    assert_eq!(read.body["error"]["code"], -32002, "{}", read.text);

    // Every prompt relies on charge tools: none is left with customers alone, all come back
    // with everything.
    let prompts = at(
        &server,
        "/mcp",
        &token,
        &customers_only,
        "prompts/list",
        json!({}),
    )
    .await;
    assert_eq!(
        prompts.body["result"]["prompts"],
        json!([]),
        "{}",
        prompts.text
    );
    let all = at(&server, "/mcp", &token, &[], "prompts/list", json!({})).await;
    assert!(
        !all.body["result"]["prompts"]
            .as_array()
            .expect("prompts")
            .is_empty()
    );
}

#[tokio::test]
async fn a_token_made_for_some_toolsets_never_loads_more_whatever_the_request_asks() {
    use dunning_store::orgs;
    use kobana_dunning::auth::{Audience, roles, tokens};

    let server = TestServer::start().await;
    let org = server.org_id(0).to_string();
    let email = &server.credentials.organizations[0]
        .people
        .iter()
        .find(|p| p.role == "admin")
        .expect("admin")
        .email;
    let person = orgs::find_person(&server.state.db, &org, email)
        .await
        .expect("lookup")
        .expect("person");
    let scopes: Vec<String> = roles::permissions("admin")
        .iter()
        .map(|s| s.to_string())
        .collect();
    let token = tokens::generate(Audience::Mcp);
    orgs::create_token(
        &server.state.db,
        orgs::NewToken {
            organization_id: &org,
            person_id: &person.id,
            audience: "mcp",
            scopes: &scopes,
            toolsets: Some(&["customers".to_string()]),
            discovery: None,
            token_hash: &tokens::hash(&token),
            label: None,
            rate_limit: None,
        },
    )
    .await
    .expect("token");

    let sets = |names: &[String]| -> BTreeSet<&'static str> {
        names.iter().map(|n| toolset_of(n)).collect()
    };
    for (path, headers) in [
        ("/mcp", vec![]),
        ("/mcp", vec![("x-mcp-toolsets", "all")]),
        ("/mcp/x/customers,charges", vec![]),
    ] {
        let names = listed(&server, path, &token, &headers).await;
        assert_eq!(
            sets(&names),
            BTreeSet::from(["context", "customers"]),
            "{path} {headers:?}"
        );
    }
    // Asking only for what the token does not allow leaves `context`.
    let names = listed(&server, "/mcp/x/charges", &token, &[]).await;
    assert_eq!(names, ["dunning_me"]);
    let call = json!({ "name": "dunning_charges_list", "arguments": {} });
    let refused = at(
        &server,
        "/mcp",
        &token,
        &[("x-mcp-toolsets", "all")],
        "tools/call",
        call,
    )
    .await;
    assert_eq!(refused.body["error"]["code"], -32602, "{}", refused.text);
}
