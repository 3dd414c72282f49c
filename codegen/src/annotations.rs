//! MCP tool hints and `_meta`, derived from the HTTP method and overridden by `x-mcp`.
//!
//! The defaults follow HTTP semantics (RFC 9110): safe methods are read-only, DELETE is
//! destructive, PUT and DELETE are idempotent. What HTTP cannot know (that a POST notifies a
//! debtor, or reaches a credit bureau) the spec says with `x-mcp`.

use serde_json::{Map, Value, json};

use crate::ir::{Annotations, Method};
use crate::xmcp::OperationExt;

/// `_meta` key asking the host to confirm with the user before running the tool.
pub const REQUIRES_USER_INTERACTION: &str = "anthropic/requiresUserInteraction";
/// `_meta` key telling the host how large a result to accept.
pub const MAX_RESULT_SIZE_CHARS: &str = "anthropic/maxResultSizeChars";

/// The four hints of an operation.
pub(crate) fn derive(method: Method, ext: &OperationExt) -> Annotations {
    let read_only = ext.read_only.unwrap_or(method.is_safe());
    // A read (a POST search marked `read_only`, say) changes nothing, so it is neither
    // destructive nor anything but idempotent unless the spec says otherwise.
    let destructive = ext
        .destructive
        .unwrap_or(!read_only && method == Method::Delete);
    let idempotent = ext
        .idempotent
        .unwrap_or(read_only || matches!(method, Method::Put | Method::Delete));
    let open_world = ext.open_world.unwrap_or(false);
    Annotations {
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

/// The tool's `_meta`: derived entries first, then `x-mcp.meta`, which may override them.
pub(crate) fn meta(annotations: &Annotations, ext: &OperationExt) -> Map<String, Value> {
    let mut meta = Map::new();
    if annotations.destructive {
        meta.insert(REQUIRES_USER_INTERACTION.into(), json!(true));
    }
    if let Some(n) = ext.max_result_chars {
        meta.insert(MAX_RESULT_SIZE_CHARS.into(), json!(n));
    }
    for (k, v) in &ext.meta {
        meta.insert(k.clone(), v.clone());
    }
    meta
}

/// The confirmation message of a destructive tool whose spec gives none. Braces in the title
/// are dropped: they would read as argument placeholders.
pub(crate) fn default_confirm(title: &str) -> String {
    let title: String = title.chars().filter(|c| *c != '{' && *c != '}').collect();
    format!(
        "{}: this may not be reversible. Proceed?",
        title.trim_end_matches('.')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_http_semantics() {
        let ext = OperationExt::default();
        let table = [
            (Method::Get, (true, false, true)),
            (Method::Head, (true, false, true)),
            (Method::Post, (false, false, false)),
            (Method::Put, (false, false, true)),
            (Method::Patch, (false, false, false)),
            (Method::Delete, (false, true, true)),
        ];
        for (method, (read_only, destructive, idempotent)) in table {
            let a = derive(method, &ext);
            assert_eq!(
                (a.read_only, a.destructive, a.idempotent, a.open_world),
                (read_only, destructive, idempotent, false),
                "{method:?}"
            );
        }
    }

    #[test]
    fn x_mcp_overrides_and_meta_entries_win() {
        let ext = OperationExt {
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(true),
            max_result_chars: Some(5000),
            meta: json!({"a/b": 1}).as_object().cloned().unwrap_or_default(),
            ..OperationExt::default()
        };
        let a = derive(Method::Post, &ext);
        assert!(a.destructive && !a.idempotent && a.open_world);
        assert_eq!(
            Value::Object(meta(&a, &ext)),
            json!({REQUIRES_USER_INTERACTION: true, MAX_RESULT_SIZE_CHARS: 5000, "a/b": 1})
        );
    }
}
