//! JSON-RPC 2.0 messages and the error codes MCP uses.

use serde_json::{Value, json};

/// JSON-RPC error codes, named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
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

/// A request or notification as received.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// `None` for notifications.
    pub id: Option<Value>,
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

/// Classify a JSON value as a JSON-RPC message, or say why it is not one.
pub fn classify(value: &Value) -> Result<Message, RpcError> {
    let Some(object) = value.as_object() else {
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
    let id = object.get("id").cloned();
    if let Some(id) = &id
        && !(id.is_string() || id.is_number())
    {
        return Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: id must be a string or a number",
        ));
    }
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
            let incoming = Incoming {
                id: id.clone(),
                method: method.clone(),
                params,
            };
            Ok(if id.is_some() {
                Message::Request(incoming)
            } else {
                Message::Notification
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

/// `{"jsonrpc":"2.0","id":..,"result":..}`
pub fn success(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// `{"jsonrpc":"2.0","id":..,"error":..}`; `id` is null when the request's could not be read.
pub fn failure(id: Option<&Value>, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null), "error": error.to_json() })
}

/// Best-effort id of a message that failed to classify, so the error can name it.
pub fn id_of(value: &Value) -> Option<Value> {
    value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
}
