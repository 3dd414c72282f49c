//! Tokens, audiences, scopes and roles on `/v1`.

use http::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn a_request_without_a_token_gets_a_401_problem_with_a_challenge() {
    let server = TestServer::start().await;
    let request = http::Request::builder()
        .uri("/v1/me")
        .body(axum::body::Body::empty())
        .unwrap();
    let answer = server.send(request).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(answer.body["code"], "unauthorized");
    assert!(
        answer
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
}

#[tokio::test]
async fn an_mcp_token_is_refused_by_the_rest_api() {
    let server = TestServer::start().await;
    let answer = server
        .rest("GET", "/v1/me", &server.token(0, "admin", "mcp"), None)
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(
        answer
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
}

#[tokio::test]
async fn me_describes_the_token_its_person_and_organization() {
    let server = TestServer::start().await;
    let answer = server
        .rest("GET", "/v1/me", &server.token(1, "collector", "api"), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    let me = &answer.body["data"];
    assert_eq!(me["organization"]["id"], server.org_id(1));
    assert_eq!(me["person"]["role"], "collector");
    assert_eq!(me["token"]["audience"], "api");
    assert!(
        me["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("charges:collect"))
    );
    assert!(
        !me["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("webhooks:read"))
    );
}

#[tokio::test]
async fn a_viewer_cannot_write_and_nothing_is_written() {
    let server = TestServer::start().await;
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &server.token(0, "viewer", "api"),
            Some(json!({"name": "X", "document": "11144477735"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.body["code"], "insufficient_scope");
    assert!(
        answer.body["detail"]
            .as_str()
            .unwrap()
            .contains("customers:write")
    );
    let list = server
        .rest(
            "GET",
            "/v1/customers",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(list.body["meta"]["total"], 5);
}

#[tokio::test]
async fn a_manager_cannot_see_webhooks() {
    let server = TestServer::start().await;
    let answer = server
        .rest(
            "GET",
            "/v1/webhooks",
            &server.token(0, "manager", "api"),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(
        answer.body["detail"]
            .as_str()
            .unwrap()
            .contains("webhooks:read")
    );
}

#[tokio::test]
async fn every_operation_has_a_handler_behind_the_checks() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    for tool in kobana_dunning::generated::TOOLS {
        let method = format!("{:?}", tool.method).to_uppercase();
        // Path variables get an id that exists nowhere: a 404 is a handler's answer too.
        let mut path = String::new();
        let mut rest = tool.path;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            path.push_str(&rest[..open]);
            path.push_str("zz_0000000000000000");
            rest = &rest[close..];
        }
        path.push_str(rest);
        let answer = server.rest(&method, &path, &token, None).await;
        assert_ne!(
            answer.status,
            StatusCode::NOT_IMPLEMENTED,
            "{} ({method} {path}) has no handler",
            tool.name
        );
        let anonymous = server
            .send(
                http::Request::builder()
                    .method(method.as_str())
                    .uri(&path)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(
            anonymous.status,
            StatusCode::UNAUTHORIZED,
            "{}: authentication comes before the handler",
            tool.name
        );
    }
}

#[tokio::test]
async fn the_openapi_document_is_served_as_json() {
    let server = TestServer::start().await;
    let answer = server
        .send(
            http::Request::builder()
                .uri("/v1/openapi.json")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["info"]["title"], "Kobana Dunning API");
    assert!(answer.body["paths"]["/v1/charges"]["get"].is_object());
}

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let server = TestServer::start().await;
    let answer = server
        .rest("GET", "/v1/me", &server.token(0, "admin", "api"), None)
        .await;
    assert!(answer.header("request-id").unwrap().starts_with("req_"));
}
