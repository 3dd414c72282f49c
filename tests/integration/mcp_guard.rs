//! Who may reach `/mcp` at all: Origin, Host (DNS rebinding), the canonical host, and the
//! protected resource metadata.

use http::StatusCode;
use serde_json::json;

use crate::common::TestServer;

fn list() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string()
}

#[tokio::test]
async fn a_foreign_origin_is_refused_and_the_own_origin_is_fine() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let base = [
        ("content-type", "application/json"),
        ("authorization", auth.as_str()),
        ("host", "127.0.0.1:8080"),
    ];
    let mut foreign = base.to_vec();
    foreign.push(("origin", "https://evil.example"));
    let answer = server.mcp_raw(&foreign, &list()).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Origin")
    );
    let mut own = base.to_vec();
    own.push(("origin", "http://127.0.0.1:8080"));
    assert_eq!(server.mcp_raw(&own, &list()).await.status, StatusCode::OK);
    assert_eq!(
        server.mcp_raw(&base, &list()).await.status,
        StatusCode::OK,
        "no Origin: not a browser"
    );
}

#[tokio::test]
async fn a_non_loopback_host_is_refused_when_bound_to_loopback() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    for host in ["evil.example", "evil.example:8080", "192.168.1.10:8080"] {
        let headers = [
            ("content-type", "application/json"),
            ("authorization", auth.as_str()),
            ("host", host),
        ];
        let answer = server.mcp_raw(&headers, &list()).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{host}");
        assert_eq!(answer.header("cache-control"), Some("no-store"));
    }
    for host in ["localhost:8080", "127.0.0.1", "[::1]:8080"] {
        let headers = [
            ("content-type", "application/json"),
            ("authorization", auth.as_str()),
            ("host", host),
        ];
        assert_eq!(
            server.mcp_raw(&headers, &list()).await.status,
            StatusCode::OK,
            "{host}"
        );
    }
}

#[tokio::test]
async fn other_hosts_are_redirected_to_the_canonical_url() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    let config = kobana_dunning::Config {
        bind: "0.0.0.0:8080".parse().unwrap(),
        canonical_url: Some("https://dunning.example.com".into()),
        ..kobana_dunning::Config::local()
    };
    let server = TestServer::start_configured(url, dir, config).await;
    let headers = [
        ("content-type", "application/json"),
        ("host", "old-name.example.com"),
    ];
    let answer = server.mcp_raw(&headers, &list()).await;
    assert_eq!(answer.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(
        answer.header("location"),
        Some("https://dunning.example.com/mcp")
    );
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("https://dunning.example.com/mcp")
    );
    let canonical = [
        ("content-type", "application/json"),
        ("host", "dunning.example.com"),
    ];
    assert_eq!(
        server.mcp_raw(&canonical, &list()).await.status,
        StatusCode::UNAUTHORIZED,
        "served (and asks for a token)"
    );
}

#[tokio::test]
async fn the_protected_resource_metadata_is_published_at_both_addresses() {
    let server = TestServer::start().await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let request = http::Request::builder()
            .uri(path)
            .header("host", "127.0.0.1:8080")
            .body(axum::body::Body::empty())
            .unwrap();
        let answer = server.send(request).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.body["resource"], "http://127.0.0.1:8080/mcp");
        assert!(
            answer.body["scopes_supported"]
                .as_array()
                .unwrap()
                .contains(&json!("charges:read"))
        );
        assert_eq!(answer.body["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn a_fault_in_one_request_does_not_stop_the_server() {
    // A body that is valid JSON-RPC but absurdly nested makes serde give up; the server
    // answers and keeps serving.
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let headers = [
        ("content-type", "application/json"),
        ("authorization", auth.as_str()),
    ];
    let answer = server.mcp_raw(&headers, &deep).await;
    assert!(answer.status.is_client_error());
    assert_eq!(
        server.mcp_raw(&headers, &list()).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn an_opaque_null_origin_is_refused() {
    let server = TestServer::start().await;
    let auth = format!("Bearer {}", server.token(0, "viewer", "mcp"));
    let headers = [
        ("content-type", "application/json"),
        ("authorization", auth.as_str()),
        ("host", "127.0.0.1:8080"),
        ("origin", "null"),
    ];
    assert_eq!(
        server.mcp_raw(&headers, &list()).await.status,
        StatusCode::FORBIDDEN
    );
}
