//! The storage under the server fails: a full disk, a read-only mount, a PostgreSQL that is
//! down or goes away. Clients get 503 problems with `Retry-After` and a stable code, reads go
//! on where they can, and writes recover by themselves once the fault clears.

use std::io::Write;
use std::time::Duration;

use dunning_domain::document::cpf_with_check_digits;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::process::{ServerProcess, Tmpfs, can_mount, unlimited_admin_token};
use crate::postgres::fresh_postgres_url;

struct Reply {
    status: u16,
    retry_after: Option<String>,
    content_type: String,
    body: Value,
}

async fn call(method: &str, url: &str, token: &str, body: Option<Value>) -> Reply {
    let client = reqwest::Client::new();
    let mut request = client
        .request(method.parse().expect("method"), url)
        .bearer_auth(token)
        .timeout(Duration::from_secs(30));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Reply {
        status: response.status().as_u16(),
        retry_after: header("retry-after"),
        content_type: header("content-type").unwrap_or_default(),
        body: response.json().await.unwrap_or(Value::Null),
    }
}

fn new_customer(n: u32) -> Value {
    let document = cpf_with_check_digits(&format!("{:09}", 300_000_000 + n));
    json!({ "name": format!("Cliente {n}"), "document": document })
}

fn assert_storage_problem(reply: &Reply, code: &str) {
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.body["code"], code, "{}", reply.body);
    assert!(reply.retry_after.is_some(), "503 carries Retry-After");
    assert!(reply.content_type.starts_with("application/problem+json"));
}

#[tokio::test]
async fn a_full_disk_answers_503_and_writes_recover_when_space_returns() {
    if !can_mount() {
        return;
    }
    let disk = Tmpfs::mount("8m");
    let server = ServerProcess::start(disk.path(), &[], &[]);
    let token = unlimited_admin_token(disk.path(), &[]);
    let customers = server.url("/v1/customers");

    // Fill what is left of the disk.
    let filler_path = disk.path().join("filler");
    let mut filler = std::fs::File::create(&filler_path).expect("filler");
    let chunk = vec![0u8; 64 * 1024];
    while filler
        .write_all(&chunk)
        .and_then(|_| filler.flush())
        .is_ok()
    {}
    drop(filler);

    let mut n = 0;
    let refused = loop {
        n += 1;
        let reply = call("POST", &customers, &token, Some(new_customer(n))).await;
        if reply.status != 201 {
            break reply;
        }
        assert!(n < 500, "the disk never filled");
    };
    eprintln!("the disk filled after {n} writes: {}", refused.body);
    assert_storage_problem(&refused, "storage_full");
    let read = call("GET", &customers, &token, None).await;
    assert_eq!(
        read.status, 200,
        "reads go on while the disk is full: {}",
        read.body
    );

    // Space comes back: writes work again without a restart, on every pooled connection.
    std::fs::remove_file(&filler_path).expect("free the space");
    for m in 0..12 {
        let reply = call("POST", &customers, &token, Some(new_customer(1000 + m))).await;
        assert_eq!(
            reply.status, 201,
            "write {m} after the disk was freed: {}",
            reply.body
        );
    }
}

#[tokio::test]
async fn a_read_only_database_serves_reads_and_refuses_writes_with_503() {
    if !can_mount() {
        return;
    }
    let disk = Tmpfs::mount("32m");
    let server = ServerProcess::start(disk.path(), &[], &[]);
    let token = unlimited_admin_token(disk.path(), &[]);
    assert_eq!(
        call("GET", &server.url("/v1/customers"), &token, None)
            .await
            .status,
        200
    );
    server.stop();
    // (A mount with a database open for writing cannot turn read-only: it is "busy".)
    disk.remount(true);

    // A start on the read-only mount says so in one line and serves reads.
    let mut server = ServerProcess::start(disk.path(), &[], &[]);
    let printed = server.printed();
    assert!(
        printed.contains("database is read-only") && printed.contains("Read-only file system"),
        "start-up says why the database cannot be written:\n{printed}"
    );
    let customers = server.url("/v1/customers");
    let read = call("GET", &customers, &token, None).await;
    assert_eq!(
        read.status, 200,
        "reads on a read-only database: {}",
        read.body
    );
    assert!(read.body["meta"]["total"].as_i64().unwrap_or(0) > 0);
    let me = call("GET", &server.url("/v1/me"), &token, None).await;
    assert_eq!(me.status, 200, "me on a read-only database: {}", me.body);
    let refused = call("POST", &customers, &token, Some(new_customer(2))).await;
    assert_storage_problem(&refused, "storage_read_only");
    server.stop();
    disk.remount(false);
}

#[tokio::test]
async fn postgres_refusing_connections_fails_start_up_at_once_naming_the_address() {
    let folder = tempfile::tempdir().expect("temp dir");
    // Nothing listens on port 1 of the loopback.
    let (exited, _) = ServerProcess::run_to_exit(
        folder.path(),
        &[
            // Port 0: the default 8080 may be taken (another test, a server the user runs).
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            "postgres://postgres@127.0.0.1:1/test",
            "--database-connect-timeout",
            "2",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(exited.code, Some(1), "{}", exited.output);
    let line = exited.output.trim();
    assert_eq!(line.lines().count(), 1, "one line: {line}");
    assert!(
        line.contains("127.0.0.1:1") && line.contains("refused"),
        "{line}"
    );
}

#[tokio::test]
async fn postgres_that_never_answers_fails_start_up_after_the_connect_timeout() {
    let folder = tempfile::tempdir().expect("temp dir");
    // A socket that accepts and then says nothing, as a hung server or a black-holed port.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = silent.local_addr().expect("address");
    let url = format!("postgres://postgres@{address}/test");
    let (exited, _) = ServerProcess::run_to_exit(
        folder.path(),
        &[
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            &url,
            "--database-connect-timeout",
            "1",
        ],
        Duration::from_secs(20),
    );
    drop(silent);
    assert_eq!(exited.code, Some(1), "{}", exited.output);
    let line = exited.output.trim();
    assert!(
        line.contains(&address.to_string()) && line.contains("no answer within 1000 ms"),
        "{line}"
    );
}

/// A TCP relay to PostgreSQL that the test can cut and restore, standing for a database
/// server that goes away and comes back.
pub(crate) struct Relay {
    pub(crate) port: u16,
    accept: Option<JoinHandle<()>>,
    links: std::sync::Arc<std::sync::Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    pub(crate) async fn start(port: u16) -> Relay {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind relay");
        let port = listener.local_addr().expect("address").port();
        let links: std::sync::Arc<std::sync::Mutex<Vec<JoinHandle<()>>>> = Default::default();
        let accepted = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect("127.0.0.1:5432").await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                accepted.lock().expect("lock").push(link);
            }
        });
        Relay {
            port,
            accept: Some(accept),
            links,
        }
    }

    /// Close the port and every open connection.
    pub(crate) fn cut(&mut self) {
        if let Some(accept) = self.accept.take() {
            accept.abort();
        }
        for link in self.links.lock().expect("lock").drain(..) {
            link.abort();
        }
    }
}

// Several threads: the relay runs on the runtime while the test waits for the process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_answers_503_and_the_server_recovers_when_it_returns() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let mut relay = Relay::start(0).await;
    let relayed = url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    assert_ne!(relayed, url, "the test database is on 127.0.0.1:5432");
    let folder = tempfile::tempdir().expect("temp dir");
    let args = [
        "--database-url",
        relayed.as_str(),
        "--database-connect-timeout",
        "2",
    ];
    let mut server = ServerProcess::start(folder.path(), &args, &[("RUST_LOG", "info")]);
    let token = unlimited_admin_token(folder.path(), &["--database-url", &url]);
    let customers = server.url("/v1/customers");
    assert_eq!(call("GET", &customers, &token, None).await.status, 200);

    relay.cut();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let read = call("GET", &customers, &token, None).await;
    assert_storage_problem(&read, "storage_unavailable");
    // `me` reads the organization's Pix status on the same typed connections as a detail.
    let me = server.url("/v1/me");
    assert_storage_problem(&call("GET", &me, &token, None).await, "storage_unavailable");
    let write = call("POST", &customers, &token, Some(new_customer(7))).await;
    assert_storage_problem(&write, "storage_unavailable");
    // The outage lasts until a worker's step met it too (each looks every second or so; a
    // pooled connection idle for less than a second is not pinged first, so the requests
    // above found the cut at once and the outage could end before any worker looked).
    for _ in 0..50 {
        if server.printed().contains("worker step failed") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The database returns on the same address: the server recovers without a restart.
    let _relay = Relay::start(relay.port).await;
    let mut recovered = None;
    for _ in 0..50 {
        let reply = call("POST", &customers, &token, Some(new_customer(8))).await;
        if reply.status == 201 {
            recovered = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        recovered.is_some(),
        "writes came back once the database did"
    );
    assert_eq!(call("GET", &customers, &token, None).await.status, 200);
    assert_eq!(call("GET", &me, &token, None).await.status, 200);
    // The workers saw the outage, backed off, and carried on.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let printed = server.printed();
    assert!(printed.contains("worker step failed"), "{printed}");
    assert!(printed.contains("worker recovered"), "{printed}");
}
