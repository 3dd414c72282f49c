//! MCP Apps views (the `io.modelcontextprotocol/ui` extension, SEP-1865): which requests are
//! offered them, and the tool `_meta.ui` taken out where they are not.
//!
//! A view is a `ui://` resource whose HTML the generator embedded; a tool points at it with
//! `_meta.ui.resourceUri`. In the 2026-07-28 era every request carries the client's
//! capabilities, so the views (the resources and the tools' `_meta.ui`) go to a client that
//! advertises the extension with the `text/html;profile=mcp-app` media type, and to no other.
//! In the handshake era this stateless server cannot remember what `initialize` said, so the
//! `_meta.ui` keys stay, as the extension allows: a host that renders no views ignores them.

use mcpgen_catalog::Catalog;
use serde_json::Value;

use super::protocol::Context;

/// The extension's identifier, in capabilities' `extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The media type of a view, which a client lists in the extension's `mimeTypes`.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Whether the catalog has any view (only then is the extension advertised).
pub fn any(catalog: &Catalog) -> bool {
    catalog.resources.iter().any(|r| r.is_view())
}

/// Whether this request is offered the views: always in the handshake era, and in the
/// stateless era when the client's capabilities list the extension with [`MIME_TYPE`].
pub fn offered(context: &Context) -> bool {
    !context.version.is_stateless() || renders(&context.client_capabilities)
}

/// Whether client capabilities advertise the extension with the view media type:
/// `{"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}`.
fn renders(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .and_then(|ui| ui.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// A `Tool` object without `_meta.ui` (and without `_meta` if nothing else was in it), for a
/// client that renders no views.
pub fn without_ui(tool: &mut Value) {
    let Some(object) = tool.as_object_mut() else {
        return;
    };
    let Some(meta) = object.get_mut("_meta").and_then(Value::as_object_mut) else {
        return;
    };
    meta.remove("ui");
    if meta.is_empty() {
        object.remove("_meta");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{STATELESS_VERSION, Version};

    fn context(version: &'static str, capabilities: Value) -> Context {
        Context {
            version: Version(version),
            client_capabilities: capabilities,
            param_headers: Vec::new(),
        }
    }

    #[test]
    fn views_are_offered_to_a_stateless_client_only_when_it_lists_the_media_type() {
        let table = [
            (json!({}), false),
            (json!({"extensions": {}}), false),
            (json!({"extensions": {EXTENSION: {}}}), false),
            (json!({"extensions": {EXTENSION: {"mimeTypes": []}}}), false),
            (
                json!({"extensions": {EXTENSION: {"mimeTypes": "text/html;profile=mcp-app"}}}),
                false,
            ),
            (
                json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}}),
                false,
            ),
            (
                json!({"extensions": {"io.example/ui": {"mimeTypes": [MIME_TYPE]}}}),
                false,
            ),
            (
                json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}}),
                true,
            ),
            (
                json!({"extensions": {EXTENSION: {"mimeTypes": ["text/x-other", MIME_TYPE]}}}),
                true,
            ),
        ];
        for (capabilities, expected) in table {
            assert_eq!(
                offered(&context(STATELESS_VERSION, capabilities.clone())),
                expected,
                "{capabilities}"
            );
        }
    }

    #[test]
    fn the_handshake_era_is_always_offered_the_views() {
        for version in crate::protocol::HANDSHAKE_VERSIONS {
            assert!(offered(&context(version, json!({}))));
        }
    }

    #[test]
    fn without_ui_keeps_the_rest_of_meta_and_drops_an_emptied_meta() {
        let mut tool = json!({"name": "a", "_meta": {"ui": {"resourceUri": "ui://x/a"}, "k": 1}});
        without_ui(&mut tool);
        assert_eq!(tool, json!({"name": "a", "_meta": {"k": 1}}));
        let mut tool = json!({"name": "a", "_meta": {"ui": {"resourceUri": "ui://x/a"}}});
        without_ui(&mut tool);
        assert_eq!(tool, json!({"name": "a"}));
        let mut tool = json!({"name": "a"});
        without_ui(&mut tool);
        assert_eq!(tool, json!({"name": "a"}));
    }
}

/// The views as a client sees them through the whole endpoint, in both eras.
#[cfg(test)]
mod served {
    use std::sync::Arc;

    use axum::body::Body;
    use http::{Request, header};
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::{EXTENSION, MIME_TYPE};
    use crate::test_catalog::{CATALOG, VIEW_HTML, settings};

    struct Anonymous;
    impl crate::Host for Anonymous {}

    fn endpoint() -> axum::Router {
        let settings = crate::Settings {
            authentication: crate::Authentication::None,
            ..settings()
        };
        crate::router(CATALOG, Arc::new(Anonymous), axum::Router::new(), settings)
    }

    /// The capabilities of a client that renders views.
    fn renders() -> Value {
        json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
    }

    /// Sends one request: in the stateless era with these client capabilities, or in the
    /// handshake era (2025-06-18) when `capabilities` is `None`.
    async fn send(method: &str, mut params: Value, capabilities: Option<Value>) -> Value {
        let request = Request::post("/mcp")
            .header(header::HOST, "127.0.0.1")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        let request =
            crate::test_catalog::in_era(request, method, &mut params, capabilities.as_ref());
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = endpoint()
            .oneshot(request.body(Body::from(body.to_string())).unwrap())
            .await
            .unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    fn ui_of_first_tool(answer: &Value) -> Value {
        answer["result"]["tools"][0]["_meta"]["ui"].clone()
    }

    fn resource_uris(answer: &Value) -> Vec<String> {
        answer["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_owned())
            .collect()
    }

    #[tokio::test]
    async fn a_stateless_client_that_renders_views_sees_meta_ui_and_the_view_resource() {
        let tools = send("tools/list", json!({}), Some(renders())).await;
        assert_eq!(
            ui_of_first_tool(&tools),
            json!({"resourceUri": "ui://test/thing", "visibility": ["model", "app"]})
        );
        let resources = send("resources/list", json!({}), Some(renders())).await;
        assert_eq!(
            resource_uris(&resources),
            ["test://openapi", "ui://test/thing"]
        );
        let listed = &resources["result"]["resources"][1];
        assert_eq!(listed["mimeType"], MIME_TYPE);
        assert_eq!(listed["_meta"]["ui"]["csp"]["connectDomains"], json!([]));
    }

    #[tokio::test]
    async fn a_stateless_client_that_does_not_render_views_sees_neither_meta_ui_nor_views() {
        let others = json!({"extensions": {EXTENSION: {"mimeTypes": ["text/x-other"]}}});
        for capabilities in [json!({}), others] {
            let tools = send("tools/list", json!({}), Some(capabilities.clone())).await;
            let first = &tools["result"]["tools"][0];
            assert_eq!(first["name"], "things_get");
            assert!(first.get("_meta").is_none(), "{first}");
            let resources = send("resources/list", json!({}), Some(capabilities.clone())).await;
            assert_eq!(resource_uris(&resources), ["test://openapi"]);
            let read = send(
                "resources/read",
                json!({"uri": "ui://test/thing"}),
                Some(capabilities),
            )
            .await;
            assert_eq!(read["error"]["code"], -32602, "{read}");
        }
    }

    #[tokio::test]
    async fn a_view_is_read_with_its_html_and_its_content_security_policy() {
        let read = send(
            "resources/read",
            json!({"uri": "ui://test/thing"}),
            Some(renders()),
        )
        .await;
        let content = &read["result"]["contents"][0];
        assert_eq!(content["uri"], "ui://test/thing");
        assert_eq!(content["mimeType"], MIME_TYPE);
        assert_eq!(content["text"], VIEW_HTML);
        assert_eq!(
            content["_meta"]["ui"]["csp"],
            json!({"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []})
        );
        assert_eq!(content["_meta"]["ui"]["prefersBorder"], true);
    }

    #[tokio::test]
    async fn the_handshake_era_keeps_meta_ui_and_serves_the_views() {
        let tools = send("tools/list", json!({}), None).await;
        assert_eq!(ui_of_first_tool(&tools)["resourceUri"], "ui://test/thing");
        let resources = send("resources/list", json!({}), None).await;
        assert_eq!(
            resource_uris(&resources),
            ["test://openapi", "ui://test/thing"]
        );
        let read = send("resources/read", json!({"uri": "ui://test/thing"}), None).await;
        assert_eq!(read["result"]["contents"][0]["text"], VIEW_HTML);
    }

    #[tokio::test]
    async fn the_server_advertises_the_extension_in_both_eras() {
        let discover = send("server/discover", json!({}), Some(json!({}))).await;
        assert_eq!(
            discover["result"]["capabilities"]["extensions"],
            json!({EXTENSION: {}})
        );
        let initialize = send(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            None,
        )
        .await;
        assert_eq!(
            initialize["result"]["capabilities"]["extensions"],
            json!({EXTENSION: {}})
        );
    }
}
