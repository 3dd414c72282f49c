//! Webhooks under abuse: targets the server must not reach (refused at create, at update and
//! at delivery time, with the private-target setting off, as in production), failures told
//! as categories rather than the OS's words, and signatures a receiver can check for replays.

use dunning_store::webhooks::attempts;
use hmac::{Hmac, Mac};
use http::StatusCode;
use kobana_dunning::Config;
use serde_json::{Value, json};
use sha2::Sha256;
use time::{Duration, OffsetDateTime};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::TestServer;
use crate::webhooks::{
    Received, Receiver, admin, create_charge, create_webhook, deliveries, parse_time, step,
};

/// A server as production runs it: webhooks reach public addresses only.
async fn public_targets_only() -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let config = Config {
        allow_private_webhook_targets: false,
        ..Config::local()
    };
    TestServer::start_configured(url, dir, config).await
}

/// The spellings of issue 8, all accepted before; then a few more.
const FORBIDDEN_TARGETS: &[&str] = &[
    "http://127.0.0.1:8080/hook",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::1]/hook",
    "http://localhost:3000/hook",
    "http://10.0.0.5/hook",
    "http://172.16.8.1/hook",
    "http://172.31.0.1/hook",
    "http://192.168.1.1/hook",
    "http://[fd00::1]/hook",
    "http://[fd12:3456::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://2130706433/hook",
    "http://0x7f.0.0.1/hook",
    "http://127.1/hook",
    "http://0177.0.0.1/hook",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata.google.internal./computeMetadata/v1/",
    "https://localhost./hook",
    "https://api.localhost/hook",
    "https://[fe80::1]/hook",
    "https://[64:ff9b::a9fe:a9fe]/hook",
    "https://100.64.0.1/hook",
    "https://0.0.0.0/hook",
    "https://224.0.0.1/hook",
];

fn assert_target_forbidden(answer: &crate::common::Answer, url: &str) {
    assert_eq!(
        answer.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{url}: {}",
        answer.text
    );
    assert_eq!(
        answer.header("content-type"),
        Some("application/problem+json")
    );
    assert_eq!(answer.body["code"], "webhook_target_forbidden", "{url}");
    let errors = answer.body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{url}: {errors:?}");
    assert_eq!(errors[0]["field"], "url");
    assert_eq!(errors[0]["code"], "target_forbidden");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("public internet addresses"),
        "{url}: says why: {message}"
    );
}

#[tokio::test]
async fn private_loopback_and_metadata_targets_are_refused_at_create_and_update() {
    let server = public_targets_only().await;
    let token = admin(&server);
    for url in FORBIDDEN_TARGETS {
        let answer = server
            .rest(
                "POST",
                "/v1/webhooks",
                &token,
                Some(json!({ "url": url, "events": ["*"] })),
            )
            .await;
        assert_target_forbidden(&answer, url);
    }
    let loopback = server
        .rest(
            "POST",
            "/v1/webhooks",
            &token,
            Some(json!({ "url": "http://2130706433/hook", "events": ["*"] })),
        )
        .await;
    assert_eq!(
        loopback.body["errors"][0]["message"],
        "127.0.0.1 is a loopback address: webhooks are only sent to public internet addresses"
    );
    let list = server.rest("GET", "/v1/webhooks", &token, None).await;
    assert_eq!(list.body["meta"]["total"], 0, "nothing was created");

    // A public name is accepted (it is resolved and checked when a delivery is sent)...
    let public = create_webhook(&server, "https://erp.example.com.br/hook", json!(["*"])).await;
    let path = format!("/v1/webhooks/{}", public["id"].as_str().unwrap());
    // ...and cannot be moved to a private target afterwards.
    for url in FORBIDDEN_TARGETS {
        let answer = server
            .rest("PATCH", &path, &token, Some(json!({ "url": url })))
            .await;
        assert_target_forbidden(&answer, url);
    }
    let read = server.rest("GET", &path, &token, None).await;
    assert_eq!(read.body["data"]["url"], "https://erp.example.com.br/hook");
    assert_eq!(read.body["data"]["updated_at"], public["updated_at"]);
    let events: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE type = 'webhook.updated'")
            .fetch_one(&server.state.db.pool)
            .await
            .unwrap();
    assert_eq!(events, 0);
}

#[tokio::test]
async fn the_development_setting_allows_local_receivers_but_never_the_metadata_service() {
    // `TestServer::start` turns the setting on, as every test with a local receiver needs.
    let server = TestServer::start().await;
    assert!(server.state.config.allow_private_webhook_targets);
    create_webhook(&server, "http://127.0.0.1:9/hook", json!(["*"])).await;
    create_webhook(&server, "http://localhost:9/hook", json!(["*"])).await;
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://metadata.google.internal/",
        "http://0.0.0.0:9/hook",
    ] {
        let answer = server
            .rest(
                "POST",
                "/v1/webhooks",
                &admin(&server),
                Some(json!({ "url": url, "events": ["*"] })),
            )
            .await;
        assert_target_forbidden(&answer, url);
    }
}

#[tokio::test]
async fn a_target_that_resolves_to_loopback_is_refused_at_delivery_time_and_nothing_is_sent() {
    let server = public_targets_only().await;
    let receiver = Receiver::start(&[]).await;
    let port = receiver.url.rsplit(':').next().unwrap();
    // Endpoints registered before the guard existed, or while the server ran with the
    // development setting: the delivery is where they are stopped.
    let mut ids = Vec::new();
    for target in [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("http://[::ffff:127.0.0.1]:{port}"),
    ] {
        let webhook =
            create_webhook(&server, "https://erp.example.com.br/hook", json!(["*"])).await;
        let id = webhook["id"].as_str().unwrap().to_string();
        sqlx::query("UPDATE webhooks SET url = $1 WHERE id = $2")
            .bind(target)
            .bind(&id)
            .execute(&server.state.db.pool)
            .await
            .unwrap();
        ids.push(id);
    }
    create_charge(&server).await;

    let t0 = parse_time(&dunning_store::timestamp_text(OffsetDateTime::now_utc()));
    assert!(step(&server, t0).await.attempted >= 3);
    assert!(
        receiver.received().is_empty(),
        "no POST reached the receiver"
    );
    for id in &ids {
        let list = deliveries(&server, id, "?event_type=charge.created").await;
        let delivery = &list["data"][0];
        assert_eq!(delivery["error"], "target_forbidden", "{delivery}");
        assert!(delivery["response_status"].is_null());
        assert_eq!(delivery["status"], "pending", "retried: DNS answers change");
        let recorded = attempts(
            &server.state.db,
            server.org_id(0),
            delivery["id"].as_str().unwrap(),
        )
        .await
        .unwrap();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].error.as_deref(), Some("target_forbidden"));
        assert!(recorded[0].response_body.is_none());
    }
}

/// A receiver that answers a fixed string to whatever it is sent.
async fn raw_receiver(answer: &'static [u8]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            let _ = socket.write_all(answer).await;
            let _ = socket.shutdown().await;
        }
    });
    address.to_string()
}

#[tokio::test]
async fn delivery_failures_are_recorded_as_categories_never_as_os_errors() {
    let server = TestServer::start().await;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let not_found = Receiver::start(&[404]).await;
    let unavailable = Receiver::start(&[503]).await;
    let plain_http = Receiver::start(&[]).await;
    let garbage = raw_receiver(b"SSH-2.0-OpenSSH_9.6\r\n").await;
    let cases = [
        (format!("http://{closed}/hook"), "connection_failed", None),
        (not_found.url.clone(), "http_4xx", Some(404)),
        (unavailable.url.clone(), "http_5xx", Some(503)),
        // TLS spoken to a plain HTTP server.
        (
            plain_http.url.replace("http://", "https://"),
            "tls_error",
            None,
        ),
        (format!("http://{garbage}/hook"), "invalid_response", None),
    ];
    let mut webhooks = Vec::new();
    for (url, _, _) in &cases {
        let webhook = create_webhook(&server, url, json!(["charge.created"])).await;
        webhooks.push(webhook["id"].as_str().unwrap().to_string());
    }
    create_charge(&server).await;
    step(&server, OffsetDateTime::now_utc()).await;

    for ((url, category, status), id) in cases.iter().zip(&webhooks) {
        let delivery = deliveries(&server, id, "").await["data"][0].clone();
        assert_eq!(delivery["error"], *category, "{url}: {delivery}");
        assert_eq!(delivery["response_status"], json!(status), "{url}");
        let recorded = attempts(
            &server.state.db,
            server.org_id(0),
            delivery["id"].as_str().unwrap(),
        )
        .await
        .unwrap();
        assert_eq!(recorded[0].error.as_deref(), Some(*category), "{url}");
    }
    assert!(plain_http.received().is_empty());
}

/// The verification docs/outbound-channels.md documents, step by step: split the header, refuse a `t`
/// outside the tolerance, recompute `v1` over `t + "." + body`, compare in constant time.
fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> Result<(), &'static str> {
    const TOLERANCE: i64 = 300;
    let mut t = None;
    let mut candidates = Vec::new();
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = value.parse::<i64>().ok(),
            Some(("v1", value)) => candidates.push(value),
            _ => {}
        }
    }
    let t = t.ok_or("no timestamp")?;
    if (now - t).abs() > TOLERANCE {
        return Err("timestamp outside the tolerance");
    }
    let matches = candidates.iter().any(|candidate| {
        let Ok(bytes) = hex::decode(candidate) else {
            return false;
        };
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        // Constant time, and the whole tag.
        mac.verify_slice(&bytes).is_ok()
    });
    if matches {
        Ok(())
    } else {
        Err("signature mismatch")
    }
}

fn with_t(header: &str, t: i64) -> String {
    header
        .split(',')
        .map(|part| {
            if part.starts_with("t=") {
                format!("t={t}")
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[tokio::test]
async fn a_delivery_is_signed_over_its_timestamp_so_replays_and_tampering_fail() {
    let server = TestServer::start().await;
    let receiver = Receiver::start(&[500]).await;
    let webhook = create_webhook(&server, &receiver.url, json!(["charge.created"])).await;
    let secret = webhook["secret"].as_str().unwrap();
    create_charge(&server).await;
    let t0 = OffsetDateTime::now_utc();
    step(&server, t0).await;
    step(&server, t0 + Duration::seconds(61)).await;
    let received: Vec<Received> = receiver.received();
    assert_eq!(received.len(), 2);

    let first = &received[0];
    let header = first.header("x-signature");
    let t = t0.unix_timestamp();
    assert!(header.starts_with(&format!("t={t},v1=")), "{header}");
    assert_eq!(verify(secret, header, &first.body, t), Ok(()));
    assert_eq!(verify(secret, header, &first.body, t + 300), Ok(()));
    // Replayed later than the tolerance: refused, though the signature is genuine.
    assert_eq!(
        verify(secret, header, &first.body, t + 301),
        Err("timestamp outside the tolerance")
    );
    // A fresh timestamp pasted onto the old signature does not verify.
    assert_eq!(
        verify(secret, &with_t(header, t + 301), &first.body, t + 301),
        Err("signature mismatch")
    );
    let mut tampered = first.body.to_vec();
    tampered[1] ^= 1;
    assert_eq!(
        verify(secret, header, &tampered, t),
        Err("signature mismatch")
    );
    assert_eq!(
        verify("whsec_another", header, &first.body, t),
        Err("signature mismatch")
    );

    // The retry carries the same body with its own time and signature.
    let retry = &received[1];
    assert_eq!(retry.body, first.body);
    let retry_t = (t0 + Duration::seconds(61)).unix_timestamp();
    assert!(
        retry
            .header("x-signature")
            .starts_with(&format!("t={retry_t},"))
    );
    assert_eq!(
        verify(secret, retry.header("x-signature"), &retry.body, retry_t),
        Ok(())
    );
    assert_ne!(retry.header("x-signature"), header);
    let event: Value = first.json();
    assert_eq!(event["type"], "charge.created");
}
