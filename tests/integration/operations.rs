//! What the person who deploys the server relies on: probes, log lines, shutdown. The real
//! binary, as a process.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};

use crate::faults::process::{ServerProcess, can_mount, issue_token};
use crate::faults::storage::Relay;
use crate::postgres::fresh_postgres_url;

async fn get(url: &str) -> (u16, Value) {
    let response = reqwest::get(url).await.expect("answers");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_flips_to_503_when_the_database_goes_away_and_back_when_it_returns() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let mut relay = Relay::start(0).await;
    let relayed = url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    let folder = tempfile::tempdir().expect("temp dir");
    let args = [
        "--database-url",
        relayed.as_str(),
        "--database-connect-timeout",
        "1",
    ];
    let server = ServerProcess::start(folder.path(), &args, &[]);
    assert_eq!(get(&server.url("/livez")).await.0, 200);
    let (status, body) = get(&server.url("/readyz")).await;
    assert_eq!(status, 200, "{body}");

    relay.cut();
    let (status, body) = get(&server.url("/readyz")).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "not_ready");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("database"),
        "{body}"
    );
    assert_eq!(
        get(&server.url("/livez")).await.0,
        200,
        "the process still serves"
    );

    let _relay = Relay::start(relay.port).await;
    let mut ready = 0;
    for _ in 0..50 {
        ready = get(&server.url("/readyz")).await.0;
        if ready == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(ready, 200, "ready again once the database is back");
}

#[tokio::test]
async fn json_logs_have_one_line_per_request_with_its_id_and_never_a_token() {
    let folder = tempfile::tempdir().expect("temp dir");
    let mut server = ServerProcess::start(
        folder.path(),
        &["--log-format", "json"],
        &[("RUST_LOG", "info")],
    );
    let api = issue_token(folder.path(), &[], "api", "1000/minute");
    let mcp = issue_token(folder.path(), &[], "mcp", "1000/minute");
    let client = reqwest::Client::new();
    let answer = client
        .get(server.url("/v1/customers?document=12345678909"))
        .bearer_auth(&api)
        .header("x-request-id", "trace-me-42")
        .send()
        .await
        .expect("answers");
    assert_eq!(answer.headers()["x-request-id"], "trace-me-42");
    let listed = client
        .post(server.url("/mcp"))
        .bearer_auth(&mcp)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .expect("answers");
    assert_eq!(listed.status(), 200);
    let called = client
        .post(server.url("/mcp"))
        .bearer_auth(&mcp)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "dunning_customers_list", "arguments": {"document": "12345678909"}}}))
        .send()
        .await
        .expect("answers");
    assert_eq!(called.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let printed = server.printed();
    let lines: Vec<Value> = printed
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let access: Vec<&Value> = lines.iter().filter(|l| l["target"] == "access").collect();
    let traced = access
        .iter()
        .find(|l| l["fields"]["request_id"] == "trace-me-42")
        .unwrap_or_else(|| panic!("the request's line:\n{printed}"));
    assert_eq!(traced["fields"]["status"], 200);
    assert_eq!(
        traced["fields"]["path"], "/v1/customers",
        "no query (it may carry a CPF)"
    );
    assert!(
        traced["fields"]["organization"]
            .as_str()
            .unwrap_or_default()
            .starts_with("org_")
    );
    let mcp_line = access
        .iter()
        .find(|l| l["fields"]["path"] == "/mcp")
        .unwrap_or_else(|| panic!("the MCP request's line:\n{printed}"));
    assert_eq!(mcp_line["fields"]["mcp_method"], "tools/list");
    assert_eq!(mcp_line["fields"]["mcp_tool"], "-");
    assert_eq!(
        mcp_line["fields"]["organization"], traced["fields"]["organization"],
        "an MCP line names the token's organization too"
    );
    assert!(
        access
            .iter()
            .any(|l| l["fields"]["mcp_method"] == "tools/call"
                && l["fields"]["mcp_tool"] == "dunning_customers_list"),
        "the tool call's line names its tool:\n{printed}"
    );
    assert_eq!(traced["fields"]["mcp_method"], "-", "not an MCP request");
    for secret in [&api, &mcp] {
        assert!(!printed.contains(secret.as_str()), "a token in the log");
    }
    assert!(!printed.contains("12345678909"), "a CPF in the log");
}

/// A webhook's host name is looked up by getaddrinfo on the runtime's blocking pool, which
/// cannot be cancelled: with a resolver that never answers, the lookup outlives the grace.
/// The process must still end when the grace is over, not when the resolver gives up (here
/// after 30 s). The server runs in a mount namespace of its own whose `/etc/resolv.conf`
/// names a UDP socket of this test that reads queries and answers none.
#[tokio::test]
async fn sigterm_ends_the_process_after_the_grace_while_a_webhook_lookup_hangs() {
    if !can_mount() {
        return;
    }
    let resolver =
        std::net::UdpSocket::bind("127.0.0.9:53").expect("a resolver address of our own");
    resolver
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let folder = tempfile::tempdir().expect("temp dir");
    let resolv = folder.path().join("resolv.conf");
    std::fs::write(
        &resolv,
        "nameserver 127.0.0.9\noptions timeout:30 attempts:1\n",
    )
    .expect("resolv.conf");
    let launcher = [
        "unshare",
        "--mount",
        "sh",
        "-c",
        "mount --bind \"$KD_RESOLV\" /etc/resolv.conf && exec \"$@\"",
        "sh",
    ];
    let mut server = ServerProcess::start_under(
        &launcher,
        folder.path(),
        &["--shutdown-grace", "500ms"],
        &[("KD_RESOLV", resolv.to_str().expect("a UTF-8 path"))],
    );
    let api = issue_token(folder.path(), &[], "api", "1000/minute");
    let client = reqwest::Client::new();
    for (path, body) in [
        (
            "/v1/webhooks",
            json!({ "url": "https://hooks.erp-do-cliente.com.br/kobana", "events": ["*"] }),
        ),
        (
            "/v1/customers",
            json!({ "name": "Cliente do webhook", "document": dunning_domain::document::cpf_with_check_digits("700000002") }),
        ),
    ] {
        let answer = client
            .post(server.url(path))
            .bearer_auth(&api)
            .json(&body)
            .send()
            .await
            .expect("answers");
        assert_eq!(
            answer.status().as_u16(),
            201,
            "{path}: {}",
            answer.text().await.unwrap_or_default()
        );
    }
    // The webhooks worker's attempt asks our resolver for the name; from now on it waits.
    let mut query = [0u8; 512];
    resolver.recv_from(&mut query).unwrap_or_else(|e| {
        panic!(
            "no DNS query reached the test's resolver ({e}):\n{}",
            server.printed()
        )
    });
    let signalled = std::time::Instant::now();
    server.signal("TERM");
    let exited = server.wait_exit(Duration::from_secs(20));
    let took = signalled.elapsed();
    assert_eq!(
        exited,
        Some(Some(0)),
        "still running {took:?} after SIGTERM:\n{}",
        server.printed()
    );
    assert!(
        took < Duration::from_secs(10),
        "exited {took:?} after SIGTERM with a 500 ms grace:\n{}",
        server.printed()
    );
}

#[tokio::test]
async fn sigterm_lets_a_request_under_way_finish_then_exits_0_with_its_key_done() {
    let folder = tempfile::tempdir().expect("temp dir");
    let mut server = ServerProcess::start(folder.path(), &["--shutdown-grace", "10s"], &[]);
    let api = issue_token(folder.path(), &[], "api", "1000/minute");
    let address = server.base_url.trim_start_matches("http://").to_string();
    let body = json!({ "name": "Cliente lento", "document": dunning_domain::document::cpf_with_check_digits("700000001") }).to_string();
    let (first, rest) = body.split_at(10);
    // A request whose body is still arriving when the signal comes.
    let mut socket = std::net::TcpStream::connect(&address).expect("connect");
    write!(
        socket,
        "POST /v1/customers HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {api}\r\ncontent-type: application/json\r\nidempotency-key: slow-1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{first}",
        body.len()
    )
    .expect("send head");
    std::thread::sleep(Duration::from_millis(300));
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    socket.write_all(rest.as_bytes()).expect("send the rest");
    let mut answer = String::new();
    socket.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    assert_eq!(
        server.wait_exit(Duration::from_secs(20)),
        Some(Some(0)),
        "{}",
        server.printed()
    );
    // The key holds its answer: nothing is left in progress.
    let url = format!(
        "sqlite://{}",
        folder.path().join("data/dunning.db").display()
    );
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.expect("open");
    let state: String = sqlx::query_scalar(
        "SELECT state FROM idempotency_records WHERE idempotency_key = 'slow-1'",
    )
    .fetch_one(&pool)
    .await
    .expect("the key");
    assert_eq!(state, "done");
}
