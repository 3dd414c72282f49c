//! Collecting a charge over REST and MCP: payments (partial, settling, too much), notices and
//! their refusals, negativation and protest with their rules, the discharge letter, the
//! charge timeline and the audit trail. Every refusal shows its `code` and that nothing
//! changed.

use std::sync::atomic::{AtomicU32, Ordering};

use dunning_engine::collection::tick;
use http::StatusCode;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::common::{Answer, TestServer, tool_problem};

/// Today (UTC, as statuses are computed) plus `days`, as `YYYY-MM-DD`.
pub fn day(days: i64) -> String {
    (dunning_domain::calendar::today() + Duration::days(days)).to_string()
}

/// A customer of organization 0 with the given contacts and opt-outs.
pub async fn customer_with(
    server: &TestServer,
    name: &str,
    email: Option<&str>,
    phone: Option<&str>,
    opt_outs: &[&str],
) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = format!(
        "{:09}",
        700_000_001 + NEXT.fetch_add(1, Ordering::Relaxed) * 7
    );
    let document = dunning_domain::document::cpf_with_check_digits(&base);
    let mut body = json!({ "name": name, "document": document, "channel_opt_outs": opt_outs });
    if let Some(e) = email {
        body["email"] = json!(e);
    }
    if let Some(p) = phone {
        body["phone"] = json!(p);
    }
    let answer = server
        .rest("POST", "/v1/customers", &admin(server), Some(body))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

/// A customer reachable on every channel.
pub async fn customer(server: &TestServer, name: &str) -> String {
    customer_with(
        server,
        name,
        Some("devedora@example.com.br"),
        Some("+5511987650001"),
        &[],
    )
    .await
}

/// A charge of `customer` due in `due_in_days`, with an optional plan.
pub async fn charge_with_plan(
    server: &TestServer,
    customer: &str,
    amount: f64,
    due_in_days: i64,
    plan: Option<&str>,
) -> String {
    let mut body = json!({
        "customer_id": customer,
        "description": "Mensalidade de março",
        "amount": amount,
        "due_date": day(due_in_days),
    });
    if let Some(plan) = plan {
        body["collection_plan_id"] = json!(plan);
    }
    let answer = server
        .rest("POST", "/v1/charges", &admin(server), Some(body))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

pub async fn charge(server: &TestServer, customer: &str, amount: f64, due_in_days: i64) -> String {
    charge_with_plan(server, customer, amount, due_in_days, None).await
}

pub fn admin(server: &TestServer) -> String {
    server.token(0, "admin", "api")
}

pub async fn get(server: &TestServer, path: &str) -> Value {
    let answer = server.rest("GET", path, &admin(server), None).await;
    assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text);
    answer.body["data"].clone()
}

pub async fn post(server: &TestServer, path: &str, body: Value) -> Answer {
    server.rest("POST", path, &admin(server), Some(body)).await
}

/// Assert a refusal: status, problem code, and that the charge did not change at all.
pub async fn assert_refused(
    server: &TestServer,
    answer: &Answer,
    status: StatusCode,
    code: &str,
    charge_id: &str,
    before: &Value,
) {
    assert_eq!(answer.status, status, "{}", answer.text);
    assert_eq!(answer.body["code"], code, "{}", answer.text);
    assert_eq!(
        answer.header("content-type"),
        Some("application/problem+json")
    );
    let after = get(server, &format!("/v1/charges/{charge_id}")).await;
    assert_eq!(&after, before, "a refusal changes nothing");
}

/// Run SQL against the test database (to set up states other areas own).
pub async fn sql(server: &TestServer, statement: &str) {
    sqlx::query(sqlx::AssertSqlSafe(statement.to_string()))
        .execute(&server.state.db.pool)
        .await
        .expect(statement);
}

pub async fn count(server: &TestServer, query: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(query.to_string()))
        .fetch_one(&server.state.db.pool)
        .await
        .expect(query)
}

/// Event types of a charge's timeline, oldest first.
pub async fn timeline(server: &TestServer, charge_id: &str) -> Vec<String> {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/charges/{charge_id}/events?per_page=100"),
            &admin(server),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

/// Make a notice of `charge_id` delivered `days_ago`: notify by e-mail, let the engine send
/// it and get its receipt, then date it back.
pub async fn delivered_notice(server: &TestServer, charge_id: &str, days_ago: i64) -> String {
    let answer = post(
        server,
        &format!("/v1/charges/{charge_id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    let id = answer.body["data"]["id"].as_str().unwrap().to_string();
    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now).await.unwrap();
    tick(&server.state.engine, now + Duration::minutes(2))
        .await
        .unwrap();
    let delivery = get(server, &format!("/v1/deliveries/{id}")).await;
    assert_eq!(delivery["status"], "delivered", "{delivery}");
    let sent = dunning_store::timestamp_text(now - Duration::days(days_ago));
    sql(
        server,
        &format!("UPDATE deliveries SET sent_at = '{sent}' WHERE id = '{id}'"),
    )
    .await;
    id
}

#[tokio::test]
async fn partial_payments_add_up_and_the_last_one_settles_the_charge() {
    let server = TestServer::start().await;
    let c = customer(&server, "Conceição Araújo").await;
    let id = charge(&server, &c, 1234.56, 5).await;
    let path = format!("/v1/charges/{id}/pay");

    let first = post(
        &server,
        &path,
        json!({"amount": 234.56, "method": "pix", "note": "Pix parcial"}),
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(first.body["data"]["status"], "pending");
    assert_eq!(first.body["data"]["paid_amount"], 234.56);
    assert_eq!(first.body["data"]["amount_due"], 1000.0);
    assert_eq!(first.header("etag"), Some("\"v2\""));

    let before = get(&server, &format!("/v1/charges/{id}")).await;
    let too_much = post(&server, &path, json!({"amount": 1000.01, "method": "pix"})).await;
    assert_refused(
        &server,
        &too_much,
        StatusCode::UNPROCESSABLE_ENTITY,
        "payment_exceeds_amount_due",
        &id,
        &before,
    )
    .await;
    assert_eq!(too_much.body["errors"][0]["field"], "amount");

    let last = post(
        &server,
        &path,
        json!({"amount": 1000, "method": "boleto", "paid_at": "2020-01-02T10:00:00-03:00"}),
    )
    .await;
    assert_eq!(last.status, StatusCode::OK, "{}", last.text);
    let paid = &last.body["data"];
    assert_eq!(paid["status"], "paid");
    assert_eq!(paid["paid_amount"], 1234.56);
    assert_eq!(paid["amount_due"], 0.0);
    assert_eq!(paid["paid_at"], "2020-01-02T13:00:00.000Z");
    assert_eq!(
        count(
            &server,
            &format!("SELECT COUNT(*) FROM payments WHERE charge_id = '{id}'")
        )
        .await,
        2
    );
    let events = timeline(&server, &id).await;
    assert_eq!(
        events
            .iter()
            .filter(|e| *e == "charge.payment_recorded")
            .count(),
        2,
        "{events:?}"
    );
    assert!(events.contains(&"charge.paid".to_string()), "{events:?}");

    // Paid: no more payments.
    let again = post(&server, &path, json!({"amount": 1, "method": "pix"})).await;
    assert_refused(
        &server,
        &again,
        StatusCode::CONFLICT,
        "charge_not_open",
        &id,
        paid,
    )
    .await;
}

#[tokio::test]
async fn an_overdue_charge_is_paid_with_its_fine_and_interest() {
    let server = TestServer::start().await;
    let c = customer(&server, "João Pedro Magalhães").await;
    // Thirty days late or a little more, due on a day a weekend or holiday does not move.
    let late = crate::common::business_day_offset(-30, -1);
    let id = charge(&server, &c, 100.0, late).await;
    let due = get(&server, &format!("/v1/charges/{id}")).await["amount_due"]
        .as_f64()
        .unwrap();
    // 2 % fine and 1 % a month for 30 days (R$ 103,00) or 31 (R$ 103,03), ….
    assert_eq!(due, crate::common::owed_on_100(-late));
    let paid = post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": due, "method": "cash"}),
    )
    .await;
    assert_eq!(paid.body["data"]["status"], "paid", "{}", paid.text);
    assert_eq!(paid.body["data"]["paid_amount"], due);
}

#[tokio::test]
async fn payments_are_validated_and_checked_against_the_etag() {
    let server = TestServer::start().await;
    let c = customer(&server, "Márcia Helena Brandão").await;
    let id = charge(&server, &c, 50.0, 3).await;
    let before = get(&server, &format!("/v1/charges/{id}")).await;
    let path = format!("/v1/charges/{id}/pay");
    let invalid = post(
        &server,
        &path,
        json!({"amount": 0, "method": "cheque", "paid_at": "2999-01-01T00:00:00Z", "extra": 1}),
    )
    .await;
    assert_refused(
        &server,
        &invalid,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
        &id,
        &before,
    )
    .await;
    let mut fields: Vec<&str> = invalid.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    fields.sort();
    assert_eq!(fields, ["amount", "extra", "method", "paid_at"]);
    let stale = server
        .rest_with(
            "POST",
            &path,
            &admin(&server),
            &[("if-match", "\"v7\"")],
            Some(json!({"amount": 10, "method": "pix"})),
        )
        .await;
    assert_refused(
        &server,
        &stale,
        StatusCode::PRECONDITION_FAILED,
        "precondition_failed",
        &id,
        &before,
    )
    .await;
    let missing = post(
        &server,
        "/v1/charges/chg_0000000000000000/pay",
        json!({"amount": 1, "method": "pix"}),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

/// A charge of the demo in `status` (organization 0).
async fn demo_charge(server: &TestServer, status: &str) -> Value {
    let list = server
        .rest(
            "GET",
            &format!("/v1/charges?status={status}&per_page=1"),
            &admin(server),
            None,
        )
        .await;
    list.body["data"][0].clone()
}

#[tokio::test]
async fn paid_canceled_and_in_agreement_charges_cannot_be_collected() {
    let server = TestServer::start().await;
    for status in ["paid", "canceled", "in_agreement"] {
        let before = demo_charge(&server, status).await;
        let id = before["id"].as_str().unwrap().to_string();
        let deliveries_before = count(&server, "SELECT COUNT(*) FROM deliveries").await;
        for (path, body) in [
            ("notify", json!({"channel": "email"})),
            ("negativate", json!({"bureau": "serasa"})),
            ("protest", json!({})),
            ("pay", json!({"amount": 1, "method": "pix"})),
        ] {
            let answer = post(&server, &format!("/v1/charges/{id}/{path}"), body).await;
            assert_refused(
                &server,
                &answer,
                StatusCode::CONFLICT,
                "charge_not_open",
                &id,
                &before,
            )
            .await;
        }
        assert_eq!(
            count(&server, "SELECT COUNT(*) FROM deliveries").await,
            deliveries_before
        );
    }
}

#[tokio::test]
async fn a_notice_is_queued_with_the_standard_text_or_the_template() {
    let server = TestServer::start().await;
    let c = customer(&server, "Raimundo Nonato Câmara").await;
    let id = charge(&server, &c, 1234.56, -10).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "sms", "template": "Olá {{customer.name}}, {{charge.description}} de R$ {{charge.amount_due}} venceu em {{charge.due_date}}. {{organization.name}}"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    assert!(answer.header("etag").is_some());
    let delivery = &answer.body["data"];
    assert_eq!(delivery["status"], "queued");
    assert_eq!(delivery["channel"], "sms");
    assert_eq!(delivery["recipient"], "+5511987650001");
    assert_eq!(delivery["subject"], Value::Null);
    assert_eq!(delivery["step_id"], Value::Null);
    assert_eq!(delivery["attempts"], 0);
    let due = get(&server, &format!("/v1/charges/{id}")).await["amount_due"]
        .as_f64()
        .unwrap();
    let amount = dunning_domain::money::Cents::from_reais(due)
        .unwrap()
        .to_brl();
    let due_date = dunning_domain::calendar::today() - Duration::days(10);
    let expected = format!(
        "Olá Raimundo Nonato Câmara, Mensalidade de março de {amount} venceu em {:02}/{:02}/{}. Padaria Pão Dourado Ltda",
        due_date.day(),
        u8::from(due_date.month()),
        due_date.year()
    );
    // The organization has Pix: a template that does not place the code gets it at its end.
    let pix = get(&server, &format!("/v1/charges/{id}/pix")).await;
    let payload = pix["payload"].as_str().unwrap();
    assert_eq!(
        delivery["body"],
        format!("{expected}\n\nPix Copia e Cola ({amount}): {payload}")
    );

    let standard = post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let email = &standard.body["data"];
    assert_eq!(email["subject"], "Cobrança vencida: Mensalidade de março");
    assert!(email["body"].as_str().unwrap().contains(&amount), "{email}");
    assert!(
        timeline(&server, &id)
            .await
            .contains(&"charge.notified".to_string())
    );
}

#[tokio::test]
async fn notices_respect_opt_outs_contacts_and_disputes() {
    let server = TestServer::start().await;
    let opted = customer_with(
        &server,
        "Sebastião Peçanha",
        Some("s@example.com.br"),
        Some("+5541991112222"),
        &["whatsapp"],
    )
    .await;
    let no_phone = customer_with(
        &server,
        "Íris Mendonça Lobo",
        Some("iris@example.com.br"),
        None,
        &[],
    )
    .await;
    let a = charge(&server, &opted, 80.0, -2).await;
    let b = charge(&server, &no_phone, 80.0, -2).await;

    let before = get(&server, &format!("/v1/charges/{a}")).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{a}/notify"),
        json!({"channel": "whatsapp"}),
    )
    .await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "customer_opted_out",
        &a,
        &before,
    )
    .await;

    let before_b = get(&server, &format!("/v1/charges/{b}")).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{b}/notify"),
        json!({"channel": "sms"}),
    )
    .await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "customer_contact_missing",
        &b,
        &before_b,
    )
    .await;

    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = 'dsp_test' WHERE id = '{a}'"),
    )
    .await;
    let answer = post(
        &server,
        &format!("/v1/charges/{a}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "charge_in_dispute",
        &a,
        &before,
    )
    .await;

    let invalid = post(
        &server,
        &format!("/v1/charges/{b}/notify"),
        json!({"channel": "fax", "template": ""}),
    )
    .await;
    assert_eq!(invalid.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM deliveries").await,
        0,
        "nothing queued"
    );
}

#[tokio::test]
async fn negativation_needs_an_overdue_undisputed_charge_and_an_old_enough_notice() {
    let server = TestServer::start().await;
    let c = customer(&server, "Lanchonete Esquina Feliz ME").await;
    let pending = charge(&server, &c, 300.0, 5).await;
    let overdue = charge(&server, &c, 300.0, -40).await;
    let neg = |id: &str| format!("/v1/charges/{id}/negativate");
    let serasa = json!({"bureau": "serasa"});

    let before = get(&server, &format!("/v1/charges/{pending}")).await;
    let answer = post(&server, &neg(&pending), serasa.clone()).await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "charge_not_overdue",
        &pending,
        &before,
    )
    .await;

    // No notice at all.
    let before = get(&server, &format!("/v1/charges/{overdue}")).await;
    let answer = post(&server, &neg(&overdue), serasa.clone()).await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "negativation_notice_missing",
        &overdue,
        &before,
    )
    .await;

    // A notice delivered 5 days ago is not enough for the default 10 days.
    delivered_notice(&server, &overdue, 5).await;
    let before = get(&server, &format!("/v1/charges/{overdue}")).await;
    let answer = post(&server, &neg(&overdue), serasa.clone()).await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "negativation_notice_missing",
        &overdue,
        &before,
    )
    .await;

    // The organization's own notice period counts.
    sql(
        &server,
        &format!(
            "UPDATE organizations SET negativation_notice_days = 3 WHERE id = '{}'",
            server.org_id(0)
        ),
    )
    .await;

    // An open dispute pauses it.
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = 'dsp_test' WHERE id = '{overdue}'"),
    )
    .await;
    let answer = post(&server, &neg(&overdue), serasa.clone()).await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "charge_in_dispute",
        &overdue,
        &before,
    )
    .await;
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = NULL WHERE id = '{overdue}'"),
    )
    .await;

    let done = post(&server, &neg(&overdue), serasa.clone()).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    assert_eq!(done.body["data"]["negativation_status"], "requested");

    let before = done.body["data"].clone();
    let again = post(&server, &neg(&overdue), json!({"bureau": "spc"})).await;
    assert_refused(
        &server,
        &again,
        StatusCode::CONFLICT,
        "negativation_already_requested",
        &overdue,
        &before,
    )
    .await;
    // Protest and negativation are exclusive.
    let protest = post(
        &server,
        &format!("/v1/charges/{overdue}/protest"),
        json!({}),
    )
    .await;
    assert_refused(
        &server,
        &protest,
        StatusCode::CONFLICT,
        "negativation_active",
        &overdue,
        &before,
    )
    .await;

    // The bureau answers later, through the engine.
    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now + Duration::minutes(2))
        .await
        .unwrap();
    let active = get(&server, &format!("/v1/charges/{overdue}")).await;
    assert_eq!(active["negativation_status"], "active");

    let removal = server
        .rest(
            "DELETE",
            &format!("/v1/charges/{overdue}/negativation"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(removal.status, StatusCode::OK, "{}", removal.text);
    assert_eq!(
        removal.body["data"]["negativation_status"],
        "removal_requested"
    );
    tick(&server.state.engine, now + Duration::minutes(4))
        .await
        .unwrap();
    let removed = get(&server, &format!("/v1/charges/{overdue}")).await;
    assert_eq!(removed["negativation_status"], "removed");
    let again = server
        .rest(
            "DELETE",
            &format!("/v1/charges/{overdue}/negativation"),
            &admin(&server),
            None,
        )
        .await;
    assert_refused(
        &server,
        &again,
        StatusCode::CONFLICT,
        "negativation_not_active",
        &overdue,
        &removed,
    )
    .await;

    let events = timeline(&server, &overdue).await;
    for kind in [
        "charge.negativation_requested",
        "charge.negativated",
        "charge.negativation_removal_requested",
        "charge.negativation_removed",
    ] {
        assert!(events.contains(&kind.to_string()), "{kind} in {events:?}");
    }
}

#[tokio::test]
async fn a_notice_sent_but_not_delivered_does_not_count() {
    let server = TestServer::start().await;
    let c = customer(&server, "Gabriela Simões Farias").await;
    let id = charge(&server, &c, 300.0, -40).await;
    let dlv = delivered_notice(&server, &id, 20).await;
    sql(
        &server,
        &format!("UPDATE deliveries SET status = 'bounced' WHERE id = '{dlv}'"),
    )
    .await;
    let before = get(&server, &format!("/v1/charges/{id}")).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{id}/negativate"),
        json!({"bureau": "boa_vista"}),
    )
    .await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "negativation_notice_missing",
        &id,
        &before,
    )
    .await;
}

#[tokio::test]
async fn a_payment_that_settles_a_negativated_charge_requests_its_removal() {
    let server = TestServer::start().await;
    let c = customer(&server, "Academia Corpo São Ltda").await;
    let id = charge(&server, &c, 500.0, -30).await;
    delivered_notice(&server, &id, 12).await;
    let neg = post(
        &server,
        &format!("/v1/charges/{id}/negativate"),
        json!({"bureau": "serasa"}),
    )
    .await;
    assert_eq!(neg.status, StatusCode::OK, "{}", neg.text);
    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now + Duration::minutes(2))
        .await
        .unwrap();
    let charge = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(charge["negativation_status"], "active");

    // A partial payment leaves it alone.
    let partial = post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": 100, "method": "pix"}),
    )
    .await;
    assert_eq!(partial.body["data"]["negativation_status"], "active");
    let due = partial.body["data"]["amount_due"].as_f64().unwrap();
    let settled = post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": due, "method": "pix"}),
    )
    .await;
    assert_eq!(settled.body["data"]["status"], "paid", "{}", settled.text);
    assert_eq!(
        settled.body["data"]["negativation_status"],
        "removal_requested"
    );
    let events = timeline(&server, &id).await;
    assert!(events.contains(&"charge.negativation_removal_requested".to_string()));

    // The bureau confirms asynchronously.
    tick(&server.state.engine, now + Duration::minutes(4))
        .await
        .unwrap();
    let removed = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(removed["negativation_status"], "removed");
    assert!(
        timeline(&server, &id)
            .await
            .contains(&"charge.negativation_removed".to_string())
    );
}

#[tokio::test]
async fn protest_has_its_rules_and_is_answered_by_the_notary() {
    let server = TestServer::start().await;
    let c = customer(&server, "Tomás Ícaro Nogueira").await;
    let pending = charge(&server, &c, 90.0, 1).await;
    let id = charge(&server, &c, 900.0, -20).await;
    let before = get(&server, &format!("/v1/charges/{pending}")).await;
    let answer = post(
        &server,
        &format!("/v1/charges/{pending}/protest"),
        json!({}),
    )
    .await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "charge_not_overdue",
        &pending,
        &before,
    )
    .await;

    let before = get(&server, &format!("/v1/charges/{id}")).await;
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = 'dsp_test' WHERE id = '{id}'"),
    )
    .await;
    let answer = post(&server, &format!("/v1/charges/{id}/protest"), json!({})).await;
    assert_refused(
        &server,
        &answer,
        StatusCode::CONFLICT,
        "charge_in_dispute",
        &id,
        &before,
    )
    .await;
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = NULL WHERE id = '{id}'"),
    )
    .await;

    let cancel = server
        .rest(
            "DELETE",
            &format!("/v1/charges/{id}/protest"),
            &admin(&server),
            None,
        )
        .await;
    assert_refused(
        &server,
        &cancel,
        StatusCode::CONFLICT,
        "protest_not_active",
        &id,
        &before,
    )
    .await;

    let filed = post(&server, &format!("/v1/charges/{id}/protest"), json!({})).await;
    assert_eq!(filed.status, StatusCode::OK, "{}", filed.text);
    assert_eq!(filed.body["data"]["protest_status"], "requested");
    let after = filed.body["data"].clone();
    let again = post(&server, &format!("/v1/charges/{id}/protest"), json!({})).await;
    assert_refused(
        &server,
        &again,
        StatusCode::CONFLICT,
        "protest_already_requested",
        &id,
        &after,
    )
    .await;
    // Exclusive with negativation, even with a notice long delivered (the engine runs
    // meanwhile: the notary answers).
    delivered_notice(&server, &id, 30).await;
    let after = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(after["protest_status"], "protested");
    let neg = post(
        &server,
        &format!("/v1/charges/{id}/negativate"),
        json!({"bureau": "serasa"}),
    )
    .await;
    assert_refused(
        &server,
        &neg,
        StatusCode::CONFLICT,
        "protest_active",
        &id,
        &after,
    )
    .await;

    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now + Duration::minutes(2))
        .await
        .unwrap();
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["protest_status"],
        "protested"
    );
    let cancel = server
        .rest(
            "DELETE",
            &format!("/v1/charges/{id}/protest"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(
        cancel.body["data"]["protest_status"], "cancel_requested",
        "{}",
        cancel.text
    );
    tick(&server.state.engine, now + Duration::minutes(4))
        .await
        .unwrap();
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["protest_status"],
        "canceled"
    );
    let events = timeline(&server, &id).await;
    for kind in [
        "charge.protest_requested",
        "charge.protested",
        "charge.protest_cancel_requested",
        "charge.protest_canceled",
    ] {
        assert!(events.contains(&kind.to_string()), "{kind} in {events:?}");
    }
}

#[tokio::test]
async fn the_discharge_letter_exists_only_for_a_paid_charge() {
    let server = TestServer::start().await;
    let c = customer(&server, "Conceição Araújo").await;
    let id = charge(&server, &c, 349.9, 2).await;
    let path = format!("/v1/charges/{id}/discharge_letter");
    let refused = server.rest("GET", &path, &admin(&server), None).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.body["code"], "charge_not_paid");
    post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": 349.9, "method": "pix"}),
    )
    .await;
    let answer = server
        .rest("GET", &path, &server.token(0, "viewer", "api"), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(answer.header("content-type"), Some("application/pdf"));
    let bytes = server
        .send(
            http::Request::builder()
                .uri(&path)
                .header("authorization", format!("Bearer {}", admin(&server)))
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    assert!(bytes.text.starts_with("%PDF-"), "a PDF");
}

#[tokio::test]
async fn the_timeline_is_oldest_first_and_paginated() {
    let server = TestServer::start().await;
    let c = customer(&server, "Helena Würth Bastos").await;
    let id = charge(&server, &c, 100.0, 3).await;
    // Timestamps have milliseconds: the creation comes strictly first.
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": 10, "method": "pix"}),
    )
    .await;
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let events = timeline(&server, &id).await;
    assert_eq!(events[0], "charge.created");
    // The delivery's own events belong to the charge's story.
    assert!(events.contains(&"delivery.sent".to_string()), "{events:?}");
    let page = server
        .rest(
            "GET",
            &format!("/v1/charges/{id}/events?per_page=1&page=2"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(page.body["meta"]["total"], events.len());
    assert_eq!(page.body["meta"]["per_page"], 1);
    assert_eq!(page.body["data"][0]["type"], events[1]);
    let missing = server
        .rest(
            "GET",
            "/v1/charges/chg_0000000000000000/events",
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_audit_trail_filters_by_type_subject_and_time() {
    let server = TestServer::start().await;
    let c = customer(&server, "Caio Estêvão Prado").await;
    let id = charge(&server, &c, 100.0, 3).await;
    // Timestamps have milliseconds: the creation comes strictly first.
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": 100, "method": "pix"}),
    )
    .await;
    let token = server.token(0, "viewer", "api");
    let paid = server
        .rest("GET", "/v1/events?type=charge.paid", &token, None)
        .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.text);
    let items = paid.body["data"].as_array().unwrap();
    assert!(items.iter().all(|e| e["type"] == "charge.paid"));
    assert!(items.iter().any(|e| e["subject_id"] == id.as_str()));
    assert_eq!(items[0]["actor"]["type"], "person");

    let mine = server
        .rest("GET", &format!("/v1/events?subject_id={id}"), &token, None)
        .await;
    let kinds: Vec<&str> = mine.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    // Newest first.
    assert!(
        matches!(
            kinds.first(),
            Some(&"charge.paid" | &"charge.payment_recorded")
        ),
        "{kinds:?}"
    );
    assert_eq!(kinds.last(), Some(&"charge.created"));

    let future = server
        .rest(
            "GET",
            "/v1/events?created_from=2099-01-01T00:00:00Z",
            &token,
            None,
        )
        .await;
    assert_eq!(future.body["meta"]["total"], 0);
    let past = server
        .rest(
            "GET",
            "/v1/events?created_to=2000-01-01T00:00:00-03:00",
            &token,
            None,
        )
        .await;
    assert_eq!(past.body["meta"]["total"], 0);
    let bad = server
        .rest(
            "GET",
            "/v1/events?type=Charge&created_from=yesterday",
            &token,
            None,
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["errors"].as_array().unwrap().len(), 2);
    // Other organizations' events never show.
    let other = server
        .rest(
            "GET",
            &format!("/v1/events?subject_id={id}"),
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(other.body["meta"]["total"], 0);
}

#[tokio::test]
async fn notify_and_pay_through_mcp_match_rest() {
    let server = TestServer::start().await;
    let c = customer(&server, "Luíza Fernandes Assunção").await;
    let id = charge(&server, &c, 250.0, -5).await;
    let mcp = server.token(0, "collector", "mcp");
    let notified = server
        .call_tool(
            &mcp,
            "dunning_charges_notify",
            json!({"id": id, "channel": "email"}),
        )
        .await;
    assert!(notified.get("isError").is_none(), "{notified}");
    let delivery = &notified["structuredContent"]["data"];
    assert_eq!(delivery["status"], "queued");
    let rest = get(
        &server,
        &format!("/v1/deliveries/{}", delivery["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(&rest, delivery);

    let due = get(&server, &format!("/v1/charges/{id}")).await["amount_due"]
        .as_f64()
        .unwrap();
    let paid = server
        .call_tool(
            &mcp,
            "dunning_charges_pay",
            json!({"id": id, "amount": due, "method": "pix"}),
        )
        .await;
    assert!(paid.get("isError").is_none(), "{paid}");
    let charge = &paid["structuredContent"]["data"];
    assert_eq!(charge["status"], "paid");
    assert_eq!(&get(&server, &format!("/v1/charges/{id}")).await, charge);

    // The same refusal through both doors.
    // Not the first call's arguments: the same ones would replay its answer.
    let again = server
        .call_tool(
            &mcp,
            "dunning_charges_notify",
            json!({"id": id, "channel": "sms"}),
        )
        .await;
    assert_eq!(tool_problem(&again)["code"], "charge_not_open");
    let rest = post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    assert_eq!(rest.body["code"], "charge_not_open");
}

#[tokio::test]
async fn a_viewer_cannot_collect() {
    let server = TestServer::start().await;
    let c = customer(&server, "Otávio Sá Mendes").await;
    let id = charge(&server, &c, 10.0, 1).await;
    let answer = server
        .rest(
            "POST",
            &format!("/v1/charges/{id}/pay"),
            &server.token(0, "viewer", "api"),
            Some(json!({"amount": 1, "method": "pix"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["paid_amount"],
        0.0
    );
}

#[tokio::test]
async fn canceling_a_negativated_charge_is_followed_up_with_the_bureau() {
    let server = TestServer::start().await;
    let c = customer(&server, "Sebastião Peçanha").await;
    let id = charge(&server, &c, 700.0, -30).await;
    delivered_notice(&server, &id, 15).await;
    let neg = post(
        &server,
        &format!("/v1/charges/{id}/negativate"),
        json!({"bureau": "spc"}),
    )
    .await;
    assert_eq!(neg.status, StatusCode::OK, "{}", neg.text);
    let canceled = post(&server, &format!("/v1/charges/{id}/cancel"), json!({})).await;
    assert_eq!(
        canceled.body["data"]["negativation_status"],
        "removal_requested"
    );
    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now + Duration::minutes(2))
        .await
        .unwrap();
    let after = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(after["negativation_status"], "removed", "{after}");
    let events = timeline(&server, &id).await;
    assert!(
        !events.contains(&"charge.negativated".to_string()),
        "the bureau's late 'active' changes nothing after the removal: {events:?}"
    );
}

#[tokio::test]
async fn deliveries_are_listed_newest_first_with_filters() {
    let server = TestServer::start().await;
    let c = customer(&server, "Gabriela Simões Farias").await;
    let id = charge(&server, &c, 70.0, -1).await;
    for channel in ["email", "sms", "whatsapp"] {
        // Timestamps have milliseconds: keep the three apart.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        post(
            &server,
            &format!("/v1/charges/{id}/notify"),
            json!({"channel": channel}),
        )
        .await;
    }
    let token = server.token(0, "viewer", "api");
    let all = server
        .rest(
            "GET",
            &format!("/v1/deliveries?customer_id={c}"),
            &token,
            None,
        )
        .await;
    assert_eq!(all.body["meta"]["total"], 3);
    let channels: Vec<&str> = all.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["channel"].as_str().unwrap())
        .collect();
    assert_eq!(channels, ["whatsapp", "sms", "email"]);
    let sms = server
        .rest(
            "GET",
            "/v1/deliveries?channel=sms&status=queued",
            &token,
            None,
        )
        .await;
    assert_eq!(sms.body["meta"]["total"], 1);
    let bad = server
        .rest(
            "GET",
            "/v1/deliveries?charge_id=123&status=lost",
            &token,
            None,
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["errors"].as_array().unwrap().len(), 2);
    let other = server
        .rest(
            "GET",
            &format!(
                "/v1/deliveries/{}",
                all.body["data"][0]["id"].as_str().unwrap()
            ),
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}
