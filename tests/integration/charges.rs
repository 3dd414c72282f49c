//! `/v1/charges` over REST: filters, validation, the rules of open charges.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

fn statuses(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_demo_has_charges_in_every_status() {
    let server = TestServer::start().await;
    let answer = server
        .rest(
            "GET",
            "/v1/charges?per_page=100",
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let mut seen = statuses(&answer.body);
    seen.sort();
    seen.dedup();
    assert_eq!(
        seen,
        ["canceled", "in_agreement", "overdue", "paid", "pending"]
    );
}

#[tokio::test]
async fn status_filter_takes_a_comma_separated_list() {
    let server = TestServer::start().await;
    let answer = server
        .rest(
            "GET",
            "/v1/charges?status=pending,overdue&per_page=100",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let seen = statuses(&answer.body);
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|s| s == "pending" || s == "overdue"),
        "{seen:?}"
    );
    assert_eq!(
        answer.body["meta"]["total"].as_u64().unwrap() as usize,
        seen.len()
    );
}

#[tokio::test]
async fn filters_and_sorting_combine() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest("GET", "/v1/charges?amount_min=350&amount_max=1000&sort_by=amount&sort_order=desc&per_page=100", &token, None)
        .await;
    let amounts: Vec<f64> = answer.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["amount"].as_f64().unwrap())
        .collect();
    assert!(!amounts.is_empty());
    assert!(
        amounts.iter().all(|a| (350.0..=1000.0).contains(a)),
        "{amounts:?}"
    );
    assert!(
        amounts.windows(2).all(|w| w[0] >= w[1]),
        "descending: {amounts:?}"
    );

    let customers = server
        .rest(
            "GET",
            "/v1/customers?per_page=1&sort_by=name&sort_order=asc",
            &token,
            None,
        )
        .await;
    let customer = customers.body["data"][0]["id"].as_str().unwrap();
    let mine = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={customer}&per_page=100"),
            &token,
            None,
        )
        .await;
    assert_eq!(mine.body["meta"]["total"], 6);
    assert!(
        mine.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["customer_id"] == customer)
    );

    let window = server
        .rest(
            "GET",
            "/v1/charges?due_date_from=2000-01-01&due_date_to=2000-12-31",
            &token,
            None,
        )
        .await;
    assert_eq!(window.body["meta"]["total"], 0);
}

#[tokio::test]
async fn an_unknown_status_is_refused_naming_the_parameter() {
    let server = TestServer::start().await;
    let answer = server
        .rest(
            "GET",
            "/v1/charges?status=pending,lost",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["errors"][0]["field"], "status");
    assert!(
        answer.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("'lost'")
    );
}

async fn first_customer(server: &TestServer, org: usize) -> String {
    let list = server
        .rest(
            "GET",
            "/v1/customers",
            &server.token(org, "admin", "api"),
            None,
        )
        .await;
    list.body["data"][0]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_new_charge_is_pending_with_the_default_terms() {
    let server = TestServer::start().await;
    let customer = first_customer(&server, 0).await;
    let body = json!({"customer_id": customer, "description": "Conserto do forno", "amount": 1234.56, "due_date": crate::agreements::day(300)});
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &server.token(0, "collector", "api"),
            Some(body),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let charge = &answer.body["data"];
    assert_eq!(charge["status"], "pending");
    assert_eq!(charge["amount"], 1234.56);
    assert_eq!(charge["amount_due"], 1234.56);
    assert_eq!(charge["fine_percent"], 2.0);
    assert_eq!(charge["interest_percent"], 1.0);
    assert_eq!(charge["negativation_status"], "none");
}

#[tokio::test]
async fn an_overdue_charge_owes_fine_and_interest() {
    let server = TestServer::start().await;
    let customer = first_customer(&server, 0).await;
    // Thirty days late or a little more: a due date that a weekend or holiday does not move.
    let late = -crate::common::business_day_offset(-30, -1);
    let due = (dunning_domain::calendar::today() - time::Duration::days(late)).to_string();
    let body = json!({"customer_id": customer, "description": "Atrasada", "amount": 100.0, "due_date": due});
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &server.token(0, "admin", "api"),
            Some(body),
        )
        .await;
    assert_eq!(answer.body["data"]["status"], "overdue", "{}", answer.text);
    // A 2 % fine and 1 % a month, day by day: R$ 1,00 for 30 days, R$ 1,03 for 31.
    assert_eq!(
        answer.body["data"]["amount_due"],
        crate::common::owed_on_100(late)
    );
}

#[tokio::test]
async fn invalid_money_and_terms_are_refused_field_by_field() {
    let server = TestServer::start().await;
    let foreign = first_customer(&server, 1).await;
    let body = json!({"customer_id": foreign, "description": "x", "amount": 10.005, "due_date": "31/01/2099", "fine_percent": 5});
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &server.token(0, "admin", "api"),
            Some(body),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let errors: Vec<(String, String)> = answer.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_string(),
                e["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        errors.contains(&("amount".into(), "multiple_of".into())),
        "{errors:?}"
    );
    assert!(
        errors.contains(&("due_date".into(), "format".into())),
        "{errors:?}"
    );
    assert!(
        errors.contains(&("fine_percent".into(), "range".into())),
        "the late fine is capped at 2 %: {errors:?}"
    );
    // The rules a schema cannot say (here: the customer must be the organization's) are
    // judged once the body meets the document.
    let body = json!({"customer_id": foreign, "description": "x", "amount": 10.05, "due_date": "2099-01-31", "fine_percent": 5});
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &server.token(0, "admin", "api"),
            Some(body),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let fields: Vec<(&str, &str)> = answer.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fields,
        [("fine_percent", "range")],
        "the document's faults first: {answer:?}"
    );
    let body = json!({"customer_id": foreign, "description": "x", "amount": 10.05, "due_date": "2030-01-31"});
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &server.token(0, "admin", "api"),
            Some(body),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (
            &answer.body["errors"][0]["field"],
            &answer.body["errors"][0]["code"]
        ),
        (&json!("customer_id"), &json!("not_found")),
        "another tenant's customer: {:?}",
        answer.body
    );
}

#[tokio::test]
async fn a_paid_charge_cannot_be_changed() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let paid = server
        .rest("GET", "/v1/charges?status=paid&per_page=1", &token, None)
        .await;
    let charge = &paid.body["data"][0];
    let id = charge["id"].as_str().unwrap();
    let answer = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{id}"),
            &token,
            Some(json!({"description": "novo"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.body["code"], "charge_not_open");
    let after = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    assert_eq!(after.body["data"]["description"], charge["description"]);
}

#[tokio::test]
async fn the_amount_is_fixed_once_something_was_paid() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let list = server
        .rest(
            "GET",
            "/v1/charges?status=overdue&per_page=100",
            &token,
            None,
        )
        .await;
    let partly = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["paid_amount"].as_f64().unwrap() > 0.0)
        .unwrap();
    let id = partly["id"].as_str().unwrap();
    let answer = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{id}"),
            &token,
            Some(json!({"amount": 1.0})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.body["code"], "charge_has_payments");
    let ok = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{id}"),
            &token,
            Some(json!({"tags": ["renegociar"]})),
        )
        .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert_eq!(ok.body["data"]["tags"], json!(["renegociar"]));
}
