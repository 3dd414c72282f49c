//! `initialize`, `server/discover`, and what every stateless-era result carries.

use serde_json::{Value, json};

use super::jsonrpc::RpcError;
use super::protocol::{self, SERVER_INFO_META, SUPPORTED_VERSIONS};
use super::toolsets::Selection;
use super::{Endpoint, Settings, discovery, views};

fn server_info(s: &Settings) -> Value {
    json!({ "name": s.server_name, "title": s.server_title, "version": s.server_version })
}

/// What the server can do; the MCP Apps extension only when the catalog has views (its
/// settings object is empty: the extension defines none for servers).
fn capabilities(endpoint: &Endpoint) -> Value {
    let mut capabilities = json!({
        "tools": { "listChanged": false },
        "resources": { "subscribe": false, "listChanged": false },
        "prompts": { "listChanged": false },
        "completions": {},
    });
    if views::any(&endpoint.catalog) {
        capabilities["extensions"] = json!({ views::EXTENSION: {} });
    }
    capabilities
}

/// The catalog's instructions, and in discovery mode how its tools are reached.
fn instructions(endpoint: &Endpoint, selection: &Selection) -> Value {
    if selection.discovery() {
        let note = discovery::instructions(endpoint);
        json!(format!(
            "{}\n\n{note}",
            endpoint.catalog.instructions.trim_end()
        ))
    } else {
        json!(endpoint.catalog.instructions)
    }
}

/// Handshake era: negotiate the revision and describe the server.
pub fn initialize(
    endpoint: &Endpoint,
    selection: &Selection,
    params: &Value,
) -> Result<Value, RpcError> {
    Ok(json!({
        "protocolVersion": protocol::negotiate(params),
        "capabilities": capabilities(endpoint),
        "serverInfo": server_info(&endpoint.settings),
        "instructions": instructions(endpoint, selection),
    }))
}

/// Stateless era: what `initialize` would have said, plus every revision we speak.
pub fn discover(endpoint: &Endpoint, selection: &Selection) -> Result<Value, RpcError> {
    Ok(json!({
        "supportedVersions": SUPPORTED_VERSIONS,
        "capabilities": capabilities(endpoint),
        "instructions": instructions(endpoint, selection),
    }))
}

/// Methods whose results depend on who asks: they must never be cached or shared.
fn is_private_listing(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "prompts/list"
    )
}

/// What [`stateless_result`] adds to a result without `resultType` and `_meta` of its own and
/// outside the private listings, as text to write after the result's last member.
pub fn stateless_tail(settings: &Settings) -> String {
    let mut meta = serde_json::Map::new();
    meta.insert(SERVER_INFO_META.to_string(), server_info(settings));
    format!(
        r#","resultType":"complete","_meta":{}"#,
        Value::Object(meta)
    )
}

/// Add what the 2026-07-28 revision requires on every result.
pub fn stateless_result(settings: &Settings, method: &str, mut result: Value) -> Value {
    let Some(object) = result.as_object_mut() else {
        return result;
    };
    object.entry("resultType").or_insert(json!("complete"));
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(SERVER_INFO_META.to_string(), server_info(settings));
    }
    if is_private_listing(method) {
        object.insert("ttlMs".into(), json!(0));
        object.insert("cacheScope".into(), json!("private"));
    }
    result
}
