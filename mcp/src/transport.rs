//! Streamable HTTP, stateless and JSON-only: one POST in, one `application/json` out.
//!
//! Everything about HTTP lives here: methods, media types, size limits, batches,
//! authentication challenges, and the headers every response carries. What a message
//! means is decided in `lifecycle` and `tools`.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tracing::Instrument;

use super::forward::Forwarded;
use super::jsonrpc::{self, ErrorCode, Incoming, Message, Messages, Outcome, Received, RpcError};
use super::observe::{self, Exchange, Exchanges};
use super::protocol::{self, Context};
use super::toolsets::{Choice, Selection};
use super::{
    AuthFailure, Authentication, Caller, Endpoint, admission, completions, discovery, fault, guard,
    lifecycle, prompts, resources, tools, views,
};

/// Largest request body accepted (the same ceiling as the REST API).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// Largest batch accepted (2025-03-26 only).
pub const MAX_BATCH: usize = 20;

/// Entry point for every HTTP request to the endpoint. The request is taken whole, so that
/// its headers are read where they are instead of copied out (as axum's `HeaderMap`
/// extractor does).
pub async fn handle(State(endpoint): State<Endpoint>, request: Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let http::request::Parts {
        method,
        uri,
        headers,
        extensions,
        ..
    } = parts;
    let version = protocol::fallback_version(&headers);
    let path_and_query = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    if let Some(refusal) = guard::check(&endpoint.settings, &headers, path_and_query, version) {
        return refusal;
    }
    if method != Method::POST {
        let error = RpcError::new(
            ErrorCode::SERVER_ERROR,
            "Method not allowed: this endpoint takes POST only (no SSE stream)",
        );
        let mut response = rpc_response(
            StatusCode::METHOD_NOT_ALLOWED,
            version,
            jsonrpc::failure(None, &error),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    if !is_json(&headers) {
        let error = RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Content-Type must be application/json",
        );
        return rpc_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            version,
            jsonrpc::failure(None, &error),
        );
    }
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let error = RpcError::new(ErrorCode::INVALID_REQUEST, "Request body too large");
            return rpc_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                version,
                jsonrpc::failure(None, &error),
            );
        }
    };
    // Each message keeps its text too, for its exact id (see `jsonrpc::Id`).
    let messages = match jsonrpc::parse(&bytes) {
        Ok(messages) => messages,
        Err(e) => {
            let error = RpcError::new(ErrorCode::PARSE_ERROR, format!("Parse error: {e}"));
            return rpc_response(
                StatusCode::BAD_REQUEST,
                version,
                jsonrpc::failure(None, &error),
            );
        }
    };
    // What the request asks to load (header, URL variant), refused before any work when it
    // names a toolset the catalog does not have; the answer names the request's id when it
    // has a valid one (a batch's answer has none to name).
    let choice = match Choice::of_request(
        &endpoint.catalog,
        &endpoint.settings.path,
        uri.path(),
        &headers,
    ) {
        Ok(choice) => choice,
        Err(error) => {
            let id = match &messages {
                Messages::Single(single) => single.valid_id(),
                Messages::Batch(_) => None,
            };
            return rpc_response(
                StatusCode::BAD_REQUEST,
                version,
                jsonrpc::failure(id.as_ref(), &error),
            );
        }
    };
    // A fault anywhere below (authentication, batching, a method) must cost one request, not
    // the server: it becomes a 500 here, on this task (see `fault`).
    let forwarded = Forwarded::of(&endpoint.forward, &headers, &extensions);
    let inbound = Inbound {
        headers: &headers,
        forwarded: forwarded.as_ref(),
    };
    let work = fault::catching(async {
        match messages {
            // Boxed, as `run` boxes each method (see there): this guard holds a pointer.
            Messages::Batch(items) => {
                Box::pin(handle_batch(&endpoint, inbound, &choice, items)).await
            }
            Messages::Single(single) => {
                Box::pin(handle_single(&endpoint, inbound, &choice, single, version)).await
            }
        }
    });
    match work.await {
        Ok(response) => response,
        Err(e) => {
            tracing::error!("MCP request failed: {e}");
            let error = RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error");
            rpc_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                version,
                jsonrpc::failure(None, &error),
            )
        }
    }
}

/// What the handling of one HTTP request needs of it beyond its messages.
#[derive(Clone, Copy)]
struct Inbound<'a> {
    headers: &'a HeaderMap,
    /// What its tool calls hand on to the in-process request ([`Forwarded`]).
    forwarded: Option<&'a Forwarded>,
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

async fn handle_single(
    endpoint: &Endpoint,
    inbound: Inbound<'_>,
    choice: &Choice,
    message: Received,
    fallback: &'static str,
) -> Response {
    let incoming = match jsonrpc::classify(message) {
        Ok(Message::Request(incoming)) => incoming,
        Ok(Message::Notification | Message::Response) => return accepted(fallback),
        Err(refusal) => {
            return rpc_response(
                StatusCode::BAD_REQUEST,
                fallback,
                jsonrpc::failure(refusal.id.as_ref(), &refusal.error),
            );
        }
    };
    let seen = exchange(endpoint, &incoming, fallback);
    let span = observe::span(&seen, &incoming.id);
    serve_single(endpoint, inbound, choice, incoming, seen)
        .instrument(span)
        .await
}

/// One request message, in its span (see `observe::span`).
async fn serve_single(
    endpoint: &Endpoint,
    inbound: Inbound<'_>,
    choice: &Choice,
    incoming: Incoming,
    mut seen: Exchange,
) -> Response {
    let headers = inbound.headers;
    let fallback = seen.version;
    let context = match protocol::context_for(&incoming, headers) {
        Ok(context) => context,
        Err(error) => {
            seen.outcome = observe::Outcome::Error;
            seen.error_code = Some(error.code.0);
            return observed(error_response(fallback, &incoming.id, &error), seen);
        }
    };
    let version = context.version.0;
    seen.version = version;
    let mut caller = match authenticate(endpoint, inbound, &incoming.method).await {
        Ok(caller) => caller,
        Err(response) => {
            seen.outcome = observe::Outcome::Unauthorized;
            return observed(with_mcp_headers(response, version), seen);
        }
    };
    let Ok(limited) = admission::admit(endpoint, caller.as_mut()).await else {
        seen.outcome = observe::Outcome::Error;
        seen.error_code = Some(ErrorCode::INTERNAL_ERROR.0);
        let response = error_response(version, &incoming.id, &internal().with_status(500));
        return observed(response, seen);
    };
    let Incoming { id, method, params } = incoming;
    let outcome = match limited {
        Some(seconds) => {
            admission::refusal(endpoint, &context, &method, seconds).map(Outcome::Value)
        }
        None => {
            let (outcome, confirmation) =
                observe::watching(run(endpoint, context, caller, choice, &method, params)).await;
            seen.confirmation = confirmation;
            outcome
        }
    };
    seen.outcome = outcome_of(&outcome, limited.is_some());
    seen.error_code = outcome.as_ref().err().map(|error| error.code.0);
    let mut response = match outcome {
        Ok(result) => json_response(
            StatusCode::OK,
            version,
            Body::new(Pieces::new(jsonrpc::answer_pieces(&id, &result))),
        ),
        Err(error) => error_response(version, &id, &error),
    };
    if let Some(seconds) = limited {
        let (name, value) = admission::retry_after_header(seconds);
        response.headers_mut().insert(name, value);
    }
    observed(response, seen)
}

/// What `incoming` is, for the application's logs and metrics (see `observe`); the outcome
/// is filled in as the message is served.
fn exchange(endpoint: &Endpoint, incoming: &Incoming, version: &'static str) -> Exchange {
    let method = observe::method_label(&incoming.method);
    let tool = if method == "tools/call" {
        let params = &incoming.params;
        let name = params.get("name").and_then(serde_json::Value::as_str);
        // Discovery mode's call names its tool among its arguments.
        let name = match name {
            Some(name) if discovery::is_call_name(&endpoint.catalog, name) => params
                .get("arguments")
                .and_then(|a| a.get("name"))
                .and_then(serde_json::Value::as_str),
            other => other,
        };
        name.and_then(|name| tools::find(&endpoint.catalog, name))
            .map(|tool| tool.name)
    } else {
        None
    };
    Exchange {
        method,
        tool,
        version,
        outcome: observe::Outcome::Ok,
        confirmation: None,
        error_code: None,
    }
}

/// How a served message ended.
fn outcome_of(outcome: &Result<Outcome, RpcError>, limited: bool) -> observe::Outcome {
    match outcome {
        _ if limited => observe::Outcome::RateLimited,
        Ok(Outcome::Value(value))
            if value.get("isError") == Some(&serde_json::Value::Bool(true)) =>
        {
            observe::Outcome::ToolError
        }
        Ok(_) => observe::Outcome::Ok,
        Err(_) => observe::Outcome::Error,
    }
}

/// `response` carrying what its message was (also written onto the message's span).
fn observed(mut response: Response, seen: Exchange) -> Response {
    observe::record(&tracing::Span::current(), &seen);
    response.extensions_mut().insert(Exchanges(vec![seen]));
    response
}

/// Batches exist only in 2025-03-26 (and for requests that name no version, which are
/// treated as that revision): executed in order, one array of responses back.
async fn handle_batch(
    endpoint: &Endpoint,
    inbound: Inbound<'_>,
    choice: &Choice,
    items: Vec<Received>,
) -> Response {
    let headers = inbound.headers;
    let asked = protocol::header_version(headers).unwrap_or(protocol::UNVERSIONED);
    let version = protocol::UNVERSIONED;
    let refuse = |message: &str| {
        let error = RpcError::new(ErrorCode::INVALID_REQUEST, message);
        rpc_response(
            StatusCode::BAD_REQUEST,
            protocol::fallback_version(headers),
            jsonrpc::failure(None, &error),
        )
    };
    if asked != protocol::UNVERSIONED {
        return refuse(
            "Batching not supported: JSON-RPC batches exist only in protocol revision 2025-03-26",
        );
    }
    if items.is_empty() {
        return refuse("Batching not supported: an empty batch is not a valid request");
    }
    if items.len() > MAX_BATCH {
        return refuse(&format!("Batch too large: at most {MAX_BATCH} messages"));
    }
    let mut responses = Vec::new();
    let mut seen = Vec::new();
    let mut caller: Option<Result<Option<Caller>, Response>> = None;
    let mut retry_after: Option<u64> = None;
    for item in items {
        let incoming = match jsonrpc::classify(item) {
            Ok(Message::Request(incoming)) => incoming,
            Ok(_) => continue,
            Err(refusal) => {
                responses.push(jsonrpc::failure(refusal.id.as_ref(), &refusal.error));
                continue;
            }
        };
        let mut exchange = exchange(endpoint, &incoming, protocol::UNVERSIONED);
        exchange.outcome = observe::Outcome::Error;
        if incoming.method == "initialize" {
            seen.push(exchange);
            let error = RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "initialize must not be part of a batch",
            );
            responses.push(jsonrpc::failure(Some(&incoming.id), &error));
            continue;
        }
        let context = match protocol::context_for(&incoming, headers) {
            Ok(context) => context,
            Err(error) => {
                seen.push(exchange);
                responses.push(jsonrpc::failure(Some(&incoming.id), &error));
                continue;
            }
        };
        // One authentication for the whole batch: the credential is the same for all.
        let auth = match caller.take() {
            Some(done) => done,
            None => authenticate(endpoint, inbound, &incoming.method).await,
        };
        let who = match &auth {
            Ok(who) => who.clone(),
            Err(_) => {
                let error = RpcError::new(
                    ErrorCode::SERVER_ERROR,
                    "Unauthorized: send a valid bearer token issued for the MCP",
                );
                responses.push(jsonrpc::failure(Some(&incoming.id), &error));
                exchange.outcome = observe::Outcome::Unauthorized;
                seen.push(exchange);
                caller = Some(auth);
                continue;
            }
        };
        caller = Some(auth);
        // Each message counts: a batch of twenty is twenty requests.
        let mut who = who;
        let Ok(limited) = admission::admit(endpoint, who.as_mut()).await else {
            seen.push(exchange);
            responses.push(jsonrpc::failure(Some(&incoming.id), &internal()));
            continue;
        };
        let Incoming { id, method, params } = incoming;
        let outcome = match limited {
            Some(seconds) => {
                retry_after = retry_after.max(Some(seconds));
                admission::refusal(endpoint, &context, &method, seconds).map(Outcome::Value)
            }
            None => {
                let span = observe::span(&exchange, &id);
                let (outcome, confirmation) =
                    observe::watching(run(endpoint, context, who, choice, &method, params))
                        .instrument(span.clone())
                        .await;
                exchange.confirmation = confirmation;
                exchange.error_code = outcome.as_ref().err().map(|error| error.code.0);
                exchange.outcome = outcome_of(&outcome, false);
                observe::record(&span, &exchange);
                outcome
            }
        };
        exchange.outcome = outcome_of(&outcome, limited.is_some());
        seen.push(exchange);
        match outcome {
            Ok(Outcome::Value(result)) => responses.push(jsonrpc::success(&id, &result)),
            // Batches are rare and small: checking the joined text again costs little.
            Ok(prepared) => match RawValue::from_string(jsonrpc::answer(&id, &prepared)) {
                Ok(answer) => responses.push(answer),
                Err(e) => {
                    tracing::error!("a prepared answer is not JSON: {e}");
                    responses.push(jsonrpc::failure(Some(&id), &internal()));
                }
            },
            Err(error) => responses.push(jsonrpc::failure(Some(&id), &error)),
        }
    }
    if responses.is_empty() {
        return accepted(version);
    }
    let mut response = rpc_response(StatusCode::OK, version, batch_text(&responses));
    if let Some(seconds) = retry_after {
        let (name, value) = admission::retry_after_header(seconds);
        response.headers_mut().insert(name, value);
    }
    response.extensions_mut().insert(Exchanges(seen));
    response
}

/// Methods that may be called without a credential in public catalog mode.
fn is_catalog_method(method: &str) -> bool {
    matches!(
        method,
        "initialize" | "ping" | "server/discover" | "tools/list"
    )
}

/// `Ok(None)` = anonymous, allowed for this method. `Err` = the 401 to send.
async fn authenticate(
    endpoint: &Endpoint,
    inbound: Inbound<'_>,
    method: &str,
) -> Result<Option<Caller>, Response> {
    let headers = inbound.headers;
    // What the tool calls of this request hand on (see `forward`), in the caller's
    // extensions as the host's own are.
    let with_forwarded = |mut caller: Caller| {
        if let Some(forwarded) = inbound.forwarded {
            caller.extensions.insert(forwarded.clone());
        }
        caller
    };
    if endpoint.settings.authentication == Authentication::None {
        let mut caller = Caller::clone(&endpoint.anonymous);
        if let Some(forwarded) = inbound.forwarded {
            caller.subject = forwarded.subject(&endpoint.forward);
        }
        return Ok(Some(with_forwarded(caller)));
    }
    let header = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let token = header.and_then(|h| {
        let (scheme, token) = h.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim())
            .filter(|t| !t.is_empty())
    });
    match token {
        None if endpoint.settings.public_catalog && is_catalog_method(method) => Ok(None),
        None => Err(unauthorized(
            endpoint,
            headers,
            "Send 'Authorization: Bearer <token>' with a token issued for the MCP",
            false,
        )),
        Some(token) => match endpoint.host.authenticate(token).await {
            Ok(caller) => Ok(Some(with_forwarded(caller))),
            Err(AuthFailure::InvalidToken(why)) => Err(unauthorized(endpoint, headers, why, true)),
            Err(AuthFailure::Internal(story)) => {
                tracing::error!("authentication failed: {story}");
                let error = RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error");
                Err(rpc_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    protocol::fallback_version(headers),
                    jsonrpc::failure(None, &error),
                ))
            }
        },
    }
}

/// 401 problem with the RFC 9728 pointer to the protected resource metadata.
fn unauthorized(endpoint: &Endpoint, headers: &HeaderMap, detail: &str, invalid: bool) -> Response {
    let base = base_url(headers);
    let scopes = endpoint.host.all_scopes().join(" ");
    let mut challenge =
        format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource""#);
    // A service without scopes names none: `scope=""` would ask for an empty set.
    if !scopes.is_empty() {
        challenge.push_str(&format!(r#", scope="{scopes}""#));
    }
    if invalid {
        challenge.push_str(r#", error="invalid_token""#);
    }
    let body = json!({
        "type": endpoint.settings.problem_type("unauthorized"),
        "title": "Unauthorized",
        "status": 401,
        "detail": detail,
        "code": if invalid { "invalid_token" } else { "unauthorized" },
        "errors": [],
    });
    let mut response = (StatusCode::UNAUTHORIZED, body.to_string()).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        h.insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The URL clients reached us by, from the `Host` header.
pub fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// Run one message so that a panic becomes a 500 with the message's id and the server lives
/// on. Besides the request-wide guard in `handle`, this one keeps a fault in one message of a
/// batch from costing the others. Both run on the request's task (see `fault`).
async fn run(
    endpoint: &Endpoint,
    context: Context,
    caller: Option<Caller>,
    choice: &Choice,
    method: &str,
    params: Value,
) -> Result<Outcome, RpcError> {
    let selection = Selection::resolve(&endpoint.settings, caller.as_ref(), choice);
    // On the heap: the futures of every method, and every layer awaiting them (this guard,
    // `observe::watching`, the span, `handle`'s own guard), each held the one below whole,
    // so the request's future had grown to 46 KB and was copied as it went from one layer
    // to the next (a third of an MCP `ping`'s instructions were `memcpy`). Boxed here, each
    // layer above holds a pointer.
    let served = Box::pin(dispatch(
        endpoint,
        &context,
        caller.as_ref(),
        &selection,
        method,
        params,
    ));
    match fault::catching(served).await {
        Ok(outcome) => outcome,
        Err(e) => {
            tracing::error!("MCP request handler failed: {e}");
            Err(RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500))
        }
    }
}

async fn dispatch(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    method: &str,
    params: Value,
) -> Result<Outcome, RpcError> {
    let stateless = context.version.is_stateless();
    let result = match method {
        "initialize" if !stateless => lifecycle::initialize(endpoint, selection, &params),
        "ping" if !stateless => Ok(json!({})),
        "server/discover" if stateless => lifecycle::discover(endpoint, selection),
        // Discovery mode: three tools in place of the catalog.
        "tools/list" if selection.discovery() => discovery::list(endpoint, &params),
        "tools/call" if selection.discovery() => {
            match discovery::call(endpoint, context, caller, selection, params).await? {
                Outcome::Value(value) => Ok(value),
                prepared => return Ok(prepared),
            }
        }
        // Prepared once per set of visible tools and era, stateless fields included.
        "tools/list" => {
            let views = views::offered(context);
            return tools::list(endpoint, caller, selection, stateless, views, &params)
                .map(Outcome::Prepared);
        }
        // A JSON answer comes back prepared, the stateless era's fields included.
        "tools/call" => match tools::call(endpoint, context, caller, selection, params).await? {
            Outcome::Value(value) => Ok(value),
            prepared => return Ok(prepared),
        },
        "resources/list" => {
            let views = views::offered(context);
            resources::list(endpoint, caller, selection, views, &params)
        }
        "resources/templates/list" => {
            resources::templates(&endpoint.catalog, caller, selection, &params)
        }
        "resources/read" => resources::read(endpoint, context, caller, selection, &params).await,
        "prompts/list" => prompts::list(&endpoint.catalog, caller, selection, &params),
        "prompts/get" => prompts::get(endpoint, context, caller, selection, &params).await,
        "completion/complete" => completions::complete(endpoint, caller, selection, &params).await,
        _ => {
            let error = RpcError::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            );
            // The stateless era answers unknown methods with HTTP 404.
            return Err(if stateless {
                error.with_status(404)
            } else {
                error
            });
        }
    }?;
    Ok(Outcome::Value(if stateless {
        lifecycle::stateless_result(&endpoint.settings, method, result)
    } else {
        result
    }))
}

fn error_response(version: &'static str, id: &jsonrpc::Id, error: &RpcError) -> Response {
    let status = StatusCode::from_u16(error.http_status).unwrap_or(StatusCode::OK);
    rpc_response(status, version, jsonrpc::failure(Some(id), error))
}

fn accepted(version: &'static str) -> Response {
    with_mcp_headers(StatusCode::ACCEPTED.into_response(), version)
}

/// The array of a batch's answers.
fn batch_text(responses: &[Box<RawValue>]) -> Box<RawValue> {
    let text = serde_json::to_string(responses).unwrap_or_else(|_| "[]".to_string());
    RawValue::from_string(text).unwrap_or_else(|_| jsonrpc::failure(None, &internal()))
}

fn internal() -> RpcError {
    RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error")
}

fn rpc_response(status: StatusCode, version: &'static str, body: Box<RawValue>) -> Response {
    let text: Box<str> = body.into();
    text_response(status, version, String::from(text))
}

/// `rpc_response` for an answer already written out as text.
fn text_response(status: StatusCode, version: &'static str, text: String) -> Response {
    json_response(status, version, Body::from(text))
}

fn json_response(status: StatusCode, version: &'static str, body: Body) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    with_mcp_headers(response, version)
}

/// A body sent as the pieces it was made of, each as it is: a kept listing goes out from
/// the cache without being copied (hyper writes the pieces with one vectored write). Its
/// exact length is known, so the answer still carries `Content-Length`.
struct Pieces {
    pieces: std::collections::VecDeque<Bytes>,
    left: u64,
}

impl Pieces {
    fn new(pieces: Vec<Bytes>) -> Pieces {
        let left = pieces.iter().map(|p| p.len() as u64).sum();
        Pieces {
            pieces: pieces.into(),
            left,
        }
    }
}

impl http_body::Body for Pieces {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let piece = this.pieces.pop_front().map(|piece| {
            this.left -= piece.len() as u64;
            Ok(http_body::Frame::data(piece))
        });
        std::task::Poll::Ready(piece)
    }

    fn is_end_stream(&self) -> bool {
        self.pieces.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

/// Every response: never cached, and names the revision in use (one of ours, so a static
/// header value, not a copy).
fn with_mcp_headers(mut response: Response, version: &'static str) -> Response {
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(protocol::VERSION_HEADER, HeaderValue::from_static(version));
    response
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Host, test_catalog};

    /// A host nobody authenticates with: the test only builds futures, never polls them.
    struct NoHost;

    /// A host with nothing to say: every method's default (no token taken, no scopes).
    impl Host for NoHost {}

    fn test_endpoint() -> Endpoint {
        Endpoint::new(
            test_catalog::CATALOG,
            Arc::new(NoHost),
            axum::Router::new(),
            test_catalog::settings(),
        )
    }

    #[test]
    fn a_service_without_scopes_is_challenged_without_a_scope() {
        let endpoint = test_endpoint();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        let response = unauthorized(&endpoint, &headers, "no token", false);
        let challenge = response.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap();
        assert_eq!(
            challenge,
            r#"Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource""#
        );
    }

    /// Every layer that awaits a message's work holds that work's future whole, and the future
    /// is copied as it moves from one layer to the next: unboxed, the request's future was
    /// 46 848 bytes and `memcpy` a third of an MCP `ping`'s instructions (bench/RESULTS.md).
    #[test]
    fn a_request_future_stays_small_because_the_work_below_it_is_boxed() {
        let endpoint = test_endpoint();
        let mut post = Request::new(Body::empty());
        *post.method_mut() = Method::POST;
        *post.uri_mut() = http::Uri::from_static("/mcp");
        let request = handle(State(endpoint), post);
        let size = std::mem::size_of_val(&request);
        assert!(size <= 4096, "the request's future is {size} bytes");
    }
}
