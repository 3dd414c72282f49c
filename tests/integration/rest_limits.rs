//! The REST edges: date bounds and the characters text may hold.

use http::StatusCode;
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

async fn customer_total(server: &TestServer) -> i64 {
    let token = server.token(0, "admin", "api");
    let list = server.rest("GET", "/v1/customers", &token, None).await;
    list.body["meta"]["total"].as_i64().expect("total")
}

// --- Dates ---------------------------------------------------------------------------------

/// `YYYY-MM-DD`, `years` from today (Feb 29 falls back to Feb 28).
fn years_from_today(years: i32) -> String {
    let today = time::OffsetDateTime::now_utc().date();
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
