//! The MCP layer is generic: it serves the generated catalog with any `Host`. These tests
//! mount it with a host of their own to reach paths the real host never takes (a fault).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use http::StatusCode;
use mcp::{self, AuthFailure, Caller, Completion, CompletionRequest, Host};
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
                toolsets: mcp::toolsets::Toolsets::default(),
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
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or_default())
}

#[tokio::test]
async fn an_unexpected_fault_is_a_500_and_the_server_keeps_serving() {
    let settings = kobana_dunning::Config::local().mcp_settings();
    let catalog = kobana_dunning::generated::CATALOG;
    let app = mcp::router(catalog, Arc::new(FragileHost), Router::new(), settings);
    let (status, body) = post(&app, "boom").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["error"]["code"], -32603);
    let (status, body) = post(&app, "ok").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"], json!({}));
}
