//! The HTTP server over real sockets on 127.0.0.1 (`server/serve.rs`, as `main.rs` runs it):
//! the header, idle and body timeouts, the connection cap and graceful shutdown. Timeouts are
//! shortened to a few hundred milliseconds; waits are bounded by [`HANG`] so that a server that
//! never closes fails the test instead of hanging it.

use std::net::SocketAddr;
use std::time::Duration;

use kobana_dunning::Config;
use kobana_dunning::http::serve::HttpLimits;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::TestServer;

/// A bound on waiting for something that must happen; reaching it means the server hung.
const HANG: Duration = Duration::from_secs(30);

const LONG: Duration = Duration::from_secs(600);

async fn listening(limits: HttpLimits) -> (TestServer, SocketAddr) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let config = Config {
        http: limits,
        ..Config::local()
    };
    let server = TestServer::start_configured(url, dir, config).await;
    let base = server.listen().await;
    let address = base.trim_start_matches("http://").parse().expect("address");
    (server, address)
}

fn limits(header: Duration, idle: Duration, body: Duration, connections: usize) -> HttpLimits {
    HttpLimits {
        header_timeout: header,
        idle_timeout: idle,
        body_timeout: body,
        max_connections: connections,
    }
}

const GET_OPENAPI: &[u8] = b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/// Read one HTTP/1.1 response with a `Content-Length`: its status line, head and body.
async fn read_response(stream: &mut TcpStream) -> (u16, String, Vec<u8>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "connection closed before a response: {buffer:?}");
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let status = head[9..12].parse().expect("status");
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .expect("content-length");
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "connection closed inside a body");
        buffer.extend_from_slice(&chunk[..n]);
    }
    (status, head, buffer[head_end..head_end + length].to_vec())
}

/// Wait until the server closes the connection (EOF or reset), reading what it still sends.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut chunk = [0u8; 1024];
    tokio::time::timeout(HANG, async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await
    .is_ok()
}

#[tokio::test]
async fn a_client_that_sends_half_a_header_is_disconnected_after_the_header_timeout() {
    let (_server, address) = listening(limits(Duration::from_millis(300), LONG, LONG, 16)).await;
    // A whole request is served.
    let mut whole = TcpStream::connect(address).await.expect("connect");
    whole.write_all(GET_OPENAPI).await.expect("write");
    assert_eq!(read_response(&mut whole).await.0, 200);
    // Half a head is not waited for past the header timeout (the idle timeout is long).
    let mut half = TcpStream::connect(address).await.expect("connect");
    half.write_all(b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("write");
    assert!(
        closed_by_server(&mut half).await,
        "still open after the header timeout"
    );
    // So is a connection that sends nothing at all.
    let mut silent = TcpStream::connect(address).await.expect("connect");
    assert!(
        closed_by_server(&mut silent).await,
        "a silent connection stayed open"
    );
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let (_server, address) = listening(limits(LONG, Duration::from_millis(300), LONG, 16)).await;
    let mut stream = TcpStream::connect(address).await.expect("connect");
    for _ in 0..2 {
        stream.write_all(GET_OPENAPI).await.expect("write");
        let (status, head, _) = read_response(&mut stream).await;
        assert_eq!(status, 200);
        assert!(
            !head.to_ascii_lowercase().contains("connection: close"),
            "{head}"
        );
    }
    assert!(
        closed_by_server(&mut stream).await,
        "the idle connection stayed open"
    );
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_answers_408_and_closes() {
    let (server, address) = listening(limits(LONG, LONG, Duration::from_millis(300), 16)).await;
    let token = server.token(0, "admin", "api");
    let mut stream = TcpStream::connect(address).await.expect("connect");
    let head = format!(
        "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":"
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    let (status, head, body) = tokio::time::timeout(HANG, read_response(&mut stream))
        .await
        .expect("the server waited for the body past its timeout");
    assert_eq!(status, 408, "{head}");
    let problem: Value = serde_json::from_slice(&body).expect("problem JSON");
    assert_eq!(problem["code"], "request_timeout");
    assert!(
        head.to_ascii_lowercase()
            .contains("application/problem+json"),
        "{head}"
    );
    assert!(
        closed_by_server(&mut stream).await,
        "the connection stayed open"
    );
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_one_closes() {
    let (_server, address) = listening(limits(LONG, LONG, LONG, 1)).await;
    let mut first = TcpStream::connect(address).await.expect("connect");
    first.write_all(GET_OPENAPI).await.expect("write");
    assert_eq!(read_response(&mut first).await.0, 200);
    // The kernel completes the second handshake, but the server does not take it up.
    let mut second = TcpStream::connect(address).await.expect("connect");
    second.write_all(GET_OPENAPI).await.expect("write");
    // The first connection is still served...
    first.write_all(GET_OPENAPI).await.expect("write");
    assert_eq!(read_response(&mut first).await.0, 200);
    // ...and the second still gets nothing (a correct server never answers here, so this
    // wait cannot fail spuriously).
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), second.peek(&mut byte)).await;
    assert!(early.is_err(), "a connection over the cap was served");
    drop(first);
    let (status, _, _) = tokio::time::timeout(HANG, read_response(&mut second))
        .await
        .expect("the waiting connection was served once a slot freed");
    assert_eq!(status, 200);
}

#[tokio::test]
async fn shutdown_closes_idle_connections_and_lets_a_started_request_finish() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    let server = TestServer::start_configured(url, dir, Config::local()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(kobana_dunning::http::serve::serve(
        listener,
        server.app.clone(),
        server.state.config.http.clone(),
        async {
            let _ = stopped.await;
        },
    ));
    let mut idle = TcpStream::connect(address).await.expect("connect");
    idle.write_all(GET_OPENAPI).await.expect("write");
    assert_eq!(read_response(&mut idle).await.0, 200);
    // A request whose body is still coming when the shutdown starts. `Expect: 100-continue`
    // makes the server say when the handler starts reading the body: the request is then
    // surely under way.
    let token = server.token(0, "admin", "api");
    let body = json!({"name": "Durante o Desligamento", "document": "11144477735"}).to_string();
    let mut busy = TcpStream::connect(address).await.expect("connect");
    let head = format!(
        "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    busy.write_all(head.as_bytes()).await.expect("write");
    let mut interim = [0u8; 25];
    busy.read_exact(&mut interim).await.expect("100 Continue");
    assert!(
        interim.starts_with(b"HTTP/1.1 100 Continue\r\n\r\n"),
        "{interim:?}"
    );
    stop.send(()).expect("serving");
    assert!(
        closed_by_server(&mut idle).await,
        "the idle connection stayed open"
    );
    busy.write_all(body.as_bytes()).await.expect("write");
    let (status, head, _) = read_response(&mut busy).await;
    assert_eq!(status, 201, "{head}");
    tokio::time::timeout(HANG, serving)
        .await
        .expect("serve returned after the shutdown")
        .expect("task")
        .expect("served");
}
