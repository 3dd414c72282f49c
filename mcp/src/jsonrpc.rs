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
    fn parse(raw: Box<RawValue>) -> Result<Id, RpcError> {
        let text = raw.get();
        let digits = text.strip_prefix('-').unwrap_or(text);
        let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if text.starts_with('"') || integer {
            Ok(Id(raw))
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

/// One message of a request body, read once: the members JSON-RPC gives meaning to, each as
/// it was sent (the id raw, for [`Id`]; `params` as the one `Value` the methods read), the
/// rest skipped. Reading the message as a `Value` and then its id again from its text, and
/// copying `params` out of the tree, was a tenth of an MCP tool call's instructions.
#[derive(Debug)]
pub struct Received(Option<Members>);

impl Received {
    /// Its id when it has a valid one (given once, a string or an integer): for an answer to a
    /// request refused before it is read as a whole (its headers at fault), which still names
    /// the request.
    pub fn valid_id(&self) -> Option<Id> {
        match self.0.as_ref()?.id.as_ref()? {
            RawId::Once(raw) => Id::parse(raw.clone()).ok(),
            RawId::Repeated => None,
        }
    }
}

/// The members of a message that is a JSON object. A repeated member counts as its last
/// value, as a `Value` would read it, except `id`, which must appear once.
#[derive(Debug, Default)]
struct Members {
    /// `jsonrpc` is the string `"2.0"`.
    version_2: bool,
    id: Option<RawId>,
    /// `Some(None)`: a `method` that is not a string.
    method: Option<Option<String>>,
    params: Option<Value>,
    /// It has a `result` or an `error`: an answer, should it have no method.
    answers: bool,
}

#[derive(Debug)]
enum RawId {
    Once(Box<RawValue>),
    Repeated,
}

/// The members JSON-RPC names; any other is skipped. serde's field identifiers read a key
/// written with escapes as the key it spells, as a `Value` would.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Received {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Received, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

/// Reads any JSON value: an object's members, anything else skipped (not a message).
struct MessageVisitor;

impl<'de> serde::de::Visitor<'de> for MessageVisitor {
    type Value = Received;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    // What is skipped is still read as a `Value`, which refuses what a `Value` would (nesting
    // past serde_json's limit is a parse error, as it was when the whole message was read).
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Received, A::Error> {
        let mut members = Members::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc => members.version_2 = map.next_value::<Value>()? == "2.0",
                Key::Id => {
                    let raw: Box<RawValue> = map.next_value()?;
                    members.id = Some(match members.id {
                        None => RawId::Once(raw),
                        Some(_) => RawId::Repeated,
                    });
                }
                Key::Method => {
                    members.method = Some(match map.next_value::<Value>()? {
                        Value::String(method) => Some(method),
                        _ => None,
                    });
                }
                Key::Params => members.params = Some(map.next_value()?),
                Key::Result | Key::Error => {
                    map.next_value::<Value>()?;
                    members.answers = true;
                }
                Key::Other => {
                    map.next_value::<Value>()?;
                }
            }
        }
        Ok(Received(Some(members)))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Received, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(Received(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Received, E> {
        Ok(Received(None))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Received, E> {
        Ok(Received(None))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Received, E> {
        Ok(Received(None))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Received, E> {
        Ok(Received(None))
    }
    fn visit_str<E>(self, _: &str) -> Result<Received, E> {
        Ok(Received(None))
    }
    fn visit_unit<E>(self) -> Result<Received, E> {
        Ok(Received(None))
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
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        serde_json::from_slice(bytes).map(Messages::Batch)
    } else {
        serde_json::from_slice(bytes).map(Messages::Single)
    }
}

/// Why a message is not a JSON-RPC message, and its id when it has a valid one (so that
/// the error can name it).
#[derive(Debug)]
pub struct Refusal {
    pub error: RpcError,
    pub id: Option<Id>,
}

/// Classify one message as a JSON-RPC message, or say why it is not one.
pub fn classify(message: Received) -> Result<Message, Box<Refusal>> {
    let refuse = |message: &str, id: Option<Id>| {
        Box::new(Refusal {
            error: RpcError::new(ErrorCode::INVALID_REQUEST, message),
            id,
        })
    };
    let Some(members) = message.0 else {
        return Err(refuse("Invalid Request: not a JSON-RPC object", None));
    };
    // The id is read first so that every later refusal can name it.
    let id = match members.id {
        None => None,
        Some(RawId::Once(raw)) => Some(Id::parse(raw)),
        Some(RawId::Repeated) => Some(Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: id must appear once",
        ))),
    };
    let valid_id = || id.as_ref().and_then(|id| id.as_ref().ok()).cloned();
    if !members.version_2 {
        return Err(refuse(
            "Invalid Request: jsonrpc must be \"2.0\"",
            valid_id(),
        ));
    }
    let id = match id {
        None => None,
        Some(Ok(id)) => Some(id),
        Some(Err(error)) => return Err(Box::new(Refusal { error, id: None })),
    };
    match members.method {
        Some(Some(method)) => {
            let params = members.params.unwrap_or(Value::Object(Default::default()));
            if !params.is_object() {
                return Err(refuse("Invalid Request: params must be an object", id));
            }
            Ok(match id {
                Some(id) => Message::Request(Incoming { id, method, params }),
                None => Message::Notification,
            })
        }
        Some(None) => Err(refuse("Invalid Request: method must be a string", id)),
        None if id.is_some() && members.answers => Ok(Message::Response),
        None => Err(refuse("Invalid Request: no method", id)),
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
    const OPENING: &str = r#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &str = r#","result":"#;
    let id = id.0.get();
    let mut head = String::with_capacity(OPENING.len() + id.len() + RESULT.len());
    head.push_str(OPENING);
    head.push_str(id);
    head.push_str(RESULT);
    vec![Bytes::from(head), result, Bytes::from_static(b"}")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_received_message_names_its_id_only_when_it_has_a_valid_one() {
        let id = |body: &str| match parse(body.as_bytes()).unwrap() {
            Messages::Single(single) => single.valid_id().map(|id| id.text()),
            Messages::Batch(_) => unreachable!(),
        };
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#).as_deref(),
            Some("a")
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"x"}"#), None);
        // Not an object at all.
        assert_eq!(id("7"), None);
    }

    /// What `body`, one message, classifies as: the method and params of a request, or the
    /// word for another kind, or the refusal's message and the id it names.
    fn read(body: &str) -> String {
        let Ok(Messages::Single(message)) = parse(body.as_bytes()) else {
            return "not one message".into();
        };
        match classify(message) {
            Ok(Message::Request(incoming)) => format!(
                "request {} {} {}",
                incoming.id.0.get(),
                incoming.method,
                incoming.params
            ),
            Ok(Message::Notification) => "notification".into(),
            Ok(Message::Response) => "response".into(),
            Err(refusal) => format!(
                "{} (id {})",
                refusal.error.message,
                refusal
                    .id
                    .map_or("none".into(), |id| id.0.get().to_string())
            ),
        }
    }

    #[test]
    fn a_message_is_read_in_one_pass_as_a_value_would_read_it() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"id":"a"}}}"#,
                r#"request 7 tools/call {"name":"x","arguments":{"id":"a"}}"#,
            ),
            // Keys written with escapes are the keys they spell; unknown members are skipped.
            (
                r#"{"jsonrpc":"2.0","\u0069d":"a","m\u0065thod":"ping","extra":[1,{"b":2}]}"#,
                r#"request "a" ping {}"#,
            ),
            // A repeated member counts as its last value, but an id must appear once.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
                "request 1 b {}",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
                "Invalid Request: id must appear once (id none)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}"#,
                "request 99999999999999999999 ping {}",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                "Invalid Request: id must be a string or an integer (id none)",
            ),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
                "Invalid Request: jsonrpc must be \"2.0\" (id 3)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":null}"#,
                "Invalid Request: params must be an object (id 3)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":7}"#,
                "Invalid Request: method must be a string (id 3)",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "notification",
            ),
            (r#"{"jsonrpc":"2.0","id":4,"result":{}}"#, "response"),
            (
                r#"{"jsonrpc":"2.0","error":{}}"#,
                "Invalid Request: no method (id none)",
            ),
            ("[1]", "not one message"),
            (
                "\"text\"",
                "Invalid Request: not a JSON-RPC object (id none)",
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(read(body), expected, "{body}");
        }
    }

    #[test]
    fn nesting_past_the_parser_limit_is_a_parse_error_wherever_it_is() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        for body in [
            deep.clone(),
            format!("[{deep}]"),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","extra":{deep}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{deep}}}}}"#),
        ] {
            assert!(parse(body.as_bytes()).is_err(), "{}", &body[..40]);
        }
        // A batch of messages is read message by message.
        let Ok(Messages::Batch(items)) = parse(br#" [{"jsonrpc":"2.0","id":1,"method":"ping"},5]"#)
        else {
            panic!("not a batch");
        };
        assert_eq!(items.len(), 2);
    }
}
