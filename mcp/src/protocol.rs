//! Protocol revisions and eras, and the checks that decide which one a request speaks.
//!
//! The era is decided by the body: an envelope (`params._meta` with
//! `io.modelcontextprotocol/protocolVersion`) means the stateless 2026-07-28 era, where the
//! headers must repeat the body; no envelope means the handshake era of 2025.

use base64::Engine;
use http::{HeaderMap, HeaderName};
use serde_json::{Value, json};

use super::jsonrpc::{ErrorCode, Incoming, RpcError};

/// Every revision this server speaks, newest first.
pub const SUPPORTED_VERSIONS: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];
/// Revisions reached through `initialize`.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Revision of the stateless era.
pub const STATELESS_VERSION: &str = "2026-07-28";
/// Offered by `initialize` when the client asks for something else.
pub const DEFAULT_HANDSHAKE_VERSION: &str = "2025-06-18";
/// Assumed when a request carries no version at all (as the 2025-06-18 spec says).
pub const UNVERSIONED: &str = "2025-03-26";

pub const ENVELOPE_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const ENVELOPE_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// A protocol revision in use for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version(pub &'static str);

impl Version {
    /// Whether this is the stateless revision (no `initialize` handshake).
    pub fn is_stateless(&self) -> bool {
        self.0 == STATELESS_VERSION
    }
}

/// The era of one request and what comes with it.
#[derive(Debug, Clone)]
pub struct Context {
    pub version: Version,
    /// The client's capabilities (2026 era: from the envelope).
    pub client_capabilities: Value,
    /// `Mcp-Param-<Name>` headers (2026 era): the name after the prefix, lower-cased, and
    /// the value as sent (`None` when it is not text).
    pub param_headers: Vec<(String, Option<String>)>,
}

fn supported(text: &str) -> Option<&'static str> {
    SUPPORTED_VERSIONS.iter().copied().find(|v| *v == text)
}

fn unsupported(requested: &str) -> RpcError {
    RpcError::new(
        ErrorCode::UNSUPPORTED_VERSION,
        "Unsupported protocol version",
    )
    .with_status(400)
    .with_data(json!({ "supported": SUPPORTED_VERSIONS, "requested": requested }))
}

/// The header that names the revision, on requests and answers.
pub const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The headers a 2026-07-28 request repeats its method and its tool, prompt or resource in.
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// The `MCP-Protocol-Version` header, if any.
pub fn header_version(headers: &HeaderMap) -> Option<&str> {
    headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok())
}

/// The version to announce on a response to a request that could not be read.
pub fn fallback_version(headers: &HeaderMap) -> &'static str {
    header_version(headers)
        .and_then(supported)
        .unwrap_or(DEFAULT_HANDSHAKE_VERSION)
}

/// Decide the era of a single message and run its checks, in the order the specification
/// gives (the conformance suite depends on it).
pub fn context_for(message: &Incoming, headers: &HeaderMap) -> Result<Context, RpcError> {
    let envelope = message
        .params
        .get("_meta")
        .and_then(|m| m.get(ENVELOPE_VERSION));
    match envelope {
        Some(envelope) => stateless_context(message, headers, envelope),
        None => handshake_context(message, headers),
    }
}

fn stateless_context(
    message: &Incoming,
    headers: &HeaderMap,
    envelope: &Value,
) -> Result<Context, RpcError> {
    let requested = envelope.as_str().unwrap_or_default();
    // 1. The headers must repeat the body.
    let mismatch = |which: &str| {
        RpcError::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {which}"),
        )
        .with_status(400)
    };
    if header_value(headers, &VERSION_HEADER).as_deref() != Some(requested) {
        return Err(mismatch(
            "MCP-Protocol-Version does not match params._meta protocolVersion",
        ));
    }
    if header_value(headers, &METHOD_HEADER).as_deref() != Some(message.method.as_str()) {
        return Err(mismatch("Mcp-Method does not match the method"));
    }
    let name_source = match message.method.as_str() {
        "tools/call" | "prompts/get" => Some(("name", "params.name")),
        "resources/read" => Some(("uri", "params.uri")),
        _ => None,
    };
    if let Some((key, label)) = name_source {
        let expected = message.params.get(key).and_then(Value::as_str);
        if header_value(headers, &NAME_HEADER).as_deref() != expected {
            return Err(mismatch(&format!("Mcp-Name does not match {label}")));
        }
    }
    // 2. The version must be one of this era.
    if requested != STATELESS_VERSION {
        return Err(unsupported(requested));
    }
    // 3. The client must say what it can do.
    let capabilities = message
        .params
        .get("_meta")
        .and_then(|m| m.get(ENVELOPE_CAPABILITIES));
    match capabilities {
        Some(c) if c.is_object() => Ok(Context {
            version: Version(STATELESS_VERSION),
            client_capabilities: c.clone(),
            param_headers: param_headers(headers),
        }),
        _ => Err(RpcError::invalid_params(format!(
            "params._meta[\"{ENVELOPE_CAPABILITIES}\"] must be an object"
        ))
        .with_status(400)),
    }
}

fn handshake_context(message: &Incoming, headers: &HeaderMap) -> Result<Context, RpcError> {
    let capabilities = json!({});
    match header_version(headers) {
        Some(STATELESS_VERSION) => Err(RpcError::invalid_params(
            "MCP-Protocol-Version 2026-07-28 requires params._meta[\"io.modelcontextprotocol/protocolVersion\"]; \
             this server does not fall back to the handshake era silently",
        )
        .with_status(400)),
        Some(text) => match HANDSHAKE_VERSIONS.iter().copied().find(|v| *v == text) {
            Some(v) => Ok(Context {
                version: Version(v),
                client_capabilities: capabilities,
                param_headers: Vec::new(),
            }),
            None => Err(unsupported(text)),
        },
        None => {
            // `initialize` negotiates its own version; everything else without a header is
            // the oldest revision that has this transport.
            let version = if message.method == "initialize" { negotiate(&message.params) } else { UNVERSIONED };
            Ok(Context {
                version: Version(version),
                client_capabilities: capabilities,
                param_headers: Vec::new(),
            })
        }
    }
}

/// The revision `initialize` answers with.
pub fn negotiate(params: &Value) -> &'static str {
    let asked = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    HANDSHAKE_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == asked)
        .unwrap_or(DEFAULT_HANDSHAKE_VERSION)
}

/// A header's value, with RFC 2047-style `=?base64?...?=` decoded (for non-ASCII names).
fn header_value(headers: &HeaderMap, name: &HeaderName) -> Option<String> {
    decode_header_value(headers.get(name)?.to_str().ok()?)
}

/// A header value as the 2026-07-28 transport encodes it: `=?base64?<base64 of UTF-8>?=`
/// is decoded (strictly: bad padding or characters give `None`); anything else is literal.
pub fn decode_header_value(raw: &str) -> Option<String> {
    if let Some(encoded) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()?;
        return String::from_utf8(bytes).ok();
    }
    Some(raw.to_string())
}

/// Every `Mcp-Param-<Name>` header of the request.
fn param_headers(headers: &HeaderMap) -> Vec<(String, Option<String>)> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let suffix = name.as_str().strip_prefix("mcp-param-")?;
            Some((
                suffix.to_string(),
                value.to_str().ok().map(|v| v.trim().to_string()),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_echoes_a_handshake_version_and_offers_the_default_otherwise() {
        assert_eq!(
            negotiate(&json!({"protocolVersion": "2025-03-26"})),
            "2025-03-26"
        );
        assert_eq!(
            negotiate(&json!({"protocolVersion": "2026-07-28"})),
            "2025-06-18"
        );
        assert_eq!(
            negotiate(&json!({"protocolVersion": "1999-01-01"})),
            "2025-06-18"
        );
        assert_eq!(negotiate(&json!({})), "2025-06-18");
    }

    #[test]
    fn header_values_decode_strictly_and_keep_literals() {
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
        assert_eq!(decode_header_value("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(decode_header_value("SGVsbG8=").as_deref(), Some("SGVsbG8="));
    }

    #[test]
    fn base64_header_values_are_decoded() {
        let mut headers = HeaderMap::new();
        let encoded = base64::engine::general_purpose::STANDARD.encode("cobrança");
        headers.insert(
            "mcp-name",
            format!("=?base64?{encoded}?=").parse().expect("ascii"),
        );
        assert_eq!(
            header_value(&headers, &NAME_HEADER).as_deref(),
            Some("cobrança")
        );
    }
}
