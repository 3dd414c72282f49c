//! A todo list over HTTP: an ordinary axum 0.8 + utoipa 5 service, written the way such
//! services usually are (handlers annotated with `#[utoipa::path]`, an API-key header checked
//! by a middleware, errors as `{"error": "..."}`), and then given an MCP endpoint through
//! `mcpgen` and `mcpgen-axum` in a few lines ([`mcp`]). Nothing outside `mcp.rs` and
//! `build.rs` knows about MCP.

pub mod auth;
pub mod doc;
pub mod error;
pub mod mcp;
pub mod todos;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::middleware;
use axum::routing::get;

pub use auth::ApiKeys;
pub use doc::ApiDoc;

/// What the handlers share: the list and the keys that may use it.
#[derive(Debug)]
pub struct AppState {
    /// The todos, in memory: they live as long as the process.
    pub todos: Mutex<todos::Todos>,
    /// API key → who it belongs to.
    pub keys: ApiKeys,
}

/// The REST API: every route behind the `X-API-Key` check.
pub fn api(keys: ApiKeys) -> Router {
    let state = Arc::new(AppState {
        todos: Mutex::default(),
        keys,
    });
    Router::new()
        .route("/todos", get(todos::list_todos).post(todos::create_todo))
        .route(
            "/todos/{id}",
            get(todos::get_todo)
                .patch(todos::update_todo)
                .delete(todos::delete_todo),
        )
        .route("/whoami", get(auth::whoami))
        // A route layer, so that an unknown path is still a 404 and not a 401.
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            auth::require_api_key,
        ))
        .with_state(state)
}

/// The whole service: the REST API and, beside it, its MCP endpoint at `/mcp`.
pub fn app(keys: ApiKeys) -> Router {
    let api = api(keys);
    let mcp = mcp::router(&api);
    api.merge(mcp)
}
