//! Organization isolation across every resource: objects of one organization are invisible to
//! another's token on every detail, action and sub-resource path, and stay unchanged.

use http::StatusCode;
use kobana_dunning::generated::OperationId;
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
            "first_due_date": (dunning_domain::calendar::today() + time::Duration::days(30)).to_string()})))
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
    // A Pix its PSP reported, kept for review (its txid names no charge).
    let item = dunning_app::pix_received::PixItem::read(&json!({
        "endToEndId": "E12345678202612061200isolation01",
        "txid": "unknownTxid00000000000000000",
        "valor": "10.00",
        "horario": "2026-12-01T12:00:00Z",
    }))
    .unwrap();
    let outcome = dunning_app::pix_received::receive_once(
        &server.state.db,
        server.org_id(1),
        &item,
        "webhook",
    )
    .await
    .unwrap();
    let dunning_app::pix_received::Outcome::Review { received_id, .. } = outcome else {
        panic!("{outcome:?}");
    };
    vec![
        ("customer", customer),
        ("charge", charge),
        ("plan", plan),
        ("pix_received", received_id),
        ("step", step),
        ("delivery", delivery),
        ("agreement", agreement),
        ("dispute", dispute),
        ("webhook", webhook),
        ("export", export),
    ]
}

/// The kind of object the first `{variable}` of `path` names, by its collection.
fn owner_kind(path: &str) -> &'static str {
    match path.split('/').nth(2) {
        Some("customers") => "customer",
        Some("charges") => "charge",
        Some("collection_plans") => "plan",
        Some("deliveries") => "delivery",
        Some("agreements") => "agreement",
        Some("disputes") => "dispute",
        Some("webhooks") => "webhook",
        Some("exports") => "export",
        Some("pix") => "pix_received",
        other => panic!("no object of the other organization for {other:?}: add one"),
    }
}

/// The body each operation is called with: valid, so that only the id can refuse it. An
/// exhaustive match, so a new operation does not compile here until it is considered.
fn body_for(operation: OperationId) -> Option<Value> {
    use OperationId as Op;
    match operation {
        Op::CustomersUpdate => Some(json!({"notes": "x"})),
        Op::ChargesUpdate => Some(json!({"description": "x"})),
        Op::ChargesCancel
        | Op::ChargesProtest
        | Op::AgreementsCancel
        | Op::AgreementsAutomaticPix => Some(json!({})),
        Op::ChargesPay => Some(json!({"amount": 1.0, "method": "pix"})),
        Op::ChargesNotify => Some(json!({"channel": "email"})),
        Op::ChargesNegativate => Some(json!({"bureau": "serasa"})),
        Op::CollectionPlansUpdate => Some(json!({"name": "x"})),
        Op::CollectionPlanStepsCreate => {
            Some(json!({"offset_days": 1, "action": "notify", "channel": "email"}))
        }
        Op::CollectionPlanStepsUpdate => Some(json!({"offset_days": 2})),
        Op::DisputesResolve => Some(json!({"outcome": "upheld"})),
        Op::WebhooksUpdate => Some(json!({"enabled": false})),
        Op::PixSettingsUpdate => {
            Some(json!({"key": "11222333000181", "merchant_name": "x", "merchant_city": "x"}))
        }
        Op::CalendarUpdate => Some(json!({"holidays": []})),
        Op::PixReceivedRefund => Some(json!({})),
        Op::Me
        | Op::CustomersList
        | Op::CustomersCreate
        | Op::CustomersGet
        | Op::CustomersDelete
        | Op::CustomersStatement
        | Op::ChargesList
        | Op::ChargesCreate
        | Op::ChargesGet
        | Op::ChargesNegativationRemove
        | Op::ChargesProtestCancel
        | Op::ChargesDischargeLetter
        | Op::ChargesEvents
        | Op::ChargesPix
        | Op::ReportsAging
        | Op::PixSettingsGet
        | Op::CalendarGet
        | Op::CollectionPlansList
        | Op::CollectionPlansCreate
        | Op::CollectionPlansGet
        | Op::CollectionPlansDelete
        | Op::CollectionPlanStepsList
        | Op::CollectionPlanStepsDelete
        | Op::DeliveriesList
        | Op::DeliveriesGet
        | Op::DeliveriesResend
        | Op::AgreementsList
        | Op::AgreementsCreate
        | Op::AgreementsGet
        | Op::AgreementsAccept
        | Op::AgreementsTerm
        | Op::AgreementsAutomaticPixCancel
        | Op::DisputesList
        | Op::DisputesCreate
        | Op::DisputesGet
        | Op::WebhooksList
        | Op::WebhooksCreate
        | Op::WebhooksGet
        | Op::WebhooksDelete
        | Op::WebhooksTest
        | Op::WebhookDeliveriesList
        | Op::WebhookDeliveriesRetry
        | Op::ExportsCreate
        | Op::ExportsGet
        | Op::ExportsDownload
        | Op::EventsList
        | Op::PixPspGet
        | Op::PixPspSet
        | Op::PixPspDelete
        | Op::PixPspTest
        | Op::PixReceivedList => None,
    }
}

fn id_of<'a>(objects: &'a [(&'static str, String)], kind: &str) -> &'a str {
    &objects.iter().find(|(k, _)| *k == kind).unwrap().1
}

#[tokio::test]
async fn another_organizations_objects_are_not_found_on_any_path() {
    let server = TestServer::start().await;
    let objects = objects_of_the_other_organization(&server).await;
    let o = |kind| id_of(&objects, kind).to_string();
    // Every operation of the generated table with an `{id}` in its path, so that a new route
    // cannot escape this test.
    let paths: Vec<(String, String, Option<Value>)> = OperationId::ALL
        .iter()
        .filter(|op| op.tool().path.contains('{'))
        .map(|op| {
            let tool = op.tool();
            let kind = owner_kind(tool.path);
            let path = tool
                .path
                .replace("{id}", &o(kind))
                .replace("{cp_id}", &o(kind))
                .replace("{step_id}", &o("step"))
                // No webhook delivery of the other organization is needed: its webhook is
                // not found first.
                .replace("{delivery_id}", "whd_0000000000000000");
            (tool.method.as_http().to_string(), path, body_for(*op))
        })
        .collect();
    assert!(paths.len() >= 28, "{} paths", paths.len());
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
