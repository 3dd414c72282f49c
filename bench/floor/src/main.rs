//! The floor of a read: `GET /v1/charges/{id}` and `GET /v1/charges?per_page=25`, and the MCP
//! `tools/call` of `dunning_charges_get` and `dunning_charges_list`, served by the least that
//! can serve them, so that `bench/floor.py` can count what MCP must cost beyond REST whatever
//! the implementation.
//!
//! REST and MCP go through the same hyper server, the same bearer token lookup, the same
//! rate-limit count and the same handler: charges in memory (no database), the answer written
//! once as compact JSON from typed structs with `serde_json`. What MCP adds is only what the
//! contract asks of a tool call (`../shared/CONTRACT.md`, §4): read one JSON-RPC message and
//! its arguments (reads are strict: an unknown or mistyped argument is refused), call the
//! handler in-process, and answer a result whose `structuredContent` is the body with `meta`
//! enriched (rate limit, and the ETag of a detail) and whose text content is the same JSON
//! indented, as a JSON string. Each piece is written as directly as we could: typed and
//! borrowed reading, no `Value`, no router, the body's text spliced rather than read, the
//! indented text written from the same structs by `serde_json` with a formatter that escapes
//! as it writes, the answer assembled in one buffer.
//!
//! Nothing here is the service: it knows one organization's charges, one token and two tools,
//! and checks nothing else. `floor --bind 127.0.0.1:0` prints `listening on <address>`.

use std::convert::Infallible;
use std::fmt::Write as _;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::net::TcpListener;

// The text content is written by the MCP layer's own indenter, the cheapest we know: the
// floor measures its cost instead of assuming one (a `serde_json` formatter writing the text
// from the structs cost more, 248k instructions beside a 25-row list's 198k).
#[path = "../../../mcp/src/indent.rs"]
mod indent;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The token every case sends (`Authorization: Bearer floor`).
const TOKEN: &str = "floor";
const ORGANIZATION: u64 = 1;
/// Charges the organization has (a list's total).
const CHARGES: usize = 30;
const RATE_LIMIT: u64 = 100_000_000;
const RESET: u64 = 60;
const SUPPORTED_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];

/// A charge as the API answers it (the fields of the service's `Charge`).
#[derive(Serialize)]
struct Charge {
    id: String,
    customer_id: String,
    description: String,
    amount: f64,
    paid_amount: f64,
    fine_percent: f64,
    interest_percent: f64,
    amount_due: f64,
    due_date: String,
    status: String,
    tags: Vec<String>,
    collection_plan_id: Option<String>,
    agreement_id: Option<String>,
    negativation_status: String,
    protest_status: String,
    paid_at: Option<String>,
    canceled_at: Option<String>,
    created_at: String,
    updated_at: String,
    #[serde(skip)]
    organization: u64,
    #[serde(skip)]
    version: u64,
}

struct State {
    /// By id, in the order a list gives them.
    charges: Vec<Charge>,
    used: AtomicU64,
}

/// The operations: what a REST request or a tool call asks.
enum Call<'a> {
    Get { id: &'a str },
    List { page: usize, per_page: usize },
}

#[derive(Serialize)]
struct Pagination {
    total: usize,
    page: usize,
    per_page: usize,
    total_pages: usize,
}

/// What an operation answered: a detail (whose charge gives the ETag), or a page.
enum View<'a> {
    Detail(&'a Charge),
    Page,
}

/// An operation's answer: its body, written once, and its view.
struct Answer<'a> {
    body: String,
    view: View<'a>,
}

/// The handler of both operations, REST's and the tools': the answer, or a status.
fn handle<'s>(
    state: &'s State,
    organization: u64,
    call: &Call<'_>,
) -> Result<Answer<'s>, StatusCode> {
    #[derive(Serialize)]
    struct Detail<'a> {
        data: &'a Charge,
    }
    #[derive(Serialize)]
    struct Page<'a> {
        data: &'a [Charge],
        meta: Pagination,
    }
    let written =
        |result: serde_json::Result<String>| result.map_err(|_| StatusCode::INTERNAL_SERVER_ERROR);
    match *call {
        Call::Get { id } => {
            let charge = state
                .charges
                .binary_search_by(|c| c.id.as_str().cmp(id))
                .ok()
                .map(|at| &state.charges[at])
                .filter(|c| c.organization == organization)
                .ok_or(StatusCode::NOT_FOUND)?;
            let body = written(serde_json::to_string(&Detail { data: charge }))?;
            Ok(Answer {
                body,
                view: View::Detail(charge),
            })
        }
        Call::List { page, per_page } => {
            if page == 0 || !(1..=100).contains(&per_page) {
                return Err(StatusCode::BAD_REQUEST);
            }
            let start = ((page - 1) * per_page).min(state.charges.len());
            let rows = &state.charges[start..(start + per_page).min(state.charges.len())];
            let meta = Pagination {
                total: CHARGES,
                page,
                per_page,
                total_pages: CHARGES.div_ceil(per_page),
            };
            let body = written(serde_json::to_string(&Page { data: rows, meta }))?;
            Ok(Answer {
                body,
                view: View::Page,
            })
        }
    }
}

/// The caller's organization from its bearer token, and one count against its window.
fn admit(state: &State, request: &Request<Incoming>) -> Option<(u64, u64)> {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")?;
    if token != TOKEN {
        return None;
    }
    let used = state.used.fetch_add(1, Ordering::Relaxed) + 1;
    Some((ORGANIZATION, RATE_LIMIT.saturating_sub(used)))
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

fn etag(charge: &Charge) -> String {
    format!("\"v{}\"", charge.version)
}

/// `per_page` and `page` of a list's query string.
fn list_query(query: &str) -> Option<Call<'static>> {
    let (mut page, mut per_page) = (1, 25);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=')? {
            ("page", n) => page = n.parse().ok()?,
            ("per_page", n) => per_page = n.parse().ok()?,
            _ => return None,
        }
    }
    Some(Call::List { page, per_page })
}

fn rest(state: &State, request: &Request<Incoming>, call: &Call<'_>) -> Response<Full<Bytes>> {
    let Some((organization, remaining)) = admit(state, request) else {
        return status(StatusCode::UNAUTHORIZED);
    };
    let answer = match handle(state, organization, call) {
        Ok(answer) => answer,
        Err(code) => return status(code),
    };
    let etag = match answer.view {
        View::Detail(charge) => Some(etag(charge)),
        View::Page => None,
    };
    let mut response = Response::new(Full::new(Bytes::from(answer.body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(etag) = etag {
        headers.insert(
            header::ETAG,
            HeaderValue::from_str(&etag).expect("an ETag is a header value"),
        );
    }
    headers.insert("ratelimit-limit", HeaderValue::from(RATE_LIMIT));
    headers.insert("ratelimit-remaining", HeaderValue::from(remaining));
    headers.insert("ratelimit-reset", HeaderValue::from(RESET));
    response
}

/// One JSON-RPC request, borrowed from the body.
#[derive(Deserialize)]
struct Message<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
struct Params<'a> {
    name: &'a str,
    #[serde(borrow)]
    arguments: &'a RawValue,
}

/// `dunning_charges_get`'s arguments: reads are strict.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GetArguments<'a> {
    id: &'a str,
}

/// `dunning_charges_list`'s arguments (the two this floor serves).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArguments {
    page: Option<usize>,
    per_page: Option<usize>,
}

/// The rate limit `meta` is enriched with.
struct RateLimit {
    limit: u64,
    remaining: u64,
    reset: u64,
}

fn rpc_error(id: &str, code: i64, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

fn mcp_answer(version: HeaderValue, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("mcp-protocol-version", version);
    response
}

/// The tool call a message asks for, or the JSON-RPC error to answer.
fn call_of<'a>(message: &Message<'a>) -> Result<Call<'a>, (i64, &'static str)> {
    if message.jsonrpc != "2.0" || message.method != "tools/call" {
        return Err((-32600, "Invalid Request"));
    }
    let arguments = message.params.arguments.get();
    match message.params.name {
        "dunning_charges_get" => serde_json::from_str::<GetArguments<'a>>(arguments)
            .map(|a| Call::Get { id: a.id })
            .map_err(|_| (-32602, "Invalid arguments")),
        "dunning_charges_list" => serde_json::from_str::<ListArguments>(arguments)
            .map(|a| Call::List {
                page: a.page.unwrap_or(1),
                per_page: a.per_page.unwrap_or(25),
            })
            .map_err(|_| (-32602, "Invalid arguments")),
        _ => Err((-32602, "Unknown tool")),
    }
}

async fn mcp(state: &State, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !json {
        return status(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let version = match request.headers().get("mcp-protocol-version") {
        Some(v)
            if SUPPORTED_VERSIONS
                .iter()
                .any(|s| s.as_bytes() == v.as_bytes()) =>
        {
            v.clone()
        }
        _ => return status(StatusCode::BAD_REQUEST),
    };
    let Some((organization, remaining)) = admit(state, &request) else {
        return status(StatusCode::UNAUTHORIZED);
    };
    let Ok(body) = request.into_body().collect().await.map(|b| b.to_bytes()) else {
        return status(StatusCode::BAD_REQUEST);
    };
    let Ok(message) = serde_json::from_slice::<Message<'_>>(&body) else {
        return mcp_answer(version, rpc_error("null", -32700, "Parse error"));
    };
    let id = message.id.get();
    let call = match call_of(&message) {
        Ok(call) => call,
        Err((code, why)) => return mcp_answer(version, rpc_error(id, code, why)),
    };
    // The same handler REST calls, in-process.
    let answer = match handle(state, organization, &call) {
        Ok(answer) => answer,
        Err(code) => return mcp_answer(version, rpc_error(id, -32603, code.as_str())),
    };
    let rate_limit = RateLimit {
        limit: RATE_LIMIT,
        remaining,
        reset: RESET,
    };
    // The structured content: the body's own text, `meta` enriched where it ends.
    let (kept, open) = match answer.view {
        View::Detail(_) => (answer.body.len() - 1, ",\"meta\":{\"rate_limit\":"),
        View::Page => (answer.body.len() - 2, ",\"rate_limit\":"),
    };
    let mut structured = String::with_capacity(answer.body.len() + 128);
    structured.push_str(&answer.body[..kept]);
    structured.push_str(open);
    let RateLimit {
        limit,
        remaining,
        reset,
    } = rate_limit;
    // Writing into a `String` cannot fail.
    let _ = write!(
        structured,
        r#"{{"limit":{limit},"remaining":{remaining},"reset":{reset}}}"#
    );
    if let View::Detail(charge) = answer.view {
        structured.push_str(",\"etag\":");
        structured.push_str(&serde_json::to_string(&etag(charge)).expect("writing to memory"));
    }
    structured.push_str("}}");
    let mut out = String::with_capacity(3 * structured.len() + 128);
    out.push_str(r#"{"jsonrpc":"2.0","id":"#);
    out.push_str(id);
    out.push_str(r#","result":{"content":[{"type":"text","text":"#);
    // The text: the structured content indented and escaped in one pass over its bytes.
    if indent::push_indented_string(&structured, &mut out).is_none() {
        return mcp_answer(version, rpc_error(id, -32603, "Internal error"));
    }
    out.push_str(r#"}],"structuredContent":"#);
    out.push_str(&structured);
    out.push_str("}}");
    mcp_answer(version, out)
}

async fn serve(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path();
    Ok(match (request.method(), path) {
        (&Method::GET, "/v1/charges") => match list_query(request.uri().query().unwrap_or("")) {
            Some(call) => rest(&state, &request, &call),
            None => status(StatusCode::BAD_REQUEST),
        },
        (&Method::GET, _) if path.starts_with("/v1/charges/") => {
            let id = path["/v1/charges/".len()..].to_string();
            rest(&state, &request, &Call::Get { id: &id })
        }
        (&Method::POST, "/mcp") => mcp(&state, request).await,
        _ => status(StatusCode::NOT_FOUND),
    })
}

/// The organization's charges, like the demo's: ids of the same length, sorted.
fn state() -> State {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut charges: Vec<Charge> = (0..CHARGES)
        .map(|n| {
            let id: String = (0..16)
                .map(|i| char::from(LETTERS[(n * 7 + i * 13 + i * n) % LETTERS.len()]))
                .collect();
            Charge {
                id: format!("chg_{id}"),
                customer_id: "cus_zbweixahpiqrcgru".into(),
                description: "Parcelas renegociadas de agosto".into(),
                amount: 820.0 + n as f64,
                paid_amount: 0.0,
                fine_percent: 2.0,
                interest_percent: 1.0,
                amount_due: 0.0,
                due_date: "2026-09-01".into(),
                status: "in_agreement".into(),
                tags: vec!["varejo".into()],
                collection_plan_id: None,
                agreement_id: None,
                negativation_status: "none".into(),
                protest_status: "none".into(),
                paid_at: None,
                canceled_at: None,
                created_at: "2026-12-04T09:29:44.740Z".into(),
                updated_at: "2026-12-04T09:29:44.740Z".into(),
                organization: ORGANIZATION,
                version: 2,
            }
        })
        .collect();
    charges.sort_by(|a, b| a.id.cmp(&b.id));
    State {
        charges,
        used: AtomicU64::new(0),
    }
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let bind = std::env::args()
        .skip_while(|a| a != "--bind")
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let listener = TcpListener::bind(&bind).await?;
    let state = Arc::new(state());
    println!(
        "listening on {} charge {}",
        listener.local_addr()?,
        state.charges[0].id
    );
    loop {
        let (stream, _) = listener.accept().await?;
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| serve(state.clone(), request));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
