//! The money of a day, end to end in-process: Brasília days, due dates on days off, partial
//! payments, devoluções, Pix dated in the future, the organization's holidays and plan steps
//! counted in business days — each as a client and the database see it. (The same cases
//! against the real binary and the test PSP are `tests/python/test_pix_psp.py`; the arithmetic
//! against an independent model is `crates/domain/tests/oracle.rs` and
//! `tests/python/test_money_api.py`.)

use serde_json::{Value, json};
use time::macros::format_description;
use time::{Date, Duration, OffsetDateTime, Weekday};

use crate::common::TestServer;
use crate::pix_psp::{callback, connect};
use dunning_domain::calendar::{Calendar, start_of, today};

/// The latest day at least `days` before today (Brasília) that `keep` accepts.
fn past_day(days: i64, keep: impl Fn(Date) -> bool) -> Date {
    let mut day = today() - Duration::days(days);
    while !keep(day) {
        day -= Duration::days(1);
    }
    day
}

fn business(day: Date) -> bool {
    Calendar::national().is_business_day(day)
}

/// The instant `hh:mm` in Brasília on `day`.
fn at(day: Date, hour: i64, minute: i64) -> OffsetDateTime {
    start_of(day) + Duration::hours(hour) + Duration::minutes(minute)
}

fn rfc3339(instant: OffsetDateTime) -> String {
    dunning_store::timestamp_text(instant)
}

/// A charge of organization 0 for `amount`, due on `due`, 2 % fine and 1 % a month: its id.
/// Its debtor can be reached by e-mail and SMS: the demo has one customer without an e-mail who
/// opted out of a channel, and the demo's customers are created in the same millisecond, so
/// "the newest" is any of them.
async fn charge_due(server: &TestServer, amount: f64, due: Date) -> String {
    let token = server.token(0, "admin", "api");
    let customers = server
        .rest("GET", "/v1/customers?per_page=100", &token, None)
        .await;
    let customer = customers.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["email"].is_string()
                && c["phone"].is_string()
                && c["channel_opt_outs"]
                    .as_array()
                    .is_none_or(|outs| outs.is_empty())
        })
        .expect("a demo customer reachable by e-mail and SMS")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let created = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(
                json!({"customer_id": customer, "description": "Mensalidade", "amount": amount,
                "due_date": due.to_string(), "fine_percent": 2, "interest_percent": 1}),
            ),
        )
        .await;
    assert!(created.status.is_success(), "{}", created.text);
    created.body["data"]["id"].as_str().unwrap().to_string()
}

async fn get_charge(server: &TestServer, id: &str) -> Value {
    let token = server.token(0, "viewer", "api");
    let answer = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    answer.body["data"].clone()
}

/// A Pix of `valor` for the charge's static txid at `horario`, as a PSP's callback brings it.
fn pix(e2e: &str, charge: &str, valor: &str, horario: OffsetDateTime) -> Value {
    json!({"endToEndId": e2e, "txid": charge.replace('_', ""), "valor": valor, "horario": rfc3339(horario)})
}

async fn deliver(server: &TestServer, secret: &str, items: Vec<Value>) -> Value {
    let (status, answer) = callback(
        server,
        &format!("/pix/webhook/{secret}/pix"),
        &json!({"pix": items}),
    )
    .await;
    assert_eq!(status, http::StatusCode::OK, "{answer}");
    answer
}

fn e2e(n: u32) -> String {
    format!("E12345678202612061200money{n:06}")
}

async fn a_pix_late_in_the_evening_of_the_due_date_pays_on_the_due_date(server: TestServer) {
    let secret = connect(&server).await;
    let due = past_day(3, business);
    // 22:30 in Brasília on the due date is 01:30 UTC the next day; 20:00 is 23:00 UTC.
    for (n, (hour, minute)) in [(22, 30), (20, 0)].into_iter().enumerate() {
        let id = charge_due(&server, 150.0, due).await;
        let paid_at = at(due, hour, minute);
        deliver(
            &server,
            &secret,
            vec![pix(&e2e(n as u32), &id, "150.00", paid_at)],
        )
        .await;
        let charge = get_charge(&server, &id).await;
        assert_eq!(charge["status"], "paid", "{hour}:{minute}: {charge}");
        assert_eq!(charge["amount_due"], json!(0.0));
        assert_eq!(charge["paid_at"], json!(rfc3339(paid_at)));
    }
}

#[tokio::test]
async fn a_pix_late_in_the_evening_of_the_due_date_pays_on_the_due_date_on_sqlite() {
    a_pix_late_in_the_evening_of_the_due_date_pays_on_the_due_date(TestServer::start().await).await;
}

#[tokio::test]
async fn a_pix_late_in_the_evening_of_the_due_date_pays_on_the_due_date_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    a_pix_late_in_the_evening_of_the_due_date_pays_on_the_due_date(server).await;
}

#[tokio::test]
async fn a_charge_due_on_a_saturday_is_paid_on_the_monday_without_fine_or_interest() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    // A past Saturday whose Monday is a business day, and whose Tuesday is before today: the
    // payments below are made at 15:00 on those days, and a Pix dated later than now is not
    // one that happened yet.
    let saturday = past_day(4, |d| {
        d.weekday() == Weekday::Saturday && business(d + Duration::days(2))
    });
    let monday = saturday + Duration::days(2);
    let id = charge_due(&server, 150.0, saturday).await;
    let before = get_charge(&server, &id).await;
    assert_eq!(before["effective_due_date"], json!(monday.to_string()));
    assert_eq!(before["due_date"], json!(saturday.to_string()));
    deliver(
        &server,
        &secret,
        vec![pix(&e2e(10), &id, "150.00", at(monday, 15, 0))],
    )
    .await;
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["status"], "paid", "{charge}");
    // The same payment on the Tuesday is late: it pays a day of interest (0.05) and the fine
    // (3.00) first, and leaves 3.05 of principal owing.
    let late = charge_due(&server, 150.0, saturday).await;
    deliver(
        &server,
        &secret,
        vec![pix(
            &e2e(11),
            &late,
            "150.00",
            at(monday + Duration::days(1), 15, 0),
        )],
    )
    .await;
    let charge = get_charge(&server, &late).await;
    assert_eq!(charge["status"], "overdue", "{charge}");
    assert_eq!(charge["principal_due"], json!(3.05), "{charge}");
    assert_eq!(charge["fine_due"], json!(0.0), "{charge}");
}

#[tokio::test]
async fn paying_what_the_cobv_asks_after_a_partial_payment_settles_the_charge() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    let due = past_day(10, |d| business(d) && business(d - Duration::days(2)));
    let id = charge_due(&server, 90.0, due).await;
    let token = server.token(0, "admin", "api");
    let paid = server
        .rest(
            "POST",
            &format!("/v1/charges/{id}/pay"),
            &token,
            Some(json!({"amount": 30.0, "method": "transfer", "paid_at": rfc3339(at(due - Duration::days(2), 10, 0))})),
        )
        .await;
    assert!(paid.status.is_success(), "{}", paid.text);
    // Five days late the cobv asks 60.00 + 1.20 (2 % of 60.00) + 0.10 (60.00 × 1 % / 30 × 5).
    deliver(
        &server,
        &secret,
        vec![pix(
            &e2e(20),
            &id,
            "61.30",
            at(due + Duration::days(5), 12, 0),
        )],
    )
    .await;
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["status"], "paid", "{charge}");
    assert_eq!(charge["paid_amount"], json!(91.3));
    assert_eq!(charge["amount_due"], json!(0.0));
}

#[tokio::test]
async fn an_overdue_charge_shows_what_it_owes_in_its_parts() {
    let server = TestServer::start().await;
    let due = past_day(30, business);
    let id = charge_due(&server, 1000.0, due).await;
    let charge = get_charge(&server, &id).await;
    let days = (today() - due).whole_days();
    // 1000.00 × 1 % / 30 a day, rounded once.
    let interest = ((1000_00 * 100 * days) as f64 / 300_000.0).round() / 100.0;
    assert_eq!(charge["status"], "overdue");
    assert_eq!(charge["principal_due"], json!(1000.0));
    assert_eq!(charge["fine_due"], json!(20.0));
    assert_eq!(charge["interest_due"], json!(interest));
    let total = charge["principal_due"].as_f64().unwrap()
        + charge["fine_due"].as_f64().unwrap()
        + charge["interest_due"].as_f64().unwrap();
    assert!(
        (charge["amount_due"].as_f64().unwrap() - total).abs() < 0.001,
        "{charge}"
    );
}

async fn a_returned_pix_reverses_its_payment_once_and_reopens_the_charge(server: TestServer) {
    let secret = connect(&server).await;
    let due = today() + Duration::days(10);
    let id = charge_due(&server, 80.0, due).await;
    let paid_at = OffsetDateTime::now_utc() - Duration::minutes(1);
    let paying = pix(&e2e(30), &id, "80.00", paid_at);
    deliver(&server, &secret, vec![paying.clone()]).await;
    assert_eq!(get_charge(&server, &id).await["status"], "paid");
    // The MED takes it back: the PSP's callback repeats the Pix with its devolução.
    let mut returned = paying.clone();
    returned["devolucoes"] = json!([{"id": "D1MED", "rtrId": "D12345678202612061200abcdefghijk", "valor": "80.00",
        "natureza": "MED_FRAUDE", "status": "DEVOLVIDO"}]);
    let answer = deliver(&server, &secret, vec![returned.clone()]).await;
    assert_eq!(answer, json!({"received": 1, "duplicates": 0}));
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["status"], "pending", "{charge}");
    assert_eq!(charge["paid_amount"], json!(0.0));
    assert_eq!(charge["amount_due"], json!(80.0));
    assert!(charge["paid_at"].is_null());
    // Once: the same report again (a retry, the sweep) changes nothing.
    let again = deliver(&server, &secret, vec![returned]).await;
    assert_eq!(again, json!({"received": 0, "duplicates": 1}));
    let token = server.token(0, "admin", "api");
    let events = server
        .rest("GET", &format!("/v1/charges/{id}/events"), &token, None)
        .await;
    let reversals: Vec<&Value> = events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "charge.payment_reversed")
        .collect();
    assert_eq!(reversals.len(), 1, "{}", events.text);
    let data = &reversals[0]["data"];
    assert_eq!(data["med"], true);
    assert_eq!(data["amount"], json!(80.0));
    assert_eq!(data["reopened"], true);
    assert_eq!(data["nature"], "MED_FRAUDE");
    let received = server.rest("GET", "/v1/pix/received", &token, None).await;
    let refund = &received.body["data"][0]["refunds"][0];
    assert_eq!(refund["status"], "returned", "{}", received.text);
    assert_eq!(refund["med"], true);
    assert_eq!(refund["requested_by"], "psp");
    assert_eq!(refund["reversed_amount"], json!(80.0));
    assert_eq!(received.body["data"][0]["refunded_amount"], json!(80.0));
    let stored: i64 =
        sqlx::query_scalar("SELECT refunded_cents FROM payments WHERE charge_id = $1")
            .bind(&id)
            .fetch_one(&server.state.db.pool)
            .await
            .unwrap();
    assert_eq!(stored, 80_00);
}

/// A Pix kept for review (its txid names no charge) given back whole: it is `refunded`. On
/// PostgreSQL the sum of its devoluções was a `NUMERIC` the driver could not read, so the
/// callback failed, and so did every sweep that met such a Pix (the upkeep never finished: not
/// even the webhook's registration was recorded).
async fn a_pix_kept_for_review_and_given_back_whole_is_refunded(server: TestServer) {
    let secret = connect(&server).await;
    let paid_at = OffsetDateTime::now_utc() - Duration::minutes(1);
    let stray = json!({"endToEndId": e2e(40), "txid": "notoneofours", "valor": "25.00", "horario": rfc3339(paid_at)});
    deliver(&server, &secret, vec![stray.clone()]).await;
    let mut returned = stray;
    returned["devolucoes"] = json!([{"id": "D1", "rtrId": "D12345678202612061200abcdefghijk", "valor": "25.00",
        "natureza": "ORIGINAL", "status": "DEVOLVIDO"}]);
    let answer = deliver(&server, &secret, vec![returned]).await;
    assert_eq!(answer, json!({"received": 1, "duplicates": 0}));
    let token = server.token(0, "admin", "api");
    let received = server.rest("GET", "/v1/pix/received", &token, None).await;
    assert_eq!(
        received.body["data"][0]["status"], "refunded",
        "{}",
        received.text
    );
}

#[tokio::test]
async fn a_pix_kept_for_review_and_given_back_whole_is_refunded_on_sqlite() {
    a_pix_kept_for_review_and_given_back_whole_is_refunded(TestServer::start().await).await;
}

#[tokio::test]
async fn a_pix_kept_for_review_and_given_back_whole_is_refunded_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    a_pix_kept_for_review_and_given_back_whole_is_refunded(server).await;
}

#[tokio::test]
async fn a_returned_pix_reverses_its_payment_once_and_reopens_the_charge_on_sqlite() {
    a_returned_pix_reverses_its_payment_once_and_reopens_the_charge(TestServer::start().await)
        .await;
}

#[tokio::test]
async fn a_returned_pix_reverses_its_payment_once_and_reopens_the_charge_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    a_returned_pix_reverses_its_payment_once_and_reopens_the_charge(server).await;
}

#[tokio::test]
async fn a_devolucao_in_process_then_refused_leaves_the_payment_alone() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    let id = charge_due(&server, 50.0, today() + Duration::days(5)).await;
    let paying = pix(
        &e2e(40),
        &id,
        "20.00",
        OffsetDateTime::now_utc() - Duration::minutes(1),
    );
    deliver(&server, &secret, vec![paying.clone()]).await;
    // Each report that moves it counts as news; the same again is a duplicate.
    for (status, answer) in [
        ("EM_PROCESSAMENTO", json!({"received": 1, "duplicates": 0})),
        ("EM_PROCESSAMENTO", json!({"received": 0, "duplicates": 1})),
        ("NAO_REALIZADO", json!({"received": 1, "duplicates": 0})),
    ] {
        let mut item = paying.clone();
        item["devolucoes"] =
            json!([{"id": "D2", "valor": "20.00", "status": status, "motivo": "Conta encerrada"}]);
        assert_eq!(
            deliver(&server, &secret, vec![item]).await,
            answer,
            "{status}"
        );
    }
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["paid_amount"], json!(20.0));
    let token = server.token(0, "admin", "api");
    let received = server.rest("GET", "/v1/pix/received", &token, None).await;
    let refund = &received.body["data"][0]["refunds"][0];
    assert_eq!(refund["status"], "not_done", "{}", received.text);
    assert_eq!(refund["reason"], "Conta encerrada");
    assert!(refund["reversed_payment_id"].is_null());
}

#[tokio::test]
async fn a_pix_dated_in_the_future_is_kept_for_review_and_pays_nothing() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    let id = charge_due(&server, 100.0, past_day(40, business)).await;
    let owed = get_charge(&server, &id).await["amount_due"].clone();
    for (n, horario) in [
        OffsetDateTime::now_utc() + Duration::minutes(30),
        time::macros::datetime!(2099-12-31 12:00 UTC),
    ]
    .into_iter()
    .enumerate()
    {
        deliver(
            &server,
            &secret,
            vec![pix(&e2e(50 + n as u32), &id, "300.00", horario)],
        )
        .await;
    }
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["paid_amount"], json!(0.0));
    assert_eq!(charge["amount_due"], owed);
    let token = server.token(0, "admin", "api");
    let review = server
        .rest("GET", "/v1/pix/received?status=review", &token, None)
        .await;
    let reasons: Vec<&str> = review.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["future_dated", "future_dated"], "{}", review.text);
    // Within a clock's drift it is taken.
    let close = charge_due(&server, 10.0, today() + Duration::days(3)).await;
    deliver(
        &server,
        &secret,
        vec![pix(
            &e2e(60),
            &close,
            "10.00",
            OffsetDateTime::now_utc() + Duration::minutes(2),
        )],
    )
    .await;
    assert_eq!(get_charge(&server, &close).await["status"], "paid");
}

#[tokio::test]
async fn an_organization_holiday_moves_its_due_dates_and_the_calendar_shows_it() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "api");
    let day = past_day(2, business);
    let id = charge_due(&server, 100.0, day).await;
    assert_eq!(get_charge(&server, &id).await["status"], "overdue");
    let next = Calendar::national().next_business_day(day + Duration::days(1));
    // A municipal holiday on the due date and on every business day up to today: the charge is
    // payable without fine or interest until the next business day after them.
    let mut holidays = Vec::new();
    let mut d = day;
    while d <= today() {
        if business(d) {
            holidays.push(json!({"date": d.to_string(), "name": "Feriado municipal"}));
        }
        d += Duration::days(1);
    }
    let set = server
        .rest(
            "PUT",
            "/v1/calendar",
            &admin,
            Some(json!({"holidays": holidays})),
        )
        .await;
    assert_eq!(set.status, http::StatusCode::OK, "{}", set.text);
    assert_eq!(set.body["data"]["time_zone"], "America/Sao_Paulo");
    assert_eq!(set.body["data"]["today"], json!(today().to_string()));
    let charge = get_charge(&server, &id).await;
    assert_eq!(charge["status"], "pending", "{charge}");
    assert_eq!(charge["amount_due"], json!(100.0));
    assert!(
        charge["effective_due_date"].as_str().unwrap() > today().to_string().as_str(),
        "{charge}"
    );
    assert!(
        next <= Date::parse(
            charge["effective_due_date"].as_str().unwrap(),
            format_description!("[year]-[month]-[day]")
        )
        .unwrap()
    );
    // The overdue list agrees with the charge.
    let overdue = server
        .rest(
            "GET",
            "/v1/charges?status=overdue&per_page=100",
            &admin,
            None,
        )
        .await;
    assert!(!overdue.text.contains(&id), "{}", overdue.text);
    let pending = server
        .rest(
            "GET",
            "/v1/charges?status=pending&per_page=100",
            &admin,
            None,
        )
        .await;
    assert!(pending.text.contains(&id));
    // Another organization's charges keep the national calendar.
    let other = server
        .rest(
            "GET",
            "/v1/calendar",
            &server.token(1, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(other.body["data"]["holidays"], json!([]));
    assert!(
        other.body["data"]["national_holidays"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "Natal")
    );
    // A date listed twice is refused, and nothing changes.
    let twice = server
        .rest(
            "PUT",
            "/v1/calendar",
            &admin,
            Some(json!({"holidays": [
            {"date": "2027-01-25", "name": "a"}, {"date": "2027-01-25", "name": "b"}]})),
        )
        .await;
    assert_eq!(
        twice.status,
        http::StatusCode::BAD_REQUEST,
        "{}",
        twice.text
    );
    assert_eq!(twice.body["errors"][0]["code"], "duplicate");
    assert_eq!(get_charge(&server, &id).await["status"], "pending");
    // A viewer cannot set them.
    let viewer = server
        .rest(
            "PUT",
            "/v1/calendar",
            &server.token(0, "viewer", "api"),
            Some(json!({"holidays": []})),
        )
        .await;
    assert_eq!(viewer.status, http::StatusCode::FORBIDDEN);
}

/// The channels of the deliveries queued for charge `id`.
async fn channels_sent(server: &TestServer, id: &str) -> Vec<String> {
    let token = server.token(0, "admin", "api");
    let list = server
        .rest(
            "GET",
            &format!("/v1/deliveries?charge_id={id}"),
            &token,
            None,
        )
        .await;
    list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["channel"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_step_after_the_due_date_waits_for_the_effective_due_date_and_business_steps_count_business_days()
 {
    use dunning_engine::collection::tick;
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "api");
    // A Saturday at least a week ahead whose Monday and Tuesday are business days.
    let mut saturday = today() + Duration::days(7);
    while saturday.weekday() != Weekday::Saturday
        || !business(saturday + Duration::days(2))
        || !business(saturday + Duration::days(3))
        || !business(saturday + Duration::days(4))
    {
        saturday += Duration::days(1);
    }
    let plan = server
        .rest(
            "POST",
            "/v1/collection_plans",
            &admin,
            Some(json!({"name": "Dias úteis", "steps": [
            {"offset_days": 1, "action": "notify", "channel": "email"},
            {"offset_days": 2, "day_count": "business", "action": "notify", "channel": "sms"}]})),
        )
        .await;
    assert!(plan.status.is_success(), "{}", plan.text);
    assert_eq!(plan.body["data"]["steps"][1]["day_count"], "business");
    assert_eq!(plan.body["data"]["steps"][0]["day_count"], "calendar");
    let plan_id = plan.body["data"]["id"].as_str().unwrap();
    let id = charge_due(&server, 100.0, saturday).await;
    let attached = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{id}"),
            &admin,
            Some(json!({"collection_plan_id": plan_id})),
        )
        .await;
    assert!(attached.status.is_success(), "{}", attached.text);
    // Sunday and Monday: the charge is not late yet (payable through Monday).
    for day in [saturday + Duration::days(1), saturday + Duration::days(2)] {
        tick(&server.state.engine, at(day, 12, 0)).await.unwrap();
        assert!(channels_sent(&server, &id).await.is_empty(), "{day}");
    }
    // Tuesday: one calendar day after Monday.
    tick(
        &server.state.engine,
        at(saturday + Duration::days(3), 12, 0),
    )
    .await
    .unwrap();
    assert_eq!(channels_sent(&server, &id).await, ["email"]);
    // Wednesday: two business days after Monday.
    tick(
        &server.state.engine,
        at(saturday + Duration::days(4), 12, 0),
    )
    .await
    .unwrap();
    let mut sent = channels_sent(&server, &id).await;
    sent.sort();
    assert_eq!(sent, ["email", "sms"]);
}
