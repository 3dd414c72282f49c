//! OpenTelemetry traces from the real binary: a real OTLP/HTTP receiver (protobuf, decoded
//! with `opentelemetry-proto`) gets the HTTP, MCP, dispatch and database spans of requests that
//! carried a W3C `traceparent` — in the caller's trace, linked parent to child, with no token
//! and no tenant data in any attribute — and gets nothing when the variables turn traces off.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use serde_json::{Value, json};

use crate::faults::process::{ServerProcess, issue_token};

/// The caller's trace of the REST call and the span it says it called from.
const REST_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const REST_PARENT: &str = "00f067aa0ba902b7";
/// The same for the MCP call.
const MCP_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const MCP_PARENT: &str = "b7ad6b7169203331";

/// An OTLP/HTTP receiver on 127.0.0.1: every export request POSTed to `/v1/traces`.
struct Collector {
    url: String,
    received: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
}

impl Collector {
    async fn start() -> Collector {
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = received.clone();
        let app = axum::Router::new().route(
            "/v1/traces",
            post(move |body: Bytes| {
                let store = store.clone();
                async move {
                    let request =
                        ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf export");
                    store.lock().unwrap().push(request);
                    // An empty `ExportTraceServiceResponse`: everything accepted.
                    (
                        [("content-type", "application/x-protobuf")],
                        Vec::<u8>::new(),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Collector { url, received }
    }

    fn spans(&self) -> Vec<Span> {
        let received = self.received.lock().unwrap();
        received
            .iter()
            .flat_map(|r| &r.resource_spans)
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| s.spans.clone())
            .collect()
    }

    /// Every `service.name` the exports named.
    fn service_names(&self) -> Vec<String> {
        let received = self.received.lock().unwrap();
        received
            .iter()
            .flat_map(|r| &r.resource_spans)
            .filter_map(|r| r.resource.as_ref())
            .filter_map(|r| text(&r.attributes, "service.name"))
            .collect()
    }
}

/// The server with `env`, started in a new folder; its folder lives as long as it does.
fn server_with(env: &[(&str, &str)]) -> (ServerProcess, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let server = ServerProcess::start(folder.path(), &[], env);
    (server, folder)
}

/// Stop the server the way an orchestrator does (a signal, then a graceful exit), off the
/// runtime so that the collector keeps serving while the exporter sends what it holds.
async fn stop(server: ServerProcess) {
    tokio::task::spawn_blocking(move || server.stop())
        .await
        .unwrap();
}

fn traceparent(trace: &str, parent: &str) -> String {
    format!("00-{trace}-{parent}-01")
}

/// An attribute as text (a string, or an integer's digits).
fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|a| a.key == key)?.value.as_ref()?;
    match value.value.as_ref()? {
        AnyValue::StringValue(s) => Some(s.clone()),
        AnyValue::IntValue(i) => Some(i.to_string()),
        AnyValue::BoolValue(b) => Some(b.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn attr(span: &Span, key: &str) -> Option<String> {
    text(&span.attributes, key)
}

/// `span` has each attribute with its value.
fn has_attributes(span: &Span, expected: &[(&str, &str)]) {
    for (key, value) in expected {
        assert_eq!(
            attr(span, key).as_deref(),
            Some(*value),
            "{key} of {}",
            span.name
        );
    }
}

/// The one span of `trace` called `name`.
fn named<'a>(spans: &'a [Span], trace: &str, name: &str) -> &'a Span {
    let found: Vec<&Span> = spans
        .iter()
        .filter(|s| hex::encode(&s.trace_id) == trace && s.name == name)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one span {name:?} in {trace}: {}",
        tree(spans)
    );
    found[0]
}

/// Whether `span` sits below `ancestor` (through its parents, within its trace).
fn descends_from(spans: &[Span], span: &Span, ancestor: &Span) -> bool {
    let mut parent = span.parent_span_id.clone();
    while !parent.is_empty() {
        if parent == ancestor.span_id {
            return true;
        }
        match spans
            .iter()
            .find(|s| s.span_id == parent && s.trace_id == span.trace_id)
        {
            Some(next) => parent = next.parent_span_id.clone(),
            None => return false,
        }
    }
    false
}

/// The spans as indented trees, each with its id and attributes, for failure messages (and
/// for a person reading `--nocapture`).
fn tree(spans: &[Span]) -> String {
    fn walk(spans: &[Span], span: &Span, depth: usize, out: &mut String) {
        let attributes: Vec<String> = span
            .attributes
            .iter()
            .filter(|a| !a.key.starts_with("code."))
            .map(|a| {
                format!(
                    "{}={}",
                    a.key,
                    text(&span.attributes, &a.key).unwrap_or_default()
                )
            })
            .collect();
        out.push_str(&format!(
            "{}{} [{}] ({:?}) {}\n",
            "  ".repeat(depth),
            span.name,
            hex::encode(&span.span_id),
            SpanKind::try_from(span.kind).unwrap_or(SpanKind::Unspecified),
            attributes.join(" ")
        ));
        for child in spans.iter().filter(|s| s.parent_span_id == span.span_id) {
            walk(spans, child, depth + 1, out);
        }
    }
    let mut out = String::new();
    for root in spans
        .iter()
        .filter(|s| !spans.iter().any(|p| p.span_id == s.parent_span_id))
    {
        out.push_str(&format!(
            "trace {} (parent {}):\n",
            hex::encode(&root.trace_id),
            hex::encode(&root.parent_span_id)
        ));
        walk(spans, root, 1, &mut out);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rest_call_and_an_mcp_tool_call_are_traced_in_the_callers_trace_down_to_the_database() {
    let collector = Collector::start().await;
    let (server, folder) = server_with(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url.as_str()),
        ("OTEL_SERVICE_NAME", "dunning-under-test"),
    ]);
    let api = issue_token(folder.path(), &[], "api", "1000/minute");
    let mcp = issue_token(folder.path(), &[], "mcp", "1000/minute");
    let client = reqwest::Client::new();

    let listed = client
        .get(server.url("/v1/customers"))
        .bearer_auth(&api)
        .header("traceparent", traceparent(REST_TRACE, REST_PARENT))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let listed: Value = listed.json().await.unwrap();
    let customer = &listed["data"][0];
    let (name, document) = (
        customer["name"].as_str().unwrap().to_string(),
        customer["document"].as_str().unwrap().to_string(),
    );

    let call = json!({
        "jsonrpc": "2.0",
        "id": "call-1",
        "method": "tools/call",
        "params": {"name": "dunning_customers_list", "arguments": {}},
    });
    let called = client
        .post(server.url("/mcp"))
        .bearer_auth(&mcp)
        .header("mcp-protocol-version", "2025-06-18")
        .header("traceparent", traceparent(MCP_TRACE, MCP_PARENT))
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(called.status(), 200);
    let called: Value = called.json().await.unwrap();
    assert!(
        called["result"]["structuredContent"]["data"].is_array(),
        "{called}"
    );

    // A graceful stop sends every span still queued.
    stop(server).await;
    let spans = collector.spans();
    println!("{}", tree(&spans));
    assert!(
        collector
            .service_names()
            .iter()
            .all(|n| n == "dunning-under-test"),
        "{:?}",
        collector.service_names()
    );

    // The REST call: the HTTP server span, child of the caller's span, then the database.
    let http = named(&spans, REST_TRACE, "GET /v1/customers");
    assert_eq!(hex::encode(&http.parent_span_id), REST_PARENT);
    assert_eq!(http.kind, SpanKind::Server as i32);
    has_attributes(
        http,
        &[
            ("http.request.method", "GET"),
            ("http.route", "/v1/customers"),
            ("url.path", "/v1/customers"),
            ("http.response.status_code", "200"),
        ],
    );
    assert!(attr(http, "dunning.request.id").is_some_and(|id| id.starts_with("req")));
    let database = named(&spans, REST_TRACE, "SELECT customers");
    assert!(descends_from(&spans, database, http), "{}", tree(&spans));
    assert_eq!(database.kind, SpanKind::Client as i32);
    has_attributes(
        database,
        &[
            ("db.system.name", "sqlite"),
            ("db.operation.name", "SELECT"),
            ("db.collection.name", "customers"),
        ],
    );

    // The MCP call: HTTP span, the MCP method span, the dispatch into /v1, the database.
    let http = named(&spans, MCP_TRACE, "POST /mcp");
    assert_eq!(hex::encode(&http.parent_span_id), MCP_PARENT);
    let method = named(&spans, MCP_TRACE, "tools/call dunning_customers_list");
    assert_eq!(method.parent_span_id, http.span_id);
    assert_eq!(method.kind, SpanKind::Server as i32);
    has_attributes(
        method,
        &[
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", "dunning_customers_list"),
            ("gen_ai.operation.name", "execute_tool"),
            ("jsonrpc.request.id", "call-1"),
            ("mcp.protocol.version", "2025-06-18"),
        ],
    );
    assert_eq!(attr(method, "error.type"), None);
    let dispatch = named(&spans, MCP_TRACE, "dispatch dunning_customers_list");
    assert_eq!(dispatch.parent_span_id, method.span_id);
    has_attributes(
        dispatch,
        &[
            ("http.route", "/v1/customers"),
            ("http.response.status_code", "200"),
        ],
    );
    let database = named(&spans, MCP_TRACE, "SELECT customers");
    assert!(
        descends_from(&spans, database, dispatch),
        "{}",
        tree(&spans)
    );

    // No token, no customer's name or CPF, no body in any attribute of any span.
    for span in &spans {
        for attribute in &span.attributes {
            let value = text(&span.attributes, &attribute.key).unwrap_or_default();
            for secret in [&api, &mcp, &name, &document] {
                assert!(
                    !value.contains(secret.as_str()),
                    "{secret} in {}={value} of {}",
                    attribute.key,
                    span.name
                );
            }
        }
        assert!(
            span.events.is_empty(),
            "log lines stay out of spans: {span:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_span_leaves_the_process_when_the_variables_turn_traces_off() {
    let collector = Collector::start().await;
    for off in [
        ("OTEL_SDK_DISABLED", "true"),
        ("OTEL_TRACES_EXPORTER", "none"),
    ] {
        let (server, folder) =
            server_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url.as_str()), off]);
        let api = issue_token(folder.path(), &[], "api", "1000/minute");
        let listed = reqwest::Client::new()
            .get(server.url("/v1/customers"))
            .bearer_auth(&api)
            .header("traceparent", traceparent(REST_TRACE, REST_PARENT))
            .send()
            .await
            .unwrap();
        assert_eq!(listed.status(), 200);
        // Were the exporter on, its shutdown would have sent the spans by now.
        stop(server).await;
        assert!(collector.received.lock().unwrap().is_empty(), "{off:?}");
    }
}
