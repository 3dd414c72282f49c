//! `/metrics`: counters and histograms move for what the server did, the labels never name a
//! tenant, the text passes `promtool check metrics`, and a real Prometheus scrapes it.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::common::TestServer;
use crate::mcp_authorization::mcp_token;

/// The scrape, as Prometheus would read it.
pub async fn scrape(server: &TestServer) -> String {
    let request = Request::get("/metrics").body(Body::empty()).unwrap();
    let answer = server.send(request).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(
        answer
            .header("content-type")
            .unwrap_or_default()
            .starts_with("text/plain; version=0.0.4"),
        "{:?}",
        answer.headers
    );
    answer.text
}

/// The value of the sample named `name` whose labels include every `labels` pair (0 when
/// there is none).
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.rsplit_once(' '))
        .filter(|(series, _)| {
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            metric == name
                && labels
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")))
        })
        .map(|(_, value)| value.parse::<f64>().expect("a number"))
        .sum()
}

#[tokio::test]
async fn counters_and_histograms_move_for_a_rest_call_an_mcp_tool_call_a_refusal_and_a_confirmation()
 {
    let server = TestServer::start().await;
    let before = scrape(&server).await;
    let listed = &[("operation", "customers_list"), ("status_class", "2xx")];
    let tool = &[
        ("method", "tools/call"),
        ("tool", "dunning_customers_list"),
        ("era", "handshake"),
        ("outcome", "ok"),
    ];
    assert_eq!(sample(&before, "dunning_http_requests_total", listed), 0.0);

    // A REST call, and a write (its transaction takes a pool connection; on SQLite a read
    // outside a transaction takes none, `dunning_store::sqlite_reads`).
    let api = server.token(0, "admin", "api");
    let answer = server.rest("GET", "/v1/customers", &api, None).await;
    assert_eq!(answer.status, StatusCode::OK);
    let plan = json!({"name": "Lembrete", "steps": [{"offset_days": -3, "action": "notify", "channel": "email"}]});
    let written = server
        .rest("POST", "/v1/collection_plans", &api, Some(plan))
        .await;
    assert_eq!(written.status, StatusCode::CREATED, "{}", written.text);
    // An MCP tool call.
    let mcp = server.token(0, "admin", "mcp");
    server
        .call_tool(&mcp, "dunning_customers_list", json!({}))
        .await;
    // A refusal: the second request of a token allowed one a minute.
    let limited = mcp_token(&server, "admin", None, Some((1, 60))).await;
    server.mcp(&limited, "tools/list", json!({})).await;
    let refused = server.mcp(&limited, "tools/list", json!({})).await;
    assert_eq!(refused.body["error"]["code"], -32000, "{}", refused.text);
    // A 403: a viewer's token may not create customers.
    let viewer = server.token(0, "viewer", "api");
    let forbidden = server
        .rest("POST", "/v1/customers", &viewer, Some(json!({})))
        .await;
    assert_eq!(
        forbidden.status,
        StatusCode::FORBIDDEN,
        "{}",
        forbidden.text
    );
    // A confirmation asked, then declined.
    let charges = server
        .rest("GET", "/v1/charges?status=pending&per_page=1", &api, None)
        .await;
    let id = charges.body["data"][0]["id"].as_str().unwrap().to_string();
    let arguments = json!({"id": id, "reason": "Emitida em duplicidade"});
    let elicitation = json!({ "elicitation": { "form": {} } });
    let first = server
        .mcp26(
            &mcp,
            "tools/call",
            json!({"name": "dunning_charges_cancel", "arguments": arguments}),
            elicitation.clone(),
        )
        .await;
    let state = first.body["result"]["requestState"].as_str().unwrap();
    let declined = server
        .mcp26(
            &mcp,
            "tools/call",
            json!({
                "name": "dunning_charges_cancel",
                "arguments": arguments,
                "requestState": state,
                "inputResponses": {"confirm": {"action": "decline"}},
            }),
            elicitation,
        )
        .await;
    assert_eq!(declined.status, StatusCode::OK, "{}", declined.text);

    let after = scrape(&server).await;
    assert_eq!(sample(&after, "dunning_http_requests_total", listed), 1.0);
    assert_eq!(
        sample(
            &after,
            "dunning_http_request_duration_seconds_count",
            listed
        ),
        1.0
    );
    assert_eq!(
        sample(
            &after,
            "dunning_http_requests_total",
            &[("operation", "customers_create"), ("status_class", "4xx")]
        ),
        1.0
    );
    assert_eq!(sample(&after, "dunning_mcp_requests_total", tool), 1.0);
    assert_eq!(
        sample(
            &after,
            "dunning_mcp_request_duration_seconds_count",
            &[("method", "tools/call"), ("tool", "dunning_customers_list")]
        ),
        1.0
    );
    assert_eq!(
        sample(
            &after,
            "dunning_mcp_requests_total",
            &[("method", "tools/list"), ("outcome", "rate_limited")]
        ),
        1.0
    );
    assert_eq!(
        sample(
            &after,
            "dunning_rate_limit_refusals_total",
            &[("surface", "mcp")]
        ),
        1.0
    );
    for outcome in ["asked", "declined"] {
        assert_eq!(
            sample(
                &after,
                "dunning_mcp_confirmations_total",
                &[("outcome", outcome)]
            ),
            1.0,
            "{outcome}"
        );
    }
    assert_eq!(
        sample(
            &after,
            "dunning_mcp_requests_total",
            &[("tool", "dunning_charges_cancel"), ("era", "stateless")]
        ),
        2.0
    );
    assert_eq!(
        sample(
            &after,
            "dunning_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        1.0
    );
    assert!(sample(&after, "dunning_db_pool_connections", &[("state", "max")]) >= 1.0);
    // The write above waited for a pool connection, and that wait was measured.
    let waits = "dunning_db_pool_acquire_wait_seconds_count";
    assert!(
        sample(&after, waits, &[]) > sample(&before, waits, &[]),
        "{after}"
    );
    assert!(
        after.contains(
            "dunning_engine_queue_depth{queue=\"webhook_deliveries\",worker=\"webhooks\"}"
        ),
        "{after}"
    );
    // No tenant in any label: not the organizations, not the tokens, not the object.
    for secret in [server.org_id(0), server.org_id(1), &api, &mcp, &id] {
        assert!(!after.contains(secret), "{secret} in the metrics");
    }
}

#[tokio::test]
async fn an_idempotent_replay_is_counted() {
    let server = TestServer::start().await;
    let api = server.token(0, "admin", "api");
    let body = json!({"name": "Maria Replay", "document": "12312312387"});
    for _ in 0..2 {
        let answer = server
            .rest_with(
                "POST",
                "/v1/customers",
                &api,
                &[("idempotency-key", "metrics-replay-1")],
                Some(body.clone()),
            )
            .await;
        assert!(answer.status.is_success(), "{}", answer.text);
    }
    let text = scrape(&server).await;
    assert_eq!(sample(&text, "dunning_idempotent_replays_total", &[]), 1.0);
}

/// `promtool`, if installed; under `CI=true` it must be (the test command installs it).
fn promtool() -> Option<&'static str> {
    let found = std::process::Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "CI installs the prometheus package (test.sh): promtool must be there"
        );
        eprintln!("skipped: promtool is not installed (Debian package `prometheus`)");
        return None;
    }
    Some("promtool")
}

#[tokio::test]
async fn the_metrics_text_passes_promtool_check_metrics() {
    if promtool().is_none() {
        return;
    }
    let server = TestServer::start().await;
    let api = server.token(0, "admin", "api");
    server.rest("GET", "/v1/customers", &api, None).await;
    let mcp = server.token(0, "admin", "mcp");
    server
        .call_tool(&mcp, "dunning_customers_list", json!({}))
        .await;
    promtool_accepts(&scrape(&server).await);
}

/// `promtool check metrics` accepts `text` (nothing is checked when promtool is absent
/// outside CI: see [`promtool`]).
pub fn promtool_accepts(text: &str) {
    let Some(promtool) = promtool() else {
        return;
    };
    let mut child = std::process::Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run promtool");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("promtool ends");
    assert!(
        out.status.success(),
        "promtool: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_prometheus_scrapes_the_server_and_sees_it_up() {
    if promtool().is_none() {
        return;
    }
    let server = TestServer::start().await;
    let base = server.listen().await;
    let target = base.trim_start_matches("http://");
    let folder = tempfile::tempdir().expect("temp dir");
    let config = folder.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: dunning\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .expect("write config");
    // A free port for Prometheus's own API (it takes no port 0).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut prometheus = std::process::Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            folder.path().join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start prometheus");
    let query = format!("http://127.0.0.1:{port}/api/v1/query?query=up");
    let mut seen = Value::Null;
    for _ in 0..120 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let Ok(answer) = reqwest::get(&query).await else {
            continue;
        };
        seen = answer.json().await.unwrap_or(Value::Null);
        let up = seen["data"]["result"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["metric"]["instance"] == target);
        if let Some(up) = up {
            seen = up.clone();
            if seen["value"][1] == "1" {
                break;
            }
        }
    }
    let _ = prometheus.kill();
    let _ = prometheus.wait();
    assert_eq!(seen["metric"]["job"], "dunning", "{seen}");
    assert_eq!(seen["value"][1], "1", "the scrape succeeded: {seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_metrics_bind_the_metrics_leave_the_main_listener_for_their_own() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let folder = tempfile::tempdir().expect("temp dir");
    let bind = format!("127.0.0.1:{port}");
    let server = crate::faults::process::ServerProcess::start(
        folder.path(),
        &["--metrics-bind", bind.as_str()],
        &[],
    );
    let main = reqwest::get(server.url("/metrics")).await.expect("answers");
    assert_eq!(main.status(), 404, "not on the main listener");
    let own = reqwest::get(format!("http://{bind}/metrics"))
        .await
        .expect("answers");
    assert_eq!(own.status(), 200);
    let text = own.text().await.expect("text");
    assert!(text.contains("dunning_build_info{"), "{text}");
    let probe = reqwest::get(format!("http://{bind}/readyz"))
        .await
        .expect("answers");
    assert_eq!(probe.status(), 404, "only /metrics there");
    assert_eq!(
        probe.headers()["content-type"],
        "application/problem+json",
        "a problem document, as on the main listener"
    );
}

#[tokio::test]
async fn the_engine_queues_and_the_pool_are_read_on_postgresql_too() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    let text = scrape(&server).await;
    for queue in [
        "deliveries",
        "collection_requests",
        "webhook_deliveries",
        "pix_cobv",
        "pix_refunds",
        "exports",
    ] {
        assert!(
            text.contains(&format!(
                "dunning_engine_queue_lag_seconds{{queue=\"{queue}\""
            )),
            "{queue}: {text}"
        );
    }
    assert!(sample(&text, "dunning_db_pool_connections", &[("state", "max")]) >= 1.0);
}
