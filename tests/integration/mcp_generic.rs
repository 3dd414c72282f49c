//! The MCP layer is generic: it serves the generated catalog with any `Host`. These tests
//! mount it with a host of their own to reach paths the real host never takes (a fault).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use http::StatusCode;
use mcpgen_axum::{self, AuthFailure, Caller, Completion, CompletionRequest, Host};
use serde_json::json;
use tower::ServiceExt;

/// Accepts the token "ok" with every scope, and panics on "boom".
struct FragileHost;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Host for FragileHost {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, AuthFailure>> {
        Box::pin(async move {
            assert_ne!(token, "boom", "a fault inside the host");
            Ok(Caller {
                subject: token.to_string(),
                scopes: Default::default(),
                toolsets: mcpgen_axum::toolsets::Toolsets::default(),
                extensions: http::Extensions::new(),
            })
        })
    }

    fn all_scopes(&self) -> Vec<String> {
        Vec::new()
    }

    fn complete<'a>(
        &'a self,
        _: &'a Caller,
        _: CompletionRequest<'a>,
    ) -> BoxFuture<'a, Result<Completion, String>> {
        Box::pin(async { Ok(Completion::default()) })
    }
}

/// `request` through `app`: the status and the JSON body (`null` when it is none).
async fn send(
    app: &Router,
    request: http::Request<axum::body::Body>,
) -> (StatusCode, serde_json::Value) {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or_default())
}

async fn post(app: &Router, token: &str) -> (StatusCode, serde_json::Value) {
    let request = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(axum::body::Body::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(),
        ))
        .unwrap();
    send(app, request).await
}

#[tokio::test]
async fn an_unexpected_fault_is_a_500_and_the_server_keeps_serving() {
    let settings = kobana_dunning::Config::local().mcp_settings();
    let catalog = kobana_dunning::generated::CATALOG;
    let app = mcpgen_axum::router(catalog, Arc::new(FragileHost), Router::new(), settings);
    let (status, body) = post(&app, "boom").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["error"]["code"], -32603);
    let (status, body) = post(&app, "ok").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"], json!({}));
}

/// A stand-in for a service's own `/v1/me` handler: it says what reached it (the headers
/// a service authenticates with, the `Host`, the client's address) and refuses without
/// `X-API-Key`, in its own JSON (not a problem document).
async fn own_me(request: http::request::Parts) -> axum::response::Response {
    use axum::response::IntoResponse;
    let headers = &request.headers;
    let client = request
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let Some(key) = text("x-api-key") else {
        let body = axum::Json(json!({"error": "missing X-API-Key"}));
        return (StatusCode::UNAUTHORIZED, body).into_response();
    };
    axum::Json(json!({
        "key": key,
        "authorization": text("authorization"),
        "host": text("host"),
        "client": client.map(|c| c.0.to_string()),
        "other": text("x-other"),
    }))
    .into_response()
}

/// `tools/call` of `dunning_me` (GET /v1/me in the catalog) with these request headers, as
/// a 2025-11-25 client sends it, from 10.1.2.3:4567.
async fn call_me(app: &Router, headers: &[(&str, &str)]) -> (StatusCode, serde_json::Value) {
    let mut request = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("content-type", "application/json")
        .header("host", "todos.example.com")
        .header("mcp-protocol-version", "2025-11-25");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "dunning_me", "arguments": {}}});
    let mut request = request
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let client = std::net::SocketAddr::from(([10, 1, 2, 3], 4567));
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(client));
    send(app, request).await
}

fn own_service() -> Router {
    Router::new().route("/v1/me", axum::routing::get(own_me))
}

#[tokio::test]
async fn without_authentication_the_service_s_own_header_host_and_client_address_reach_its_handler()
{
    let settings = mcpgen_axum::Settings::new("own", "1.0.0")
        .authentication(mcpgen_axum::Authentication::None)
        .forward_headers([http::HeaderName::from_static("x-api-key")]);
    let catalog = kobana_dunning::generated::CATALOG;
    let app = own_service().merge(mcpgen_axum::router(
        catalog,
        Arc::new(FragileHost),
        own_service(),
        settings,
    ));
    let (status, body) = call_me(&app, &[("x-api-key", "k-7"), ("x-other", "no")]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"key": "k-7", "authorization": null, "host": "todos.example.com",
               "client": "10.1.2.3:4567", "other": null})
    );
    // No key: the service's own 401, passed through as the JSON it is.
    let (status, body) = call_me(&app, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["isError"], true);
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        json!({"error": "missing X-API-Key"})
    );
    // No token of the layer's own: nothing to describe at the RFC 9728 address.
    let metadata = http::Request::get("/.well-known/oauth-protected-resource")
        .body(axum::body::Body::empty())
        .unwrap();
    let response = app.clone().oneshot(metadata).await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn by_default_the_credential_headers_the_document_declares_are_handed_on_and_no_other() {
    // The dunning document's security scheme is a bearer token: `Authorization` is the one
    // credential header, handed on with the host's caller; `X-API-Key` is not a credential
    // of this document.
    let settings = mcpgen_axum::Settings::new("own", "1.0.0");
    let catalog = kobana_dunning::generated::CATALOG;
    let app = mcpgen_axum::router(catalog, Arc::new(FragileHost), own_service(), settings);
    let (_, body) = call_me(&app, &[("authorization", "Bearer ok")]).await;
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        json!({"error": "missing X-API-Key"}),
        "{body}"
    );
    let settings = mcpgen_axum::Settings::new("own", "1.0.0").forward_headers([
        http::header::AUTHORIZATION,
        http::HeaderName::from_static("x-api-key"),
    ]);
    let app = mcpgen_axum::router(catalog, Arc::new(FragileHost), own_service(), settings);
    let (_, body) = call_me(&app, &[("authorization", "Bearer ok"), ("x-api-key", "k")]).await;
    let me = &body["result"]["structuredContent"];
    assert_eq!(me["authorization"], "Bearer ok", "{body}");
    assert_eq!(me["key"], "k");
}
