//! Webhooks: endpoints, their refusals, and real signed POSTs to a receiver on 127.0.0.1 that
//! fails and recovers, with the worker stepped through time by `tick`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::IntoResponse;
use dunning_engine::webhooks::{TickReport, tick};
use dunning_store::timestamp_text;
use dunning_store::webhooks::attempts;
use hmac::{Hmac, Mac};
use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use sha2::Sha256;
use time::{Duration, OffsetDateTime};

use crate::common::TestServer;

/// One POST as the receiver saw it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

#[derive(Default)]
struct Script {
    /// Statuses to answer, in order; 200 once they run out.
    answers: VecDeque<u16>,
    received: Vec<Received>,
}

/// A webhook receiver on a real socket that answers from a script.
#[derive(Clone)]
pub(crate) struct Receiver {
    pub url: String,
    script: Arc<Mutex<Script>>,
}

async fn receive(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    let status = {
        let mut script = script.lock().unwrap();
        script.received.push(Received { headers, body });
        script.answers.pop_front().unwrap_or(200)
    };
    let status = StatusCode::from_u16(status).unwrap();
    if status.is_redirection() {
        (
            status,
            [("location", "http://127.0.0.1:9/elsewhere")],
            "moved",
        )
            .into_response()
    } else {
        (status, "x".repeat(5000)).into_response()
    }
}

impl Receiver {
    pub async fn start(answers: &[u16]) -> Receiver {
        let script = Arc::new(Mutex::new(Script {
            answers: answers.iter().copied().collect(),
            received: Vec::new(),
        }));
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(receive))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            url: format!("http://{address}/hook"),
            script,
        }
    }

    /// What the receiver got, each body checked against the document's webhook of its type
    /// (`openapi/v1.yaml`, `webhooks`): a body the document does not declare fails the test.
    pub fn received(&self) -> Vec<Received> {
        let received = self.script.lock().unwrap().received.clone();
        for post in &received {
            let body = post.json();
            let kind = body["type"].as_str().unwrap_or_default();
            if let Err(e) = dunning_app::events::check_body(kind, &body) {
                panic!("a webhook body does not fit the document: {e}\n{body}");
            }
        }
        received
    }

    fn types(&self) -> Vec<String> {
        let mut types: Vec<String> = self
            .received()
            .iter()
            .map(|r| r.json()["type"].as_str().unwrap().to_string())
            .collect();
        types.sort();
        types
    }
}

/// `X-Signature` as docs/outbound-channels.md tells receivers to compute it: `t=<unix seconds>,v1=<hex
/// HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>`.
pub(crate) fn sign(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// The `t` of a POST's `X-Signature`.
pub(crate) fn signed_at(post: &Received) -> i64 {
    post.header("x-signature")
        .split(',')
        .find_map(|part| part.strip_prefix("t="))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no t= in {:?}", post.header("x-signature")))
}

pub(crate) fn admin(server: &TestServer) -> String {
    server.token(0, "admin", "api")
}

pub(crate) async fn create_webhook(server: &TestServer, url: &str, events: Value) -> Value {
    let answer = server
        .rest(
            "POST",
            "/v1/webhooks",
            &admin(server),
            Some(json!({ "url": url, "events": events, "description": "ERP financeiro" })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"].clone()
}

async fn first_customer(server: &TestServer) -> String {
    let answer = server
        .rest("GET", "/v1/customers?per_page=1", &admin(server), None)
        .await;
    answer.body["data"][0]["id"].as_str().unwrap().to_string()
}

/// A charge on a demo customer: one `charge.created` event.
pub(crate) async fn create_charge(server: &TestServer) -> String {
    let customer = first_customer(server).await;
    let answer = server
        .rest(
            "POST",
            "/v1/charges",
            &admin(server),
            Some(json!({ "customer_id": customer, "description": "Mensalidade março", "amount": 150.0, "due_date": "2031-03-10" })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

/// A valid CPF from nine digits.
pub fn cpf(seed: u32) -> String {
    let base: Vec<u32> = format!("{:09}", 100_000_000 + seed % 800_000_000)
        .chars()
        .map(|c| c.to_digit(10).unwrap())
        .collect();
    let digit = |digits: &[u32]| {
        let n = digits.len() as u32 + 1;
        let sum: u32 = digits
            .iter()
            .enumerate()
            .map(|(i, d)| d * (n - i as u32))
            .sum();
        let rest = (sum * 10) % 11;
        if rest == 10 { 0 } else { rest }
    };
    let mut all = base.clone();
    all.push(digit(&all));
    all.push(digit(&all));
    all.iter().map(|d| d.to_string()).collect()
}

async fn create_customer(server: &TestServer, name: &str, seed: u32) -> String {
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &admin(server),
            Some(json!({ "name": name, "document": cpf(seed) })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

pub(crate) async fn deliveries(server: &TestServer, webhook: &str, query: &str) -> Value {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/webhooks/{webhook}/deliveries{query}"),
            &admin(server),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body.clone()
}

pub(crate) async fn step(server: &TestServer, now: OffsetDateTime) -> TickReport {
    tick(&server.state.engine, now).await.expect("tick")
}

pub(crate) fn parse_time(text: &str) -> OffsetDateTime {
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).unwrap()
}

#[tokio::test]
async fn a_receiver_that_fails_twice_gets_retries_with_backoff_then_the_event_once() {
    fails_twice_then_accepts(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_a_receiver_that_fails_twice_gets_retries_then_the_event_once() {
    if let Some(server) = crate::postgres::postgres_server().await {
        fails_twice_then_accepts(&server).await;
    }
}

async fn fails_twice_then_accepts(server: &TestServer) {
    let receiver = Receiver::start(&[500, 500]).await;
    let webhook = create_webhook(server, &receiver.url, json!(["charge.created"])).await;
    let (id, secret) = (
        webhook["id"].as_str().unwrap(),
        webhook["secret"].as_str().unwrap(),
    );
    assert!(secret.starts_with("whsec_") && secret.len() > 30);
    let charge = create_charge(server).await;

    // Whole milliseconds, as timestamps are stored.
    let t0 = parse_time(&timestamp_text(OffsetDateTime::now_utc()));
    assert_eq!(
        step(server, t0).await,
        TickReport {
            queued: 1,
            attempted: 1
        }
    );
    let list = deliveries(server, id, "").await;
    let delivery = &list["data"][0];
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(delivery["status"], "pending");
    assert_eq!(delivery["attempts"], 1);
    assert_eq!(delivery["response_status"], 500);
    assert_eq!(delivery["error"], "http_5xx");
    assert!(delivery["delivered_at"].is_null());
    let next = parse_time(delivery["next_retry_at"].as_str().unwrap());
    assert_eq!(
        (next - t0).whole_seconds(),
        60,
        "the first retry comes a minute later"
    );

    // Not before the backoff has passed.
    assert_eq!(step(server, t0 + Duration::seconds(59)).await.attempted, 0);
    assert_eq!(step(server, t0 + Duration::seconds(61)).await.attempted, 1);
    let retry = deliveries(server, id, "").await["data"][0].clone();
    assert_eq!(retry["attempts"], 2);
    let next = parse_time(retry["next_retry_at"].as_str().unwrap());
    assert_eq!((next - t0).whole_seconds(), 61 + 300, "then five minutes");
    assert_eq!(step(server, t0 + Duration::seconds(360)).await.attempted, 0);
    assert_eq!(step(server, t0 + Duration::seconds(362)).await.attempted, 1);

    let done = deliveries(server, id, "").await["data"][0].clone();
    assert_eq!(done["status"], "succeeded");
    assert_eq!(done["attempts"], 3);
    assert_eq!(done["response_status"], 200);
    assert!(done["error"].is_null());
    assert!(done["next_retry_at"].is_null());
    assert!(done["delivered_at"].is_string());
    let metrics = crate::metrics::scrape(server).await;
    let counted = |outcome| {
        crate::metrics::sample(
            &metrics,
            "dunning_webhook_delivery_attempts_total",
            &[("outcome", outcome)],
        )
    };
    assert_eq!((counted("retrying"), counted("succeeded")), (2.0, 1.0));
    assert_eq!(
        crate::metrics::sample(&metrics, "dunning_webhook_delivery_retries_total", &[]),
        2.0
    );

    // Never again, however long we wait.
    assert_eq!(
        step(server, t0 + Duration::days(3)).await,
        TickReport::default()
    );
    let received = receiver.received();
    assert_eq!(received.len(), 3);

    // Every attempt sent the same signed body, with the event inside.
    for (i, (post, offset)) in received.iter().zip([0, 61, 362]).enumerate() {
        assert_eq!(post.body, received[0].body, "retries send the same bytes");
        // Each attempt is signed at its own time.
        let t = (t0 + Duration::seconds(offset)).unix_timestamp();
        assert_eq!(post.header("x-signature"), sign(secret, t, &post.body));
        assert_eq!(post.header("content-type"), "application/json");
        assert_eq!(post.header("x-delivery-id"), done["id"].as_str().unwrap());
        assert_eq!(post.header("x-event-type"), "charge.created");
        assert_eq!(post.header("x-delivery-attempt"), (i + 1).to_string());
    }
    assert_ne!(
        received[0].header("x-signature"),
        sign("another secret", t0.unix_timestamp(), &received[0].body)
    );
    let event = received[0].json();
    assert_eq!(event["type"], "charge.created");
    assert_eq!(event["id"], done["event_id"]);
    assert_eq!(
        event["id"].as_str().unwrap(),
        received[0].header("x-event-id")
    );
    assert_eq!(event["subject_type"], "charge");
    assert_eq!(event["subject_id"], charge.as_str());
    assert_eq!(event["organization_id"], server.org_id(0));
    assert_eq!(event["actor"]["type"], "person");
    assert_eq!(event["data"]["amount"], 150.0);

    // Every attempt is recorded: time, status, error, duration, the start of the answer.
    let org = server.org_id(0);
    let recorded = attempts(&server.state.db, org, done["id"].as_str().unwrap())
        .await
        .unwrap();
    let statuses: Vec<Option<i64>> = recorded.iter().map(|a| a.response_status).collect();
    assert_eq!(statuses, vec![Some(500), Some(500), Some(200)]);
    let numbers: Vec<i64> = recorded.iter().map(|a| a.number).collect();
    assert_eq!(numbers, vec![1, 2, 3]);
    let offsets: Vec<i64> = recorded
        .iter()
        .map(|a| (a.attempted_at.instant() - t0).whole_seconds())
        .collect();
    assert_eq!(offsets, vec![0, 61, 362]);
    assert_eq!(recorded[0].error.as_deref(), Some("http_5xx"));
    assert!(recorded[2].error.is_none());
    assert!(recorded.iter().all(|a| a.duration_ms >= 0));
    let body = recorded[0].response_body.as_deref().unwrap();
    assert!(
        body.chars().count() <= 1025 && body.ends_with('…'),
        "answers are truncated"
    );
}

#[tokio::test]
async fn retries_run_out_after_six_tries_then_a_manual_retry_sends_again() {
    let server = TestServer::start().await;
    let receiver = Receiver::start(&[503; 12]).await;
    // `*`: it also gets its own webhook.created, and would get news of its failures if
    // those were delivered (they never are).
    let webhook = create_webhook(&server, &receiver.url, json!(["*"])).await;
    let id = webhook["id"].as_str().unwrap();
    create_charge(&server).await;

    let t0 = OffsetDateTime::now_utc();
    assert_eq!(step(&server, t0).await.attempted, 2);
    let mut at = t0;
    for wait in [60, 300, 1800, 7200, 43200] {
        at += Duration::seconds(wait);
        assert_eq!(step(&server, at - Duration::seconds(1)).await.attempted, 0);
        assert_eq!(step(&server, at).await.attempted, 2, "after {wait} s");
    }
    assert_eq!(receiver.received().len(), 12);
    let list = deliveries(&server, id, "?status=failed").await;
    assert_eq!(list["meta"]["total"], 2);
    for delivery in list["data"].as_array().unwrap() {
        assert_eq!(delivery["attempts"], 6);
        assert_eq!(delivery["response_status"], 503);
        assert!(delivery["next_retry_at"].is_null());
    }
    // The failures are in the audit trail, and never delivered: no loop.
    let failed_events: Vec<String> = sqlx::query_scalar(
        "SELECT data FROM events WHERE organization_id = $1 AND type = 'webhook_delivery.failed'",
    )
    .bind(server.org_id(0))
    .fetch_all(&server.state.db.pool)
    .await
    .unwrap();
    assert_eq!(failed_events.len(), 2);
    for data in &failed_events {
        let data: Value = serde_json::from_str(data).unwrap();
        assert_eq!(
            data["error"], "http_5xx",
            "a category, not the receiver's words"
        );
    }
    assert_eq!(
        step(&server, at + Duration::days(30)).await,
        TickReport::default()
    );
    assert_eq!(deliveries(&server, id, "").await["meta"]["total"], 2);

    // A manual retry queues the failed delivery again, with a fresh series of retries.
    let failed = deliveries(&server, id, "?event_type=charge.created").await["data"][0].clone();
    let delivery_id = failed["id"].as_str().unwrap();
    let retry_path = format!("/v1/webhooks/{id}/deliveries/{delivery_id}/retry");
    let answer = server
        .rest("POST", &retry_path, &admin(&server), None)
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    assert_eq!(answer.body["data"]["status"], "pending");
    assert_eq!(answer.body["data"]["attempts"], 6);
    assert!(answer.header("etag").is_some());

    // While it is pending, another retry is refused and changes nothing.
    let before = deliveries(&server, id, "?status=pending").await;
    let again = server
        .rest("POST", &retry_path, &admin(&server), None)
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.body["code"], "webhook_delivery_pending");
    assert_eq!(deliveries(&server, id, "?status=pending").await, before);

    let later = OffsetDateTime::now_utc() + Duration::days(31);
    assert_eq!(step(&server, later).await.attempted, 1);
    let done = deliveries(&server, id, "?event_type=charge.created").await["data"][0].clone();
    assert_eq!(done["status"], "succeeded");
    assert_eq!(done["attempts"], 7);
    assert_eq!(receiver.received().len(), 13);
    assert_eq!(
        receiver.received()[12].json()["type"],
        "charge.created",
        "the same event again"
    );
}

#[tokio::test]
async fn endpoints_get_only_their_event_types_and_nothing_while_disabled() {
    let server = TestServer::start().await;
    let charges_only = Receiver::start(&[]).await;
    let two_types = Receiver::start(&[]).await;
    let disabled = Receiver::start(&[]).await;
    create_webhook(&server, &charges_only.url, json!(["charge.created"])).await;
    create_webhook(
        &server,
        &two_types.url,
        json!(["customer.created", "charge.canceled"]),
    )
    .await;
    let answer = server
        .rest(
            "POST",
            "/v1/webhooks",
            &admin(&server),
            Some(json!({ "url": disabled.url, "events": ["*"], "enabled": false })),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.body["data"]["enabled"], false);
    let disabled_id = answer.body["data"]["id"].as_str().unwrap().to_string();

    create_customer(&server, "Padaria São João", 11).await;
    let charge = create_charge(&server).await;
    let canceled = server
        .rest(
            "POST",
            &format!("/v1/charges/{charge}/cancel"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(canceled.status, StatusCode::OK, "{}", canceled.text);

    step(&server, OffsetDateTime::now_utc()).await;
    assert_eq!(charges_only.types(), vec!["charge.created"]);
    assert_eq!(
        two_types.types(),
        vec!["charge.canceled", "customer.created"]
    );
    assert!(disabled.received().is_empty());
    assert!(
        deliveries(&server, &disabled_id, "").await["data"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Enabled again: what happened meanwhile is not replayed, what happens next is sent.
    let enable = server
        .rest(
            "PATCH",
            &format!("/v1/webhooks/{disabled_id}"),
            &admin(&server),
            Some(json!({ "enabled": true })),
        )
        .await;
    assert_eq!(enable.status, StatusCode::OK, "{}", enable.text);
    step(&server, OffsetDateTime::now_utc()).await;
    assert_eq!(disabled.types(), vec!["webhook.updated"]);
    create_customer(&server, "Mercearia Conceição", 12).await;
    step(&server, OffsetDateTime::now_utc()).await;
    assert_eq!(
        disabled.types(),
        vec!["customer.created", "webhook.updated"]
    );
    assert_eq!(charges_only.received().len(), 1);
    assert_eq!(
        two_types.types(),
        vec!["charge.canceled", "customer.created", "customer.created"]
    );
}

#[tokio::test]
async fn the_test_event_reaches_the_receiver_signed_and_only_that_endpoint() {
    let server = TestServer::start().await;
    let receiver = Receiver::start(&[]).await;
    let bystander = Receiver::start(&[]).await;
    let webhook = create_webhook(&server, &receiver.url, json!(["charge.paid"])).await;
    create_webhook(&server, &bystander.url, json!(["*"])).await;
    step(&server, OffsetDateTime::now_utc()).await;
    let before = bystander.received().len();
    let id = webhook["id"].as_str().unwrap();

    let answer = server
        .rest(
            "POST",
            &format!("/v1/webhooks/{id}/test"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    let queued = &answer.body["data"];
    assert_eq!(queued["status"], "pending");
    assert_eq!(queued["attempts"], 0);
    assert_eq!(queued["event_type"], "webhook.test");
    assert_eq!(queued["webhook_id"], id);

    assert_eq!(step(&server, OffsetDateTime::now_utc()).await.attempted, 1);
    let received = receiver.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].json()["type"], "webhook.test");
    assert_eq!(received[0].json()["id"], queued["event_id"]);
    assert_eq!(
        received[0].header("x-signature"),
        sign(
            webhook["secret"].as_str().unwrap(),
            signed_at(&received[0]),
            &received[0].body
        )
    );
    assert_eq!(
        bystander.received().len(),
        before,
        "a test is for one endpoint"
    );
    let list = deliveries(&server, id, "?status=succeeded&event_type=webhook.test").await;
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["data"][0]["id"], queued["id"]);

    // A disabled endpoint cannot be tested, and nothing is queued.
    let disable = server
        .rest(
            "PATCH",
            &format!("/v1/webhooks/{id}"),
            &admin(&server),
            Some(json!({ "enabled": false })),
        )
        .await;
    assert_eq!(disable.status, StatusCode::OK);
    let refused = server
        .rest(
            "POST",
            &format!("/v1/webhooks/{id}/test"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.body["code"], "webhook_disabled");
    assert_eq!(deliveries(&server, id, "").await["meta"]["total"], 1);
    // Nor retried.
    let delivery_id = queued["id"].as_str().unwrap();
    let retry = server
        .rest(
            "POST",
            &format!("/v1/webhooks/{id}/deliveries/{delivery_id}/retry"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(retry.status, StatusCode::CONFLICT);
    assert_eq!(retry.body["code"], "webhook_disabled");
    assert_eq!(
        deliveries(&server, id, "").await["data"][0]["status"],
        "succeeded"
    );
}

#[tokio::test]
async fn two_workers_ticking_at_once_never_send_the_same_attempt() {
    two_workers_at_once(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_two_workers_ticking_at_once_never_send_the_same_attempt() {
    if let Some(server) = crate::postgres::postgres_server().await {
        two_workers_at_once(&server).await;
    }
}

async fn two_workers_at_once(server: &TestServer) {
    let receiver = Receiver::start(&[]).await;
    create_webhook(server, &receiver.url, json!(["charge.created"])).await;
    for _ in 0..5 {
        create_charge(server).await;
    }
    let now = OffsetDateTime::now_utc();
    let (a, b) = tokio::join!(
        tick(&server.state.engine, now),
        tick(&server.state.engine, now + Duration::milliseconds(1))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.queued + b.queued, 5);
    assert_eq!(a.attempted + b.attempted, 5);
    let mut events: Vec<String> = receiver
        .received()
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_string())
        .collect();
    events.sort();
    events.dedup();
    assert_eq!(events.len(), 5, "five events, each sent once");
}

#[tokio::test]
async fn unreachable_receivers_and_redirects_are_failures_with_their_category() {
    let server = TestServer::start().await;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let nobody = create_webhook(
        &server,
        &format!("http://{closed}/hook"),
        json!(["charge.created"]),
    )
    .await;
    let redirecting = Receiver::start(&[302]).await;
    let moved = create_webhook(&server, &redirecting.url, json!(["charge.created"])).await;
    create_charge(&server).await;
    step(&server, OffsetDateTime::now_utc()).await;

    let down = deliveries(&server, nobody["id"].as_str().unwrap(), "").await["data"][0].clone();
    assert_eq!(down["status"], "pending");
    assert!(down["response_status"].is_null());
    assert_eq!(down["error"], "connection_failed", "{down}");
    let redirected =
        deliveries(&server, moved["id"].as_str().unwrap(), "").await["data"][0].clone();
    assert_eq!(redirected["response_status"], 302);
    assert_eq!(
        redirected["error"], "http_3xx",
        "redirects are not followed"
    );
    assert_eq!(redirecting.received().len(), 1);
}

#[tokio::test]
async fn invalid_endpoints_are_refused_field_by_field_and_nothing_is_created() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let cases = [
        (
            json!({ "url": "ftp://erp.example.com/hook", "events": ["*"] }),
            "url",
            "scheme",
        ),
        (
            json!({ "url": "https://user:secret@erp.example.com/hook", "events": ["*"] }),
            "url",
            "credentials",
        ),
        (
            json!({ "url": "not a url", "events": ["*"] }),
            "url",
            "format",
        ),
        (
            json!({ "url": "https://erp.example.com/hook", "events": [] }),
            "events",
            "min_items",
        ),
        (
            json!({ "url": "https://erp.example.com/hook", "events": ["charge.*"] }),
            "events[0]",
            "pattern",
        ),
        (
            json!({ "url": "https://erp.example.com/hook", "events": ["Charge.Paid"] }),
            "events[0]",
            "pattern",
        ),
        (
            json!({ "url": "https://erp.example.com/hook", "events": ["*"], "enabled": "yes" }),
            "enabled",
            "type",
        ),
        (
            json!({ "url": "https://erp.example.com/hook", "events": ["*"], "secret": "mine" }),
            "secret",
            "unknown",
        ),
        (json!({ "events": ["*"] }), "url", "required"),
        (
            json!({ "url": "https://erp.example.com/hook" }),
            "events",
            "required",
        ),
    ];
    for (body, field, code) in cases {
        let answer = server
            .rest("POST", "/v1/webhooks", &token, Some(body.clone()))
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.body["code"], "VALIDATION_ERROR");
        let errors = answer.body["errors"].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e["field"] == field && e["code"] == code),
            "{body}: {errors:?}"
        );
    }
    let list = server.rest("GET", "/v1/webhooks", &token, None).await;
    assert_eq!(list.body["meta"]["total"], 0);
    let events: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE type LIKE 'webhook.%'")
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(events, 0);

    // Webhooks hold secrets and endpoints: managers and viewers cannot see them.
    for role in ["manager", "viewer"] {
        let answer = server
            .rest("GET", "/v1/webhooks", &server.token(0, role, "api"), None)
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{role}");
    }
}

#[tokio::test]
async fn an_endpoint_is_read_without_its_secret_updated_with_if_match_and_deleted() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let receiver = Receiver::start(&[500]).await;
    let created = create_webhook(&server, &receiver.url, json!(["charge.created"])).await;
    let id = created["id"].as_str().unwrap();
    assert!(
        id.starts_with("whk_") && id.len() == 20,
        "matches ^whk_[a-z0-9]{{16}}$"
    );

    let read = server
        .rest("GET", &format!("/v1/webhooks/{id}"), &token, None)
        .await;
    assert_eq!(read.status, StatusCode::OK);
    assert!(read.body["data"].get("secret").is_none());
    assert_eq!(read.body["data"]["description"], "ERP financeiro");
    let etag = read.header("etag").unwrap().to_string();
    let list = server.rest("GET", "/v1/webhooks", &token, None).await;
    assert!(list.body["data"][0].get("secret").is_none());

    // A stale If-Match is refused and changes nothing.
    let stale = server
        .rest_with(
            "PATCH",
            &format!("/v1/webhooks/{id}"),
            &token,
            &[("if-match", "\"v99\"")],
            Some(json!({ "events": ["*"] })),
        )
        .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    let unchanged = server
        .rest("GET", &format!("/v1/webhooks/{id}"), &token, None)
        .await;
    assert_eq!(unchanged.body, read.body);

    let bad = server
        .rest(
            "PATCH",
            &format!("/v1/webhooks/{id}"),
            &token,
            Some(json!({ "url": "https://u:p@example.com/x" })),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["errors"][0]["code"], "credentials");

    let updated = server
        .rest_with(
            "PATCH",
            &format!("/v1/webhooks/{id}"),
            &token,
            &[("if-match", &etag)],
            Some(json!({ "events": ["charge.created", "charge.paid"], "description": null })),
        )
        .await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.text);
    assert_eq!(
        updated.body["data"]["events"],
        json!(["charge.created", "charge.paid"])
    );
    assert!(updated.body["data"]["description"].is_null());
    assert_ne!(updated.header("etag").unwrap(), etag);

    // A pending retry is dropped with the endpoint.
    create_charge(&server).await;
    let now = OffsetDateTime::now_utc();
    step(&server, now).await;
    assert_eq!(
        deliveries(&server, id, "?status=pending").await["meta"]["total"],
        1
    );
    let deleted = server
        .rest("DELETE", &format!("/v1/webhooks/{id}"), &token, None)
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let gone = server
        .rest("GET", &format!("/v1/webhooks/{id}"), &token, None)
        .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.body["code"], "not_found");
    let gone = server
        .rest(
            "GET",
            &format!("/v1/webhooks/{id}/deliveries"),
            &token,
            None,
        )
        .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    step(&server, now + Duration::hours(1)).await;
    assert_eq!(receiver.received().len(), 1, "nothing more after deletion");
    let trail: Vec<String> =
        sqlx::query_scalar("SELECT type FROM events WHERE subject_id = $1 ORDER BY created_at, id")
            .bind(id)
            .fetch_all(&server.state.db.pool)
            .await
            .unwrap();
    let mut trail = trail;
    trail.sort();
    assert_eq!(
        trail,
        vec!["webhook.created", "webhook.deleted", "webhook.updated"]
    );

    // Unknown ids and bad filters.
    let missing = server
        .rest(
            "POST",
            "/v1/webhooks/whk_0000000000000000/deliveries/whd_0000000000000000/retry",
            &token,
            None,
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let other = create_webhook(&server, &receiver.url, json!(["*"])).await;
    let bad_filter = server
        .rest(
            "GET",
            &format!(
                "/v1/webhooks/{}/deliveries?status=lost&event_type=paid",
                other["id"].as_str().unwrap()
            ),
            &token,
            None,
        )
        .await;
    assert_eq!(bad_filter.status, StatusCode::BAD_REQUEST);
    let fields: Vec<&str> = bad_filter.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, vec!["status", "event_type"]);
}

#[tokio::test]
async fn mcp_lists_and_tests_webhooks_like_rest() {
    let server = TestServer::start().await;
    let receiver = Receiver::start(&[]).await;
    let webhook = create_webhook(&server, &receiver.url, json!(["charge.paid"])).await;
    let id = webhook["id"].as_str().unwrap();
    let token = server.token(0, "admin", "mcp");
    let listed = server
        .call_tool(&token, "dunning_webhooks_list", json!({}))
        .await;
    let rest = server
        .rest("GET", "/v1/webhooks", &admin(&server), None)
        .await;
    assert_eq!(listed["structuredContent"]["data"], rest.body["data"]);

    let tested = server
        .call_tool(&token, "dunning_webhooks_test", json!({ "id": id }))
        .await;
    assert_eq!(
        tested["structuredContent"]["data"]["event_type"],
        "webhook.test"
    );
    tokio::time::timeout(
        StdDuration::from_secs(30),
        step(&server, OffsetDateTime::now_utc()),
    )
    .await
    .unwrap();
    assert_eq!(receiver.types(), vec!["webhook.test"]);
    let through_mcp = server
        .call_tool(
            &token,
            "dunning_webhook_deliveries_list",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(
        through_mcp["structuredContent"]["data"][0]["status"],
        "succeeded"
    );
}
