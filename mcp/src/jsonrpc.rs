//! JSON-RPC 2.0 messages and the error codes MCP uses.
//!
//! Request ids are kept as the client wrote them ([`Id`]): a `serde_json::Value` would turn
//! `99999999999999999999` into a float and answer `1e20`, and the client would never match
//! the answer to its request. Answers are therefore serialised text, not `Value`s.

use std::sync::Arc;

use axum::body::Bytes;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// JSON-RPC error codes, named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// The body is not JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// Not a valid JSON-RPC request.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// No such method.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// The method's parameters are wrong (an unknown tool, bad arguments).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// The server failed.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// Transport-level refusals (wrong HTTP method, auth) in the streamable HTTP transport.
    pub const SERVER_ERROR: ErrorCode = ErrorCode(-32000);
    /// Resource not found (2025 era).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// Headers do not repeat the body (2026 era).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// Serving the request needs a capability the client did not declare (2026 era).
    pub const MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// Protocol version not supported.
    pub const UNSUPPORTED_VERSION: ErrorCode = ErrorCode(-32022);
}

/// A JSON-RPC error object, with an optional HTTP status for the response that carries it.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: ErrorCode,
    pub message: String,
    pub data: Option<Value>,
    /// HTTP status when the error decides it (400, 404, ...); 200 otherwise.
    pub http_status: u16,
}

impl RpcError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
            http_status: 200,
        }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.http_status = status;
        self
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(ErrorCode::INVALID_PARAMS, message)
    }

    pub fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code.0, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }
}

/// A request id exactly as it was sent: a JSON string or integer, as raw text.
///
/// MCP allows a string or an integer and never `null`; JSON-RPC's fractional numbers are
/// refused too, since the revisions' schemas (`RequestId`) would not accept them back.
#[derive(Debug, Clone)]
pub struct Id(Box<RawValue>);

impl Id {
    /// The id as text: a string's characters, an integer's digits.
    pub fn text(&self) -> String {
        serde_json::from_str::<String>(self.0.get()).unwrap_or_else(|_| self.0.get().to_string())
    }

    /// The id in `raw`, or why it cannot be one.
    fn parse(raw: &RawValue) -> Result<Id, RpcError> {
        let text = raw.get();
        let digits = text.strip_prefix('-').unwrap_or(text);
        let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if text.starts_with('"') || integer {
            Ok(Id(raw.to_owned()))
        } else {
            Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: id must be a string or an integer",
            ))
        }
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// The `id` member of a message, raw, telling `"id": null` (present) from no `id`.
#[derive(Deserialize)]
struct IdProbe<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The raw `id` of a message, if it is an object that has one.
fn raw_id(message: &RawValue) -> Option<&RawValue> {
    serde_json::from_str::<IdProbe<'_>>(message.get())
        .ok()
        .and_then(|probe| probe.id)
}

/// A request or notification as received.
#[derive(Debug, Clone)]
pub struct Incoming {
    pub id: Id,
    pub method: String,
    pub params: Value,
}

/// What one message is, once classified.
#[derive(Debug)]
pub enum Message {
    Request(Incoming),
    Notification,
    /// A response sent by the client (to a server request we never make): accepted, ignored.
    Response,
}

/// One message of a request body: its text, for the exact id, and its value.
#[derive(Debug)]
pub struct Received {
    raw: Box<RawValue>,
    value: Value,
}

impl Received {
    fn parse(raw: Box<RawValue>) -> Result<Received, serde_json::Error> {
        let value = serde_json::from_str(raw.get())?;
        Ok(Received { raw, value })
    }
}

/// A request body: one message, or a batch (a JSON array).
#[derive(Debug)]
pub enum Messages {
    Single(Received),
    Batch(Vec<Received>),
}

/// Read a request body; the error is the parser's, for a `-32700`.
pub fn parse(bytes: &[u8]) -> Result<Messages, serde_json::Error> {
    let body: Box<RawValue> = serde_json::from_slice(bytes)?;
    if !body.get().starts_with('[') {
        return Received::parse(body).map(Messages::Single);
    }
    serde_json::from_str::<Vec<Box<RawValue>>>(body.get())?
        .into_iter()
        .map(Received::parse)
        .collect::<Result<Vec<_>, _>>()
        .map(Messages::Batch)
}

/// Classify one message as a JSON-RPC message, or say why it is not one.
pub fn classify(message: &Received) -> Result<Message, RpcError> {
    let Some(object) = message.value.as_object() else {
        return Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC object",
        ));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ));
    }
    let id = match (object.contains_key("id"), raw_id(&message.raw)) {
        (false, _) => None,
        (true, Some(raw)) => Some(Id::parse(raw)?),
        (true, None) => {
            return Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: id must appear once",
            ));
        }
    };
    match object.get("method") {
        Some(Value::String(method)) => {
            let params = object
                .get("params")
                .cloned()
                .unwrap_or(Value::Object(Default::default()));
            if !params.is_object() {
                return Err(RpcError::new(
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: params must be an object",
                ));
            }
            Ok(match id {
                Some(id) => Message::Request(Incoming {
                    id,
                    method: method.clone(),
                    params,
                }),
                None => Message::Notification,
            })
        }
        Some(_) => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: method must be a string",
        )),
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            Ok(Message::Response)
        }
        None => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: no method",
        )),
    }
}

/// One answer as it goes on the wire.
#[derive(Serialize)]
struct Answer<'a> {
    jsonrpc: &'static str,
    /// `null` when the request's id could not be read.
    id: Option<&'a Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

fn serialise(answer: &Answer<'_>) -> Box<RawValue> {
    // Serialising a `Value` and an id that was valid JSON cannot fail.
    serde_json::value::to_raw_value(answer).unwrap_or_else(|e| {
        tracing::error!("cannot serialise a JSON-RPC answer: {e}");
        RawValue::from_string(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
                .to_string(),
        )
        .expect("valid JSON")
    })
}

/// `{"jsonrpc":"2.0","id":..,"result":..}`
pub fn success(id: &Id, result: &Value) -> Box<RawValue> {
    serialise(&Answer {
        jsonrpc: "2.0",
        id: Some(id),
        result: Some(result),
        error: None,
    })
}

/// What a method answers: a value to serialise, or a result serialised once and kept (the
/// `tools/list` listings, see `tools::Listings`).
#[derive(Debug)]
pub enum Outcome {
    Value(Value),
    Prepared(Arc<RawValue>),
    /// A result the MCP layer wrote as text from pieces that are each JSON (a tool's answer,
    /// `results::prepared`): sent as it is, never parsed.
    Assembled(Bytes),
}

/// The text of the success answer carrying `outcome`, in pieces to be sent one after the
/// other. A prepared result is a piece of its own that shares the kept text instead of
/// copying it (a listing is some hundred kilobytes, and copying it into each answer was a
/// third of `tools/list`'s time: bench/RESULTS.md); the pieces around it are the bytes the
/// serialiser writes around a value, so both kinds give the same text, and it is not parsed
/// again.
pub fn answer_pieces(id: &Id, outcome: &Outcome) -> Vec<Bytes> {
    match outcome {
        Outcome::Value(value) => {
            vec![Bytes::from(String::from(Box::<str>::from(success(
                id, value,
            ))))]
        }
        Outcome::Prepared(result) => around(id, Bytes::from_owner(Shared(result.clone()))),
        Outcome::Assembled(result) => around(id, result.clone()),
    }
}

/// The success answer's pieces around a result that is already text.
fn around(id: &Id, result: Bytes) -> Vec<Bytes> {
    vec![
        Bytes::from(format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":"#,
            id.0.get()
        )),
        result,
        Bytes::from_static(b"}"),
    ]
}

/// The whole text of [`answer_pieces`], for a batch's array.
pub fn answer(id: &Id, outcome: &Outcome) -> String {
    let text = answer_pieces(id, outcome).concat();
    String::from_utf8(text).expect("the pieces of a JSON text are UTF-8")
}

/// A prepared result's text as bytes that share it.
struct Shared(Arc<RawValue>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        self.0.get().as_bytes()
    }
}

/// `{"jsonrpc":"2.0","id":..,"error":..}`; `id` is null when the request's could not be read.
pub fn failure(id: Option<&Id>, error: &RpcError) -> Box<RawValue> {
    serialise(&Answer {
        jsonrpc: "2.0",
        id,
        result: None,
        error: Some(error.to_json()),
    })
}

/// Best-effort id of a message that failed to classify, so the error can name it.
pub fn id_of(message: &Received) -> Option<Id> {
    raw_id(&message.raw).and_then(|raw| Id::parse(raw).ok())
}
