//! `Idempotency-Key` replay, rate limits (over REST and surfaced in MCP `meta`, counted in
//! memory, shared by replicas) and how long a revoked token keeps working.

use http::StatusCode;
use serde_json::json;

use crate::common::{TestServer, tool_problem};

fn new_customer(document: &str) -> serde_json::Value {
    json!({"name": "Cliente Idempotente", "document": document})
}

async fn customer_count(server: &TestServer) -> i64 {
    let list = server
        .rest(
            "GET",
            "/v1/customers",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    list.body["meta"]["total"].as_i64().unwrap()
}

#[tokio::test]
async fn the_same_key_and_request_replays_the_first_response() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let headers = [("idempotency-key", "k-001")];
    let first = server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(new_customer("11144477735")),
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    assert_eq!(first.header("idempotent-replayed"), Some("false"));
    // Same JSON, other key order and spacing: the same request.
    let again = server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(json!({"document": "11144477735", "name": "Cliente Idempotente"})),
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("etag"), first.header("etag"));
    assert_eq!(customer_count(&server).await, 6, "created once");
}

#[tokio::test]
async fn the_same_key_with_another_request_is_refused() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let headers = [("idempotency-key", "k-002")];
    server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(new_customer("11144477735")),
        )
        .await;
    let other = server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(new_customer("52998224725")),
        )
        .await;
    assert_eq!(other.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(other.body["code"], "idempotency_key_reused");
    assert_eq!(customer_count(&server).await, 6);
}

#[tokio::test]
async fn a_failed_request_does_not_use_up_its_key() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let headers = [("idempotency-key", "k-003")];
    let bad = server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(json!({"name": "Sem documento"})),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    let fixed = server
        .rest_with(
            "POST",
            "/v1/customers",
            &token,
            &headers,
            Some(new_customer("11144477735")),
        )
        .await;
    assert_eq!(fixed.status, StatusCode::CREATED, "{}", fixed.text);
}

#[tokio::test]
async fn concurrent_duplicates_execute_once() {
    let server = std::sync::Arc::new(TestServer::start().await);
    let token = server.token(0, "admin", "api");
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let (server, token) = (server.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            server
                .rest_with(
                    "POST",
                    "/v1/customers",
                    &token,
                    &[("idempotency-key", "k-race")],
                    Some(new_customer("11144477735")),
                )
                .await
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        let answer = task.await.unwrap();
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
        ids.push(answer.body["data"]["id"].as_str().unwrap().to_string());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "every duplicate got the first response");
    assert_eq!(customer_count(&server).await, 6);
}

#[tokio::test]
async fn mcp_writes_report_the_key_and_whether_it_was_replayed() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let args =
        json!({"name": "Via Assistente", "document": "12312312387", "idempotency_key": "mcp-1"});
    let first = server
        .call_tool(&token, "dunning_customers_create", args.clone())
        .await;
    assert_eq!(
        first["structuredContent"]["meta"]["idempotency_key"], "mcp-1",
        "{first}"
    );
    assert_eq!(
        first["structuredContent"]["meta"]["idempotent_replay"],
        false
    );
    let second = server
        .call_tool(&token, "dunning_customers_create", args)
        .await;
    assert_eq!(
        second["structuredContent"]["meta"]["idempotent_replay"],
        true
    );
    assert_eq!(
        second["structuredContent"]["data"]["id"],
        first["structuredContent"]["data"]["id"]
    );
    let reused = server
        .call_tool(
            &token,
            "dunning_customers_create",
            json!({"name": "Outro", "document": "11144477735", "idempotency_key": "mcp-1"}),
        )
        .await;
    assert_eq!(tool_problem(&reused)["code"], "idempotency_key_reused");
}

#[tokio::test]
async fn every_authenticated_response_carries_rate_limit_headers_and_mcp_meta_repeats_them() {
    let server = TestServer::start().await;
    let answer = server
        .rest("GET", "/v1/me", &server.token(0, "admin", "api"), None)
        .await;
    assert_eq!(answer.header("ratelimit-limit"), Some("600"));
    assert_eq!(answer.header("ratelimit-remaining"), Some("599"));
    assert!(
        answer
            .header("ratelimit-reset")
            .unwrap()
            .parse::<u64>()
            .unwrap()
            <= 60
    );
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_list",
            json!({}),
        )
        .await;
    let rate = &result["structuredContent"]["meta"]["rate_limit"];
    assert_eq!(rate["limit"], 600);
    assert_eq!(rate["remaining"], 599);
}

#[tokio::test]
async fn a_spent_window_is_429_with_retry_after_and_counts_per_token() {
    let server = TestServer::start().await;
    let org = server.org_id(0).to_string();
    let db = &server.state.db;
    let person = dunning_store::orgs::find_person(
        db,
        &org,
        &server.credentials.organizations[0].people[3].email,
    )
    .await
    .unwrap()
    .unwrap();
    let token = kobana_dunning::auth::tokens::generate(kobana_dunning::auth::Audience::Mcp);
    let scopes: Vec<String> = kobana_dunning::auth::roles::permissions("viewer")
        .iter()
        .map(|s| s.to_string())
        .collect();
    dunning_store::orgs::create_token(
        db,
        dunning_store::orgs::NewToken {
            organization_id: &org,
            person_id: &person.id,
            audience: "mcp",
            scopes: &scopes,
            toolsets: None,
            discovery: None,
            token_hash: &kobana_dunning::auth::tokens::hash(&token),
            label: None,
            rate_limit: Some((2, 3600)),
        },
    )
    .await
    .unwrap();
    crate::common::room_in_the_rate_window(3600).await;
    for _ in 0..2 {
        let ok = server.call_tool(&token, "dunning_me", json!({})).await;
        assert!(ok.get("isError").is_none(), "{ok}");
    }
    let limited = server.call_tool(&token, "dunning_me", json!({})).await;
    let problem = tool_problem(&limited);
    assert_eq!(problem["status"], 429);
    assert_eq!(problem["code"], "rate_limited");
    let retry = problem["retry_after"].as_u64().unwrap();
    assert!(retry > 0 && retry <= 3600);
    assert_eq!(
        problem["detail"],
        format!("Rate limit exceeded: retry in {retry} seconds")
    );
    // Another token of the same person is not affected.
    let other = server
        .call_tool(&server.token(0, "viewer", "mcp"), "dunning_me", json!({}))
        .await;
    assert!(other.get("isError").is_none());
}

#[tokio::test]
async fn an_organization_limit_applies_to_tokens_without_their_own() {
    let server = TestServer::start().await;
    dunning_store::orgs::set_organization_rate_limit(
        &server.state.db,
        server.org_id(1),
        Some((1, 3600)),
    )
    .await
    .unwrap();
    crate::common::room_in_the_rate_window(3600).await;
    let token = server.token(1, "admin", "api");
    assert_eq!(
        server.rest("GET", "/v1/me", &token, None).await.status,
        StatusCode::OK
    );
    let limited = server.rest("GET", "/v1/me", &token, None).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.header("retry-after").is_some());
    assert_eq!(limited.header("ratelimit-remaining"), Some("0"));
}

#[tokio::test]
async fn notify_derives_a_key_so_a_blind_retry_does_not_contact_the_debtor_twice() {
    let server = TestServer::start().await;
    let token = server.token(0, "collector", "mcp");
    let charges = server
        .call_tool(
            &token,
            "dunning_charges_list",
            json!({"status": "pending", "per_page": 100}),
        )
        .await;
    let customers = server
        .call_tool(&token, "dunning_customers_list", json!({"per_page": 100}))
        .await;
    let with_email: Vec<&str> = customers["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["email"].is_string())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let charge = charges["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| with_email.contains(&c["customer_id"].as_str().unwrap()))
        .expect("a pending charge of a customer with an e-mail");
    let id = charge["id"].as_str().unwrap();
    let args = json!({"id": id, "channel": "email"});
    let first = server
        .call_tool(&token, "dunning_charges_notify", args.clone())
        .await;
    assert!(first.get("isError").is_none(), "{first}");
    let key = first["structuredContent"]["meta"]["idempotency_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        key.starts_with("auto-"),
        "the server derived and reported a key: {key}"
    );
    assert_eq!(
        first["structuredContent"]["meta"]["idempotent_replay"],
        false
    );
    let again = server
        .call_tool(&token, "dunning_charges_notify", args)
        .await;
    assert_eq!(
        again["structuredContent"]["meta"]["idempotency_key"],
        key.as_str()
    );
    assert_eq!(
        again["structuredContent"]["meta"]["idempotent_replay"],
        true
    );
    assert_eq!(
        again["structuredContent"]["data"]["id"],
        first["structuredContent"]["data"]["id"]
    );
    let deliveries = server
        .rest(
            "GET",
            &format!("/v1/deliveries?charge_id={id}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(deliveries.body["meta"]["total"], 1, "one message, not two");
    // Another person asking the same gets their own key: keys are per caller.
    let other = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_charges_notify",
            json!({"id": id, "channel": "email"}),
        )
        .await;
    assert_ne!(
        other["structuredContent"]["meta"]["idempotency_key"],
        key.as_str()
    );
}

#[tokio::test]
async fn a_replayed_webhook_create_shows_its_secret_for_ten_minutes_then_never_again() {
    let server = TestServer::start().await;
    let admin = server.token(0, "admin", "api");
    let body = json!({ "url": "https://erp.example.com.br/hooks", "events": ["charge.paid"] });
    let key = [("idempotency-key", "hook-once")];
    let first = server
        .rest_with("POST", "/v1/webhooks", &admin, &key, Some(body.clone()))
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let secret = first.body["data"]["secret"]
        .as_str()
        .expect("secret shown")
        .to_string();
    let soon = server
        .rest_with("POST", "/v1/webhooks", &admin, &key, Some(body.clone()))
        .await;
    assert_eq!(soon.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        soon.body["data"]["secret"],
        secret.as_str(),
        "a quick retry still learns it"
    );

    let later = time::OffsetDateTime::now_utc() + time::Duration::minutes(11);
    let report = dunning_engine::housekeeping::tick(&server.state.engine, later)
        .await
        .expect("housekeeping");
    assert_eq!(report.secrets_redacted, 1);
    let stored: Vec<String> = sqlx::query_scalar("SELECT response_body FROM idempotency_records")
        .fetch_all(&server.state.db.pool)
        .await
        .expect("records");
    assert!(
        stored.iter().all(|body| !body.contains(&secret)),
        "the secret is no longer at rest in replays"
    );
    let replay = server
        .rest_with("POST", "/v1/webhooks", &admin, &key, Some(body))
        .await;
    assert_eq!(replay.status, StatusCode::CREATED);
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    assert_eq!(replay.body["data"]["id"], first.body["data"]["id"]);
    assert!(
        replay.body["data"].get("secret").is_none(),
        "{}",
        replay.text
    );
}

/// The day (as an epoch-day number) a daily window belongs to: tests that count writes or
/// claims in one window start again when a day boundary falls inside them.
fn epoch_day() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp() / 86_400
}

#[tokio::test]
async fn reads_are_counted_in_memory_and_do_not_write_to_the_database() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    // No background flush during the test: only requests could write.
    let config = kobana_dunning::Config {
        rate_limit_flush: std::time::Duration::from_secs(3600),
        ..kobana_dunning::Config::local()
    };
    let server = TestServer::start_configured(url.clone(), dir, config).await;
    dunning_store::orgs::set_organization_rate_limit(
        &server.state.db,
        server.org_id(0),
        Some((1_000_000, 86_400)),
    )
    .await
    .unwrap();
    let (api, mcp) = (
        server.token(0, "admin", "api"),
        server.token(0, "admin", "mcp"),
    );
    // Another connection sees `data_version` change whenever someone else commits.
    let (observer, _) = dunning_store::Db::open(&url).await.unwrap();
    let mut connection = observer.pool.acquire().await.unwrap();
    let mut attempts = 0;
    loop {
        attempts += 1;
        let day = epoch_day();
        // The first request of a window claims a block of it: that is a write.
        server.rest("GET", "/v1/me", &api, None).await;
        server.call_tool(&mcp, "dunning_me", json!({})).await;
        let before: i64 = sqlx::query_scalar("PRAGMA data_version")
            .fetch_one(&mut *connection)
            .await
            .unwrap();
        for _ in 0..50 {
            let me = server.rest("GET", "/v1/me", &api, None).await;
            assert_eq!(me.status, StatusCode::OK);
            let listed = server.rest("GET", "/v1/charges", &api, None).await;
            assert_eq!(listed.status, StatusCode::OK);
        }
        for _ in 0..10 {
            let me = server.call_tool(&mcp, "dunning_me", json!({})).await;
            assert!(me.get("isError").is_none(), "{me}");
        }
        let after: i64 = sqlx::query_scalar("PRAGMA data_version")
            .fetch_one(&mut *connection)
            .await
            .unwrap();
        if epoch_day() == day {
            assert_eq!(before, after, "a read wrote to the database");
            break;
        }
        assert!(attempts < 3, "the day changed three times");
    }
    if attempts == 1 {
        // Still counted, exactly: this is the 102nd REST request and the 12th MCP one.
        let me = server.rest("GET", "/v1/me", &api, None).await;
        assert_eq!(me.header("ratelimit-remaining"), Some("999898"));
        let me = server.call_tool(&mcp, "dunning_me", json!({})).await;
        assert_eq!(
            me["structuredContent"]["meta"]["rate_limit"]["remaining"],
            999_988
        );
    }
}

#[tokio::test]
async fn one_process_admits_exactly_the_limit_under_concurrent_requests() {
    let server = std::sync::Arc::new(TestServer::start().await);
    dunning_store::orgs::set_organization_rate_limit(
        &server.state.db,
        server.org_id(1),
        Some((10, 86_400)),
    )
    .await
    .unwrap();
    let token = server.token(1, "admin", "api");
    let day = epoch_day();
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let (server, token) = (server.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            server.rest("GET", "/v1/me", &token, None).await
        }));
    }
    let mut remaining = Vec::new();
    let mut refused = 0;
    for task in tasks {
        let answer = task.await.unwrap();
        match answer.status {
            StatusCode::OK => remaining.push(
                answer
                    .header("ratelimit-remaining")
                    .unwrap()
                    .parse::<i64>()
                    .unwrap(),
            ),
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(answer.header("ratelimit-remaining"), Some("0"));
                assert!(answer.header("retry-after").is_some());
                refused += 1;
            }
            other => panic!("unexpected {other}: {}", answer.text),
        }
    }
    if epoch_day() != day {
        return; // Two windows: nothing exact to say.
    }
    remaining.sort();
    assert_eq!(remaining, (0..10).collect::<Vec<i64>>());
    assert_eq!(refused, 20);
}

#[tokio::test]
async fn replicas_never_admit_more_than_the_limit_and_give_back_what_they_do_not_use() {
    use std::sync::Arc;
    use std::time::Duration;

    use kobana_dunning::rate_limiter::Limiter;

    let server = TestServer::start().await;
    let db = server.state.db.clone();
    // Two replicas over one database; only `a` is flushed, by hand.
    let a = Arc::new(Limiter::new(db.clone(), Duration::from_secs(3600)));
    let b = Arc::new(Limiter::new(db, Duration::from_millis(20)));
    for attempt in 0..3 {
        let token = format!("tok_replicas_{attempt}");
        let day = epoch_day();
        let admitted = |state: dunning_store::rate_windows::WindowState| !state.exceeded();
        // `a` admits 3 and, claiming in growing blocks, holds a fourth it has not used.
        for _ in 0..3 {
            assert!(admitted(a.hit(&token, 8, 86_400).await.unwrap()));
        }
        // `b` gets the rest of the claimable budget, then is refused early: 7 of 8 admitted.
        let mut by_b = 0;
        while admitted(b.hit(&token, 8, 86_400).await.unwrap()) {
            by_b += 1;
            assert!(by_b <= 5, "more than the limit admitted");
        }
        assert_eq!(by_b, 4);
        // Once `a` is idle for a flush interval it gives its unused request back, and `b`,
        // asking again after its own interval, is admitted once more: 8 in all, then none.
        a.flush_once().await;
        a.flush_once().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(admitted(b.hit(&token, 8, 86_400).await.unwrap()));
        assert!(!admitted(b.hit(&token, 8, 86_400).await.unwrap()));
        assert!(!admitted(a.hit(&token, 8, 86_400).await.unwrap()));
        if epoch_day() == day {
            return;
        }
    }
    panic!("the day changed three times");
}

/// Revoke a token the way an operator does: in the database, by hash.
async fn revoke(server: &TestServer, token: &str) {
    let revoked = sqlx::query("UPDATE tokens SET revoked_at = $1 WHERE token_hash = $2")
        .bind("2026-01-01T00:00:00Z")
        .bind(kobana_dunning::auth::tokens::hash(token))
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(revoked.rows_affected(), 1);
}

async fn server_with_token_cache(ttl: std::time::Duration) -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let config = kobana_dunning::Config {
        token_cache_ttl: ttl,
        ..kobana_dunning::Config::local()
    };
    TestServer::start_configured(url, dir, config).await
}

#[tokio::test]
async fn a_revoked_token_is_refused_on_rest_and_mcp_once_the_token_cache_forgets_it() {
    let ttl = std::time::Duration::from_millis(200);
    let server = server_with_token_cache(ttl).await;
    let (api, mcp) = (
        server.token(0, "admin", "api"),
        server.token(0, "admin", "mcp"),
    );
    // Both are looked up, and remembered.
    assert_eq!(
        server.rest("GET", "/v1/me", &api, None).await.status,
        StatusCode::OK
    );
    let me = server.call_tool(&mcp, "dunning_me", json!({})).await;
    assert!(me.get("isError").is_none(), "{me}");
    revoke(&server, &api).await;
    revoke(&server, &mcp).await;
    tokio::time::sleep(ttl + std::time::Duration::from_millis(50)).await;
    let refused = server.rest("GET", "/v1/me", &api, None).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    assert_eq!(refused.body["detail"], "The token is unknown or revoked");
    let refused = server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &format!("Bearer {mcp}")),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "dunning_me", "arguments": {}}})
            .to_string(),
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    assert_eq!(refused.body["detail"], "The token is unknown or revoked");
}

#[tokio::test]
async fn within_the_token_cache_ttl_a_revoked_token_still_works() {
    // A TTL far longer than the test: what the cache remembers is what answers.
    let server = server_with_token_cache(std::time::Duration::from_secs(3600)).await;
    let api = server.token(0, "admin", "api");
    assert_eq!(
        server.rest("GET", "/v1/me", &api, None).await.status,
        StatusCode::OK
    );
    revoke(&server, &api).await;
    assert_eq!(
        server.rest("GET", "/v1/me", &api, None).await.status,
        StatusCode::OK,
        "remembered for the TTL"
    );
}
