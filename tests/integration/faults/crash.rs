//! `kill -9` during idempotent writes: a retry with the same key after the crash gets the
//! original answer (the response committed with the effect) or a single fresh execution
//! (nothing had committed), never a duplicate and never a wait past the lease.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dunning_domain::document::cpf_with_check_digits;
use serde_json::{Value, json};

use super::process::{ServerProcess, unlimited_admin_token};
use crate::postgres::fresh_postgres_url;

/// Seconds a key is held without renewal in these tests.
const LEASE: &str = "2";

/// What one key got from the first server before it died.
#[derive(Debug, Clone, Default)]
struct FirstAttempt {
    document: String,
    /// The customer id when the first server answered 201.
    answered: Option<String>,
}

#[tokio::test]
async fn kill_9_during_idempotent_writes_on_sqlite_loses_and_duplicates_nothing() {
    let folder = tempfile::tempdir().expect("temp dir");
    crash_under_load(folder.path(), &[]).await;
}

#[tokio::test]
async fn kill_9_during_idempotent_writes_on_postgres_loses_and_duplicates_nothing() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let folder = tempfile::tempdir().expect("temp dir");
    crash_under_load(folder.path(), &["--database-url", &url]).await;
}

async fn crash_under_load(folder: &std::path::Path, database: &[&str]) {
    let mut args = vec!["--idempotency-lease", LEASE];
    args.extend_from_slice(database);
    let server = ServerProcess::start(folder, &args, &[]);
    let token = unlimited_admin_token(folder, database);
    let attempts: Arc<Mutex<BTreeMap<String, FirstAttempt>>> = Arc::default();
    let client = reqwest::Client::new();

    // Eight writers, each sending new keys as fast as the server answers.
    let mut writers = Vec::new();
    for writer in 0..8u32 {
        let (client, token, attempts) = (client.clone(), token.clone(), attempts.clone());
        let url = server.url("/v1/customers");
        writers.push(tokio::spawn(async move {
            for n in 0..10_000u32 {
                let key = format!("crash-{writer}-{n}");
                let document =
                    cpf_with_check_digits(&format!("{:09}", 100_000_000 + writer * 10_000 + n));
                attempts.lock().expect("lock").insert(
                    key.clone(),
                    FirstAttempt {
                        document: document.clone(),
                        answered: None,
                    },
                );
                let Ok(response) = create_customer(&client, &url, &token, &key, &document).await
                else {
                    return; // the server is gone
                };
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                if status == 201 {
                    let id = body["data"]["id"].as_str().map(str::to_string);
                    attempts
                        .lock()
                        .expect("lock")
                        .get_mut(&key)
                        .expect("key")
                        .answered = id;
                }
            }
        }));
    }
    // Kill once writes are being acknowledged (a loaded machine may take seconds to answer
    // the first), with more under way: a fixed pause killed some runs before any answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline
        && !attempts
            .lock()
            .expect("lock")
            .values()
            .any(|a| a.answered.is_some())
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill_hard();
    for writer in writers {
        let _ = writer.await;
    }
    let attempts = attempts.lock().expect("lock").clone();
    let answered = attempts.values().filter(|a| a.answered.is_some()).count();
    assert!(answered > 0, "no write was acknowledged before the kill");

    // The same database, a new process: every key is retried, as a client would.
    let server = ServerProcess::start(folder, &args, &[]);
    let url = server.url("/v1/customers");
    let mut replayed = 0;
    let mut fresh = 0;
    for (key, attempt) in &attempts {
        let response = create_customer(&client, &url, &token, key, &attempt.document)
            .await
            .expect("the new server answers");
        let status = response.status().as_u16();
        let was_replayed = response
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|v| v == "true");
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(status, 201, "retry of {key} after the crash: {body}");
        let id = body["data"]["id"].as_str().expect("id").to_string();
        if let Some(first) = &attempt.answered {
            assert!(was_replayed, "{key} was acknowledged, so its retry replays");
            assert_eq!(&id, first, "{key}: the replay is the original answer");
        }
        if was_replayed {
            replayed += 1;
        } else {
            fresh += 1;
        }
    }
    eprintln!(
        "{} keys: {answered} acknowledged before kill -9, {replayed} replayed, {fresh} ran once after",
        attempts.len()
    );

    // What the database holds: exactly one customer per key, none twice.
    for (key, attempt) in &attempts {
        let list: Value = client
            .get(server.url(&format!("/v1/customers?document={}", attempt.document)))
            .bearer_auth(&token)
            .send()
            .await
            .expect("list")
            .json()
            .await
            .expect("JSON");
        assert_eq!(list["meta"]["total"], 1, "{key}: one customer, not {list}");
    }
}

async fn create_customer(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    key: &str,
    document: &str,
) -> reqwest::Result<reqwest::Response> {
    client
        .post(url)
        .bearer_auth(token)
        .header("idempotency-key", key)
        .json(&json!({ "name": format!("Cliente {key}"), "document": document }))
        .timeout(Duration::from_secs(20))
        .send()
        .await
}
