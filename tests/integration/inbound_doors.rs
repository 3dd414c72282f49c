//! The unauthenticated inbound doors (Pix callbacks, Twilio callbacks, unsubscribe links):
//! bodies of the wrong media type are refused with 415 and change nothing, and each client
//! address has a budget of refusals per door, past which the door answers 429 without looking
//! (`server/inbound.rs`), counted in the metrics and logged once per window. Real sockets on
//! 127.0.0.1 and 127.0.0.2 where the client's address matters; the real binary where its log
//! lines are counted.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use kobana_dunning::Config;
use kobana_dunning::http::address_budget::Budget;
use serde_json::{Value, json};

use crate::common::{Answer, TestServer};
use crate::faults::process::ServerProcess;
use crate::metrics::{promtool_accepts, sample, scrape};
use crate::pix_psp::{charge, connect, pix};
use crate::unsubscribe::{link, opt_outs, two_customers};

/// A server whose doors give each address `per_window` refusals per `window`, behind the
/// given trusted proxies.
async fn server_with_budget(per_window: u32, window: Duration, proxies: &[&str]) -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let config = Config {
        bad_request_budget: Budget { per_window, window },
        trusted_proxies: proxies.iter().map(|p| p.parse().unwrap()).collect(),
        ..TestServer::config(false)
    };
    TestServer::start_configured(url, dir, config).await
}

/// An HTTP client whose connections come from `address` (any of 127.0.0.0/8 on loopback).
fn client_from(address: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(address.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

/// A Pix callback from a PSP: JSON, as the API Pix says.
async fn post_json(client: &reqwest::Client, url: &str, body: &Value) -> reqwest::Response {
    client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers")
}

/// A path of the Pix door whose secret no connection has (a 404 after a lookup).
fn forged_pix_path() -> String {
    format!("/pix/webhook/{}/pix", dunning_store::ids::new_secret(32))
}

/// An `endToEndId` of the API Pix's shape, numbered.
fn e2e(n: u32) -> String {
    format!("E12345678202601021000{n:011}")
}

async fn pix_received(server: &TestServer) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM pix_received")
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap()
}

async fn charge_status(server: &TestServer, id: &str) -> String {
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    answer.body["data"]["status"].as_str().unwrap().to_string()
}

async fn post_in_process(
    server: &TestServer,
    path: &str,
    media: Option<&str>,
    body: String,
) -> Answer {
    let mut request = Request::post(path);
    if let Some(media) = media {
        request = request.header("content-type", media);
    }
    server.send(request.body(Body::from(body)).unwrap()).await
}

#[tokio::test]
async fn a_pix_callback_whose_body_is_not_declared_json_is_refused_with_415_and_pays_nothing() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    let id = charge(&server, 42.5).await;
    let body = pix(&e2e(1), &id.replace('_', ""), "42.50").to_string();
    let good = format!("/pix/webhook/{secret}/pix");
    let multipart = format!(
        "--kd\r\nContent-Disposition: form-data; name=\"pix\"\r\nContent-Type: application/json\r\n\r\n{body}\r\n--kd--\r\n"
    );
    let refused = [
        (None, body.clone()),
        (Some("text/plain"), body.clone()),
        (Some("text/plain; charset=utf-8"), body.clone()),
        (Some("application/x-www-form-urlencoded"), body.clone()),
        (Some("multipart/form-data; boundary=kd"), multipart),
        (Some("application/json; charset=iso-8859-1"), body.clone()),
    ];
    let mut answers = Vec::new();
    for (media, sent) in refused {
        for path in [good.as_str(), &forged_pix_path()] {
            let answer = post_in_process(&server, path, media, sent.clone()).await;
            assert_eq!(
                answer.status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{media:?}: {}",
                answer.text
            );
            assert_eq!(
                answer.header("content-type"),
                Some("application/problem+json")
            );
            assert_eq!(answer.body["code"], "unsupported_media_type");
            answers.push(answer.text);
        }
    }
    // The same answer whether the secret is right or not: a 415 tells nothing about it.
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:#?}");
    assert_eq!(pix_received(&server).await, 0, "nothing was recorded");
    assert_eq!(charge_status(&server, &id).await, "pending");

    // The same bytes declared JSON (parameters allowed) are a payment.
    let paid = post_in_process(
        &server,
        &good,
        Some("application/json; charset=utf-8"),
        body,
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.text);
    assert_eq!(paid.body, json!({"received": 1, "duplicates": 0}));
    assert_eq!(pix_received(&server).await, 1);
    assert_eq!(charge_status(&server, &id).await, "paid");
}

async fn opted_out_of_email(server: &TestServer, token: &str, customer: &str) -> bool {
    let opt_outs = opt_outs(server, token, customer).await;
    opt_outs.as_array().unwrap().iter().any(|c| c == "email")
}

#[tokio::test]
async fn an_unsubscribe_post_that_is_not_a_form_is_refused_with_415_and_both_form_encodings_work() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let (first, second) = two_customers(&server, &token).await;
    let before = opt_outs(&server, &token, &first).await;
    let path = link(&server, &first);
    for (media, body) in [
        (None, "List-Unsubscribe=One-Click"),
        (Some("text/plain"), "List-Unsubscribe=One-Click"),
        (
            Some("application/json"),
            r#"{"List-Unsubscribe": "One-Click"}"#,
        ),
    ] {
        let answer = post_in_process(&server, &path, media, body.to_string()).await;
        assert_eq!(
            answer.status,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{media:?}: {}",
            answer.text
        );
        assert!(answer.text.contains("formulário"), "{}", answer.text);
    }
    assert_eq!(
        opt_outs(&server, &token, &first).await,
        before,
        "nobody opted out"
    );

    // RFC 8058's two encodings: multipart (what it says providers SHOULD send) and the
    // urlencoded form (what our own page's form sends).
    let multipart = "--kd\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--kd--\r\n";
    let answer = post_in_process(
        &server,
        &path,
        Some("multipart/form-data; boundary=kd"),
        multipart.to_string(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(opted_out_of_email(&server, &token, &first).await);
    let answer = post_in_process(
        &server,
        &link(&server, &second),
        Some("application/x-www-form-urlencoded"),
        "List-Unsubscribe=One-Click".to_string(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(opted_out_of_email(&server, &token, &second).await);
}

/// The statuses of `tasks` concurrent senders, each sending `each` requests made by `send`
/// one after the other on its own keep-alive client from `address`, with every 429's
/// `Retry-After` and problem code.
async fn flood<F, Fut>(
    address: &str,
    tasks: usize,
    each: usize,
    send: F,
) -> (BTreeMap<u16, usize>, Vec<(u64, Value)>)
where
    F: Fn(reqwest::Client) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = reqwest::Response> + Send,
{
    let mut senders = tokio::task::JoinSet::new();
    for _ in 0..tasks {
        let client = client_from(address);
        let send = send.clone();
        senders.spawn(async move {
            let mut seen = Vec::new();
            for _ in 0..each {
                let response = send(client.clone()).await;
                let status = response.status().as_u16();
                let retry = response
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
                let body: Value = response.json().await.unwrap_or(Value::Null);
                seen.push((status, retry, body));
            }
            seen
        });
    }
    let mut statuses = BTreeMap::new();
    let mut refusals = Vec::new();
    while let Some(seen) = senders.join_next().await {
        for (status, retry, body) in seen.unwrap() {
            *statuses.entry(status).or_insert(0) += 1;
            if status == 429 {
                refusals.push((retry.expect("a 429 says when to retry"), body));
            }
        }
    }
    (statuses, refusals)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_flooding_a_door_with_bad_requests_gets_429_after_its_budget_while_another_address_is_served()
 {
    let budget = 10;
    let server = server_with_budget(budget, Duration::from_secs(60), &[]).await;
    let secret = connect(&server).await;
    let id = charge(&server, 30.0).await;
    let base = server.listen().await;

    // 8 senders at once, 25 forged callbacks each, from 127.0.0.1.
    let target = base.clone();
    let (statuses, refusals) = flood("127.0.0.1", 8, 25, move |client| {
        let url = format!("{target}{}", forged_pix_path());
        async move { post_json(&client, &url, &json!({"pix": []})).await }
    })
    .await;
    let answered = statuses.get(&404).copied().unwrap_or(0);
    // Requests already in flight when the budget is spent are answered: at most one per
    // sender more than the budget.
    assert!(
        (budget as usize..=budget as usize + 8).contains(&answered),
        "{statuses:?}"
    );
    assert_eq!(
        statuses.get(&429).copied().unwrap_or(0) + answered,
        200,
        "{statuses:?}"
    );
    for (retry, problem) in &refusals {
        assert!((1..=60).contains(retry), "{retry}");
        assert_eq!(problem["status"], 429);
        assert_eq!(problem["code"], "rate_limited");
    }

    // Another address is served: its refusals are its own, and its good callback pays.
    let other = client_from("127.0.0.2");
    let forged = post_json(
        &other,
        &format!("{base}{}", forged_pix_path()),
        &json!({"pix": []}),
    )
    .await;
    assert_eq!(forged.status(), 404);
    let body = pix(&e2e(7), &id.replace('_', ""), "30.00");
    let paid = post_json(&other, &format!("{base}/pix/webhook/{secret}/pix"), &body).await;
    assert_eq!(paid.status(), 200);
    assert_eq!(charge_status(&server, &id).await, "paid");

    // The flooding address spent the Pix door's budget, not the others'.
    let token = server.token(0, "admin", "api");
    let (customer, _) = two_customers(&server, &token).await;
    let page = client_from("127.0.0.1")
        .get(format!("{base}{}", link(&server, &customer)))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    // And the unsubscribe door has a budget of its own, spent the same way.
    let target = base.clone();
    let (statuses, _) = flood("127.0.0.1", 1, budget as usize + 5, move |client| {
        let url = format!("{target}/unsubscribe/not-a-token");
        async move { client.get(&url).send().await.unwrap() }
    })
    .await;
    assert_eq!(statuses.get(&404), Some(&(budget as usize)), "{statuses:?}");
    assert_eq!(statuses.get(&429), Some(&5), "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_psps_valid_callbacks_are_never_refused_and_one_sent_after_its_budget_of_bad_ones_is_taken_once_the_window_ends()
 {
    let budget = 3;
    let server = server_with_budget(budget, Duration::from_secs(2), &[]).await;
    let secret = connect(&server).await;
    let first = charge(&server, 10.0).await;
    let second = charge(&server, 20.0).await;
    let base = server.listen().await;
    let good = format!("{base}/pix/webhook/{secret}/pix");

    // Ten times the budget of valid callbacks, six senders at once, each a Pix of its own
    // (for a txid that names no charge: kept for review): none is refused.
    let url = good.clone();
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(100));
    let (statuses, _) = flood("127.0.0.1", 6, 5, move |client| {
        let n = sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (url, body) = (url.clone(), pix(&e2e(n), "notoneofours", "1.00"));
        async move { post_json(&client, &url, &body).await }
    })
    .await;
    assert_eq!(statuses, BTreeMap::from([(200, 30)]));
    assert_eq!(pix_received(&server).await, 30);
    let body = pix(&e2e(1), &first.replace('_', ""), "10.00");
    assert_eq!(
        post_json(&client_from("127.0.0.1"), &good, &body)
            .await
            .status(),
        200
    );
    assert_eq!(charge_status(&server, &first).await, "paid");

    // The same address spends its budget on bad callbacks: its next one, good or not, waits
    // for the window's end (the PSP retries; nothing was looked up or applied).
    let psp = client_from("127.0.0.1");
    for _ in 0..budget {
        let forged = post_json(
            &psp,
            &format!("{base}{}", forged_pix_path()),
            &json!({"pix": []}),
        )
        .await;
        assert_eq!(forged.status(), 404);
    }
    let body = pix(&e2e(2), &second.replace('_', ""), "20.00");
    let refused = post_json(&psp, &good, &body).await;
    assert_eq!(refused.status(), 429);
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    assert_eq!(pix_received(&server).await, 31, "nothing recorded");
    assert_eq!(charge_status(&server, &second).await, "pending");

    tokio::time::sleep(Duration::from_secs(retry)).await;
    let taken = post_json(&psp, &good, &body).await;
    assert_eq!(taken.status(), 200);
    assert_eq!(charge_status(&server, &second).await, "paid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget_and_a_strangers_header_is_not_believed()
 {
    let budget = 3;
    let server = server_with_budget(budget, Duration::from_secs(60), &["127.0.0.1"]).await;
    let base = server.listen().await;
    let bad = format!("{base}/unsubscribe/not-a-token");
    let knock = |client: reqwest::Client, forwarded: &'static str| {
        let bad = bad.clone();
        async move {
            client
                .get(&bad)
                .header("x-forwarded-for", forwarded)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    // Through the proxy (127.0.0.1): a client that also forged an entry of its own is
    // counted by the address the proxy appended.
    let proxy = client_from("127.0.0.1");
    for _ in 0..budget {
        assert_eq!(knock(proxy.clone(), "192.0.2.66, 203.0.113.1").await, 404);
    }
    assert_eq!(knock(proxy.clone(), "192.0.2.67, 203.0.113.1").await, 429);
    assert_eq!(
        knock(proxy.clone(), "203.0.113.2").await,
        404,
        "another client"
    );
    // Not through the proxy (127.0.0.2): the header is the client's own words.
    let stranger = client_from("127.0.0.2");
    for forwarded in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
        assert_eq!(knock(stranger.clone(), forwarded).await, 404);
    }
    assert_eq!(knock(stranger.clone(), "198.51.100.4").await, 429);
}

#[tokio::test]
async fn the_doors_refusals_are_counted_by_door_and_reason_and_pass_promtool() {
    let server = server_with_budget(4, Duration::from_secs(60), &[]).await;
    let secret = connect(&server).await;
    let good = format!("/pix/webhook/{secret}/pix");
    let json = Some("application/json");
    let pix_door = [
        (good.as_str(), Some("text/plain"), 415),
        (&forged_pix_path(), json, 404),
        (&forged_pix_path(), json, 404),
        (good.as_str(), json, 400),
        // The budget (4) is spent: not even a good callback is looked at.
        (good.as_str(), json, 429),
        (&forged_pix_path(), json, 429),
        (&forged_pix_path(), Some("text/plain"), 429),
    ];
    for (path, media, status) in pix_door {
        let answer = post_in_process(&server, path, media, "{}".to_string()).await;
        assert_eq!(
            answer.status.as_u16(),
            status,
            "{path} {media:?}: {}",
            answer.text
        );
    }
    let unsubscribe = server
        .send(
            Request::get("/unsubscribe/not-a-token")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(unsubscribe.status, StatusCode::NOT_FOUND);
    // Without a Twilio account the callback route is not served.
    let twilio = post_in_process(
        &server,
        "/callbacks/twilio/org_x",
        Some("application/x-www-form-urlencoded"),
        "MessageSid=SM1".to_string(),
    )
    .await;
    assert_eq!(twilio.status, StatusCode::NOT_FOUND);
    // A method no door route takes is answered by the server's fallback, as any unknown
    // route is: a problem, no lookup, not a door's refusal.
    let wrong_method = server
        .send(Request::get(good.as_str()).body(Body::empty()).unwrap())
        .await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(wrong_method.body["code"], "method_not_allowed");

    let text = scrape(&server).await;
    let refusals = |door: &str, reason: &str| {
        sample(
            &text,
            "dunning_inbound_refusals_total",
            &[("door", door), ("reason", reason)],
        )
    };
    assert_eq!(refusals("pix_webhook", "unsupported_media_type"), 1.0);
    assert_eq!(refusals("pix_webhook", "not_found"), 2.0);
    assert_eq!(refusals("pix_webhook", "bad_request"), 1.0);
    assert_eq!(refusals("pix_webhook", "over_budget"), 3.0);
    assert_eq!(refusals("unsubscribe", "not_found"), 1.0);
    assert_eq!(refusals("callbacks", "not_found"), 1.0);
    assert_eq!(
        sample(&text, "dunning_inbound_refusals_total", &[]),
        9.0,
        "nothing else"
    );
    // Every request is still an HTTP request answered; none is a token's rate limit.
    let pix_4xx = &[("operation", "pix_webhook"), ("status_class", "4xx")];
    assert_eq!(sample(&text, "dunning_http_requests_total", pix_4xx), 8.0);
    let callbacks = &[("operation", "callbacks"), ("status_class", "4xx")];
    assert_eq!(sample(&text, "dunning_http_requests_total", callbacks), 1.0);
    assert_eq!(sample(&text, "dunning_rate_limit_refusals_total", &[]), 0.0);
    promtool_accepts(&text);
}

/// The real binary's JSON log lines.
fn json_lines(printed: &str) -> Vec<Value> {
    printed
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_past_the_budget_are_logged_once_per_window_and_not_once_per_request() {
    let folder = tempfile::tempdir().expect("temp dir");
    let mut server = ServerProcess::start(
        folder.path(),
        &["--log-format", "json", "--bad-request-budget", "5/5s"],
        &[("RUST_LOG", "info")],
    );
    let url = server.url("/unsubscribe/not-a-token");
    let target = url.clone();
    let (statuses, _) = flood("127.0.0.1", 4, 50, move |client| {
        let url = target.clone();
        async move { client.get(&url).send().await.unwrap() }
    })
    .await;
    let (answered, refused) = (statuses[&404], statuses[&429]);
    assert!((5..=9).contains(&answered), "{statuses:?}");
    assert_eq!(answered + refused, 200);
    // Another address, in the same window, is served and logged as usual.
    let other = client_from("127.0.0.2").get(&url).send().await.unwrap();
    assert_eq!(other.status(), 404);
    // The window ends 5 s after the address's first refusal; a sweep then sums it up, within
    // one more window at the latest.
    let mut lines = Vec::new();
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        lines = json_lines(&server.printed());
        if lines.iter().any(|l| l["fields"]["refused"].is_number()) {
            break;
        }
    }
    let access: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"] == "access" && l["fields"]["path"] == "/unsubscribe/…")
        .collect();
    assert_eq!(
        access.len(),
        answered + 1,
        "one line per answered request, none per 429"
    );
    assert!(access.iter().all(|l| l["fields"]["status"] == 404));
    let budget_lines: Vec<&Value> = lines
        .iter()
        .filter(|l| l["fields"]["door"] == "unsubscribe")
        .collect();
    assert_eq!(budget_lines.len(), 2, "{budget_lines:#?}");
    let (first, summed) = (&budget_lines[0]["fields"], &budget_lines[1]["fields"]);
    assert_eq!(first["address"], "127.0.0.1");
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("over its budget"),
        "{first}"
    );
    assert_eq!(summed["address"], "127.0.0.1");
    assert_eq!(summed["refused"], refused, "{summed}");
    assert!(
        lines.iter().all(|l| l["fields"]["address"] != "127.0.0.2"),
        "an address within its budget is never named"
    );
}
