//! Operations that ask the client for input: the multi round-trip request (MRTR) of the
//! 2026-07-28 revision, carried over HTTP to the operation (see `codegen/X-MCP.md`, "Asking
//! the client for input").
//!
//! An operation that answers MCP results (`x-mcp.result: mcp`, or one serving a prompt) may
//! answer a 2xx `InputRequiredResult` (`{"resultType": "input_required", "inputRequests":
//! {...}, "requestState": "..."}`) instead. The layer then refuses with
//! `MissingRequiredClientCapability` (-32021) when a request needs a capability the client
//! did not declare, and otherwise passes the result on with the operation's `requestState`
//! sealed: signed, and bound to the caller, the operation, the arguments and an expiry. When
//! the client retries, the seal is checked and the round's input reaches the operation in
//! request headers, each the base64url (no padding) of UTF-8 text:
//!
//! - `Mcp-Client-Capabilities`: what the client declared, as JSON (`{}` in the handshake
//!   era, which has no way to ask);
//! - `Mcp-Input-Responses`: the call's `inputResponses` object, as JSON, when it has one;
//! - `Mcp-Request-State`: the operation's own state from the previous round, when it set one.
//!
//! So an operation never sees a state it did not issue, and a state cannot be moved to
//! another caller, operation or set of arguments.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderName, HeaderValue};
use serde_json::{Map, Value, json};

use super::confirm::{self, TTL_SECS};
use super::dispatch::Answer;
use super::jsonrpc::{ErrorCode, RpcError};
use super::protocol::Context;
use super::{Caller, Settings};

/// The client's declared capabilities, as JSON.
pub const CLIENT_CAPABILITIES: &str = "mcp-client-capabilities";
/// The call's `inputResponses`, as JSON.
pub const INPUT_RESPONSES: &str = "mcp-input-responses";
/// The operation's own `requestState` from the previous round.
pub const REQUEST_STATE: &str = "mcp-request-state";

/// Marks the states this module seals, apart from confirmation states.
const KIND: &str = "input";

/// One call of an operation that may ask for input: who calls what, with which arguments.
#[derive(Debug)]
pub struct Round<'a> {
    pub settings: &'a Settings,
    pub context: &'a Context,
    pub caller: &'a Caller,
    /// The operation's name in the catalog.
    pub operation: &'a str,
    /// Digest of the arguments (`confirm::arguments_digest`).
    pub digest: String,
}

impl<'a> Round<'a> {
    pub fn new(
        settings: &'a Settings,
        context: &'a Context,
        caller: &'a Caller,
        operation: &'a str,
        arguments: &Map<String, Value>,
    ) -> Self {
        Round {
            settings,
            context,
            caller,
            operation,
            digest: confirm::arguments_digest(arguments),
        }
    }

    /// The headers that bring this round's input to the operation. A `requestState` that
    /// fails its seal, or `inputResponses` that are not an object of objects, are refused
    /// (`-32602`) before the operation runs.
    pub fn headers(&self, params: &Value) -> Result<Vec<(HeaderName, HeaderValue)>, RpcError> {
        let mut headers = vec![header(
            CLIENT_CAPABILITIES,
            &self.context.client_capabilities.to_string(),
        )];
        if let Some(responses) = params.get("inputResponses") {
            let Some(map) = responses.as_object() else {
                return Err(RpcError::invalid_params(
                    "inputResponses must be an object: the client's result for each input request, by key",
                ));
            };
            if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_object()) {
                return Err(RpcError::invalid_params(format!(
                    "inputResponses.{key} must be an object (the client's result for that request)"
                )));
            }
            headers.push(header(INPUT_RESPONSES, &responses.to_string()));
        }
        if let Some(state) = params.get("requestState") {
            let state = state
                .as_str()
                .ok_or_else(|| RpcError::invalid_params("requestState must be a string"))?;
            let inner = self
                .open(state)
                .map_err(|why| RpcError::invalid_params(format!("Invalid requestState: {why}")))?;
            if let Some(inner) = inner.filter(|s| !s.is_empty()) {
                headers.push(header(REQUEST_STATE, &inner));
            }
        }
        Ok(headers)
    }

    /// The `InputRequiredResult` for the client: `requests` as the operation wrote them, and
    /// its `state` sealed. Refused with -32021 when a request needs a capability the client
    /// did not declare. Only for the stateless era: the handshake era cannot ask.
    pub fn ask(
        &self,
        requests: Map<String, Value>,
        state: Option<String>,
    ) -> Result<Value, RpcError> {
        let mut missing = Map::new();
        for (key, request) in &requests {
            let method = request
                .get("method")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    tracing::error!(
                        operation = self.operation,
                        "inputRequests.{key} has no method"
                    );
                    RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
                })?;
            if let Some(capability) = capability_for(method)
                && !self
                    .context
                    .client_capabilities
                    .get(capability)
                    .is_some_and(Value::is_object)
            {
                missing.insert(capability.to_string(), json!({}));
            }
        }
        if !missing.is_empty() {
            let names: Vec<&str> = missing.keys().map(String::as_str).collect();
            return Err(RpcError::new(
                ErrorCode::MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: {} (declare it in io.modelcontextprotocol/clientCapabilities)",
                    names.join(", ")
                ),
            )
            .with_status(400)
            .with_data(json!({ "requiredCapabilities": missing })));
        }
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let claims = json!({
            "v": 1,
            "kind": KIND,
            "sub": self.caller.subject,
            "op": self.operation,
            "args": self.digest,
            "exp": now + TTL_SECS,
            "state": state,
        });
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": confirm::seal(&self.settings.confirmation_secret, &claims),
        }))
    }

    /// The operation's own state inside a sealed one, if the seal holds for this round.
    fn open(&self, state: &str) -> Result<Option<String>, &'static str> {
        let claims = confirm::open(&self.settings.confirmation_secret, state)?;
        if claims["kind"] != KIND {
            return Err("not issued by an operation asking for input");
        }
        if claims["sub"] != self.caller.subject.as_str() {
            return Err("issued to another caller");
        }
        if claims["op"] != self.operation {
            return Err("issued for another operation");
        }
        if claims["args"] != self.digest.as_str() {
            return Err("issued for other arguments");
        }
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        if claims["exp"].as_i64().is_none_or(|exp| exp < now) {
            return Err("expired");
        }
        Ok(claims["state"].as_str().map(str::to_string))
    }
}

/// The client capability an input request needs.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation"),
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

fn header(name: &'static str, text: &str) -> (HeaderName, HeaderValue) {
    let value = HeaderValue::from_str(&URL_SAFE_NO_PAD.encode(text))
        .expect("base64url is a valid header value");
    (HeaderName::from_static(name), value)
}

/// A successful answer of an operation that speaks MCP results.
#[derive(Debug)]
pub enum Reply {
    /// The result itself (`resultType` removed: the era decides whether to say it).
    Complete(Map<String, Value>),
    /// The operation asks the client for input.
    InputRequired {
        requests: Map<String, Value>,
        state: Option<String>,
    },
}

/// Read a 2xx answer as an MCP result; `Err` says what is wrong with it.
pub fn read(answer: &Answer) -> Result<Reply, String> {
    let Ok(Value::Object(mut result)) = serde_json::from_slice::<Value>(&answer.body) else {
        return Err("the operation did not answer a JSON object".into());
    };
    match result.remove("resultType") {
        Some(Value::String(kind)) if kind == "input_required" => {
            let requests = match result.remove("inputRequests") {
                None => Map::new(),
                Some(Value::Object(map)) => map,
                Some(_) => return Err("inputRequests is not an object".into()),
            };
            let state = match result.remove("requestState") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s),
                Some(_) => return Err("requestState is not a string".into()),
            };
            if requests.is_empty() && state.is_none() {
                return Err(
                    "an input_required result without inputRequests or requestState".into(),
                );
            }
            Ok(Reply::InputRequired { requests, state })
        }
        None => Ok(Reply::Complete(result)),
        Some(Value::String(kind)) if kind == "complete" => Ok(Reply::Complete(result)),
        Some(other) => Err(format!("unknown resultType {other}")),
    }
}

/// Why the handshake era cannot serve an operation that asks for input.
pub fn handshake_refusal(context: &Context, requests: &Map<String, Value>) -> String {
    let methods: Vec<&str> = requests
        .values()
        .filter_map(|r| r.get("method").and_then(Value::as_str))
        .collect();
    format!(
        "This needs input from the client ({}), which protocol revision {} cannot ask for: use revision 2026-07-28",
        if methods.is_empty() {
            "another round".to_string()
        } else {
            methods.join(", ")
        },
        context.version.0
    )
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::protocol::Version;

    fn settings() -> Settings {
        Settings {
            path: "/mcp".into(),
            public_catalog: false,
            server_name: "test",
            server_title: "Test",
            server_version: "0",
            loopback_only: true,
            canonical_url: None,
            allowed_origins: Vec::new(),
            confirmation_secret: b"test secret".to_vec(),
            reject_unconfirmed_in_handshake_era: false,
            openapi_resource_uri: "test://openapi".into(),
            authorization_servers: Vec::new(),
            problem_type_base: String::new(),
            toolsets: None,
            read_only: false,
            discovery: false,
            strict_schemas: false,
            authentication: crate::Authentication::Bearer,
            forward: crate::Forward::default(),
            validation_error_code: "VALIDATION_ERROR",
            response_meta: true,
        }
    }

    fn caller(subject: &str) -> Caller {
        Caller {
            subject: subject.into(),
            scopes: Default::default(),
            toolsets: crate::toolsets::Toolsets::default(),
            extensions: http::Extensions::new(),
        }
    }

    fn context(capabilities: Value) -> Context {
        Context {
            version: Version("2026-07-28"),
            client_capabilities: capabilities,
            param_headers: Vec::new(),
        }
    }

    fn decoded(headers: &[(HeaderName, HeaderValue)], name: &str) -> Option<String> {
        let (_, value) = headers.iter().find(|(n, _)| n == name)?;
        String::from_utf8(URL_SAFE_NO_PAD.decode(value.as_bytes()).ok()?).ok()
    }

    #[test]
    fn a_sealed_state_comes_back_to_its_operation_only() {
        let settings = settings();
        let ctx = context(json!({ "elicitation": {} }));
        let alice = caller("alice");
        let args = Map::new();
        let round = Round::new(&settings, &ctx, &alice, "op_a", &args);
        let asked = round
            .ask(
                serde_json::from_value(
                    json!({ "q": { "method": "elicitation/create", "params": {} } }),
                )
                .unwrap(),
                Some("step-2".into()),
            )
            .unwrap();
        assert_eq!(asked["resultType"], "input_required");
        let state = asked["requestState"].clone();
        let params =
            json!({ "requestState": state, "inputResponses": { "q": { "action": "accept" } } });
        let headers = round.headers(&params).unwrap();
        assert_eq!(decoded(&headers, REQUEST_STATE).as_deref(), Some("step-2"));
        assert_eq!(
            decoded(&headers, INPUT_RESPONSES).as_deref(),
            Some(r#"{"q":{"action":"accept"}}"#)
        );
        assert_eq!(
            decoded(&headers, CLIENT_CAPABILITIES).as_deref(),
            Some(r#"{"elicitation":{}}"#)
        );

        let bob = caller("bob");
        let other_caller = Round::new(&settings, &ctx, &bob, "op_a", &args);
        assert!(other_caller.headers(&params).is_err());
        let other_op = Round::new(&settings, &ctx, &alice, "op_b", &args);
        assert!(other_op.headers(&params).is_err());
        let mut tampered = params.clone();
        tampered["requestState"] = json!(format!("{}-TAMPERED", state.as_str().unwrap()));
        let error = round.headers(&tampered).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn input_responses_must_be_an_object_of_objects() {
        let settings = settings();
        let ctx = context(json!({}));
        let who = caller("c");
        let round = Round::new(&settings, &ctx, &who, "op", &Map::new());
        for bad in [
            json!({ "inputResponses": null }),
            json!({ "inputResponses": { "k": 12345 } }),
        ] {
            assert_eq!(
                round.headers(&bad).unwrap_err().code,
                ErrorCode::INVALID_PARAMS
            );
        }
    }

    #[test]
    fn a_request_needing_an_undeclared_capability_is_refused_naming_it() {
        let settings = settings();
        let ctx = context(json!({ "elicitation": {} }));
        let who = caller("c");
        let round = Round::new(&settings, &ctx, &who, "op", &Map::new());
        let requests = serde_json::from_value(json!({
            "a": { "method": "sampling/createMessage", "params": {} },
            "b": { "method": "elicitation/create", "params": {} },
        }))
        .unwrap();
        let error = round.ask(requests, None).unwrap_err();
        assert_eq!(error.code, ErrorCode::MISSING_CLIENT_CAPABILITY);
        assert_eq!(error.http_status, 400);
        assert_eq!(
            error.data.unwrap(),
            json!({ "requiredCapabilities": { "sampling": {} } })
        );
    }
}
