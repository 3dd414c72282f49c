//! Authorization comes first: a caller who may not run a tool learns that, and nothing else —
//! not which arguments are missing, not a confirmation form — in both protocol eras. What a
//! caller may do is the token's scopes that the person's role also permits.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::{Answer, TestServer, tool_problem};

/// A new MCP token of organization 0's person with `role`, holding `scopes` (the role's
/// permissions when `None`), with its own rate limit (and, with one, time to spare in its
/// current window).
pub async fn mcp_token(
    server: &TestServer,
    role: &str,
    scopes: Option<&[&str]>,
    rate_limit: Option<(i64, i64)>,
) -> String {
    mcp_token_with(server, role, scopes, rate_limit, None).await
}

/// [`mcp_token`], with the token's discovery-mode choice (`token create --discovery`).
pub async fn mcp_token_with(
    server: &TestServer,
    role: &str,
    scopes: Option<&[&str]>,
    rate_limit: Option<(i64, i64)>,
    discovery: Option<bool>,
) -> String {
    use dunning_store::orgs;
    use kobana_dunning::auth::{Audience, roles, tokens};
    let org = server.org_id(0).to_string();
    let email = &server.credentials.organizations[0]
        .people
        .iter()
        .find(|p| p.role == role)
        .expect("role in demo")
        .email;
    let person = orgs::find_person(&server.state.db, &org, email)
        .await
        .expect("lookup")
        .expect("person");
    let scopes: Vec<String> = match scopes {
        Some(scopes) => scopes.iter().map(|s| s.to_string()).collect(),
        None => roles::permissions(role)
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let token = tokens::generate(Audience::Mcp);
    orgs::create_token(
        &server.state.db,
        orgs::NewToken {
            organization_id: &org,
            person_id: &person.id,
            audience: "mcp",
            scopes: &scopes,
            toolsets: None,
            discovery,
            token_hash: &tokens::hash(&token),
            label: None,
            rate_limit,
        },
    )
    .await
    .expect("token");
    if let Some((_, period)) = rate_limit {
        crate::common::room_in_the_rate_window(period).await;
    }
    token
}

fn elicitation() -> Value {
    json!({ "elicitation": { "form": {} } })
}

fn assert_insufficient_scope(answer: &Answer, scope: &str) {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let problem = tool_problem(&answer.body["result"]);
    assert_eq!(problem["status"], 403, "{problem}");
    assert_eq!(problem["code"], "insufficient_scope", "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains(scope),
        "{problem}"
    );
    assert_eq!(problem["errors"], json!([]), "no word about the arguments");
}

#[tokio::test]
async fn a_write_without_the_scope_is_refused_before_its_arguments_are_checked() {
    let server = TestServer::start().await;
    let viewer = server.token(0, "viewer", "mcp");
    for arguments in [json!({}), json!({"name": 42, "document": []})] {
        let params = json!({"name": "dunning_customers_create", "arguments": arguments});
        let handshake = server.mcp(&viewer, "tools/call", params.clone()).await;
        assert_insufficient_scope(&handshake, "customers:write");
        let stateless = server.mcp26(&viewer, "tools/call", params, json!({})).await;
        assert_insufficient_scope(&stateless, "customers:write");
        assert_eq!(stateless.body["result"]["resultType"], "complete");
    }
}

#[tokio::test]
async fn a_destructive_tool_without_the_scope_is_refused_before_any_confirmation_form() {
    let server = TestServer::start().await;
    let charges = server
        .rest(
            "GET",
            "/v1/charges?status=pending&per_page=1",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let id = charges.body["data"][0]["id"].as_str().unwrap().to_string();
    let params = json!({"name": "dunning_charges_cancel", "arguments": {"id": id, "reason": "Emitida em duplicidade"}});
    // A viewer's own token; a viewer's token that claims every scope (the role still says
    // no); an admin's token that was issued for reading only (the token says no).
    let all: Vec<&str> = kobana_dunning::auth::roles::ALL_SCOPES.to_vec();
    let reads: Vec<&str> = kobana_dunning::auth::roles::permissions("viewer");
    let tokens = [
        server.token(0, "viewer", "mcp"),
        mcp_token(&server, "viewer", Some(&all), None).await,
        mcp_token(&server, "admin", Some(&reads), None).await,
    ];
    for token in &tokens {
        let listed = server.mcp(token, "tools/list", json!({})).await;
        assert!(
            !listed.text.contains("dunning_charges_cancel"),
            "the tool is not listed to this caller"
        );
        let asked = server
            .mcp26(token, "tools/call", params.clone(), elicitation())
            .await;
        assert_ne!(asked.body["result"]["resultType"], "input_required");
        assert_insufficient_scope(&asked, "charges:write");
        // Not even with a confirmation that looks accepted.
        let mut confirmed = params.clone();
        confirmed["requestState"] = json!("forged");
        confirmed["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        let answer = server
            .mcp26(token, "tools/call", confirmed, elicitation())
            .await;
        assert_insufficient_scope(&answer, "charges:write");
        let handshake = server.mcp(token, "tools/call", params.clone()).await;
        assert_insufficient_scope(&handshake, "charges:write");
    }
    let charge = server
        .rest(
            "GET",
            &format!("/v1/charges/{id}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(charge.body["data"]["status"], "pending");
}
