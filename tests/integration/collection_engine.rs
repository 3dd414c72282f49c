//! The collection engine driven with `tick(state, now)`: plan steps fire once per (charge,
//! step) on their day, skip charges that must not be collected and opted-out channels, keep
//! their pending work across a restart; deliveries go through the sandbox and through a real
//! SMTP listener on 127.0.0.1, a burst over several connections at once, and two engines on one
//! PostgreSQL share a burst without sending a message twice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use dunning_engine::collection::tick;
use dunning_store::Db;
use http::StatusCode;
use kobana_dunning::{AppState, Config};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::collection::{
    admin, charge_with_plan, count, customer, customer_with, get, post, sql, timeline,
};
use crate::common::TestServer;
use crate::postgres_reads::{CountingRelay, writes_during};

async fn plan(server: &TestServer, steps: Value) -> String {
    let answer = post(
        server,
        "/v1/collection_plans",
        json!({"name": "Régua de teste", "steps": steps}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

async fn deliveries_of(server: &TestServer, charge_id: &str) -> Vec<Value> {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/deliveries?charge_id={charge_id}&per_page=100"),
            &admin(server),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["data"].as_array().unwrap().clone()
}

fn at(days: i64, minutes: i64) -> OffsetDateTime {
    OffsetDateTime::now_utc() + Duration::days(days) + Duration::minutes(minutes)
}

#[tokio::test]
async fn each_step_fires_once_on_its_day() {
    let server = TestServer::start().await;
    let plan = plan(
        &server,
        json!([
            {"offset_days": -2, "action": "notify", "channel": "email"},
            {"offset_days": 0, "action": "notify", "channel": "sms", "template": "{{customer.name}}: vence hoje {{charge.amount_due}}"},
            {"offset_days": 15, "action": "negativate", "bureau": "boa_vista"},
        ]),
    )
    .await;
    let c = customer(&server, "Conceição Araújo").await;
    // Due in five days or a little more, on a business day: a due date on a weekend would move
    // the +15 step with the effective due date.
    let due = crate::common::business_day_offset(5, 1);
    let id = charge_with_plan(&server, &c, 500.0, due, Some(&plan)).await;

    let report = tick(&server.state.engine, at(0, 0)).await.unwrap();
    assert_eq!(report.steps_run, 0, "no step is due yet");

    // Day −2: the reminder goes out (and is sent in the same pass).
    let report = tick(&server.state.engine, at(due - 2, 0)).await.unwrap();
    assert_eq!(report.steps_run, 1);
    let sent = deliveries_of(&server, &id).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["status"], "sent");
    assert_eq!(sent[0]["channel"], "email");
    assert!(sent[0]["step_id"].as_str().unwrap().starts_with("stp_"));
    assert!(sent[0]["subject"].as_str().unwrap().starts_with("Lembrete"));

    // The same day again, and concurrent ticks: nothing more.
    let (a, b) = tokio::join!(
        tick(&server.state.engine, at(due - 2, 1)),
        tick(&server.state.engine, at(due - 2, 2))
    );
    assert_eq!(a.unwrap().steps_run + b.unwrap().steps_run, 0);
    tick(&server.state.engine, at(due - 2, 5)).await.unwrap();
    let sent = deliveries_of(&server, &id).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["status"], "delivered", "the sandbox receipt came");

    // Due date: the SMS, with its template; two replicas racing still send one.
    let (a, b) = tokio::join!(
        tick(&server.state.engine, at(due, 0)),
        tick(&server.state.engine, at(due, 0))
    );
    assert_eq!(a.unwrap().steps_run + b.unwrap().steps_run, 1);
    let sms: Vec<Value> = deliveries_of(&server, &id)
        .await
        .into_iter()
        .filter(|d| d["channel"] == "sms")
        .collect();
    assert_eq!(sms.len(), 1);
    // With the charge's Pix code at its end, for the amount due that day.
    let body = sms[0]["body"].as_str().unwrap();
    let code = body
        .strip_prefix("Conceição Araújo: vence hoje R$ 500,00\n\nPix Copia e Cola (R$ 500,00): ")
        .unwrap_or_else(|| panic!("{body}"));
    let code = dunning_domain::pix::brcode::parse(code).expect("a BR Code");
    assert_eq!(code.get(54), Some("500.00"));

    // Day +15: negativation, the reminder having been delivered 17 days before.
    let report = tick(&server.state.engine, at(due + 15, 0)).await.unwrap();
    assert_eq!(report.steps_run, 1, "{report:?}");
    let charge = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(charge["negativation_status"], "requested");
    tick(&server.state.engine, at(due + 15, 2)).await.unwrap();
    let charge = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(charge["negativation_status"], "active");

    for later in [due + 16, due + 35, 400] {
        let report = tick(&server.state.engine, at(later, 0)).await.unwrap();
        assert_eq!(report.steps_run + report.steps_skipped, 0);
    }
    assert_eq!(
        count(
            &server,
            &format!("SELECT COUNT(*) FROM collection_step_runs WHERE charge_id = '{id}'")
        )
        .await,
        3
    );
    assert_eq!(deliveries_of(&server, &id).await.len(), 2);
    let events = timeline(&server, &id).await;
    for kind in [
        "charge.notified",
        "delivery.sent",
        "delivery.delivered",
        "charge.negativation_requested",
        "charge.negativated",
    ] {
        assert!(events.contains(&kind.to_string()), "{kind} in {events:?}");
    }
    let actors = server
        .rest(
            "GET",
            &format!("/v1/events?type=charge.negativated&subject_id={id}"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(actors.body["data"][0]["actor"]["type"], "system");
    assert_eq!(
        actors.body["data"][0]["actor"]["name"],
        "boa_vista (sandbox)"
    );
}

#[tokio::test]
async fn steps_skip_paid_canceled_disputed_and_in_agreement_charges_and_opted_out_channels() {
    let server = TestServer::start().await;
    let plan = plan(
        &server,
        json!([{"offset_days": 1, "action": "notify", "channel": "whatsapp"}]),
    )
    .await;
    let reachable = customer(&server, "Sebastião Peçanha").await;
    let opted_out = customer_with(
        &server,
        "Íris Mendonça Lobo",
        Some("iris@example.com.br"),
        Some("+5571999990001"),
        &["whatsapp"],
    )
    .await;
    // Due on a business day: the step counts a day from the effective due date.
    let due = crate::common::business_day_offset(2, 1);
    let normal = charge_with_plan(&server, &reachable, 100.0, due, Some(&plan)).await;
    let paid = charge_with_plan(&server, &reachable, 100.0, due, Some(&plan)).await;
    let canceled = charge_with_plan(&server, &reachable, 100.0, due, Some(&plan)).await;
    let disputed = charge_with_plan(&server, &reachable, 100.0, due, Some(&plan)).await;
    let in_agreement = charge_with_plan(&server, &reachable, 100.0, due, Some(&plan)).await;
    let opted = charge_with_plan(&server, &opted_out, 100.0, due, Some(&plan)).await;
    post(
        &server,
        &format!("/v1/charges/{paid}/pay"),
        json!({"amount": 100, "method": "pix"}),
    )
    .await;
    post(
        &server,
        &format!("/v1/charges/{canceled}/cancel"),
        json!({}),
    )
    .await;
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = 'dsp_test' WHERE id = '{disputed}'"),
    )
    .await;
    sql(
        &server,
        &format!("UPDATE charges SET state = 'in_agreement' WHERE id = '{in_agreement}'"),
    )
    .await;

    let report = tick(&server.state.engine, at(due + 1, 0)).await.unwrap();
    assert_eq!(
        (report.steps_run, report.steps_skipped),
        (1, 1),
        "{report:?}"
    );
    assert_eq!(deliveries_of(&server, &normal).await.len(), 1);
    for id in [&paid, &canceled, &disputed, &in_agreement, &opted] {
        assert!(
            deliveries_of(&server, id).await.is_empty(),
            "{id} got nothing"
        );
    }
    // The opt-out is recorded once, with its reason, and never retried.
    assert_eq!(
        count(&server, &format!("SELECT COUNT(*) FROM collection_step_runs WHERE charge_id = '{opted}' AND reason = 'customer_opted_out'")).await,
        1
    );
    assert!(
        timeline(&server, &opted)
            .await
            .contains(&"charge.step_skipped".to_string())
    );
    let report = tick(&server.state.engine, at(due + 2, 0)).await.unwrap();
    assert_eq!((report.steps_run, report.steps_skipped), (0, 0));

    // A dispute pauses: once it is over, the step runs.
    sql(
        &server,
        &format!("UPDATE charges SET open_dispute_id = NULL WHERE id = '{disputed}'"),
    )
    .await;
    let report = tick(&server.state.engine, at(due + 2, 0)).await.unwrap();
    assert_eq!(report.steps_run, 1);
    assert_eq!(deliveries_of(&server, &disputed).await.len(), 1);
}

#[tokio::test]
async fn a_step_added_later_does_not_fire_for_days_gone_and_only_the_latest_notice_catches_up() {
    let server = TestServer::start().await;
    let plan_id = plan(
        &server,
        json!([
            {"offset_days": 1, "action": "notify", "channel": "email"},
            {"offset_days": 3, "action": "notify", "channel": "email"},
            {"offset_days": 2, "action": "protest"},
        ]),
    )
    .await;
    let c = customer(&server, "Márcia Helena Brandão").await;
    let id = charge_with_plan(&server, &c, 100.0, 0, Some(&plan_id)).await;
    // The engine was down until day 5: one notice (the latest), and the protest.
    let report = tick(&server.state.engine, at(5, 0)).await.unwrap();
    assert_eq!(
        (report.steps_run, report.steps_skipped),
        (2, 1),
        "{report:?}"
    );
    assert_eq!(deliveries_of(&server, &id).await.len(), 1);
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["protest_status"],
        "requested"
    );
    assert_eq!(
        count(&server, &format!("SELECT COUNT(*) FROM collection_step_runs WHERE charge_id = '{id}' AND reason = 'superseded'")).await,
        1
    );

    // A charge already overdue when it gets its plan: past days do not fire.
    let late = charge_with_plan(&server, &c, 100.0, -10, Some(&plan_id)).await;
    let report = tick(&server.state.engine, at(0, 0)).await.unwrap();
    assert_eq!(report.steps_run + report.steps_skipped, 0);
    assert!(deliveries_of(&server, &late).await.is_empty());
}

#[tokio::test]
async fn a_negativate_step_refused_by_a_rule_is_recorded_not_retried() {
    let server = TestServer::start().await;
    let plan = plan(&server, json!([{"offset_days": 3, "action": "negativate"}])).await;
    let c = customer(&server, "João Pedro Magalhães").await;
    // Due on a business day: the step counts three days from the effective due date.
    let due = crate::common::business_day_offset(1, 1);
    let id = charge_with_plan(&server, &c, 100.0, due, Some(&plan)).await;
    let report = tick(&server.state.engine, at(due + 3, 0)).await.unwrap();
    assert_eq!(report.steps_skipped, 1);
    assert_eq!(
        count(&server, &format!("SELECT COUNT(*) FROM collection_step_runs WHERE charge_id = '{id}' AND reason = 'negativation_notice_missing'")).await,
        1
    );
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["negativation_status"],
        "none"
    );
    let report = tick(&server.state.engine, at(due + 4, 0)).await.unwrap();
    assert_eq!(report.steps_skipped + report.steps_run, 0);
}

#[tokio::test]
async fn pending_work_survives_a_restart() {
    let server = TestServer::start().await;
    let plan = plan(
        &server,
        json!([{"offset_days": 2, "action": "notify", "channel": "email"}]),
    )
    .await;
    let c = customer(&server, "Raimundo Nonato Câmara").await;
    // Due on a business day: the step counts two days from the effective due date.
    let due = crate::common::business_day_offset(1, 1);
    let with_plan = charge_with_plan(&server, &c, 100.0, due, Some(&plan)).await;
    let manual = charge_with_plan(&server, &c, 100.0, 1, None).await;
    let queued = post(
        &server,
        &format!("/v1/charges/{manual}/notify"),
        json!({"channel": "sms"}),
    )
    .await;
    let queued_id = queued.body["data"]["id"].as_str().unwrap().to_string();
    // A worker claimed it and died before sending: its lease must run out first.
    let now = dunning_store::timestamp_text(OffsetDateTime::now_utc());
    let until = dunning_store::timestamp_text(at(0, 5));
    let claimed =
        dunning_store::deliveries::claim_due(&server.state.db, "clm_dead", "sms", &now, &until, 10)
            .await
            .unwrap();
    assert_eq!(
        claimed.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        [queued_id.as_str()]
    );

    // "Restart": a new process state over the same database file, nothing in memory.
    let (db, fresh) = Db::open(&server.state.config.database_url).await.unwrap();
    assert!(!fresh);
    let restarted = AppState::new(db, (*server.state.config).clone());
    let report = tick(&restarted.engine, at(0, 1)).await.unwrap();
    assert_eq!(report.attempts, 0, "the claim still holds");
    let report = tick(&restarted.engine, at(0, 10)).await.unwrap();
    assert_eq!(report.attempts, 1);
    assert_eq!(
        get(&server, &format!("/v1/deliveries/{queued_id}")).await["status"],
        "sent"
    );

    tick(&restarted.engine, at(due + 2, 0)).await.unwrap();
    let (db, _) = Db::open(&server.state.config.database_url).await.unwrap();
    let again = AppState::new(db, (*server.state.config).clone());
    let report = tick(&again.engine, at(due + 2, 1)).await.unwrap();
    assert_eq!(
        report.steps_run, 0,
        "a step that ran before the restart does not run again"
    );
    assert_eq!(deliveries_of(&server, &with_plan).await.len(), 1);
}

#[tokio::test]
async fn the_sandbox_retries_failures_and_reports_bounces() {
    let server = TestServer::start().await;
    let failing = customer_with(
        &server,
        "Falha Temporária",
        Some("fail@example.com.br"),
        None,
        &[],
    )
    .await;
    let bouncing = customer_with(
        &server,
        "Caixa Inexistente",
        Some("bounce@example.com.br"),
        None,
        &[],
    )
    .await;
    let a = charge_with_plan(&server, &failing, 10.0, 3, None).await;
    let b = charge_with_plan(&server, &bouncing, 10.0, 3, None).await;
    let fa = post(
        &server,
        &format!("/v1/charges/{a}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let fb = post(
        &server,
        &format!("/v1/charges/{b}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let fa = fa.body["data"]["id"].as_str().unwrap().to_string();
    let fb = fb.body["data"]["id"].as_str().unwrap().to_string();
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    let first = get(&server, &format!("/v1/deliveries/{fa}")).await;
    assert_eq!(
        (first["status"].as_str(), first["attempts"].as_i64()),
        (Some("queued"), Some(1))
    );
    assert!(first["error"].as_str().unwrap().contains("temporary"));
    for hours in 1..8 {
        tick(&server.state.engine, at(0, hours * 60)).await.unwrap();
    }
    let last = get(&server, &format!("/v1/deliveries/{fa}")).await;
    assert_eq!(
        (last["status"].as_str(), last["attempts"].as_i64()),
        (Some("failed"), Some(5))
    );
    let bounced = get(&server, &format!("/v1/deliveries/{fb}")).await;
    assert_eq!(bounced["status"], "bounced");
    let failed = server
        .rest("GET", "/v1/deliveries?status=failed", &admin(&server), None)
        .await;
    assert_eq!(failed.body["meta"]["total"], 1);
    assert!(
        timeline(&server, &a)
            .await
            .contains(&"delivery.failed".to_string())
    );
    assert!(
        timeline(&server, &b)
            .await
            .contains(&"delivery.bounced".to_string())
    );
    assert!(count(&server, "SELECT COUNT(*) FROM sandbox_messages").await >= 1);
}

#[tokio::test]
async fn a_delivery_is_resent_to_the_current_contact() {
    let server = TestServer::start().await;
    let c = customer_with(
        &server,
        "Caio Estêvão Prado",
        Some("bounce@example.com.br"),
        None,
        &[],
    )
    .await;
    let id = charge_with_plan(&server, &c, 10.0, 3, None).await;
    let first = post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let first = first.body["data"].clone();
    let resend = format!("/v1/deliveries/{}/resend", first["id"].as_str().unwrap());
    server
        .rest(
            "PATCH",
            &format!("/v1/customers/{c}"),
            &admin(&server),
            Some(json!({"email": "caio@example.com.br", "channel_opt_outs": []})),
        )
        .await;
    let again = post(&server, &resend, json!({})).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.text);
    assert_eq!(again.body["data"]["recipient"], "caio@example.com.br");
    assert_eq!(again.body["data"]["body"], first["body"]);
    assert_eq!(again.body["data"]["subject"], first["subject"]);
    assert_ne!(again.body["data"]["id"], first["id"]);

    server
        .rest(
            "PATCH",
            &format!("/v1/customers/{c}"),
            &admin(&server),
            Some(json!({"channel_opt_outs": ["email"]})),
        )
        .await;
    let before = count(&server, "SELECT COUNT(*) FROM deliveries").await;
    let refused = post(&server, &resend, json!({})).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.body["code"], "customer_opted_out");
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM deliveries").await,
        before
    );
    // Queued notices of a charge that stops being collectable are not sent.
    server
        .rest(
            "PATCH",
            &format!("/v1/customers/{c}"),
            &admin(&server),
            Some(json!({"channel_opt_outs": []})),
        )
        .await;
    post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": 10, "method": "pix"}),
    )
    .await;
    let refused = post(&server, &resend, json!({})).await;
    assert_eq!(refused.body["code"], "charge_not_open");
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    let all = deliveries_of(&server, &id).await;
    assert!(all.iter().all(|d| d["status"] == "failed"), "{all:?}");
    assert!(all[0]["error"].as_str().unwrap().contains("paid"));
}

/// What a fake SMTP server received.
#[derive(Default, Debug)]
pub(crate) struct Received {
    commands: Vec<String>,
    data: Vec<String>,
    /// When each accepted message's data ended.
    pub(crate) accepted_at: Vec<std::time::Instant>,
}

/// The test relays' answer to a command other than `QUIT`, and whether the message's data
/// follows: recipients starting with `reject` are refused (550), `later` deferred (451).
fn reply_to(line: &str) -> (&'static [u8], bool) {
    if line.starts_with("EHLO") {
        (b"250-teste\r\n250 AUTH PLAIN\r\n", false)
    } else if line.starts_with("RCPT TO:<reject") {
        (b"550 5.1.1 no such user\r\n", false)
    } else if line.starts_with("RCPT TO:<later") {
        (b"451 4.3.0 try later\r\n", false)
    } else if line == "DATA" {
        (b"354 go on\r\n", true)
    } else if line.starts_with("AUTH PLAIN") {
        (b"235 ok\r\n", false)
    } else {
        (b"250 ok\r\n", false)
    }
}

/// A plain-TCP SMTP listener on 127.0.0.1 (reached with `?tls=none`, allowed on loopback only)
/// that accepts everything, except recipients starting with `reject` (550) and `later` (451).
/// `tests/python/test_smtp.py` checks TLS, authentication and the message against a real relay.
pub(crate) async fn smtp_listener() -> (u16, Arc<Mutex<Received>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Received::default()));
    let shared = received.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let shared = shared.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 teste ESMTP\r\n").await.unwrap();
                let mut in_data = false;
                let mut data = String::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    if in_data {
                        if line == "." {
                            in_data = false;
                            {
                                let mut received = shared.lock().unwrap();
                                received.data.push(std::mem::take(&mut data));
                                received.accepted_at.push(std::time::Instant::now());
                            }
                            write.write_all(b"250 2.0.0 queued\r\n").await.unwrap();
                        } else {
                            data.push_str(&line);
                            data.push('\n');
                        }
                        continue;
                    }
                    shared.lock().unwrap().commands.push(line.clone());
                    if line == "QUIT" {
                        write.write_all(b"221 bye\r\n").await.unwrap();
                        break;
                    }
                    let (reply, data_follows) = reply_to(&line);
                    in_data = data_follows;
                    write.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (port, received)
}

#[tokio::test]
async fn e_mails_go_out_over_smtp_when_configured() {
    let (port, received) = smtp_listener().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let config = Config {
        smtp_url: Some(format!(
            "smtp://cobranca:s3nha@127.0.0.1:{port}?tls=none&from=cobranca@paodourado.com.br"
        )),
        ..Config::local()
    };
    let server = TestServer::start_configured(url, dir, config).await;
    let c = customer(&server, "Conceição Araújo").await;
    let rejecting = customer_with(
        &server,
        "Sem Caixa",
        Some("reject@example.com.br"),
        None,
        &[],
    )
    .await;
    let busy = customer_with(
        &server,
        "Servidor Ocupado",
        Some("later@example.com.br"),
        None,
        &[],
    )
    .await;
    let id = charge_with_plan(&server, &c, 1234.56, -3, None).await;
    let other = charge_with_plan(&server, &rejecting, 10.0, 1, None).await;
    let third = charge_with_plan(&server, &busy, 10.0, 1, None).await;
    let sent = post(
        &server,
        &format!("/v1/charges/{id}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let sent_id = sent.body["data"]["id"].as_str().unwrap().to_string();
    let bounced = post(
        &server,
        &format!("/v1/charges/{other}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let later = post(
        &server,
        &format!("/v1/charges/{third}/notify"),
        json!({"channel": "email"}),
    )
    .await;
    let report = tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    assert_eq!(report.attempts, 3);

    let delivery = get(&server, &format!("/v1/deliveries/{sent_id}")).await;
    assert_eq!(delivery["status"], "delivered", "{delivery}");
    assert_eq!(delivery["attempts"], 1);
    let bounced = get(
        &server,
        &format!(
            "/v1/deliveries/{}",
            bounced.body["data"]["id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(bounced["status"], "bounced");
    assert!(bounced["error"].as_str().unwrap().contains("550"));
    let later = get(
        &server,
        &format!(
            "/v1/deliveries/{}",
            later.body["data"]["id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(later["status"], "queued");
    assert!(later["error"].as_str().unwrap().contains("451"));

    // No sandbox for e-mail when SMTP is configured.
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM sandbox_messages").await,
        0
    );
    let received = received.lock().unwrap();
    assert!(
        received
            .commands
            .contains(&"MAIL FROM:<cobranca@paodourado.com.br>".to_string()),
        "{received:?}"
    );
    assert!(
        received
            .commands
            .contains(&"RCPT TO:<devedora@example.com.br>".to_string())
    );
    let plain = base64::engine::general_purpose::STANDARD.encode("\0cobranca\0s3nha");
    assert!(received.commands.contains(&format!("AUTH PLAIN {plain}")));
    assert_eq!(received.data.len(), 1, "only the accepted message has data");
    let message = &received.data[0];
    assert!(message.contains("To: devedora@example.com.br"), "{message}");
    assert!(message.contains(&format!("Message-ID: <{sent_id}@paodourado.com.br>")));
    assert!(
        message.contains("Content-Type: multipart/alternative"),
        "{message}"
    );
    assert!(message.contains("Content-Type: text/plain; charset=utf-8"));
    assert!(message.contains("Content-Type: text/html; charset=utf-8"));
}

#[tokio::test]
async fn postgres_runs_plans_deliveries_bureau_answers_and_payments() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    let plan = plan(
        &server,
        json!([
            {"offset_days": 0, "action": "notify", "channel": "email"},
            {"offset_days": 12, "action": "negativate", "bureau": "spc"},
        ]),
    )
    .await;
    let c = customer(&server, "Conceição Araújo").await;
    // Due on a business day: the +12 step counts from the effective due date.
    let due = crate::common::business_day_offset(1, 1);
    let id = charge_with_plan(&server, &c, 200.0, due, Some(&plan)).await;
    let (a, b) = tokio::join!(
        tick(&server.state.engine, at(due, 0)),
        tick(&server.state.engine, at(due, 0))
    );
    assert_eq!(a.unwrap().steps_run + b.unwrap().steps_run, 1);
    tick(&server.state.engine, at(due, 2)).await.unwrap();
    let sent = deliveries_of(&server, &id).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["status"], "delivered");
    tick(&server.state.engine, at(due + 12, 0)).await.unwrap();
    tick(&server.state.engine, at(due + 12, 2)).await.unwrap();
    let charge = get(&server, &format!("/v1/charges/{id}")).await;
    assert_eq!(charge["negativation_status"], "active", "{charge}");
    // Paid in full (with the fine and interest of today's date): removal requested.
    let due = charge["amount_due"].as_f64().unwrap();
    let paid = post(
        &server,
        &format!("/v1/charges/{id}/pay"),
        json!({"amount": due, "method": "pix"}),
    )
    .await;
    assert_eq!(
        paid.body["data"]["negativation_status"], "removal_requested",
        "{}",
        paid.text
    );
    let events = timeline(&server, &id).await;
    assert!(
        events.contains(&"charge.negativated".to_string()),
        "{events:?}"
    );
    let plans = server
        .rest("GET", "/v1/collection_plans?q=regua", &admin(&server), None)
        .await;
    assert_eq!(plans.body["meta"]["total"], 1);
    let filtered = server
        .rest(
            "GET",
            "/v1/events?type=charge.paid&created_from=2000-01-01T00:00:00Z",
            &admin(&server),
            None,
        )
        .await;
    assert!(
        filtered.body["meta"]["total"].as_i64().unwrap() >= 1,
        "{}",
        filtered.text
    );
}

/// What the counting relay saw: sessions open at once, and each accepted message's id.
#[derive(Default)]
struct Sessions {
    open: AtomicUsize,
    most_at_once: AtomicUsize,
    message_ids: Mutex<Vec<String>>,
    opened: tokio::sync::Notify,
}

/// A plain-TCP SMTP relay on 127.0.0.1 that accepts everything and counts its sessions. A new
/// session is greeted once a second one is open, or after two seconds: a client that opens
/// several connections at once is seen with several, one that sends one message at a time
/// is only slowed down.
async fn counting_relay() -> (u16, Arc<Sessions>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let sessions = Arc::new(Sessions::default());
    let shared = sessions.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let sessions = shared.clone();
            let open = sessions.open.fetch_add(1, Ordering::SeqCst) + 1;
            sessions.most_at_once.fetch_max(open, Ordering::SeqCst);
            sessions.opened.notify_waiters();
            tokio::spawn(async move {
                let second = sessions.opened.notified();
                if sessions.open.load(Ordering::SeqCst) < 2 {
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), second).await;
                }
                relay_session(stream, &sessions).await;
                sessions.open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    (port, sessions)
}

/// One SMTP conversation: every command accepted, each message's `Message-ID` kept.
async fn relay_session(stream: tokio::net::TcpStream, sessions: &Sessions) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    if write.write_all(b"220 teste ESMTP\r\n").await.is_err() {
        return;
    }
    let mut message_id = None;
    let mut in_data = false;
    while let Ok(Some(line)) = lines.next_line().await {
        let reply: &[u8] = if in_data {
            if let Some(id) = line.strip_prefix("Message-ID: ") {
                message_id = Some(id.to_string());
            }
            if line != "." {
                continue;
            }
            in_data = false;
            if let Some(id) = message_id.take() {
                sessions.message_ids.lock().unwrap().push(id);
            }
            b"250 2.0.0 queued\r\n"
        } else if line == "QUIT" {
            let _ = write.write_all(b"221 bye\r\n").await;
            return;
        } else {
            let (reply, data_follows) = reply_to(&line);
            in_data = data_follows;
            reply
        };
        if write.write_all(reply).await.is_err() {
            return;
        }
    }
}

/// The relay took each of these deliveries' messages exactly once, and no other, and each is
/// delivered after one attempt.
async fn assert_each_sent_once(server: &TestServer, relay: &Sessions, deliveries: &[String]) {
    let mut seen = relay.message_ids.lock().unwrap().clone();
    seen.sort();
    let mut expected: Vec<String> = deliveries
        .iter()
        .map(|id| format!("<{id}@paodourado.com.br>"))
        .collect();
    expected.sort();
    assert_eq!(seen.len(), expected.len(), "messages taken by the relay");
    assert_eq!(seen, expected, "each message exactly once");
    let delivered = count(
        server,
        "SELECT COUNT(*) FROM deliveries WHERE status = 'delivered' AND attempts = 1",
    )
    .await;
    assert_eq!(delivered, deliveries.len() as i64);
}

fn relay_config(port: u16, smtp_connections: usize) -> Config {
    Config {
        smtp_url: Some(format!(
            "smtp://127.0.0.1:{port}?tls=none&from=cobranca@paodourado.com.br"
        )),
        sending: dunning_engine::Sending {
            smtp_connections,
            ..dunning_engine::Sending::default()
        },
        ..Config::local()
    }
}

/// Queue `n` e-mails to the charge's customer straight in the store (what `notify` writes),
/// due now: a burst without hundreds of API calls. Their ids.
async fn queue_e_mails(server: &TestServer, charge_id: &str, n: usize) -> Vec<String> {
    let org = server.org_id(0).to_string();
    let customer_id: String = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT customer_id FROM charges WHERE id = '{charge_id}'"
    )))
    .fetch_one(&server.state.db.pool)
    .await
    .unwrap();
    let now = dunning_store::timestamp_text(OffsetDateTime::now_utc() - Duration::minutes(1));
    let mut tx = server.state.db.begin().await.unwrap();
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let id = dunning_store::ids::new_id("dlv");
        let new = dunning_store::deliveries::NewDelivery {
            id: &id,
            charge_id,
            customer_id: &customer_id,
            channel: "email",
            recipient: "devedora@example.com.br",
            subject: Some("Aviso de cobrança"),
            body: "Olá. Sua fatura vence hoje.",
            step_id: None,
            resent_from: None,
        };
        dunning_store::deliveries::insert(&mut tx, &org, &new, &now)
            .await
            .unwrap();
        ids.push(id);
    }
    tx.commit().await.unwrap();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_e_mails_goes_out_over_several_connections_never_more_than_the_pool() {
    let (port, relay) = counting_relay().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let server = TestServer::start_configured(url, dir, relay_config(port, 3)).await;
    let c = customer(&server, "Conceição Araújo").await;
    let charge = charge_with_plan(&server, &c, 100.0, 1, None).await;
    let queued = queue_e_mails(&server, &charge, 40).await;

    let report = tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    assert_eq!(report.attempts, 40);
    let most = relay.most_at_once.load(Ordering::SeqCst);
    assert!(
        (2..=3).contains(&most),
        "sessions open at once: {most}, the pool has 3"
    );
    assert_each_sent_once(&server, &relay, &queued).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_engines_on_one_postgres_racing_over_bursts_send_each_message_once() {
    let (port, relay) = counting_relay().await;
    let Some(server) = crate::postgres::postgres_server_with(relay_config(port, 4)).await else {
        return;
    };
    let (db, _) = Db::open(&server.state.config.database_url).await.unwrap();
    let other = AppState::new(db, (*server.state.config).clone());
    let c = customer(&server, "Conceição Araújo").await;
    let charge = charge_with_plan(&server, &c, 100.0, 1, None).await;
    let mut queued = Vec::new();
    for round in 0..4 {
        // More than one claim's worth, so that the engines take batches from each other.
        queued.extend(queue_e_mails(&server, &charge, 600).await);
        let now = OffsetDateTime::now_utc();
        let (a, b) = (server.state.engine.clone(), other.engine.clone());
        let a = tokio::spawn(async move { tick(&a, now).await.unwrap() });
        let b = tokio::spawn(async move { tick(&b, now).await.unwrap() });
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        assert_eq!(a.attempts + b.attempts, 600, "round {round}: {a:?} {b:?}");
    }
    assert_each_sent_once(&server, &relay, &queued).await;
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM events WHERE type = 'delivery.sent'"
        )
        .await,
        2400
    );
}

/// A burst costs PostgreSQL statements per batch, not per message: a claim's attempts are
/// recorded in one statement and their events in another, and the webhook worker marks a
/// batch of events fanned out in one. Counted through a relay that sees each exchange: with
/// a statement per message, recording these 600 e-mails (600 updates, 1 200 events) and
/// fanning their events out (1 200 updates) took more than 3 000 exchanges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_burst_is_recorded_and_fanned_out_a_statement_per_batch() {
    let (port, smtp) = counting_relay().await;
    let Some(server) = crate::postgres::postgres_server_with(relay_config(port, 4)).await else {
        return;
    };
    let engine = &server.state.engine;
    // What the demo left to fan out goes first: what is counted below is the burst's.
    dunning_engine::webhooks::tick(engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let c = customer(&server, "Conceição Araújo").await;
    let charge = charge_with_plan(&server, &c, 100.0, 1, None).await;
    let queued = queue_e_mails(&server, &charge, 600).await;
    dunning_engine::webhooks::tick(engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let relay = CountingRelay::start().await;
    let url = server
        .state
        .config
        .database_url
        .replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    let (db, _) = Db::open(&url).await.unwrap();
    let relayed = AppState::new(db, (*server.state.config).clone());
    let now = OffsetDateTime::now_utc();

    let sending = writes_during(&relay, async {
        assert_eq!(tick(&relayed.engine, now).await.unwrap().attempts, 600);
    })
    .await;
    let fan_out = writes_during(&relay, async {
        dunning_engine::webhooks::tick(&relayed.engine, now)
            .await
            .unwrap();
    })
    .await;

    assert_each_sent_once(&server, &smtp, &queued).await;
    let events = "SELECT COUNT(*) FROM events WHERE subject_type = 'delivery'";
    assert_eq!(count(&server, events).await, 1200, "sent and delivered");
    let undispatched = "SELECT COUNT(*) FROM events WHERE webhooks_dispatched = 0";
    assert_eq!(count(&server, undispatched).await, 0);
    // Three batches of 256 at most: a claim, a read, a transaction of two statements each,
    // beside the tick's other questions and the pool's new connections.
    assert!(sending < 200, "{sending} exchanges to send 600 e-mails");
    // Six batches of 200 events: a read, a transaction marking them.
    assert!(fan_out < 100, "{fan_out} exchanges to fan 1 200 events out");
}

/// A batch's attempts are recorded, in one statement, only where the batch's claim still
/// holds: one taken by another worker after the lease keeps that worker's claim; the others
/// get what their kind writes (a message sent, a retry that leaves the status, a bounce).
#[tokio::test]
async fn a_batch_is_recorded_only_where_its_claim_holds() {
    batch_recorded_where_its_claim_holds(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_a_batch_is_recorded_only_where_its_claim_holds() {
    if let Some(server) = crate::postgres::postgres_server().await {
        batch_recorded_where_its_claim_holds(&server).await;
    }
}

async fn batch_recorded_where_its_claim_holds(server: &TestServer) {
    use dunning_store::deliveries::{AttemptResult, Finished, claim_due, finish_attempts};
    let c = customer(server, "Conceição Araújo").await;
    let charge = charge_with_plan(server, &c, 100.0, 1, None).await;
    let queued = queue_e_mails(server, &charge, 4).await;
    let db = &server.state.db;
    let at = |minutes| {
        dunning_store::timestamp_text(OffsetDateTime::now_utc() + Duration::minutes(minutes))
    };
    let mine = claim_due(db, "clm_mine", "email", &at(0), &at(5), 10)
        .await
        .unwrap();
    assert_eq!(mine.len(), 4);
    // The lease ran out on the last one and another worker took it.
    sql(
        server,
        &format!(
            "UPDATE deliveries SET claimed_until = '{}' WHERE id = '{}'",
            at(-1),
            queued[3]
        ),
    )
    .await;
    let theirs = claim_due(db, "clm_theirs", "email", &at(0), &at(5), 10)
        .await
        .unwrap();
    assert_eq!(theirs.len(), 1);

    let later = at(60);
    let attempts = [
        Finished {
            id: &queued[0],
            result: AttemptResult::Sent {
                provider: "smtp",
                delivered: false,
                message_id: Some("msg-0"),
            },
            counts_as_attempt: true,
        },
        Finished {
            id: &queued[1],
            result: AttemptResult::Retry {
                error: "busy",
                next_attempt_at: &later,
            },
            counts_as_attempt: false,
        },
        Finished {
            id: &queued[2],
            result: AttemptResult::Ended {
                status: "bounced",
                error: "no such mailbox",
            },
            counts_as_attempt: true,
        },
        Finished {
            id: &queued[3],
            result: AttemptResult::Sent {
                provider: "smtp",
                delivered: true,
                message_id: None,
            },
            counts_as_attempt: true,
        },
    ];
    let mut conn = db.begin().await.unwrap();
    let mut recorded = finish_attempts(&mut conn, "clm_mine", &attempts, &at(0))
        .await
        .unwrap();
    conn.commit().await.unwrap();
    recorded.sort();
    let mut expected = queued[..3].to_vec();
    expected.sort();
    assert_eq!(recorded, expected);

    let row = |id: &str| {
        format!(
            "SELECT status || '|' || COALESCE(provider, '-') || '|' || COALESCE(provider_message_id, '-') || '|' \
             || attempts || '|' || COALESCE(error, '-') || '|' || COALESCE(next_attempt_at, '-') || '|' \
             || CASE WHEN sent_at IS NULL THEN 'unsent' ELSE 'sent' END || '|' || COALESCE(claim_token, '-') \
             FROM deliveries WHERE id = '{id}'"
        )
    };
    let text = |id: &str| {
        let query = row(id);
        async move {
            sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(query))
                .fetch_one(&server.state.db.pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(text(&queued[0]).await, "sent|smtp|msg-0|1|-|-|sent|-");
    assert_eq!(
        text(&queued[1]).await,
        format!("queued|-|-|0|busy|{later}|unsent|-")
    );
    assert_eq!(
        text(&queued[2]).await,
        "bounced|-|-|1|no such mailbox|-|unsent|-"
    );
    assert!(
        text(&queued[3]).await.ends_with("|unsent|clm_theirs"),
        "the other worker's claim stands"
    );
}
