//! A test server with demo data, and helpers to call it like a client would.

use std::sync::atomic::{AtomicU32, Ordering};

use axum::Router;
use axum::body::Body;
use dunning_store::Db;
use http::{Request, StatusCode};
use kobana_dunning::demo::Credentials;
use kobana_dunning::{AppState, Config, app};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::template::{self, SqliteTemplate};

/// A server over a fresh database seeded with the demo organizations.
pub struct TestServer {
    pub app: Router,
    pub state: AppState,
    pub credentials: Credentials,
    _dir: tempfile::TempDir,
}

/// An HTTP answer, read whole.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: http::HeaderMap,
    pub body: Value,
    pub text: String,
    /// The body's bytes as they came (`text` replaces what is not UTF-8).
    pub raw: axum::body::Bytes,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl TestServer {
    /// SQLite in a temporary folder.
    pub async fn start() -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
        TestServer::start_with(url, dir, false).await
    }

    /// Same, with the public catalog setting.
    pub async fn start_public() -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
        TestServer::start_with(url, dir, true).await
    }

    pub async fn start_with(
        url: String,
        dir: tempfile::TempDir,
        public_catalog: bool,
    ) -> TestServer {
        TestServer::start_configured(url, dir, TestServer::config(public_catalog)).await
    }

    /// The configuration of `start` and `start_public`.
    pub fn config(public_catalog: bool) -> Config {
        Config {
            public_catalog,
            // Test receivers listen on 127.0.0.1; `webhook_security` runs with this off.
            allow_private_webhook_targets: true,
            ..Config::local()
        }
    }

    /// A server over `url` with the given configuration (its database URL is replaced).
    ///
    /// A SQLite file is a copy of this build's demo template (`template`); a PostgreSQL
    /// database (empty, from `fresh_postgres_url`) is seeded here.
    pub async fn start_configured(
        url: String,
        dir: tempfile::TempDir,
        config: Config,
    ) -> TestServer {
        init_logs();
        if let Some(file) = sqlite_file(&url) {
            let credentials = SqliteTemplate::get().await.copy_to(&file);
            return TestServer::start_seeded(url, credentials, dir, config).await;
        }
        let (db, fresh) = Db::open(&url).await.expect("open database");
        let credentials = template::seed_new(&db, fresh).await;
        TestServer::serve(db, credentials, url, dir, config)
    }

    /// A server over `url`, a database already holding the demo whose `credentials` these
    /// are (a copy of a template).
    pub async fn start_seeded(
        url: String,
        credentials: Credentials,
        dir: tempfile::TempDir,
        config: Config,
    ) -> TestServer {
        init_logs();
        let (db, fresh) = Db::open(&url).await.expect("open database");
        assert!(!fresh, "the template's migrations have run");
        TestServer::serve(db, credentials, url, dir, config)
    }

    fn serve(
        db: Db,
        credentials: Credentials,
        url: String,
        dir: tempfile::TempDir,
        config: Config,
    ) -> TestServer {
        let config = Config {
            database_url: url,
            demo_credentials_path: None,
            ..config
        };
        let state = AppState::new(db, config);
        TestServer {
            app: app(state.clone()),
            state,
            credentials,
            _dir: dir,
        }
    }

    /// A demo token: organization 0 or 1, a role, `api` or `mcp`.
    pub fn token(&self, org: usize, role: &str, audience: &str) -> String {
        let person = self.credentials.organizations[org]
            .people
            .iter()
            .find(|p| p.role == role)
            .expect("role in demo");
        if audience == "api" {
            person.api_token.clone()
        } else {
            person.mcp_token.clone()
        }
    }

    pub fn org_id(&self, org: usize) -> &str {
        &self.credentials.organizations[org].id
    }

    /// Any request, in-process.
    pub async fn send(&self, request: Request<Body>) -> Answer {
        let response = self.app.clone().oneshot(request).await.expect("infallible");
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX).await.expect("body");
        let text = String::from_utf8_lossy(&bytes).to_string();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Answer {
            status: parts.status,
            headers: parts.headers,
            body,
            text,
            raw: bytes,
        }
    }

    /// A REST call with an optional JSON body.
    pub async fn rest(&self, method: &str, path: &str, token: &str, body: Option<Value>) -> Answer {
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", format!("Bearer {token}"));
        let body = match body {
            Some(value) => {
                builder = builder.header("content-type", "application/json");
                Body::from(value.to_string())
            }
            None => Body::empty(),
        };
        self.send(builder.body(body).expect("request")).await
    }

    /// A REST call with extra headers.
    pub async fn rest_with(
        &self,
        method: &str,
        path: &str,
        token: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Answer {
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", format!("Bearer {token}"));
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let body = match body {
            Some(value) => {
                builder = builder.header("content-type", "application/json");
                Body::from(value.to_string())
            }
            None => Body::empty(),
        };
        self.send(builder.body(body).expect("request")).await
    }

    /// A raw MCP POST with the given headers.
    pub async fn mcp_raw(&self, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut builder = Request::builder().method("POST").uri("/mcp");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let answer = self
            .send(builder.body(Body::from(body.to_string())).expect("request"))
            .await;
        check_envelope(&answer);
        answer
    }

    /// A handshake-era JSON-RPC request with a token; the answer is checked against the MCP
    /// schema of the revision it names.
    pub async fn mcp(&self, token: &str, method: &str, params: Value) -> Answer {
        let body = json!({ "jsonrpc": "2.0", "id": next_id(), "method": method, "params": params });
        let auth = format!("Bearer {token}");
        let answer = self
            .mcp_raw(
                &[
                    ("content-type", "application/json"),
                    ("authorization", &auth),
                    ("mcp-protocol-version", "2025-06-18"),
                ],
                &body.to_string(),
            )
            .await;
        check_exchange(method, &answer);
        answer
    }

    /// A stateless-era (2026-07-28) request: the envelope in `params._meta` and the headers
    /// that must repeat it. `capabilities` are the client's.
    pub async fn mcp26(
        &self,
        token: &str,
        method: &str,
        mut params: Value,
        capabilities: Value,
    ) -> Answer {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        params
            .as_object_mut()
            .expect("params object")
            .insert("_meta".into(), meta);
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let body = json!({ "jsonrpc": "2.0", "id": next_id(), "method": method, "params": params });
        let auth = format!("Bearer {token}");
        let mut headers = vec![
            ("content-type", "application/json"),
            ("authorization", auth.as_str()),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name
            .as_deref()
            .filter(|_| matches!(method, "tools/call" | "prompts/get" | "resources/read"))
        {
            headers.push(("mcp-name", name));
        }
        let answer = self.mcp_raw(&headers, &body.to_string()).await;
        check_exchange(method, &answer);
        answer
    }

    /// `tools/call` in the handshake era; returns the JSON-RPC `result`.
    pub async fn call_tool(&self, token: &str, name: &str, arguments: Value) -> Value {
        let answer = self
            .mcp(
                token,
                "tools/call",
                json!({ "name": name, "arguments": arguments }),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        answer
            .body
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("no result: {}", answer.text))
    }

    /// Serve on a real socket (127.0.0.1, port 0) and return the base URL.
    pub async fn listen(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let app = self.app.clone();
        let limits = self.state.config.http.clone();
        tokio::spawn(kobana_dunning::http::serve::serve(
            listener,
            app,
            limits,
            std::future::pending(),
        ));
        format!("http://{address}")
    }
}

/// Server logs go to the test's output, shown when a test fails.
fn init_logs() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter("warn,kobana_dunning=info")
        .try_init();
}

/// The file of a `sqlite://PATH?OPTIONS` URL, the way every test spells one.
fn sqlite_file(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite://")?;
    let path = rest.split_once('?').map_or(rest, |(path, _)| path);
    Some(std::path::PathBuf::from(path))
}

fn next_id() -> u32 {
    static ID: AtomicU32 = AtomicU32::new(1);
    ID.fetch_add(1, Ordering::Relaxed)
}

/// The problem document inside an `isError` tool result.
pub fn tool_problem(result: &Value) -> Value {
    assert_eq!(
        result["isError"],
        json!(true),
        "expected an error result: {result}"
    );
    assert!(
        result.get("structuredContent").is_none(),
        "error results carry no structuredContent"
    );
    let text = result["content"][0]["text"].as_str().expect("text content");
    serde_json::from_str(text).expect("problem JSON in the text")
}

/// Check `value` against the definition `name` of the MCP `schema.json` of `revision`, as
/// published (copies in `tests/mcp-schema/`, kept in the repository so that the check always
/// runs).
pub fn assert_mcp_schema(revision: &str, name: &str, value: &Value) {
    let validator = mcp_validator(revision, name);
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name} ({revision}) is invalid: {errors:#?}\n{value:#}"
    );
}

/// The compiled validator of definition `name` in the MCP schema of `revision`, compiled once
/// per process: a schema is 100 to 180 KB, and every MCP answer is checked twice.
fn mcp_validator(revision: &str, name: &str) -> std::sync::Arc<jsonschema::Validator> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Validators = HashMap<(String, String), Arc<jsonschema::Validator>>;
    static DOCUMENTS: OnceLock<Mutex<HashMap<String, Value>>> = OnceLock::new();
    static VALIDATORS: OnceLock<Mutex<Validators>> = OnceLock::new();
    let key = (revision.to_string(), name.to_string());
    let validators = VALIDATORS.get_or_init(Default::default);
    if let Some(validator) = validators.lock().expect("validator cache").get(&key) {
        return validator.clone();
    }
    let mut schema = {
        let mut documents = DOCUMENTS
            .get_or_init(Default::default)
            .lock()
            .expect("schema cache");
        documents
            .entry(revision.to_string())
            .or_insert_with(|| {
                let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/mcp-schema")
                    .join(revision)
                    .join("schema.json");
                serde_json::from_str(&std::fs::read_to_string(&path).expect("schema.json"))
                    .expect("schema JSON")
            })
            .clone()
    };
    let defs = if schema.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    schema["$ref"] = json!(format!("#/{defs}/{name}"));
    let validator = Arc::new(jsonschema::validator_for(&schema).expect("MCP schema compiles"));
    // Two threads may compile the same one; either result is the same validator.
    validators
        .lock()
        .expect("validator cache")
        .entry(key)
        .or_insert(validator)
        .clone()
}

/// Every MCP answer with a JSON body is a valid JSON-RPC message of the revision named in its
/// `MCP-Protocol-Version` header, and a result has the shape of its method's result.
/// Every JSON-RPC answer of `/mcp` (`application/json`; 401s are problem documents) is a
/// valid message of the revision its `MCP-Protocol-Version` header names.
pub fn check_envelope(answer: &Answer) {
    let (Some(version), Some("application/json")) = (
        answer.header("mcp-protocol-version"),
        answer.header("content-type"),
    ) else {
        return;
    };
    let revision = if version == "2024-11-05" {
        "2025-03-26"
    } else {
        version
    };
    let definition = if answer.body.is_array() {
        "JSONRPCBatchResponse"
    } else {
        "JSONRPCMessage"
    };
    // JSON-RPC 2.0 answers an unreadable request with `"id": null`; the MCP schemas cannot say
    // so (2025-11-25 and later make `id` optional instead), so a null id is checked as absent.
    let mut body = answer.body.clone();
    if body.get("id") == Some(&Value::Null) && body.get("error").is_some() {
        body.as_object_mut().expect("object").remove("id");
        if matches!(revision, "2025-03-26" | "2025-06-18") {
            body["id"] = json!(0);
        }
    }
    assert_mcp_schema(revision, definition, &body);
}

pub fn check_exchange(method: &str, answer: &Answer) {
    let Some(version) = answer.header("mcp-protocol-version") else {
        return;
    };
    if answer.body.is_null() {
        return;
    }
    // 2024-11-05 has no schema file here; its messages are those of 2025-03-26.
    let revision = if version == "2024-11-05" {
        "2025-03-26"
    } else {
        version
    };
    assert_mcp_schema(revision, "JSONRPCMessage", &answer.body);
    let Some(result) = answer.body.get("result") else {
        return;
    };
    let stateless = revision == "2026-07-28";
    let definition = match method {
        "initialize" => "InitializeResult",
        "ping" => "EmptyResult",
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" if stateless && result["resultType"] == "input_required" => {
            "InputRequiredResult"
        }
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        _ => return,
    };
    assert_mcp_schema(revision, definition, result);
    if stateless {
        assert!(
            result["resultType"].is_string(),
            "2026 results carry resultType: {result}"
        );
        assert!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
            "2026 results carry serverInfo: {result}"
        );
    }
}

/// The first `n`, from `from` on in the direction of `step` (1 or −1), for which the day `n`
/// days from today (Brasília) is a national business day. A charge due on a weekend or a
/// holiday is due on the next business day, which moves its interest and its plan's steps:
/// tests that count days pick a due date that does not move, whatever day they run on.
pub fn business_day_offset(from: i64, step: i64) -> i64 {
    assert!(step == 1 || step == -1, "a step of one day");
    let national = dunning_domain::calendar::Calendar::national();
    let today = dunning_domain::calendar::today();
    let mut n = from;
    while !national.is_business_day(today + time::Duration::days(n)) {
        n += step;
    }
    n
}

/// What R$ 100,00 with a 2 % fine and 1 % a month owes `days` after its due date, rounded to
/// the centavo (100 × 1 % × days / 30 is never half a centavo).
pub fn owed_on_100(days: i64) -> f64 {
    let interest_cents = (100 * days + 15) / 30;
    (10_200 + interest_cents) as f64 / 100.0
}

/// Wait, if need be, until the rate-limit window of `period` seconds now open has time to
/// spare. Windows are fixed in Unix time (they start at multiples of the period,
/// `server/rate_limiter.rs`), so a test counting requests against one window would see it
/// reset if a boundary fell between its requests.
pub async fn room_in_the_rate_window(period: i64) {
    const ROOM_MS: i128 = 10_000;
    let period_ms = i128::from(period) * 1_000;
    let now_ms = dunning_domain::timestamp::now().unix_timestamp_nanos() / 1_000_000;
    let left_ms = period_ms - now_ms.rem_euclid(period_ms);
    if left_ms < ROOM_MS {
        let wait = u64::try_from(left_ms + 50).expect("a short wait");
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    }
}

/// A handshake-era request to `path` (`/mcp` or one of its variants) with extra headers; the
/// exchange is checked against the MCP schema.
pub async fn at(
    server: &TestServer,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> Answer {
    let mut builder = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", "2025-06-18");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let answer = server
        .send(builder.body(Body::from(body.to_string())).expect("request"))
        .await;
    check_exchange(method, &answer);
    answer
}

/// The names `tools/list` gives at `path` with these headers.
pub async fn listed(
    server: &TestServer,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
) -> Vec<String> {
    let answer = at(server, path, token, headers, "tools/list", json!({})).await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "{path} {headers:?}: {}",
        answer.text
    );
    answer.body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", answer.text))
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}
