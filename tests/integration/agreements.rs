//! Agreements: proposal arithmetic, acceptance (originals in agreement, instalment charges
//! created), cancellation and breaking (balance reinstated), fulfilment, the term PDF, and
//! the same operations through MCP.

use dunning_engine as engine;
use dunning_store::events;
use http::StatusCode;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::common::{Answer, TestServer};

/// Today (UTC, as the server computes statuses) plus `days`, as `YYYY-MM-DD`.
pub fn day(days: i64) -> String {
    (dunning_domain::calendar::today() + Duration::days(days)).to_string()
}

/// A new customer of organization 0 (with e-mail, so that notices can reach it).
pub async fn customer(server: &TestServer, name: &str, cpf_base: &str) -> String {
    let token = server.token(0, "admin", "api");
    let document = dunning_domain::document::cpf_with_check_digits(cpf_base);
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({
                "name": name,
                "document": document,
                "email": "devedor@example.com.br",
                "address": {"street": "Rua das Laranjeiras", "number": "12", "district": "Centro",
                            "city": "Campinas", "state": "SP", "zip_code": "13010-000"},
            })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

/// A new charge of `customer` (no late fine or interest unless overdue).
pub async fn charge(server: &TestServer, customer: &str, amount: f64, due_in_days: i64) -> String {
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(json!({
                "customer_id": customer,
                "description": format!("Mensalidade de R$ {amount}"),
                "amount": amount,
                "due_date": day(due_in_days),
            })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

pub async fn get(server: &TestServer, path: &str) -> Value {
    let answer = server
        .rest("GET", path, &server.token(0, "admin", "api"), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text);
    answer.body["data"].clone()
}

async fn post(server: &TestServer, path: &str, body: Value) -> Answer {
    server
        .rest("POST", path, &server.token(0, "admin", "api"), Some(body))
        .await
}

/// Record a payment by Pix (charges_pay).
pub async fn pay(server: &TestServer, charge: &str, amount: f64) {
    let answer = post(
        server,
        &format!("/v1/charges/{charge}/pay"),
        json!({"amount": amount, "method": "pix"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
}

fn cents(value: &Value) -> i64 {
    (value.as_f64().unwrap() * 100.0).round() as i64
}

/// Event types recorded about one subject, oldest first.
pub async fn event_types(server: &TestServer, subject: &str) -> Vec<String> {
    events::for_subject(&server.state.db, server.org_id(0), subject)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect()
}

/// Every charge of the customer, as the API lists them.
async fn charges_of(server: &TestServer, customer: &str) -> Vec<Value> {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={customer}&per_page=100"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    answer.body["data"].as_array().unwrap().clone()
}

fn assert_refused(answer: &Answer, status: StatusCode, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.text);
    assert_eq!(answer.body["code"], code, "{}", answer.text);
}

/// A customer with two pending charges (R$ 1.000,00 and R$ 500,00) and a proposal over both:
/// 10 % off, R$ 100,00 down and 3 instalments.
async fn proposal(server: &TestServer) -> (String, String, String, Value) {
    let customer = customer(server, "Joana Prado", "602214076").await;
    let a = charge(server, &customer, 1000.00, 10).await;
    let b = charge(server, &customer, 500.00, 20).await;
    let answer = post(
        server,
        "/v1/agreements",
        json!({
            "customer_id": customer,
            "charge_ids": [a, b],
            "down_payment": 100.00,
            "installments": 3,
            "first_due_date": day(5),
            "discount_percent": 10,
            "note": "Proposta feita por telefone.",
        }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    assert_eq!(answer.header("etag"), Some("\"v1\""));
    (customer, a, b, answer.body["data"].clone())
}

#[tokio::test]
async fn a_proposal_totals_the_amounts_due_less_the_discount_and_splits_it_exactly() {
    let server = TestServer::start().await;
    let (customer, a, b, agreement) = proposal(&server).await;
    assert_eq!(agreement["status"], "proposed");
    assert_eq!(agreement["customer_id"], customer.as_str());
    assert_eq!(agreement["charge_ids"], json!([a, b]));
    assert_eq!(agreement["total_amount"], json!(1350.0));
    assert_eq!(agreement["discount_percent"], json!(10.0));
    assert_eq!(agreement["down_payment"], json!(100.0));
    let schedule = agreement["installments_schedule"].as_array().unwrap();
    let view: Vec<(i64, i64, String)> = schedule
        .iter()
        .map(|e| {
            assert!(e["charge_id"].is_null());
            (
                e["number"].as_i64().unwrap(),
                cents(&e["amount"]),
                e["due_date"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let first = dunning_domain::calendar::today() + Duration::days(5);
    let month = |n: i64| {
        dunning_domain::installments::add_months(first, n)
            .unwrap()
            .to_string()
    };
    assert_eq!(
        view,
        [
            (0, 100_00, month(0)),
            (1, 416_66, month(1)),
            (2, 416_66, month(2)),
            (3, 416_68, month(3)),
        ]
    );
    assert_eq!(view.iter().map(|v| v.1).sum::<i64>(), 1350_00);
    // A proposal changes nothing on the charges.
    for id in [&a, &b] {
        let charge = get(&server, &format!("/v1/charges/{id}")).await;
        assert_eq!(charge["status"], "pending");
        assert!(charge["agreement_id"].is_null());
    }
    let id = agreement["id"].as_str().unwrap();
    assert_eq!(event_types(&server, id).await, ["agreement.proposed"]);
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await,
        agreement
    );
}

#[tokio::test]
async fn invalid_proposals_are_refused_field_by_field_and_store_nothing() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let other = crate::agreements::customer(&server, "Outro Devedor", "662607015").await;
    let mine = charge(&server, &customer, 100.00, 10).await;
    let theirs = charge(&server, &other, 100.00, 10).await;
    let cases = [
        (
            json!({"customer_id": customer, "charge_ids": [mine, theirs], "installments": 2, "first_due_date": day(1)}),
            "charge_ids[1]",
            "customer_mismatch",
        ),
        (
            json!({"customer_id": customer, "charge_ids": ["chg_0000000000000000"], "installments": 2, "first_due_date": day(1)}),
            "charge_ids[0]",
            "not_found",
        ),
        (
            json!({"customer_id": "cus_0000000000000000", "charge_ids": [mine], "installments": 2, "first_due_date": day(1)}),
            "customer_id",
            "not_found",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [mine], "installments": 49, "first_due_date": day(1)}),
            "installments",
            "range",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [mine], "installments": 2, "first_due_date": day(-1)}),
            "first_due_date",
            "range",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [mine], "installments": 2, "first_due_date": day(1), "down_payment": 100.00}),
            "down_payment",
            "range",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [mine], "installments": 2, "first_due_date": day(1), "discount_percent": 12.345}),
            "discount_percent",
            "multiple_of",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [], "installments": 2, "first_due_date": day(1)}),
            "charge_ids",
            "min_items",
        ),
        (
            json!({"customer_id": customer, "charge_ids": [mine], "installments": 2, "first_due_date": day(1), "discount": 5}),
            "discount",
            "unknown",
        ),
    ];
    for (body, field, code) in cases {
        let answer = post(&server, "/v1/agreements", body.clone()).await;
        assert_refused(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        let errors = answer.body["errors"].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e["field"] == field && e["code"] == code),
            "{body}: {}",
            answer.text
        );
    }
    let list = server
        .rest(
            "GET",
            "/v1/agreements",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(list.body["meta"]["total"], 0, "nothing was stored");
}

#[tokio::test]
async fn charges_that_cannot_be_renegotiated_are_conflicts() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let canceled = charge(&server, &customer, 100.00, 10).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{canceled}/cancel"),
        json!({}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let disputed = charge(&server, &customer, 100.00, 10).await;
    let answer = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": disputed, "reason": "already_paid"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let proposed = charge(&server, &customer, 100.00, 10).await;
    let first = post(
        &server,
        "/v1/agreements",
        json!({"customer_id": customer, "charge_ids": [proposed], "installments": 2, "first_due_date": day(1)}),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);

    for (charge, code) in [
        (&canceled, "charge_not_open"),
        (&disputed, "charge_in_dispute"),
        (&proposed, "charge_in_agreement"),
    ] {
        let before = get(&server, &format!("/v1/charges/{charge}")).await;
        let answer = post(
            &server,
            "/v1/agreements",
            json!({"customer_id": customer, "charge_ids": [charge], "installments": 2, "first_due_date": day(1)}),
        )
        .await;
        assert_refused(&answer, StatusCode::CONFLICT, code);
        assert_eq!(get(&server, &format!("/v1/charges/{charge}")).await, before);
    }
    let list = server.rest("GET", "/v1/agreements", &token, None).await;
    assert_eq!(
        list.body["meta"]["total"], 1,
        "only the first proposal exists"
    );
}

#[tokio::test]
async fn accepting_moves_the_charges_in_and_creates_the_instalments_then_canceling_reinstates_them()
{
    let server = TestServer::start().await;
    let (customer, a, b, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap().to_string();

    let stale = server
        .rest_with(
            "POST",
            &format!("/v1/agreements/{id}/accept"),
            &server.token(0, "admin", "api"),
            &[("if-match", "\"v7\"")],
            None,
        )
        .await;
    assert_refused(
        &stale,
        StatusCode::PRECONDITION_FAILED,
        "precondition_failed",
    );
    assert_eq!(
        charges_of(&server, &customer).await.len(),
        2,
        "nothing created"
    );

    let accepted = server
        .rest_with(
            "POST",
            &format!("/v1/agreements/{id}/accept"),
            &server.token(0, "admin", "api"),
            &[("if-match", "\"v1\"")],
            None,
        )
        .await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.text);
    let accepted = accepted.body["data"].clone();
    assert_eq!(accepted["status"], "accepted");
    assert!(accepted["accepted_at"].is_string());
    for original in [&a, &b] {
        let charge = get(&server, &format!("/v1/charges/{original}")).await;
        assert_eq!(charge["status"], "in_agreement");
        assert_eq!(charge["agreement_id"], id.as_str());
        assert_eq!(charge["amount_due"], json!(0.0));
        assert_eq!(
            event_types(&server, original).await,
            ["charge.created", "charge.in_agreement"]
        );
    }
    let mut total = 0;
    let mut instalments = Vec::new();
    for entry in accepted["installments_schedule"].as_array().unwrap() {
        let charge_id = entry["charge_id"]
            .as_str()
            .expect("charge created")
            .to_string();
        let charge = get(&server, &format!("/v1/charges/{charge_id}")).await;
        assert_eq!(charge["customer_id"], customer.as_str());
        assert_eq!(charge["agreement_id"], id.as_str());
        assert_eq!(charge["status"], "pending");
        assert_eq!(charge["amount"], entry["amount"]);
        assert_eq!(charge["due_date"], entry["due_date"]);
        total += cents(&charge["amount"]);
        instalments.push(charge_id);
    }
    assert_eq!(total, 1350_00, "the instalment charges add up to the total");
    assert_eq!(charges_of(&server, &customer).await.len(), 6);

    let again = post(&server, &format!("/v1/agreements/{id}/accept"), json!({})).await;
    assert_refused(&again, StatusCode::CONFLICT, "agreement_not_proposed");
    assert_eq!(
        charges_of(&server, &customer).await.len(),
        6,
        "nothing created twice"
    );

    // The debtor pays the down payment, then the agreement is called off.
    pay(&server, &instalments[0], 100.00).await;
    let canceled = post(
        &server,
        &format!("/v1/agreements/{id}/cancel"),
        json!({"reason": "Cliente desistiu"}),
    )
    .await;
    assert_eq!(canceled.status, StatusCode::OK, "{}", canceled.text);
    assert_eq!(canceled.body["data"]["status"], "canceled");
    assert_eq!(canceled.body["data"]["cancel_reason"], "Cliente desistiu");
    assert!(canceled.body["data"]["canceled_at"].is_string());

    assert_eq!(
        get(&server, &format!("/v1/charges/{}", instalments[0])).await["status"],
        "paid"
    );
    for unpaid in &instalments[1..] {
        let charge = get(&server, &format!("/v1/charges/{unpaid}")).await;
        assert_eq!(charge["status"], "canceled");
        assert_eq!(
            event_types(&server, unpaid).await.last().unwrap(),
            "charge.canceled"
        );
    }
    // R$ 100,00 paid is credited 2:1 (by what each owed): R$ 66,67 and R$ 33,33; the
    // discount is lost, so the rest of the original amounts is due again.
    for (original, paid, due) in [(&a, 66_67, 933_33), (&b, 33_33, 466_67)] {
        let charge = get(&server, &format!("/v1/charges/{original}")).await;
        assert_eq!(charge["status"], "pending");
        assert!(charge["agreement_id"].is_null());
        assert_eq!(cents(&charge["paid_amount"]), paid);
        assert_eq!(cents(&charge["amount_due"]), due);
        assert_eq!(
            event_types(&server, original).await.last().unwrap(),
            "charge.reinstated"
        );
    }
    assert_eq!(
        event_types(&server, &id).await,
        [
            "agreement.proposed",
            "agreement.accepted",
            "agreement.canceled"
        ]
    );

    let twice = post(&server, &format!("/v1/agreements/{id}/cancel"), json!({})).await;
    assert_refused(&twice, StatusCode::CONFLICT, "agreement_not_cancelable");
    let after = get(&server, &format!("/v1/agreements/{id}")).await;
    assert_eq!(after, canceled.body["data"], "nothing changed");
}

#[tokio::test]
async fn a_charge_that_changed_since_the_proposal_refuses_the_acceptance() {
    let server = TestServer::start().await;
    let (customer, a, b, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap();
    let accept_path = format!("/v1/agreements/{id}/accept");
    let accept = || post(&server, &accept_path, json!({}));
    let unchanged = || async {
        assert_eq!(
            get(&server, &format!("/v1/agreements/{id}")).await,
            agreement
        );
        assert_eq!(
            get(&server, &format!("/v1/charges/{a}")).await["status"],
            "pending"
        );
        assert_eq!(
            charges_of(&server, &customer).await.len(),
            2,
            "no instalment created"
        );
    };

    // Contested after the proposal.
    let dispute = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": a, "reason": "other"}),
    )
    .await;
    assert_refused(&accept().await, StatusCode::CONFLICT, "charge_in_dispute");
    unchanged().await;
    let dispute_id = dispute.body["data"]["id"].as_str().unwrap();
    let rejected = post(
        &server,
        &format!("/v1/disputes/{dispute_id}/resolve"),
        json!({"outcome": "rejected"}),
    )
    .await;
    assert_eq!(rejected.status, StatusCode::OK, "{}", rejected.text);

    // Partly paid after the proposal: the total would be wrong.
    pay(&server, &b, 10.00).await;
    let answer = accept().await;
    assert_refused(&answer, StatusCode::CONFLICT, "charge_not_open");
    assert!(
        answer.body["detail"]
            .as_str()
            .unwrap()
            .contains("changed since the proposal")
    );
    unchanged().await;

    // Canceled after the proposal.
    let answer = post(&server, &format!("/v1/charges/{b}/cancel"), json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_refused(&accept().await, StatusCode::CONFLICT, "charge_not_open");
    unchanged().await;
}

#[tokio::test]
async fn canceling_a_proposal_only_closes_it() {
    let server = TestServer::start().await;
    let (_, a, _, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap();
    let answer = post(&server, &format!("/v1/agreements/{id}/cancel"), json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(answer.body["data"]["status"], "canceled");
    assert!(answer.body["data"]["cancel_reason"].is_null());
    assert_eq!(
        get(&server, &format!("/v1/charges/{a}")).await["status"],
        "pending"
    );
    let accept = post(&server, &format!("/v1/agreements/{id}/accept"), json!({})).await;
    assert_refused(&accept, StatusCode::CONFLICT, "agreement_not_proposed");
    // Its charges are free for a new proposal.
    let list = server
        .rest(
            "GET",
            "/v1/agreements?status=canceled",
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(list.body["meta"]["total"], 1);
}

/// Noon in Brasília, `days` days after the effective due date of the first instalment of
/// `agreement` (a due date on a weekend or holiday moves to the next business day, and
/// lateness counts from there).
async fn after_first_instalment(server: &TestServer, agreement: &str, days: i64) -> OffsetDateTime {
    let agreement = get(server, &format!("/v1/agreements/{agreement}")).await;
    let first = agreement["installments_schedule"][0]["charge_id"]
        .as_str()
        .unwrap();
    let charge = get(server, &format!("/v1/charges/{first}")).await;
    let effective = time::Date::parse(
        charge["effective_due_date"].as_str().unwrap(),
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap();
    dunning_domain::calendar::start_of(effective + Duration::days(days)) + Duration::hours(12)
}

/// Accept a proposal over one pending charge of R$ 300,00: 3 instalments from today.
async fn accepted_agreement(server: &TestServer) -> (String, String, Vec<String>) {
    let customer = customer(server, "Joana Prado", "602214076").await;
    let original = charge(server, &customer, 300.00, 3).await;
    let answer = post(
        server,
        "/v1/agreements",
        json!({"customer_id": customer, "charge_ids": [original], "installments": 3, "first_due_date": day(0)}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let id = answer.body["data"]["id"].as_str().unwrap().to_string();
    let answer = post(server, &format!("/v1/agreements/{id}/accept"), json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let instalments = answer.body["data"]["installments_schedule"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["charge_id"].as_str().unwrap().to_string())
        .collect();
    (id, original, instalments)
}

#[tokio::test]
async fn an_instalment_unpaid_for_more_than_thirty_days_breaks_the_agreement() {
    let server = TestServer::start().await;
    let (id, original, instalments) = accepted_agreement(&server).await;

    let day_30 = after_first_instalment(&server, &id, 30).await;
    let report = engine::agreements::tick(&server.state.engine, day_30)
        .await
        .unwrap();
    assert!(
        report.broken.is_empty(),
        "30 days late is still within the grace"
    );
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await["status"],
        "accepted"
    );

    let day_31 = after_first_instalment(&server, &id, 31).await;
    let report = engine::agreements::tick(&server.state.engine, day_31)
        .await
        .unwrap();
    assert_eq!(report.broken, [id.as_str()]);
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await["status"],
        "broken"
    );
    for instalment in &instalments {
        assert_eq!(
            get(&server, &format!("/v1/charges/{instalment}")).await["status"],
            "canceled"
        );
    }
    let reinstated = get(&server, &format!("/v1/charges/{original}")).await;
    assert_eq!(reinstated["status"], "pending");
    assert_eq!(reinstated["amount_due"], json!(300.0));
    assert!(reinstated["agreement_id"].is_null());
    assert_eq!(
        event_types(&server, &id).await,
        [
            "agreement.proposed",
            "agreement.accepted",
            "agreement.broken"
        ]
    );
    let broken = events::for_subject(&server.state.db, server.org_id(0), &id)
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(broken.actor.kind, "system");

    let day_60 = after_first_instalment(&server, &id, 60).await;
    let again = engine::agreements::tick(&server.state.engine, day_60)
        .await
        .unwrap();
    assert_eq!(
        again,
        Default::default(),
        "a second tick finds nothing to do"
    );
}

#[tokio::test]
async fn a_disputed_instalment_does_not_break_the_agreement() {
    let server = TestServer::start().await;
    let (id, _, instalments) = accepted_agreement(&server).await;
    let answer = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": instalments[0], "reason": "wrong_amount"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let report = engine::agreements::tick(
        &server.state.engine,
        OffsetDateTime::now_utc() + Duration::days(40),
    )
    .await
    .unwrap();
    assert!(report.broken.is_empty());
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await["status"],
        "accepted"
    );
}

#[tokio::test]
async fn paying_every_instalment_fulfils_the_agreement() {
    let server = TestServer::start().await;
    let (id, original, instalments) = accepted_agreement(&server).await;
    for (i, instalment) in instalments.iter().enumerate() {
        let report = engine::agreements::tick(&server.state.engine, OffsetDateTime::now_utc())
            .await
            .unwrap();
        assert!(report.fulfilled.is_empty(), "{i} of 3 paid");
        pay(&server, instalment, 100.00).await;
    }
    let report = engine::agreements::tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    assert_eq!(report.fulfilled, [id.as_str()]);
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await["status"],
        "fulfilled"
    );
    assert_eq!(
        get(&server, &format!("/v1/charges/{original}")).await["status"],
        "in_agreement"
    );
    assert_eq!(
        event_types(&server, &id).await.last().unwrap(),
        "agreement.fulfilled"
    );
    let cancel = post(&server, &format!("/v1/agreements/{id}/cancel"), json!({})).await;
    assert_refused(&cancel, StatusCode::CONFLICT, "agreement_not_cancelable");
}

#[tokio::test]
async fn the_term_is_a_pdf_served_over_rest_and_as_an_mcp_blob() {
    use base64::Engine;
    let server = TestServer::start().await;
    let (_, _, _, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap();
    let rest = server
        .rest(
            "GET",
            &format!("/v1/agreements/{id}/term"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(rest.status, StatusCode::OK);
    assert_eq!(rest.header("content-type"), Some("application/pdf"));
    assert!(rest.text.starts_with("%PDF-"));

    let uri = format!("kobana://dunning/agreements/{id}/term.pdf");
    let read = server
        .mcp(
            &server.token(0, "viewer", "mcp"),
            "resources/read",
            json!({"uri": uri}),
        )
        .await;
    let content = &read.body["result"]["contents"][0];
    assert_eq!(content["mimeType"], "application/pdf", "{}", read.text);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(content["blob"].as_str().unwrap())
        .unwrap();
    assert!(bytes.starts_with(b"%PDF-"));

    let Some(text) = pdf_text(&bytes) else {
        // CI installs it (tests/setup-system.sh): there a missing reader is a failure.
        assert!(
            std::env::var_os("CI").is_none(),
            "pdftotext is not installed, and CI must have it (tests/setup-system.sh)"
        );
        eprintln!("skipped: pdftotext is not installed (Debian package poppler-utils)");
        return;
    };
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "Termo de acordo e confissão de dívida",
        id,
        "Joana Prado",
        "CPF 602.214.076",
        "R$ 1.500,00",
        "Desconto (10 %)",
        "R$ 1.350,00",
        "Entrada",
        "R$ 416,68",
        "Campinas,",
        "DEVEDOR(A)",
        "Testemunha 2",
    ] {
        assert!(flat.contains(expected), "{expected:?} not in {flat}");
    }
}

/// The text of a PDF by `pdftotext`, when installed.
fn pdf_text(bytes: &[u8]) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("term.pdf");
    std::fs::write(&path, bytes).unwrap();
    let output = std::process::Command::new("pdftotext")
        .arg("-layout")
        .arg(&path)
        .arg("-")
        .output()
        .ok()?;
    assert!(output.status.success(), "pdftotext failed");
    Some(String::from_utf8(output.stdout).unwrap())
}

#[tokio::test]
async fn the_lifecycle_through_mcp_returns_what_rest_returns() {
    let server = TestServer::start().await;
    let token = server.token(0, "collector", "mcp");
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let charge = charge(&server, &customer, 250.00, 10).await;
    let created = server
        .call_tool(
            &token,
            "dunning_agreements_create",
            json!({"customer_id": customer, "charge_ids": [charge], "installments": 2, "first_due_date": day(2)}),
        )
        .await;
    assert_ne!(created["isError"], json!(true), "{created}");
    let data = created["structuredContent"]["data"].clone();
    let id = data["id"].as_str().unwrap();
    assert_eq!(get(&server, &format!("/v1/agreements/{id}")).await, data);

    let accepted = server
        .call_tool(&token, "dunning_agreements_accept", json!({"id": id}))
        .await;
    assert_eq!(
        accepted["structuredContent"]["data"]["status"], "accepted",
        "{accepted}"
    );
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await,
        accepted["structuredContent"]["data"]
    );
    let refused = server
        .call_tool(&token, "dunning_agreements_accept", json!({"id": id}))
        .await;
    assert_eq!(
        crate::common::tool_problem(&refused)["code"],
        "agreement_not_proposed"
    );

    let listed = server
        .call_tool(
            &token,
            "dunning_agreements_list",
            json!({"customer_id": customer}),
        )
        .await;
    let rest = server
        .rest(
            "GET",
            &format!("/v1/agreements?customer_id={customer}"),
            &server.token(0, "collector", "api"),
            None,
        )
        .await;
    assert_eq!(listed["structuredContent"]["data"], rest.body["data"]);
    assert_eq!(listed["structuredContent"]["meta"]["total"], 1);

    let completion = server
        .mcp(
            &token,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/agreements/{id}"},
                   "argument": {"name": "id", "value": "joana"}}),
        )
        .await;
    assert_eq!(
        completion.body["result"]["completion"]["values"],
        json!([id]),
        "{}",
        completion.text
    );
}

#[tokio::test]
async fn agreements_of_another_organization_are_not_found() {
    let server = TestServer::start().await;
    let (_, _, _, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap();
    let token = server.token(1, "admin", "api");
    for (method, path) in [
        ("GET", format!("/v1/agreements/{id}")),
        ("GET", format!("/v1/agreements/{id}/term")),
        ("POST", format!("/v1/agreements/{id}/accept")),
        ("POST", format!("/v1/agreements/{id}/cancel")),
    ] {
        let answer = server.rest(method, &path, &token, None).await;
        assert_refused(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    let viewer = server
        .rest(
            "POST",
            &format!("/v1/agreements/{id}/cancel"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(viewer.status, StatusCode::FORBIDDEN);
    assert_eq!(
        get(&server, &format!("/v1/agreements/{id}")).await,
        agreement
    );
}

#[tokio::test]
async fn postgres_runs_agreements_disputes_and_deletion() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    let (customer, a, b, agreement) = proposal(&server).await;
    let id = agreement["id"].as_str().unwrap().to_string();
    assert_eq!(agreement["total_amount"], json!(1350.0));
    let conflict = post(
        &server,
        "/v1/agreements",
        json!({"customer_id": customer, "charge_ids": [a], "installments": 2, "first_due_date": day(1)}),
    )
    .await;
    assert_refused(&conflict, StatusCode::CONFLICT, "charge_in_agreement");
    let accepted = post(&server, &format!("/v1/agreements/{id}/accept"), json!({})).await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.text);
    assert_eq!(charges_of(&server, &customer).await.len(), 6);
    let canceled = post(&server, &format!("/v1/agreements/{id}/cancel"), json!({})).await;
    assert_eq!(canceled.status, StatusCode::OK, "{}", canceled.text);
    for original in [&a, &b] {
        assert_eq!(
            get(&server, &format!("/v1/charges/{original}")).await["status"],
            "pending"
        );
    }
    let listed = server
        .rest(
            "GET",
            &format!("/v1/agreements?customer_id={customer}&status=canceled"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(listed.body["meta"]["total"], 1, "{}", listed.text);

    let dispute = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": a, "reason": "wrong_amount"}),
    )
    .await;
    assert_eq!(dispute.status, StatusCode::CREATED, "{}", dispute.text);
    let dispute_id = dispute.body["data"]["id"].as_str().unwrap();
    let again = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": a, "reason": "other"}),
    )
    .await;
    assert_refused(&again, StatusCode::CONFLICT, "charge_has_open_dispute");
    let upheld = post(
        &server,
        &format!("/v1/disputes/{dispute_id}/resolve"),
        json!({"outcome": "upheld"}),
    )
    .await;
    assert_eq!(upheld.status, StatusCode::OK, "{}", upheld.text);
    assert_eq!(
        get(&server, &format!("/v1/charges/{a}")).await["status"],
        "canceled"
    );

    let completion = server
        .mcp(
            &server.token(0, "admin", "mcp"),
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/agreements/{id}"},
                   "argument": {"name": "id", "value": "Joana"}}),
        )
        .await;
    assert_eq!(
        completion.body["result"]["completion"]["values"],
        json!([id])
    );

    let refused = server
        .rest(
            "DELETE",
            &format!("/v1/customers/{customer}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_refused(&refused, StatusCode::CONFLICT, "customer_has_open_charges");
    let answer = post(&server, &format!("/v1/charges/{b}/cancel"), json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let deleted = server
        .rest(
            "DELETE",
            &format!("/v1/customers/{customer}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.text);

    let other = crate::agreements::customer(&server, "Outro Devedor", "662607015").await;
    let original = charge(&server, &other, 300.00, 3).await;
    let answer = post(
        &server,
        "/v1/agreements",
        json!({"customer_id": other, "charge_ids": [original], "installments": 3, "first_due_date": day(0)}),
    )
    .await;
    let second = answer.body["data"]["id"].as_str().unwrap().to_string();
    let answer = post(
        &server,
        &format!("/v1/agreements/{second}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let day_31 = after_first_instalment(&server, &second, 31).await;
    let report = engine::agreements::tick(&server.state.engine, day_31)
        .await
        .unwrap();
    assert_eq!(report.broken, [second.as_str()]);
    assert_eq!(
        get(&server, &format!("/v1/charges/{original}")).await["status"],
        "pending"
    );
}
