//! Probes for load balancers and orchestrators (Kubernetes conventions): `/livez` says the
//! process serves; `/readyz` says it can serve requests now — the database answers, every
//! migration is applied, the engine's workers run. Unauthenticated, cheap, and they never
//! touch tenant data.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::StatusCode;
use serde_json::json;

use crate::http::problem::ApiError;
use crate::state::AppState;

/// How long readiness waits for the database before it says "not ready".
const DATABASE_CHECK: Duration = Duration::from_secs(2);

/// `/livez` and `/readyz`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/livez", get(live))
        .route("/readyz", get(ready))
        .with_state(state)
}

async fn live() -> Response {
    (StatusCode::OK, axum::Json(json!({ "status": "live" }))).into_response()
}

async fn ready(State(state): State<AppState>) -> Response {
    let mut problems = Vec::new();
    match tokio::time::timeout(DATABASE_CHECK, state.db.check()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => problems.push(format!("database: {e}")),
        Err(_) => problems.push(format!(
            "database: no answer within {} ms",
            DATABASE_CHECK.as_millis()
        )),
    }
    if state.engine.status.stopping() {
        problems.push("shutting down".to_string());
    }
    for worker in state.engine.status.dead_workers() {
        if !state.engine.status.stopping() {
            problems.push(format!("engine: worker {worker} is not running"));
        }
    }
    if problems.is_empty() {
        return (StatusCode::OK, axum::Json(json!({ "status": "ready" }))).into_response();
    }
    let mut error = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "not_ready",
        format!("Not ready: {}", problems.join("; ")),
    );
    error.retry_after = Some(5);
    error.into_response()
}
