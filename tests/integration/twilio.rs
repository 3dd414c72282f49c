//! SMS and WhatsApp through Twilio: a local HTTP server on 127.0.0.1 speaking Twilio's
//! documented Messages API (HTTP Basic with the account SID and auth token, the form fields
//! `To`, `From`, `Body`, `StatusCallback`, its 201 and error answers), and status callbacks
//! signed the way Twilio's security docs say (written here from the docs, not with the
//! server's function): believed ones move the delivery, forged ones are refused with 403 and
//! change nothing in the database.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use dunning_engine::collection::tick;
use dunning_engine::twilio::{Account, Flags};
use hmac::{Hmac, Mac};
use http::{HeaderMap, Request, StatusCode};
use kobana_dunning::Config;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::collection::{charge, customer_with, get, post, timeline};
use crate::common::{Answer, TestServer};

const ACCOUNT_SID: &str = "AC5ef8732a3c49700934481addd5ce1659";
const AUTH_TOKEN: &str = "9f2b7c1e4d6a8b0c3e5f7a9b1c2d4e6f";
const SMS_FROM: &str = "+5511940000001";
const WHATSAPP_FROM: &str = "whatsapp:+5511940000002";
/// The public URL the server is configured with: Twilio calls it, and signs it.
const PUBLIC_URL: &str = "https://cobranca.example.com.br";

/// What the fake Twilio was sent: the account of the path and each form, in order.
#[derive(Debug, Clone)]
struct Sent {
    account: String,
    form: Vec<(String, String)>,
    sid: Option<String>,
    received_at: std::time::Instant,
}

impl Sent {
    fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

type Inbox = Arc<Mutex<Vec<Sent>>>;

fn twilio_error(status: StatusCode, code: u32, message: &str) -> axum::response::Response {
    let body = json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status.as_u16(),
    });
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` as Twilio answers it: 401 (code
/// 20003) without the account's Basic credentials, 400 for a form without `To`, `Body`, or
/// exactly one of `From` and `MessagingServiceSid`; a `To` ending in 0211 is not a valid
/// number (400, code 21211), one ending in 0500 meets a Twilio fault (500), the first message
/// to one ending in 0429 is refused as too many requests (429, code 20429, `Retry-After: 1`);
/// else 201 with the new message.
async fn messages(
    State(inbox): State<Inbox>,
    Path(account): Path<String>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let expected = format!(
        "Basic {}",
        STANDARD.encode(format!("{ACCOUNT_SID}:{AUTH_TOKEN}"))
    );
    let authorized = account == ACCOUNT_SID
        && headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(expected.as_str());
    let form: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let mut sent = Sent {
        account: account.clone(),
        form: form.clone(),
        sid: None,
        received_at: std::time::Instant::now(),
    };
    let answer = |sent: Sent, response| {
        inbox.lock().unwrap().push(sent);
        response
    };
    if !authorized {
        return answer(
            sent,
            twilio_error(StatusCode::UNAUTHORIZED, 20003, "Authenticate"),
        );
    }
    let is_form = headers.get("content-type").and_then(|v| v.to_str().ok())
        == Some("application/x-www-form-urlencoded");
    let senders = ["From", "MessagingServiceSid"]
        .iter()
        .filter(|name| sent.field(name).is_some())
        .count();
    let (Some(to), Some(_body), true, 1) = (
        sent.field("To").map(str::to_string),
        sent.field("Body"),
        is_form,
        senders,
    ) else {
        return answer(
            sent,
            twilio_error(
                StatusCode::BAD_REQUEST,
                21604,
                "A 'To' phone number is required.",
            ),
        );
    };
    if to.ends_with("0211") {
        return answer(
            sent,
            twilio_error(
                StatusCode::BAD_REQUEST,
                21211,
                &format!("The 'To' number {to} is not a valid phone number."),
            ),
        );
    }
    let earlier_to_it = inbox
        .lock()
        .unwrap()
        .iter()
        .any(|s| s.field("To") == Some(to.as_str()));
    if to.ends_with("0429") && !earlier_to_it {
        let mut refused = twilio_error(StatusCode::TOO_MANY_REQUESTS, 20429, "Too Many Requests");
        refused
            .headers_mut()
            .insert("retry-after", http::HeaderValue::from_static("1"));
        return answer(sent, refused);
    }
    if to.ends_with("0500") {
        return answer(
            sent,
            twilio_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                20500,
                "Internal Server Error",
            ),
        );
    }
    let sid = format!("SM{:032x}", inbox.lock().unwrap().len() + 1);
    sent.sid = Some(sid.clone());
    let created = json!({
        "account_sid": account,
        "api_version": "2010-04-01",
        "body": sent.field("Body"),
        "date_created": "Thu, 24 Aug 2023 05:01:45 +0000",
        "date_sent": null,
        "direction": "outbound-api",
        "error_code": null,
        "error_message": null,
        "from": sent.field("From"),
        "messaging_service_sid": sent.field("MessagingServiceSid"),
        "num_segments": "0",
        "price": null,
        "sid": sid,
        "status": "queued",
        "to": to,
        "uri": format!("/2010-04-01/Accounts/{account}/Messages/{sid}.json"),
    });
    answer(
        sent,
        (
            StatusCode::CREATED,
            [("content-type", "application/json")],
            created.to_string(),
        )
            .into_response(),
    )
}

/// How many messages the fake Twilio was sent to `number`.
fn sent_to(inbox: &Inbox, number: &str) -> usize {
    inbox
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.field("To") == Some(number))
        .count()
}

/// The fake Twilio on 127.0.0.1, port 0: its base URL and what it was sent.
async fn fake_twilio() -> (String, Inbox) {
    let inbox = Inbox::default();
    let app = axum::Router::new()
        .route(
            "/2010-04-01/Accounts/{account}/Messages.json",
            axum::routing::post(messages),
        )
        .with_state(inbox.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}"), inbox)
}

async fn server_with_twilio(api_url: &str, auth_token: &str) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    TestServer::start_configured(url, dir, twilio_config(api_url, auth_token)).await
}

fn twilio_config(api_url: &str, auth_token: &str) -> Config {
    let account = Account::from_flags(&Flags {
        account_sid: Some(ACCOUNT_SID),
        auth_token: Some(auth_token),
        sms_from: Some(SMS_FROM),
        whatsapp_from: Some(WHATSAPP_FROM),
        api_url,
    })
    .unwrap();
    Config {
        twilio: account,
        canonical_url: Some(PUBLIC_URL.into()),
        ..TestServer::config(false)
    }
}

/// `X-Twilio-Signature` as Twilio's docs build it: the full URL, each POST parameter's name
/// and value appended (sorted by name, no delimiters), HMAC-SHA1 with the auth token, Base64.
fn twilio_signature(auth_token: &str, url: &str, params: &[(&str, &str)]) -> String {
    let mut sorted = params.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut data = url.to_string();
    for (name, value) in sorted {
        data.push_str(name);
        data.push_str(value);
    }
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(auth_token.as_bytes()).unwrap();
    mac.update(data.as_bytes());
    STANDARD.encode(mac.finalize().into_bytes())
}

/// The parameters of Twilio's status callback for a message.
fn callback<'a>(
    sent: &'a Sent,
    status: &'a str,
    error_code: Option<&'a str>,
) -> Vec<(&'a str, &'a str)> {
    let sid = sent.sid.as_deref().unwrap();
    let mut params = vec![
        ("AccountSid", ACCOUNT_SID),
        ("ApiVersion", "2010-04-01"),
        ("From", sent.field("From").unwrap()),
        ("MessageSid", sid),
        ("MessageStatus", status),
        ("SmsSid", sid),
        ("SmsStatus", status),
        ("To", sent.field("To").unwrap()),
    ];
    if let Some(code) = error_code {
        params.push(("ErrorCode", code));
    }
    params
}

/// POST `params` to `path` as Twilio does, with `signature` as `X-Twilio-Signature`.
async fn deliver(
    server: &TestServer,
    path: &str,
    params: &[(&str, &str)],
    signature: Option<&str>,
) -> Answer {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let mut request = Request::post(path)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("user-agent", "TwilioProxy/1.1");
    if let Some(signature) = signature {
        request = request.header("x-twilio-signature", signature);
    }
    server.send(request.body(Body::from(body)).unwrap()).await
}

/// A callback signed with the account's auth token for the URL Twilio calls.
async fn signed(server: &TestServer, path: &str, params: &[(&str, &str)]) -> Answer {
    let signature = twilio_signature(AUTH_TOKEN, &format!("{PUBLIC_URL}{path}"), params);
    deliver(server, path, params, Some(&signature)).await
}

/// The stored row, every column a callback could move.
async fn row(
    server: &TestServer,
    id: &str,
) -> (String, Option<String>, i64, String, Option<String>) {
    sqlx::query_as(
        "SELECT status, error, version, updated_at, delivered_at FROM deliveries WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&server.state.db.pool)
    .await
    .unwrap()
}

async fn stored_message_id(server: &TestServer, id: &str) -> (Option<String>, Option<String>) {
    sqlx::query_as("SELECT provider, provider_message_id FROM deliveries WHERE id = $1")
        .bind(id)
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap()
}

async fn notify(server: &TestServer, charge: &str, channel: &str) -> String {
    let answer = post(
        server,
        &format!("/v1/charges/{charge}/notify"),
        json!({ "channel": channel }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

/// A customer with `phone`, and a notice to it on `channel` queued.
async fn notice(server: &TestServer, name: &str, phone: &str, channel: &str) -> (String, String) {
    let customer = customer_with(server, name, None, Some(phone), &[]).await;
    let charge = charge(server, &customer, 150.0, -3).await;
    (charge.clone(), notify(server, &charge, channel).await)
}

#[tokio::test]
async fn sms_and_whatsapp_go_through_twilio_and_its_signed_callbacks_move_the_delivery_once() {
    let (api, inbox) = fake_twilio().await;
    let server = server_with_twilio(&api, AUTH_TOKEN).await;
    let org = server.org_id(0).to_string();
    let (sms_charge, sms) = notice(&server, "Joana Sampaio", "+5511987650001", "sms").await;
    let (whatsapp_charge, whatsapp) =
        notice(&server, "Otávio Lima", "+5511987650002", "whatsapp").await;
    let report = tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    assert_eq!(report.attempts, 2);

    // What Twilio received: the account's Basic credentials (checked by the fake), the
    // documented fields, the callback URL under the public URL.
    let received = inbox.lock().unwrap().clone();
    assert_eq!(received.len(), 2, "{received:?}");
    assert!(
        received
            .iter()
            .all(|s| s.account == ACCOUNT_SID && s.sid.is_some()),
        "{received:?}"
    );
    let callback_url = format!("{PUBLIC_URL}/callbacks/twilio/{org}");
    let by_to = |to: &str| {
        received
            .iter()
            .find(|s| s.field("To") == Some(to))
            .unwrap()
            .clone()
    };
    let sms_sent = by_to("+5511987650001");
    let whatsapp_sent = by_to("whatsapp:+5511987650002");
    let sms_view = get(&server, &format!("/v1/deliveries/{sms}")).await;
    for (sent, from, view) in [
        (&sms_sent, SMS_FROM, &sms_view),
        (
            &whatsapp_sent,
            WHATSAPP_FROM,
            &get(&server, &format!("/v1/deliveries/{whatsapp}")).await,
        ),
    ] {
        let mut names: Vec<&str> = sent.form.iter().map(|(n, _)| n.as_str()).collect();
        names.sort();
        assert_eq!(names, ["Body", "From", "StatusCallback", "To"]);
        assert_eq!(sent.field("From"), Some(from));
        assert_eq!(sent.field("Body"), view["body"].as_str());
        assert_eq!(sent.field("StatusCallback"), Some(callback_url.as_str()));
        assert_eq!(view["status"], "sent", "{view}");
    }
    assert_eq!(
        stored_message_id(&server, &sms).await,
        (Some("twilio".into()), sms_sent.sid.clone())
    );
    assert_eq!(
        crate::collection::count(&server, "SELECT COUNT(*) FROM sandbox_messages").await,
        0,
        "nothing went to the sandbox"
    );

    // Statuses on the way change nothing.
    let path = format!("/callbacks/twilio/{org}");
    let on_the_way = signed(&server, &path, &callback(&sms_sent, "sent", None)).await;
    assert_eq!(
        on_the_way.status,
        StatusCode::NO_CONTENT,
        "{}",
        on_the_way.text
    );
    assert_eq!(row(&server, &sms).await.0, "sent");

    // Delivered: the delivery moves, with its event; a repeat writes nothing more.
    let delivered = signed(&server, &path, &callback(&sms_sent, "delivered", None)).await;
    assert_eq!(
        delivered.status,
        StatusCode::NO_CONTENT,
        "{}",
        delivered.text
    );
    let after = row(&server, &sms).await;
    assert_eq!(after.0, "delivered");
    assert!(after.4.is_some(), "delivered_at is set");
    let events = |timeline: Vec<String>, kind: &str| timeline.iter().filter(|k| *k == kind).count();
    assert_eq!(
        events(timeline(&server, &sms_charge).await, "delivery.delivered"),
        1
    );
    for status in ["delivered", "read", "sent", "undelivered"] {
        let again = signed(&server, &path, &callback(&sms_sent, status, Some("30003"))).await;
        assert_eq!(
            again.status,
            StatusCode::NO_CONTENT,
            "{status}: {}",
            again.text
        );
        assert_eq!(
            row(&server, &sms).await,
            after,
            "{status} after delivered moves nothing"
        );
    }
    assert_eq!(
        events(timeline(&server, &sms_charge).await, "delivery.delivered"),
        1
    );

    // WhatsApp undelivered: bounced, with Twilio's error code as the category.
    let bounced = signed(
        &server,
        &path,
        &callback(&whatsapp_sent, "undelivered", Some("63016")),
    )
    .await;
    assert_eq!(bounced.status, StatusCode::NO_CONTENT, "{}", bounced.text);
    let view = get(&server, &format!("/v1/deliveries/{whatsapp}")).await;
    assert_eq!(view["status"], "bounced");
    assert_eq!(view["error"], "twilio: undelivered (63016)");
    assert!(
        timeline(&server, &whatsapp_charge)
            .await
            .contains(&"delivery.bounced".to_string())
    );

    // The other organization's path does not find this organization's message.
    let other = format!("/callbacks/twilio/{}", server.org_id(1));
    let (_, fresh) = notice(&server, "Rui Barros", "+5511987650003", "sms").await;
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let fresh_sent = inbox.lock().unwrap().last().unwrap().clone();
    let elsewhere = signed(&server, &other, &callback(&fresh_sent, "delivered", None)).await;
    assert_eq!(
        elsewhere.status,
        StatusCode::NOT_FOUND,
        "{}",
        elsewhere.text
    );
    assert_eq!(row(&server, &fresh).await.0, "sent");
}

#[tokio::test]
async fn forged_twilio_callbacks_are_refused_and_change_nothing() {
    let (api, inbox) = fake_twilio().await;
    let server = server_with_twilio(&api, AUTH_TOKEN).await;
    let org = server.org_id(0).to_string();
    let (_, id) = notice(&server, "Lúcia Prates", "+5511987650011", "sms").await;
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let sent = inbox.lock().unwrap()[0].clone();
    let before = row(&server, &id).await;
    assert_eq!(before.0, "sent");
    let path = format!("/callbacks/twilio/{org}");
    let url = format!("{PUBLIC_URL}{path}");
    let delivered = callback(&sent, "delivered", None);

    let wrong_key = twilio_signature("0000000000000000ffffffffffffffff", &url, &delivered);
    let mut another_account = delivered.clone();
    another_account[0].1 = "AC00000000000000000000000000000000";
    let another_signed = twilio_signature(AUTH_TOKEN, &url, &another_account);
    let honest = twilio_signature(
        AUTH_TOKEN,
        &url,
        &callback(&sent, "undelivered", Some("30003")),
    );
    let tampered = callback(&sent, "delivered", Some("30003"));
    let another_path = format!("{PUBLIC_URL}/callbacks/twilio/{}", server.org_id(1));
    let for_another_url = twilio_signature(AUTH_TOKEN, &another_path, &delivered);
    // The server's own address rather than the public one Twilio called.
    let local_url = twilio_signature(
        AUTH_TOKEN,
        &format!("{}{path}", server.state.config.base_url()),
        &delivered,
    );
    type Params<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&str, Params<'_>, Option<&str>, &str); 7] = [
        (
            "wrong key",
            &delivered,
            Some(&wrong_key),
            "invalid_signature",
        ),
        ("no signature", &delivered, None, "invalid_signature"),
        ("empty signature", &delivered, Some(""), "invalid_signature"),
        (
            "another account",
            &another_account,
            Some(&another_signed),
            "unknown_account",
        ),
        (
            "tampered parameters",
            &tampered,
            Some(&honest),
            "invalid_signature",
        ),
        (
            "signed for another URL",
            &delivered,
            Some(&for_another_url),
            "invalid_signature",
        ),
        (
            "signed for the local URL",
            &delivered,
            Some(&local_url),
            "invalid_signature",
        ),
    ];
    for (what, params, signature, code) in cases {
        let answer = deliver(&server, &path, params, signature).await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{what}: {}",
            answer.text
        );
        assert_eq!(answer.body["code"], code, "{what}");
        assert_eq!(
            answer.header("content-type"),
            Some("application/problem+json")
        );
        assert_eq!(row(&server, &id).await, before, "{what} changes nothing");
    }
    // A query added to a signed URL is not the URL that was signed.
    let signature = twilio_signature(AUTH_TOKEN, &url, &delivered);
    let answer = deliver(
        &server,
        &format!("{path}?status=delivered"),
        &delivered,
        Some(&signature),
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text);

    // Malformed requests are problems too, before anything is believed.
    let raw = |content_type: &'static str, body: &'static str| {
        Request::post(&path)
            .header("content-type", content_type)
            .body(Body::from(body))
            .unwrap()
    };
    let not_utf8 = raw(
        "application/x-www-form-urlencoded",
        "MessageSid=%C3&MessageStatus=delivered",
    );
    let not_utf8 = server.send(not_utf8).await;
    assert_eq!(
        not_utf8.status,
        StatusCode::BAD_REQUEST,
        "{}",
        not_utf8.text
    );
    let json_body = server.send(raw("application/json", "{}")).await;
    assert_eq!(json_body.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = "x".repeat(20 * 1024);
    let too_large = deliver(&server, &path, &[("Body", huge.as_str())], None).await;
    assert_eq!(too_large.status, StatusCode::PAYLOAD_TOO_LARGE);
    let mut twice = delivered.clone();
    twice.push(("MessageStatus", "undelivered"));
    let answer = signed(&server, &path, &twice).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
    assert_eq!(row(&server, &id).await, before);

    // And the genuine callback still works.
    let answer = signed(&server, &path, &delivered).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT, "{}", answer.text);
    assert_eq!(row(&server, &id).await.0, "delivered");
}

#[tokio::test]
async fn twilio_faults_are_retried_invalid_numbers_bounce_and_refused_credentials_fail() {
    let (api, inbox) = fake_twilio().await;
    let server = server_with_twilio(&api, AUTH_TOKEN).await;
    let (_, busy) = notice(&server, "Bento Arruda", "+5511987650500", "sms").await;
    let (_, invalid) = notice(&server, "Inês Moura", "+5511987650211", "whatsapp").await;
    let now = OffsetDateTime::now_utc();
    tick(&server.state.engine, now).await.unwrap();
    let retried = get(&server, &format!("/v1/deliveries/{busy}")).await;
    assert_eq!(
        (retried["status"].as_str(), retried["attempts"].as_i64()),
        (Some("queued"), Some(1))
    );
    assert_eq!(
        retried["error"],
        "twilio: the API failed (HTTP 500, code 20500)"
    );
    let bounced = get(&server, &format!("/v1/deliveries/{invalid}")).await;
    assert_eq!(bounced["status"], "bounced", "{bounced}");
    assert_eq!(
        bounced["error"],
        "twilio: recipient refused (HTTP 400, code 21211)"
    );
    assert!(
        !bounced.to_string().contains("not a valid phone number"),
        "Twilio's text stays out"
    );
    // The retry comes at its time, and goes to Twilio again.
    tick(&server.state.engine, now + Duration::seconds(61))
        .await
        .unwrap();
    let again = get(&server, &format!("/v1/deliveries/{busy}")).await;
    assert_eq!(again["attempts"], 2);
    assert_eq!(sent_to(&inbox, "+5511987650500"), 2);

    // A server whose auth token Twilio refuses: the delivery fails, the token shows nowhere.
    let refused = server_with_twilio(&api, "ffffffffffffffffffffffffffffffff").await;
    let (_, id) = notice(&refused, "Caio Brandão", "+5511987650021", "sms").await;
    tick(&refused.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let failed = get(&refused, &format!("/v1/deliveries/{id}")).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["error"],
        "twilio: authentication refused (HTTP 401, code 20003)"
    );
    assert!(!format!("{:?}", refused.state.config).contains("ffffffffffffffff"));
}

#[tokio::test]
async fn a_429_with_retry_after_makes_the_delivery_wait_uncounted_and_it_goes_later() {
    let (api, inbox) = fake_twilio().await;
    let server = server_with_twilio(&api, AUTH_TOKEN).await;
    let (_, throttled) = notice(&server, "Otávio Lins", "+5511987650429", "sms").await;
    let to_it = |inbox: &Inbox| sent_to(inbox, "+5511987650429");
    let now = OffsetDateTime::now_utc();
    let report = tick(&server.state.engine, now).await.unwrap();
    assert_eq!(report.attempts, 0, "waiting is not an attempt");
    let waiting = get(&server, &format!("/v1/deliveries/{throttled}")).await;
    assert_eq!(
        (waiting["status"].as_str(), waiting["attempts"].as_i64()),
        (Some("queued"), Some(0)),
        "{waiting}"
    );
    assert_eq!(
        waiting["error"],
        "twilio: too many requests (HTTP 429, code 20429)"
    );
    assert_eq!(to_it(&inbox), 1);

    // Before its Retry-After has passed, the delivery is not due: nothing goes to Twilio.
    let report = tick(&server.state.engine, now).await.unwrap();
    assert_eq!(report.attempts, 0);
    assert_eq!(to_it(&inbox), 1);

    let report = tick(&server.state.engine, now + Duration::seconds(2))
        .await
        .unwrap();
    assert_eq!(report.attempts, 1);
    let sent = get(&server, &format!("/v1/deliveries/{throttled}")).await;
    assert_eq!(
        (sent["status"].as_str(), sent["attempts"].as_i64()),
        (Some("sent"), Some(1)),
        "{sent}"
    );
    assert_eq!(to_it(&inbox), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sms_waiting_for_their_senders_turn_do_not_hold_back_the_organizations_e_mails() {
    let (api, inbox) = fake_twilio().await;
    let (port, relay) = crate::collection_engine::smtp_listener().await;
    // One delivery of the organization at a time on each channel, and an SMS sender that
    // takes one message every two seconds: the second SMS waits two seconds for its turn.
    let config = Config {
        smtp_url: Some(format!(
            "smtp://127.0.0.1:{port}?tls=none&from=cobranca@paodourado.com.br"
        )),
        sending: dunning_engine::Sending {
            twilio_sms_rate: 0.5,
            per_organization: 1,
            ..dunning_engine::Sending::default()
        },
        ..twilio_config(&api, AUTH_TOKEN)
    };
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let server = TestServer::start_configured(url, dir, config).await;
    notice(&server, "Ana Prado", "+5511987650101", "sms").await;
    notice(&server, "Bruno Reis", "+5511987650102", "sms").await;
    for (n, name) in ["Carla Dias", "Davi Melo", "Elisa Nunes"]
        .iter()
        .enumerate()
    {
        let email = format!("devedora{n}@example.com.br");
        let customer = customer_with(&server, name, Some(email.as_str()), None, &[]).await;
        let charge = charge(&server, &customer, 150.0, -3).await;
        notify(&server, &charge, "email").await;
    }

    let report = tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    assert_eq!(report.attempts, 5);
    let second_sms_at = inbox
        .lock()
        .unwrap()
        .iter()
        .find(|s| s.field("To") == Some("+5511987650102"))
        .map(|s| s.received_at)
        .unwrap();
    let e_mails = relay.lock().unwrap().accepted_at.clone();
    assert_eq!(e_mails.len(), 3);
    assert!(
        e_mails.iter().all(|at| *at < second_sms_at),
        "the e-mails went out before the SMS that waited for its turn"
    );
}

#[tokio::test]
async fn without_twilio_the_sandbox_sends_and_the_callback_route_is_not_served() {
    let server = TestServer::start().await;
    let org = server.org_id(0).to_string();
    let (_, id) = notice(&server, "Sara Nunes", "+5511987650031", "sms").await;
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let view: Value = get(&server, &format!("/v1/deliveries/{id}")).await;
    assert_eq!(view["status"], "sent");
    assert_eq!(
        stored_message_id(&server, &id).await,
        (Some("sandbox".into()), None)
    );
    let answer = deliver(
        &server,
        &format!("/callbacks/twilio/{org}"),
        &[("MessageStatus", "delivered")],
        Some("x"),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.text);
    assert_eq!(answer.body["code"], "route_not_found");
}

#[tokio::test]
async fn postgres_finds_a_twilio_message_by_its_sid_and_applies_its_callback_once() {
    let (api, inbox) = fake_twilio().await;
    let Some(server) = crate::postgres::postgres_server_with(twilio_config(&api, AUTH_TOKEN)).await
    else {
        return;
    };
    let org = server.org_id(0).to_string();
    let (charge, id) = notice(&server, "Vera Quintão", "+5511987650041", "whatsapp").await;
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .unwrap();
    let sent = inbox.lock().unwrap()[0].clone();
    assert_eq!(sent.field("To"), Some("whatsapp:+5511987650041"));
    assert_eq!(
        stored_message_id(&server, &id).await,
        (Some("twilio".into()), sent.sid.clone())
    );
    let path = format!("/callbacks/twilio/{org}");
    let params = callback(&sent, "read", None);
    let before = row(&server, &id).await;
    let forged = deliver(
        &server,
        &path,
        &params,
        Some("0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.text);
    assert_eq!(row(&server, &id).await, before);
    for _ in 0..2 {
        let answer = signed(&server, &path, &params).await;
        assert_eq!(answer.status, StatusCode::NO_CONTENT, "{}", answer.text);
    }
    assert_eq!(row(&server, &id).await.0, "delivered");
    let delivered = timeline(&server, &charge).await;
    assert_eq!(
        delivered
            .iter()
            .filter(|k| *k == "delivery.delivered")
            .count(),
        1
    );
}
