//! Kobana Dunning: the `/v1` REST API and the MCP server generated from its OpenAPI document.
//!
//! `app` assembles the whole HTTP surface from a [`state::AppState`]; `startup` binds the sockets
//! and serves it, `main.rs` only picks a command, so tests drive exactly what production runs.

pub mod api;
pub mod auth;
pub mod callbacks;
pub mod cli;
pub mod config;
pub mod demo;
pub mod demo_bulk;
pub mod generated;
pub mod http;
pub mod inbound;
pub mod mcp_host;
pub mod oauth;
pub mod ops;
pub mod pix_webhook;
pub mod rate_limiter;
pub mod startup;
pub mod state;
pub mod unsubscribe;

use axum::Router;

use ops::{access_log, metrics, probes, telemetry};

pub use config::Config;
pub use state::AppState;

/// The whole server: `/v1`, `/mcp`, OAuth, the unsubscribe pages, the providers' status
/// callbacks, the PSPs' Pix callbacks and the well-known documents, ready to serve.
pub fn app(state: AppState) -> Router {
    let v1 = api::router(state.clone());
    let settings = state.config.mcp_settings();
    let mcp = mcpgen_axum::router(generated::CATALOG, mcp_host(&state), v1.clone(), settings);
    // Whatever no route serves, and methods a route does not take, are problem documents
    // too (405 keeps the `Allow` header the router adds).
    let mut app = Router::new()
        .merge(v1)
        .merge(mcp)
        .merge(oauth::router(state.clone()))
        .merge(inbound_doors(&state))
        .merge(probes::router(
            state.db.clone(),
            state.engine.status.clone(),
        ));
    // With `--metrics-bind`, `/metrics` is served on its own listener instead (`startup::serve`).
    if state.config.metrics_bind.is_none() {
        app = app.merge(metrics::router(state.metrics.clone(), state.db.clone()));
    }
    // Outermost first: the access log, the request's span, the metrics. One stack laid on
    // each route once (a `layer` call each boxed every route again: see `api::router`).
    let layers = tower::ServiceBuilder::new()
        .layer(axum::middleware::from_fn(access_log::access_log))
        .layer(axum::middleware::from_fn(telemetry::http_span))
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            metrics::count,
        ));
    app.method_not_allowed_fallback(http::problem::wrong_method)
        .fallback(http::problem::no_route)
        .layer(layers)
}

/// The unauthenticated inbound doors (the unsubscribe pages, the providers' status callbacks,
/// the PSPs' Pix callbacks), each route behind `inbound::guard`: laid on these routes only, so
/// that no `/v1` or MCP request pays for another middleware (bench/RESULTS.md, fd4a7a0), and
/// inside the access log and the metrics, which see its 429s.
fn inbound_doors(state: &AppState) -> Router {
    let doors = std::sync::Arc::new(inbound::Doors::new(
        state.config.bad_request_budget,
        state.config.trusted_proxies.clone(),
        state.metrics.clone(),
    ));
    Router::new()
        .merge(unsubscribe::router(state.clone()))
        .merge(callbacks::router(state.clone()))
        .merge(pix_webhook::router(state.clone()))
        .route_layer(axum::middleware::from_fn_with_state(doors, inbound::guard))
}

fn mcp_host(state: &AppState) -> std::sync::Arc<dyn mcpgen_axum::Host> {
    std::sync::Arc::new(mcp_host::McpAuthenticator::new(state.clone()))
}
