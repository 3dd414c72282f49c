//! Organization isolation across every resource: objects of one organization are invisible to
//! another's token on every detail, action and sub-resource path, and stay unchanged.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

/// Create one object of every kind in organization 1 and return (kind, id) pairs.
async fn objects_of_the_other_organization(server: &TestServer) -> Vec<(&'static str, String)> {
    let token = server.token(1, "admin", "api");
    let id = |answer: &crate::common::Answer| -> String {
        assert!(answer.status.is_success(), "{}", answer.text);
        answer.body["data"]["id"].as_str().unwrap().to_string()
    };
    let customers = server
        .rest(
            "GET",
            "/v1/customers?per_page=1&sort_by=name&sort_order=asc",
            &token,
            None,
        )
        .await;
    let customer = customers.body["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let pending = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={customer}&status=pending"),
            &token,
            None,
        )
        .await;
    let charge = pending.body["data"][0]["id"].as_str().unwrap().to_string();
    let overdue = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={customer}&status=overdue"),
            &token,
            None,
        )
        .await;
    let disputed = overdue.body["data"][0]["id"].as_str().unwrap().to_string();
    let plans = server
        .rest("GET", "/v1/collection_plans", &token, None)
        .await;
    let plan = plans.body["data"][0]["id"].as_str().unwrap().to_string();
    let steps = server
        .rest(
            "GET",
            &format!("/v1/collection_plans/{plan}/steps"),
            &token,
            None,
        )
        .await;
    let step = steps.body["data"][0]["id"].as_str().unwrap().to_string();
    let delivery = id(&server
        .rest(
            "POST",
            &format!("/v1/charges/{charge}/notify"),
            &token,
            Some(json!({"channel": "email"})),
        )
        .await);
    let agreement = id(&server
        .rest("POST", "/v1/agreements", &token, Some(json!({"customer_id": customer, "charge_ids": [charge], "installments": 2,
            "first_due_date": (time::OffsetDateTime::now_utc().date() + time::Duration::days(30)).to_string()})))
        .await);
    let dispute = id(&server
        .rest(
            "POST",
            "/v1/disputes",
            &token,
            Some(json!({"charge_id": disputed, "reason": "already_paid"})),
        )
        .await);
    let webhook = id(&server
        .rest(
            "POST",
            "/v1/webhooks",
            &token,
            Some(json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]})),
        )
        .await);
    let export = id(&server
        .rest(
            "POST",
            "/v1/exports",
            &token,
            Some(json!({"kind": "customers"})),
        )
        .await);
    vec![
        ("customer", customer),
        ("charge", charge),
        ("plan", plan),
        ("step", step),
        ("delivery", delivery),
        ("agreement", agreement),
        ("dispute", dispute),
        ("webhook", webhook),
        ("export", export),
    ]
}

fn id_of<'a>(objects: &'a [(&'static str, String)], kind: &str) -> &'a str {
    &objects.iter().find(|(k, _)| *k == kind).unwrap().1
}

#[tokio::test]
async fn another_organizations_objects_are_not_found_on_any_path() {
    let server = TestServer::start().await;
    let objects = objects_of_the_other_organization(&server).await;
    let o = |kind| id_of(&objects, kind).to_string();
    let (plan, step) = (o("plan"), o("step"));
    let paths: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", format!("/v1/customers/{}", o("customer")), None),
        (
            "PATCH",
            format!("/v1/customers/{}", o("customer")),
            Some(json!({"notes": "x"})),
        ),
        ("DELETE", format!("/v1/customers/{}", o("customer")), None),
        (
            "GET",
            format!("/v1/customers/{}/statement", o("customer")),
            None,
        ),
        ("GET", format!("/v1/charges/{}", o("charge")), None),
        (
            "PATCH",
            format!("/v1/charges/{}", o("charge")),
            Some(json!({"description": "x"})),
        ),
        (
            "POST",
            format!("/v1/charges/{}/cancel", o("charge")),
            Some(json!({})),
        ),
        (
            "POST",
            format!("/v1/charges/{}/pay", o("charge")),
            Some(json!({"amount": 1.0, "method": "pix"})),
        ),
        (
            "POST",
            format!("/v1/charges/{}/notify", o("charge")),
            Some(json!({"channel": "email"})),
        ),
        (
            "POST",
            format!("/v1/charges/{}/negativate", o("charge")),
            Some(json!({"bureau": "serasa"})),
        ),
        (
            "DELETE",
            format!("/v1/charges/{}/negativation", o("charge")),
            None,
        ),
        (
            "POST",
            format!("/v1/charges/{}/protest", o("charge")),
            Some(json!({})),
        ),
        (
            "DELETE",
            format!("/v1/charges/{}/protest", o("charge")),
            None,
        ),
        (
            "GET",
            format!("/v1/charges/{}/discharge_letter", o("charge")),
            None,
        ),
        ("GET", format!("/v1/charges/{}/events", o("charge")), None),
        ("GET", format!("/v1/collection_plans/{plan}"), None),
        (
            "PATCH",
            format!("/v1/collection_plans/{plan}"),
            Some(json!({"name": "x"})),
        ),
        ("DELETE", format!("/v1/collection_plans/{plan}"), None),
        ("GET", format!("/v1/collection_plans/{plan}/steps"), None),
        (
            "POST",
            format!("/v1/collection_plans/{plan}/steps"),
            Some(json!({"offset_days": 1, "action": "notify", "channel": "email"})),
        ),
        (
            "PATCH",
            format!("/v1/collection_plans/{plan}/steps/{step}"),
            Some(json!({"offset_days": 2})),
        ),
        (
            "DELETE",
            format!("/v1/collection_plans/{plan}/steps/{step}"),
            None,
        ),
        ("GET", format!("/v1/deliveries/{}", o("delivery")), None),
        (
            "POST",
            format!("/v1/deliveries/{}/resend", o("delivery")),
            None,
        ),
        ("GET", format!("/v1/agreements/{}", o("agreement")), None),
        (
            "POST",
            format!("/v1/agreements/{}/accept", o("agreement")),
            None,
        ),
        (
            "POST",
            format!("/v1/agreements/{}/cancel", o("agreement")),
            Some(json!({})),
        ),
        (
            "GET",
            format!("/v1/agreements/{}/term", o("agreement")),
            None,
        ),
        ("GET", format!("/v1/disputes/{}", o("dispute")), None),
        (
            "POST",
            format!("/v1/disputes/{}/resolve", o("dispute")),
            Some(json!({"outcome": "upheld"})),
        ),
        ("GET", format!("/v1/webhooks/{}", o("webhook")), None),
        (
            "PATCH",
            format!("/v1/webhooks/{}", o("webhook")),
            Some(json!({"enabled": false})),
        ),
        ("DELETE", format!("/v1/webhooks/{}", o("webhook")), None),
        ("POST", format!("/v1/webhooks/{}/test", o("webhook")), None),
        (
            "GET",
            format!("/v1/webhooks/{}/deliveries", o("webhook")),
            None,
        ),
        ("GET", format!("/v1/exports/{}", o("export")), None),
        ("GET", format!("/v1/exports/{}/download", o("export")), None),
    ];
    let token = server.token(0, "admin", "api");
    for (method, path, body) in &paths {
        let answer = server.rest(method, path, &token, body.clone()).await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{method} {path}: {}",
            answer.text
        );
        assert_eq!(answer.body["code"], "not_found", "{method} {path}");
    }
    // Still there, unchanged, for their own organization.
    let owner = server.token(1, "admin", "api");
    for (method, path, _) in paths.iter().filter(|(m, p, _)| {
        *m == "GET" && !p.ends_with("download") && !p.ends_with("discharge_letter")
    }) {
        let answer = server.rest(method, path, &owner, None).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{method} {path} for its owner: {}",
            answer.text
        );
    }
    let charge = server
        .rest("GET", &format!("/v1/charges/{}", o("charge")), &owner, None)
        .await;
    assert_eq!(charge.body["data"]["status"], "pending");
    assert_eq!(charge.body["data"]["paid_amount"], 0.0);
}

#[tokio::test]
async fn another_organizations_objects_never_appear_in_lists_or_filters() {
    let server = TestServer::start().await;
    let objects = objects_of_the_other_organization(&server).await;
    let token = server.token(0, "admin", "api");
    for list in [
        "/v1/customers",
        "/v1/charges",
        "/v1/collection_plans",
        "/v1/deliveries",
        "/v1/agreements",
        "/v1/disputes",
        "/v1/webhooks",
        "/v1/events",
    ] {
        let answer = server
            .rest("GET", &format!("{list}?per_page=100"), &token, None)
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{list}: {}", answer.text);
        for (kind, id) in &objects {
            assert!(
                !answer.text.contains(id.as_str()),
                "{list} shows the other organization's {kind} {id}"
            );
        }
    }
    let by_customer = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={}", id_of(&objects, "customer")),
            &token,
            None,
        )
        .await;
    assert_eq!(by_customer.body["meta"]["total"], 0);
}
