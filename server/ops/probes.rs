//! Probes for load balancers and orchestrators (Kubernetes conventions): `/livez` says the
//! process serves; `/readyz` says it can serve requests now — the database answers, every
//! migration is applied, the engine's workers run. Unauthenticated, cheap, and they never
//! touch tenant data.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dunning_engine::status::EngineStatus;
use dunning_store::Db;
use http::StatusCode;
use serde_json::json;

use crate::http::problem::ApiError;

/// How long readiness waits for the database before it says "not ready".
const DATABASE_CHECK: Duration = Duration::from_secs(2);

/// What readiness looks at: the database and the engine's workers.
#[derive(Clone)]
struct Readiness {
    db: Db,
    engine: Arc<EngineStatus>,
}

/// `/livez` and `/readyz`, over the database and the engine's status (not the whole state:
/// the probes see only what they report on).
pub fn router(db: Db, engine: Arc<EngineStatus>) -> Router {
    Router::new()
        .route("/livez", get(live))
        .route("/readyz", get(ready))
        .with_state(Readiness { db, engine })
}

async fn live() -> Response {
    (StatusCode::OK, axum::Json(json!({ "status": "live" }))).into_response()
}

async fn ready(State(state): State<Readiness>) -> Response {
    let mut problems = Vec::new();
    match tokio::time::timeout(DATABASE_CHECK, state.db.check()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => problems.push(format!("database: {e}")),
        Err(_) => problems.push(format!(
            "database: no answer within {} ms",
            DATABASE_CHECK.as_millis()
        )),
    }
    if state.engine.stopping() {
        problems.push("shutting down".to_string());
    }
    for worker in state.engine.dead_workers() {
        if !state.engine.stopping() {
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
