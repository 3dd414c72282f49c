//! Destructive tools ask for confirmation in the stateless era (MRTR), with a signed state
//! bound to the caller, the tool and the arguments; the handshake era runs them (or refuses,
//! when so configured).

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, tool_problem};

fn elicitation() -> Value {
    json!({ "elicitation": { "form": {} } })
}

async fn pending_charge(server: &TestServer, org: usize) -> String {
    let list = server
        .rest(
            "GET",
            "/v1/charges?status=pending&per_page=1",
            &server.token(org, "admin", "api"),
            None,
        )
        .await;
    list.body["data"][0]["id"].as_str().unwrap().to_string()
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

/// First round: the call answers `input_required`; returns the request state.
async fn ask(server: &TestServer, token: &str, id: &str) -> (Value, String) {
    let args = json!({"id": id, "reason": "Emitida em duplicidade"});
    let first = server
        .mcp26(
            token,
            "tools/call",
            json!({"name": "dunning_charges_cancel", "arguments": args}),
            elicitation(),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let result = first.body["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    let state = result["requestState"].as_str().unwrap().to_string();
    (result, state)
}

async fn retry(
    server: &TestServer,
    token: &str,
    id: &str,
    state: &str,
    response: Value,
) -> crate::common::Answer {
    let params = json!({
        "name": "dunning_charges_cancel",
        "arguments": {"id": id, "reason": "Emitida em duplicidade"},
        "requestState": state,
        "inputResponses": { "confirm": response },
    });
    server
        .mcp26(token, "tools/call", params, elicitation())
        .await
}

#[tokio::test]
async fn a_destructive_call_asks_first_and_runs_once_accepted() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let id = pending_charge(&server, 0).await;
    let (result, state) = ask(&server, &token, &id).await;
    let form = &result["inputRequests"]["confirm"];
    assert_eq!(form["method"], "elicitation/create");
    assert!(
        form["params"]["message"].as_str().unwrap().contains(&id),
        "the message says exactly what: {form}"
    );
    assert_eq!(
        form["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    assert_eq!(
        status_of(&server, &id).await,
        "pending",
        "nothing happened yet"
    );

    let done = retry(
        &server,
        &token,
        &id,
        &state,
        json!({"action": "accept", "content": {"confirm": true}}),
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
async fn declining_or_cancelling_does_nothing() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let id = pending_charge(&server, 0).await;
    for response in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        let (_, state) = ask(&server, &token, &id).await;
        let answer = retry(&server, &token, &id, &state, response.clone()).await;
        let problem = tool_problem(&answer.body["result"]);
        assert_eq!(problem["code"], "confirmation_declined", "{response}");
    }
    assert_eq!(status_of(&server, &id).await, "pending");
}

#[tokio::test]
async fn a_retry_without_the_answer_asks_again() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let id = pending_charge(&server, 0).await;
    let (_, state) = ask(&server, &token, &id).await;
    let params = json!({"name": "dunning_charges_cancel", "arguments": {"id": id, "reason": "Emitida em duplicidade"}, "requestState": state});
    let again = server
        .mcp26(&token, "tools/call", params, elicitation())
        .await;
    assert_eq!(again.body["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn a_client_without_elicitation_cannot_confirm() {
    let server = TestServer::start().await;
    let id = pending_charge(&server, 0).await;
    let answer = server
        .mcp26(
            &server.token(0, "admin", "mcp"),
            "tools/call",
            json!({"name": "dunning_charges_cancel", "arguments": {"id": id}}),
            json!({}),
        )
        .await;
    assert_eq!(
        tool_problem(&answer.body["result"])["code"],
        "confirmation_required"
    );
    assert_eq!(status_of(&server, &id).await, "pending");
}

#[tokio::test]
async fn a_tampered_or_misused_state_is_refused() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let id = pending_charge(&server, 0).await;
    let (_, state) = ask(&server, &token, &id).await;
    let accept = json!({"action": "accept", "content": {"confirm": true}});

    let mut tampered = state.clone();
    tampered.insert(
        3,
        if tampered.as_bytes()[3] == b'A' {
            'B'
        } else {
            'A'
        },
    );
    let answer = retry(&server, &token, &id, &tampered, accept.clone()).await;
    assert_eq!(answer.body["error"]["code"], -32602, "{}", answer.text);

    // The same state with other arguments.
    let params = json!({"name": "dunning_charges_cancel", "arguments": {"id": id, "reason": "outro motivo"}, "requestState": state, "inputResponses": {"confirm": accept}});
    let answer = server
        .mcp26(&token, "tools/call", params, elicitation())
        .await;
    assert_eq!(answer.body["error"]["code"], -32602);
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("other arguments")
    );

    // The same state presented by someone else (another token of the same organization).
    let answer = retry(
        &server,
        &server.token(0, "manager", "mcp"),
        &id,
        &state,
        accept.clone(),
    )
    .await;
    assert_eq!(answer.body["error"]["code"], -32602);
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another caller")
    );

    assert_eq!(
        status_of(&server, &id).await,
        "pending",
        "none of these ran"
    );
}

#[tokio::test]
async fn the_handshake_era_runs_destructive_tools_with_annotations_asking_the_host() {
    let server = TestServer::start().await;
    let id = pending_charge(&server, 0).await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_cancel",
            json!({"id": id}),
        )
        .await;
    assert_eq!(
        result["structuredContent"]["data"]["status"], "canceled",
        "{result}"
    );
}

#[tokio::test]
async fn a_setting_refuses_unconfirmed_destructive_tools_in_the_handshake_era() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    let config = kobana_dunning::Config {
        reject_unconfirmed_in_handshake_era: true,
        ..kobana_dunning::Config::local()
    };
    let server = TestServer::start_configured(url, dir, config).await;
    let id = pending_charge(&server, 0).await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_cancel",
            json!({"id": id}),
        )
        .await;
    assert_eq!(tool_problem(&result)["code"], "confirmation_required");
    assert_eq!(status_of(&server, &id).await, "pending");
}

#[tokio::test]
async fn a_charge_that_is_not_open_cannot_be_canceled() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let paid = server
        .rest("GET", "/v1/charges?status=paid&per_page=1", &token, None)
        .await;
    let id = paid.body["data"][0]["id"].as_str().unwrap();
    let answer = server
        .rest(
            "POST",
            &format!("/v1/charges/{id}/cancel"),
            &token,
            Some(json!({})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.body["code"], "charge_not_open");
    let events = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    assert_eq!(events.body["data"]["status"], "paid");
}
