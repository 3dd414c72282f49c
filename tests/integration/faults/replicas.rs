//! Two replicas on one PostgreSQL: two server processes on their own ports share one
//! database. What one issues (idempotency keys, rate-limit windows, confirmation states) the
//! other honours; engine work both could do is done once; `kill -9` of one under load loses
//! no acknowledged write and the survivor runs the dead one's in-flight keys once.

use std::collections::BTreeMap;
use std::time::Duration;

use dunning_domain::document::cpf_with_check_digits;
use serde_json::{Value, json};

use super::process::{ServerProcess, issue_token};
use crate::postgres::fresh_postgres_url;
use crate::webhooks::Receiver;

const SECRET: &str = "replicas-share-this-confirmation-secret";

struct Pair {
    a: ServerProcess,
    b: ServerProcess,
    url: String,
    folder: tempfile::TempDir,
    client: reqwest::Client,
}

async fn start_pair() -> Option<Pair> {
    let url = fresh_postgres_url().await?;
    let folder = tempfile::tempdir().expect("temp dir");
    let args = [
        "--database-url",
        url.as_str(),
        "--confirmation-secret",
        SECRET,
        "--idempotency-lease",
        "2",
        "--allow-private-webhook-targets",
    ];
    // The first replica creates the schema and the demo data; the second finds them.
    let a = ServerProcess::start(folder.path(), &args, &[]);
    let other = tempfile::tempdir().expect("temp dir");
    let b = ServerProcess::start(other.path(), &args, &[]);
    assert!(!b.base_url.is_empty() && a.base_url != b.base_url);
    Some(Pair {
        a,
        b,
        url,
        folder,
        client: reqwest::Client::new(),
    })
}

impl Pair {
    fn token(&self, audience: &str, rate: &str) -> String {
        issue_token(
            self.folder.path(),
            &["--database-url", &self.url],
            audience,
            rate,
        )
    }

    /// Replica 0 (a) or 1 (b).
    fn replica(&self, n: usize) -> &ServerProcess {
        if n.is_multiple_of(2) {
            &self.a
        } else {
            &self.b
        }
    }

    async fn rest(
        &self,
        n: usize,
        method: &str,
        path: &str,
        token: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut request = self
            .client
            .request(method.parse().expect("method"), self.replica(n).url(path))
            .bearer_auth(token)
            .timeout(Duration::from_secs(20));
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the replica answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        (
            status,
            headers,
            response.json().await.unwrap_or(Value::Null),
        )
    }

    async fn mcp26(&self, n: usize, token: &str, name: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
        });
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
        self.client
            .post(self.replica(n).url("/mcp"))
            .bearer_auth(token)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .json(&body)
            .send()
            .await
            .expect("the replica answers")
            .json()
            .await
            .expect("JSON")
    }
}

fn customer(n: u32) -> Value {
    let document = cpf_with_check_digits(&format!("{:09}", 500_000_000 + n));
    json!({ "name": format!("Cliente {n}"), "document": document })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_keys_limits_and_confirmations_and_do_engine_work_once() {
    let Some(pair) = start_pair().await else {
        return;
    };
    let api = pair.token("api", "1000000/minute");

    // An idempotency key used on one replica is replayed by the other.
    let (status, _, first) = pair
        .rest(
            0,
            "POST",
            "/v1/customers",
            &api,
            Some("shared-key"),
            Some(customer(1)),
        )
        .await;
    assert_eq!(status, 201, "{first}");
    let (status, headers, again) = pair
        .rest(
            1,
            "POST",
            "/v1/customers",
            &api,
            Some("shared-key"),
            Some(customer(1)),
        )
        .await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(headers["idempotent-replayed"], "true");
    assert_eq!(again["data"]["id"], first["data"]["id"]);

    // One rate-limit window, counted by both.
    let limited = pair.token("api", "6/minute");
    crate::common::room_in_the_rate_window(60).await;
    let mut statuses = Vec::new();
    for n in 0..8 {
        statuses.push(pair.rest(n, "GET", "/v1/me", &limited, None, None).await.0);
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);

    // A confirmation asked by one replica is accepted by the other.
    let mcp = pair.token("mcp", "1000000/minute");
    let (_, _, pending) = pair
        .rest(
            0,
            "GET",
            "/v1/charges?status=pending&per_page=1",
            &api,
            None,
            None,
        )
        .await;
    let id = pending["data"][0]["id"]
        .as_str()
        .expect("a pending charge")
        .to_string();
    let arguments = json!({ "id": id, "reason": "Emitida em duplicidade" });
    let asked = pair
        .mcp26(
            0,
            &mcp,
            "dunning_charges_cancel",
            json!({ "name": "dunning_charges_cancel", "arguments": arguments }),
        )
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    let done = pair
        .mcp26(
            1,
            &mcp,
            "dunning_charges_cancel",
            json!({
                "name": "dunning_charges_cancel",
                "arguments": arguments,
                "requestState": state,
                "inputResponses": { "confirm": { "action": "accept", "content": { "confirm": true } } },
            }),
        )
        .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["data"]["status"],
        "canceled"
    );

    // Both replicas run the webhook worker: each event reaches the receiver once.
    let receiver = Receiver::start(&[]).await;
    let (status, _, hook) = pair
        .rest(
            1,
            "POST",
            "/v1/webhooks",
            &api,
            None,
            Some(json!({ "url": receiver.url, "events": ["customer.created"] })),
        )
        .await;
    assert_eq!(status, 201, "{hook}");
    for n in 0..10u32 {
        let (status, _, body) = pair
            .rest(
                n as usize,
                "POST",
                "/v1/customers",
                &api,
                None,
                Some(customer(100 + n)),
            )
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let mut by_event: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..100 {
        by_event.clear();
        for post in receiver.received() {
            *by_event
                .entry(post.json()["id"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
        if by_event.len() >= 10 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(by_event.len(), 10, "every event delivered: {by_event:?}");
    // Give a duplicate the time it would need to show up.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let total = receiver.received().len();
    assert_eq!(total, 10, "no event delivered twice: {by_event:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_one_replica_under_load_loses_nothing_and_the_survivor_finishes_its_keys() {
    let Some(pair) = start_pair().await else {
        return;
    };
    let api = pair.token("api", "1000000/minute");
    let Pair { a, b, client, .. } = pair;
    let (a_url, b_url) = (a.url("/v1/customers"), b.url("/v1/customers"));

    // Writers on both replicas; replica a dies in the middle.
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut writers = Vec::new();
    for writer in 0..6u32 {
        let url = if writer.is_multiple_of(2) {
            a_url.clone()
        } else {
            b_url.clone()
        };
        let (client, api, answered) = (client.clone(), api.clone(), answered.clone());
        writers.push(tokio::spawn(async move {
            let mut sent = Vec::new();
            for n in 0..10_000u32 {
                let key = format!("replica-{writer}-{n}");
                let body = customer(writer * 10_000 + n);
                sent.push((key.clone(), body.clone(), None));
                let Ok(response) = client
                    .post(&url)
                    .bearer_auth(&api)
                    .header("idempotency-key", &key)
                    .json(&body)
                    .timeout(Duration::from_secs(5))
                    .send()
                    .await
                else {
                    return sent;
                };
                if response.status() == 201 {
                    answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let id: Value = response.json().await.unwrap_or(Value::Null);
                    sent.last_mut().expect("sent").2 =
                        id["data"]["id"].as_str().map(str::to_string);
                }
                if !writer.is_multiple_of(2) && n >= 300 {
                    return sent;
                }
            }
            sent
        }));
    }
    // Kill once writes are being acknowledged (a loaded machine may take seconds to answer
    // the first), with more under way: a fixed pause killed some runs before any answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline
        && answered.load(std::sync::atomic::Ordering::Relaxed) == 0
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    a.kill_hard();
    let mut sent = Vec::new();
    for writer in writers {
        sent.extend(writer.await.expect("writer"));
    }
    let acknowledged = sent.iter().filter(|s| s.2.is_some()).count();
    assert!(acknowledged > 0);

    // Every key, retried on the survivor: the original answer or one fresh execution.
    for (key, body, first) in &sent {
        let response = client
            .post(&b_url)
            .bearer_auth(&api)
            .header("idempotency-key", key)
            .json(body)
            .timeout(Duration::from_secs(20))
            .send()
            .await
            .expect("the survivor answers");
        let status = response.status().as_u16();
        let answer: Value = response.json().await.expect("JSON");
        assert_eq!(status, 201, "{key}: {answer}");
        if let Some(first) = first {
            assert_eq!(answer["data"]["id"].as_str(), Some(first.as_str()), "{key}");
        }
        let document = body["document"].as_str().expect("document");
        let list: Value = client
            .get(format!("{b_url}?document={document}"))
            .bearer_auth(&api)
            .send()
            .await
            .expect("list")
            .json()
            .await
            .expect("JSON");
        assert_eq!(list["meta"]["total"], 1, "{key}: exactly one customer");
    }
    eprintln!(
        "{} keys, {acknowledged} acknowledged before kill -9 of one replica",
        sent.len()
    );
    drop(b);
}

/// A webhook receiver that never answers its first POST (the sender is stuck in it) and
/// answers 200 to the others; it keeps every body it read.
async fn stalling_receiver() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    let bodies: std::sync::Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
    let seen = bodies.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = Vec::new();
            let mut buffer = [0u8; 8192];
            // Read the head and the body (Content-Length) of one POST.
            let body = loop {
                let Ok(n) = socket.read(&mut buffer).await else {
                    break None;
                };
                if n == 0 {
                    break None;
                }
                request.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&request).to_string();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if body.len() >= length {
                        break Some(body.to_string());
                    }
                }
            };
            let Some(body) = body else { continue };
            let first = {
                let mut bodies = seen.lock().expect("lock");
                bodies.push(serde_json::from_str(&body).unwrap_or(Value::Null));
                bodies.len() == 1
            };
            if first {
                held.push(socket); // never answered
            } else {
                let _ = socket
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    )
                    .await;
            }
        }
    });
    (url, bodies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_a_killed_replica_had_claimed_is_finished_by_another_after_the_lease() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let args = [
        "--database-url",
        url.as_str(),
        "--engine-lease",
        "5",
        "--allow-private-webhook-targets",
    ];
    let folder = tempfile::tempdir().expect("temp dir");
    let a = ServerProcess::start(folder.path(), &args, &[]);
    let api = issue_token(
        folder.path(),
        &["--database-url", &url],
        "api",
        "1000/minute",
    );
    let client = reqwest::Client::new();
    let (receiver, bodies) = stalling_receiver().await;
    let hook: Value = client
        .post(a.url("/v1/webhooks"))
        .bearer_auth(&api)
        .json(&json!({ "url": receiver, "events": ["customer.created"] }))
        .send()
        .await
        .expect("create webhook")
        .json()
        .await
        .expect("JSON");
    let hook_id = hook["data"]["id"].as_str().expect("webhook id").to_string();
    let created = client
        .post(a.url("/v1/customers"))
        .bearer_auth(&api)
        .json(&customer(900))
        .send()
        .await
        .expect("create customer");
    assert_eq!(created.status(), 201);

    // Replica a claims the delivery and is stuck sending it when it dies.
    for _ in 0..100 {
        if !bodies.lock().expect("lock").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        bodies.lock().expect("lock").len(),
        1,
        "replica a was sending"
    );
    a.kill_hard();

    // Replica b finds the delivery leased by the dead one, waits out the lease, and sends it.
    let other = tempfile::tempdir().expect("temp dir");
    let b = ServerProcess::start(other.path(), &args, &[]);
    let mut status = Value::Null;
    for _ in 0..150 {
        let list: Value = client
            .get(b.url(&format!("/v1/webhooks/{hook_id}/deliveries")))
            .bearer_auth(&api)
            .send()
            .await
            .expect("deliveries")
            .json()
            .await
            .expect("JSON");
        status = list["data"][0]["status"].clone();
        if status == "succeeded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        status, "succeeded",
        "the survivor delivered the dead replica's work"
    );
    let bodies = bodies.lock().expect("lock").clone();
    assert_eq!(
        bodies.len(),
        2,
        "sent by the dead replica, then once by the survivor"
    );
    assert_eq!(bodies[0]["id"], bodies[1]["id"], "the same event");
}
