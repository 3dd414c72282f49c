//! The REST edges: media types, problem documents for every error, date bounds, the
//! characters text may hold, authorization before validation, and the mode of the demo
//! credentials file.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::agreements::{charge, customer, day};
use crate::common::{Answer, TestServer};

fn field_codes(answer: &Answer) -> Vec<(String, String)> {
    answer.body["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| {
                    (
                        e["field"].as_str().unwrap_or_default().to_string(),
                        e["code"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The answer is an RFC 9457 problem with this status and code.
fn assert_problem(answer: &Answer, status: StatusCode, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.text);
    assert_eq!(
        answer.header("content-type"),
        Some("application/problem+json"),
        "{status}: {}",
        answer.text
    );
    assert_eq!(
        answer.body["status"],
        json!(status.as_u16()),
        "{}",
        answer.text
    );
    assert_eq!(answer.body["code"], code, "{}", answer.text);
    assert!(answer.body["type"].is_string() && answer.body["title"].is_string());
}

async fn raw(
    server: &TestServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: impl Into<Body>,
) -> Answer {
    let mut builder = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    server
        .send(builder.body(body.into()).expect("request"))
        .await
}

async fn customer_total(server: &TestServer) -> i64 {
    let token = server.token(0, "admin", "api");
    let list = server.rest("GET", "/v1/customers", &token, None).await;
    list.body["meta"]["total"].as_i64().expect("total")
}

// --- Media types -------------------------------------------------------------------------

#[tokio::test]
async fn a_body_that_is_not_declared_json_is_refused_with_415_and_creates_nothing() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    let before = customer_total(&server).await;
    let body = json!({"name": "Texto Puro", "document": "11144477735"}).to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("application/jsonp"),
        Some("application/json; charset=iso-8859-1"),
        None,
    ] {
        let mut headers = vec![("authorization", auth.as_str())];
        if let Some(value) = content_type {
            headers.push(("content-type", value));
        }
        let answer = raw(&server, "POST", "/v1/customers", &headers, body.clone()).await;
        assert_problem(
            &answer,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        );
    }
    assert_eq!(customer_total(&server).await, before, "nothing was created");
}

#[tokio::test]
async fn json_media_types_with_parameters_and_suffixes_are_accepted() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    let cases = [
        ("application/json", "918273645"),
        ("Application/JSON; charset=UTF-8", "827364519"),
        ("application/merge-patch+json", "736451928"),
    ];
    for (content_type, cpf_base) in cases {
        let document = dunning_domain::document::cpf_with_check_digits(cpf_base);
        let body = json!({"name": "Cliente JSON", "document": document}).to_string();
        let answer = raw(
            &server,
            "POST",
            "/v1/customers",
            &[("authorization", &auth), ("content-type", content_type)],
            body,
        )
        .await;
        assert_eq!(
            answer.status,
            StatusCode::CREATED,
            "{content_type}: {}",
            answer.text
        );
    }
}

#[tokio::test]
async fn an_empty_body_needs_no_content_type() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Sem Corpo", "918273645").await;
    let charge = charge(&server, &customer, 10.0, 5).await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    let answer = raw(
        &server,
        "POST",
        &format!("/v1/charges/{charge}/cancel"),
        &[("authorization", &auth)],
        Body::empty(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(answer.body["data"]["status"], "canceled");
}

#[tokio::test]
async fn mcp_writes_still_reach_the_api_with_their_json_bodies() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let result = server
        .call_tool(
            &token,
            "dunning_customers_create",
            json!({"name": "Via MCP", "document": "11144477735"}),
        )
        .await;
    assert_ne!(result.get("isError"), Some(&json!(true)), "{result}");
    assert_eq!(result["structuredContent"]["data"]["name"], "Via MCP");
}

// --- Every error is a problem document ------------------------------------------------------

#[tokio::test]
async fn unknown_routes_answer_a_problem_404_on_the_whole_server() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    for path in [
        "/",
        "/nope",
        "/v1/nope",
        "/v1/customers/cus_x/nope",
        "/.well-known/nope",
    ] {
        let answer = raw(
            &server,
            "GET",
            path,
            &[("authorization", &auth)],
            Body::empty(),
        )
        .await;
        assert_problem(&answer, StatusCode::NOT_FOUND, "route_not_found");
    }
    // The routes that exist still answer as before.
    let metadata = raw(
        &server,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        Body::empty(),
    )
    .await;
    assert_eq!(metadata.status, StatusCode::OK, "{}", metadata.text);
    let openapi = raw(&server, "GET", "/v1/openapi.json", &[], Body::empty()).await;
    assert_eq!(openapi.status, StatusCode::OK);
}

#[tokio::test]
async fn a_method_a_route_does_not_take_answers_405_with_allow_and_a_problem() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    let cases = [
        ("DELETE", "/v1/me", "GET,HEAD"),
        ("PUT", "/v1/customers", "GET,HEAD,POST"),
        ("POST", "/v1/openapi.json", "GET,HEAD"),
        ("POST", "/.well-known/oauth-protected-resource", "GET,HEAD"),
    ];
    let sorted = |text: &str| {
        let mut methods: Vec<String> = text.split(',').map(|m| m.trim().to_string()).collect();
        methods.sort();
        methods
    };
    for (method, path, allow) in cases {
        let answer = raw(
            &server,
            method,
            path,
            &[("authorization", &auth)],
            Body::empty(),
        )
        .await;
        assert_problem(
            &answer,
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        );
        let given = answer.header("allow").unwrap_or_default();
        assert_eq!(sorted(given), sorted(allow), "{method} {path}");
    }
}

#[tokio::test]
async fn a_body_over_2_mb_answers_a_problem_413() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    let huge = json!({"name": "x".repeat(3 * 1024 * 1024), "document": "11144477735"}).to_string();
    let answer = raw(
        &server,
        "POST",
        "/v1/customers",
        &[
            ("authorization", &auth),
            ("content-type", "application/json"),
        ],
        huge,
    )
    .await;
    assert_problem(&answer, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
}

#[tokio::test]
async fn a_path_that_is_not_utf8_once_decoded_answers_a_problem_400() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "admin", "api"));
    for path in ["/v1/customers/%FF", "/v1/charges/%C3%28/events"] {
        let answer = raw(
            &server,
            "GET",
            path,
            &[("authorization", &auth)],
            Body::empty(),
        )
        .await;
        assert_problem(&answer, StatusCode::BAD_REQUEST, "malformed_request");
    }
}

// --- Authorization first ----------------------------------------------------------------------

#[tokio::test]
async fn a_viewer_write_is_refused_for_scope_before_its_body_is_looked_at() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "api"));
    let bodies = [
        ("application/json", "{not json".to_string()),
        ("application/json", "[1, 2]".to_string()),
        (
            "application/json",
            json!({"amount": "x", "due_date": "1900-01-01"}).to_string(),
        ),
        ("text/plain", "hello".to_string()),
        ("application/json", "x".repeat(3 * 1024 * 1024)),
    ];
    for (content_type, body) in bodies {
        let answer = raw(
            &server,
            "POST",
            "/v1/charges",
            &[("authorization", &auth), ("content-type", content_type)],
            body,
        )
        .await;
        assert_problem(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    }
}

// --- Dates ---------------------------------------------------------------------------------

/// `YYYY-MM-DD`, `years` from today (Feb 29 falls back to Feb 28).
fn years_from_today(years: i32) -> String {
    let today = dunning_domain::calendar::today();
    let year = today.year() + years;
    today
        .replace_year(year)
        .unwrap_or_else(|_| today.replace_day(28).unwrap().replace_year(year).unwrap())
        .to_string()
}

#[tokio::test]
async fn due_dates_stay_within_ten_years_of_today_and_other_dates_within_this_century() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let customer = customer(&server, "Datas", "827364519").await;
    let create = |due: String| json!({"customer_id": customer, "description": "Datas", "amount": 100.0, "due_date": due});
    for due in [
        "1900-01-01".to_string(),
        "1999-12-31".to_string(),
        "9999-12-31".to_string(),
        years_from_today(-11),
        years_from_today(11),
    ] {
        let answer = server
            .rest("POST", "/v1/charges", &token, Some(create(due.clone())))
            .await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{due}: {}",
            answer.text
        );
        assert_eq!(
            field_codes(&answer),
            [("due_date".into(), "range".into())],
            "{due}"
        );
    }
    for due in [years_from_today(-9), years_from_today(9)] {
        let answer = server
            .rest("POST", "/v1/charges", &token, Some(create(due.clone())))
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{due}: {}", answer.text);
    }
    let charge = charge(&server, &customer, 50.0, 3).await;
    let update = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{charge}"),
            &token,
            Some(json!({"due_date": "1900-01-01"})),
        )
        .await;
    assert_eq!(field_codes(&update), [("due_date".into(), "range".into())]);
    let agreement = server
        .rest(
            "POST",
            "/v1/agreements",
            &token,
            Some(json!({"customer_id": customer, "charge_ids": [charge], "installments": 2, "first_due_date": years_from_today(11)})),
        )
        .await;
    assert_eq!(
        field_codes(&agreement),
        [("first_due_date".into(), "range".into())]
    );
    for query in ["due_date_from=1999-12-31", "due_date_to=2100-01-01"] {
        let list = server
            .rest("GET", &format!("/v1/charges?{query}"), &token, None)
            .await;
        assert_eq!(
            list.status,
            StatusCode::BAD_REQUEST,
            "{query}: {}",
            list.text
        );
        assert_eq!(field_codes(&list)[0].1, "range", "{query}");
    }
    let export = server
        .rest(
            "POST",
            "/v1/exports",
            &token,
            Some(json!({"kind": "charges", "filters": {"due_date_from": "1900-01-01"}})),
        )
        .await;
    assert_eq!(export.status, StatusCode::BAD_REQUEST, "{}", export.text);
    let pay = server
        .rest(
            "POST",
            &format!("/v1/charges/{charge}/pay"),
            &token,
            Some(json!({"amount": 10.0, "method": "pix", "paid_at": "1900-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(field_codes(&pay), [("paid_at".into(), "range".into())]);
    let events = server
        .rest(
            "GET",
            "/v1/events?created_from=0001-01-01T00:00:00%2B23:59",
            &token,
            None,
        )
        .await;
    assert_eq!(
        field_codes(&events),
        [("created_from".into(), "range".into())]
    );
    // Today is fine everywhere.
    let today = day(0);
    let list = server
        .rest(
            "GET",
            &format!("/v1/charges?due_date_from={today}"),
            &token,
            None,
        )
        .await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
}

// --- Characters in text ---------------------------------------------------------------------

#[tokio::test]
async fn text_refuses_control_characters_and_bidi_overrides_wherever_it_is() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let before = customer_total(&server).await;
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"name": "Ana\u{0}Maria", "document": "11144477735"}),
            "name",
        ),
        (
            json!({"name": "fatura\u{202E}fdp.exe", "document": "11144477735"}),
            "name",
        ),
        (
            json!({"name": "Ana\nMaria", "document": "11144477735"}),
            "name",
        ),
        (
            json!({"name": "Ana", "document": "11144477735", "tags": ["vip\u{2066}"]}),
            "tags[0]",
        ),
        (
            json!({"name": "Ana", "document": "11144477735", "address": {"street": "Rua\u{7}", "number": "1", "district": "Centro", "city": "Campinas", "state": "SP", "zip_code": "13010-000"}}),
            "address.street",
        ),
        (
            json!({"name": "Ana", "document": "11144477735", "notes": "linha\u{1b}[31m"}),
            "notes",
        ),
        (
            json!({"name": "Ana", "document": "11144477735", "notes": "a\r\nb"}),
            "notes",
        ),
        (
            json!({"name": "Ana", "document": "11144477735", "notes": "\u{85}"}),
            "notes",
        ),
    ];
    for (body, field) in cases {
        let answer = server
            .rest("POST", "/v1/customers", &token, Some(body.clone()))
            .await;
        assert_problem(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(
            field_codes(&answer).contains(&(field.to_string(), "invalid_characters".to_string())),
            "{body}: {}",
            answer.text
        );
    }
    let query = server
        .rest("GET", "/v1/customers?q=a%00b", &token, None)
        .await;
    assert_eq!(
        field_codes(&query),
        [("q".into(), "invalid_characters".into())]
    );
    assert_eq!(customer_total(&server).await, before, "nothing was created");
}

#[tokio::test]
async fn multi_line_fields_keep_line_breaks_and_tabs() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let notes = "Primeira linha\n\tsegunda, recuada\nterceira";
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": "Ana Multilinha", "document": "11144477735", "notes": notes})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    assert_eq!(answer.body["data"]["notes"], notes);
    let customer = answer.body["data"]["id"].as_str().unwrap().to_string();
    let description = "Parcela 1/3\nReferente a março\u{2014}abril (acentuação: ção)";
    let charge = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(json!({"customer_id": customer, "description": description, "amount": 10.0, "due_date": day(5)})),
        )
        .await;
    assert_eq!(charge.status, StatusCode::CREATED, "{}", charge.text);
    assert_eq!(charge.body["data"]["description"], description);
}

// --- Secrets at rest --------------------------------------------------------------------------

#[cfg(unix)]
#[tokio::test]
async fn the_demo_credentials_file_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start().await;
    let path = dir.path().join("data/demo-credentials.json");
    kobana_dunning::demo::write_credentials(&path, &server.credentials).expect("written");
    let mode = std::fs::metadata(&path).expect("file").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    // A file left readable by an older version is replaced by a private one.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    kobana_dunning::demo::write_credentials(&path, &server.credentials).expect("rewritten");
    let mode = std::fs::metadata(&path).expect("file").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    let text = std::fs::read_to_string(&path).expect("read");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["organizations"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn constraints_written_only_in_the_document_are_enforced_naming_the_field() {
    // `page` and `per_page` ranges, and the body's unknown fields, are said only by
    // openapi/v1.yaml: the handlers no longer repeat them.
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    for (query, field, code) in [
        ("per_page=101", "per_page", "range"),
        ("per_page=0", "per_page", "range"),
        ("page=0", "page", "range"),
        ("page=1000001", "page", "range"),
        ("per_page=ten", "per_page", "type"),
        ("colour=red", "colour", "unknown"),
    ] {
        let answer = server
            .rest("GET", &format!("/v1/customers?{query}"), &token, None)
            .await;
        assert_problem(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(
            field_codes(&answer),
            [(field.to_string(), code.to_string())],
            "{query}: {}",
            answer.text
        );
    }
    let fine = server
        .rest("GET", "/v1/customers?page=2&per_page=100", &token, None)
        .await;
    assert_eq!(fine.status, StatusCode::OK, "{}", fine.text);
    assert_eq!(fine.body["meta"]["per_page"], 100);
}

#[tokio::test]
async fn an_empty_query_value_is_judged_like_any_other_value() {
    // `?tag=` used to mean "no filter"; the document says a tag has 1 to 40 characters, so
    // an empty one is refused like any other value the document does not allow.
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    for (path, field, code) in [
        ("/v1/customers?tag=", "tag", "length"),
        ("/v1/customers?q=", "q", "length"),
        ("/v1/charges?tag=", "tag", "length"),
        ("/v1/collection_plans?q=", "q", "length"),
        ("/v1/agreements?customer_id=", "customer_id", "pattern"),
        ("/v1/deliveries?status=", "status", "enum"),
        ("/v1/customers?page=", "page", "type"),
    ] {
        let answer = server.rest("GET", path, &token, None).await;
        assert_problem(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(
            field_codes(&answer),
            [(field.to_string(), code.to_string())],
            "{path}: {}",
            answer.text
        );
    }
}

#[tokio::test]
async fn text_the_document_wants_filled_is_refused_when_blank_over_rest_and_mcp() {
    // Handlers trim text and no longer count its characters: the document's "not blank"
    // pattern refuses white space alone, over REST and over MCP (whose arguments meet the
    // same document, in the tool's schema and in the `/v1` router the call goes through).
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": " \u{a0}\t", "document": "11144477735"})),
        )
        .await;
    assert_problem(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    // The tab is the text rule's fault, reported once for the field.
    assert_eq!(
        field_codes(&answer),
        [("name".to_string(), "invalid_characters".to_string())],
        "{}",
        answer.text
    );
    let answer = server
        .rest(
            "POST",
            "/v1/collection_plans",
            &token,
            Some(json!({"name": "   ", "steps": [{"offset_days": 1, "action": "notify", "channel": "email", "template": " \n "}]})),
        )
        .await;
    assert_problem(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let mut named = field_codes(&answer);
    named.sort();
    assert_eq!(
        named,
        [
            ("name".to_string(), "length".to_string()),
            ("steps[0].template".to_string(), "length".to_string()),
        ],
        "{}",
        answer.text
    );
    let mcp = server.token(0, "admin", "mcp");
    let before = customer_total(&server).await;
    let result = server
        .call_tool(
            &mcp,
            "dunning_customers_create",
            json!({"name": "  ", "document": "11144477735"}),
        )
        .await;
    let problem = crate::common::tool_problem(&result);
    assert_eq!(problem["status"], 400, "{result}");
    assert_eq!(problem["errors"][0]["field"], "name", "{result}");
    assert_eq!(customer_total(&server).await, before);
}
