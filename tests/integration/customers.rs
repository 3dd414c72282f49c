//! `/v1/customers` over REST.

use http::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn listing_shows_only_the_callers_organization() {
    let server = TestServer::start().await;
    let a = server
        .rest(
            "GET",
            "/v1/customers?per_page=100",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let b = server
        .rest(
            "GET",
            "/v1/customers?per_page=100",
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let ids_a: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let ids_b: Vec<&str> = b.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids_a.len(), 5);
    assert_eq!(ids_b.len(), 4);
    assert!(ids_a.iter().all(|id| !ids_b.contains(id)));
    assert_eq!(
        a.body["meta"],
        json!({"total": 5, "page": 1, "per_page": 100, "total_pages": 1})
    );
}

#[tokio::test]
async fn another_organizations_customer_is_not_found() {
    let server = TestServer::start().await;
    let list = server
        .rest(
            "GET",
            "/v1/customers",
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    let foreign = list.body["data"][0]["id"].as_str().unwrap().to_string();
    let answer = server
        .rest(
            "GET",
            &format!("/v1/customers/{foreign}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.body["code"], "not_found");
    assert_eq!(
        answer.header("content-type"),
        Some("application/problem+json")
    );
}

#[tokio::test]
async fn create_normalises_the_document_and_returns_an_etag() {
    let server = TestServer::start().await;
    let token = server.token(0, "manager", "api");
    let body = json!({
        "name": "Maria José Conceição",
        "document": "111.444.777-35",
        "email": "Maria.Jose@Example.com.br",
        "phone": "+5511900001111",
        "address": {"street": "Av. Paulista", "number": "1000", "district": "Bela Vista", "city": "São Paulo", "state": "sp", "zip_code": "01310-100"},
        "tags": ["varejo", "varejo", "novo"],
    });
    let answer = server
        .rest("POST", "/v1/customers", &token, Some(body))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let customer = &answer.body["data"];
    assert_eq!(customer["document"], "11144477735");
    assert_eq!(customer["document_type"], "cpf");
    assert_eq!(customer["email"], "maria.jose@example.com.br");
    assert_eq!(customer["address"]["state"], "SP");
    assert_eq!(customer["address"]["zip_code"], "01310100");
    assert_eq!(customer["tags"], json!(["varejo", "novo"]));
    assert_eq!(answer.header("etag"), Some("\"v1\""));
    let id = customer["id"].as_str().unwrap();
    let events = server.state.db.pool.clone();
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM events WHERE subject_id = $1 AND type = 'customer.created'",
    )
    .bind(id)
    .fetch_one(&events)
    .await
    .unwrap();
    assert_eq!(count, 1, "creation is in the audit trail");
}

#[tokio::test]
async fn invalid_fields_are_all_reported_at_once_and_nothing_is_created() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    // The rules a schema cannot say (the CPF's check digits, the e-mail's form) are judged
    // once the body meets the document: two bodies, each with every fault of its kind.
    let bodies = [
        (
            json!({"document": "529.982.247-24", "email": "not-an-email", "tags": "vip", "shoe_size": 42}),
            vec!["name", "shoe_size", "tags"],
        ),
        (
            json!({"name": "Maria", "document": "529.982.247-24", "email": "not-an-email"}),
            vec!["document", "email"],
        ),
    ];
    for (body, expected) in bodies {
        let answer = server
            .rest("POST", "/v1/customers", &token, Some(body))
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
        assert_eq!(answer.body["code"], "VALIDATION_ERROR");
        let mut fields: Vec<&str> = answer.body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        fields.sort();
        assert_eq!(fields, expected);
    }
    let after = server.rest("GET", "/v1/customers", &token, None).await;
    assert_eq!(after.body["meta"]["total"], 5);
}

#[tokio::test]
async fn a_document_already_registered_is_a_conflict() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let existing = server
        .rest(
            "GET",
            "/v1/customers?sort_by=name&sort_order=asc",
            &token,
            None,
        )
        .await;
    let document = existing.body["data"][0]["document"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": "Outra Pessoa", "document": document})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.body["code"], "customer_document_taken");
    // The same document in the other organization is fine: documents are unique per tenant.
    let other = server
        .rest(
            "POST",
            "/v1/customers",
            &server.token(1, "admin", "api"),
            Some(json!({"name": "Outra Pessoa", "document": document})),
        )
        .await;
    assert_eq!(other.status, StatusCode::CREATED, "{}", other.text);
}

#[tokio::test]
async fn update_with_a_stale_etag_is_refused_and_changes_nothing() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let list = server.rest("GET", "/v1/customers", &token, None).await;
    let id = list.body["data"][0]["id"].as_str().unwrap().to_string();
    let path = format!("/v1/customers/{id}");
    let first = server
        .rest_with(
            "PATCH",
            &path,
            &token,
            &[("if-match", "\"v1\"")],
            Some(json!({"notes": "Ligou dia 3"})),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(first.header("etag"), Some("\"v2\""));
    let stale = server
        .rest_with(
            "PATCH",
            &path,
            &token,
            &[("if-match", "\"v1\"")],
            Some(json!({"notes": "sobrescrito"})),
        )
        .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(stale.body["code"], "precondition_failed");
    let now = server.rest("GET", &path, &token, None).await;
    assert_eq!(now.body["data"]["notes"], "Ligou dia 3");
}

#[tokio::test]
async fn the_document_of_a_customer_cannot_be_changed() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let list = server.rest("GET", "/v1/customers", &token, None).await;
    let id = list.body["data"][0]["id"].as_str().unwrap();
    let answer = server
        .rest(
            "PATCH",
            &format!("/v1/customers/{id}"),
            &token,
            Some(json!({"document": "11144477735"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["errors"][0]["code"], "read_only");
}

#[tokio::test]
async fn search_finds_names_without_accents_and_documents_by_prefix() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let by_name = server
        .rest("GET", "/v1/customers?q=conceicao", &token, None)
        .await;
    assert_eq!(
        by_name.body["data"][0]["name"], "Conceição Araújo",
        "{}",
        by_name.text
    );
    let by_document = server
        .rest("GET", "/v1/customers?q=5299822", &token, None)
        .await;
    assert_eq!(by_document.body["meta"]["total"], 1);
}

#[tokio::test]
async fn unknown_or_invalid_query_parameters_are_named() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest("GET", "/v1/customers?per_page=500&colour=red", &token, None)
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let fields: Vec<&str> = answer.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["per_page", "colour"]);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_bad_request() {
    let server = TestServer::start().await;
    let answer = server
        .rest_with(
            "POST",
            "/v1/customers",
            &server.token(0, "admin", "api"),
            &[("content-type", "application/json")],
            None,
        )
        .await;
    // An empty body is an empty object: the fields it lacks are named.
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["code"], "VALIDATION_ERROR");
    let request = http::Request::builder()
        .method("POST")
        .uri("/v1/customers")
        .header(
            "authorization",
            format!("Bearer {}", server.token(0, "admin", "api")),
        )
        .header("content-type", "application/json")
        .body(axum::body::Body::from("{not json"))
        .unwrap();
    let answer = server.send(request).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["code"], "malformed_request");
}
