//! `Idempotency-Key` on writes: the first response is kept 24 hours and replayed for the same
//! key and the same request; the same key with another request is refused; duplicates that
//! arrive together run once (the second waits for the first and gets its response).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::{Map, Value};

use crate::mcp::canonical_json;
use sha2::{Digest, Sha256};

use super::problem::{ApiError, FieldError};
use crate::auth::Principal;
use crate::state::AppState;
use crate::store::idempotency::{self, Existing};

/// Request bodies above this are refused before they are hashed (the API's ceiling).
const MAX_BODY: usize = 2 * 1024 * 1024;
/// How long a duplicate waits for the first request to finish.
const WAIT_FOR_FIRST: Duration = Duration::from_secs(30);
/// Response headers worth replaying.
const REPLAYED_HEADERS: &[&str] = &["content-type", "etag", "location"];

pub async fn idempotency(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        return next.run(request).await;
    }
    let Some(raw_key) = request.headers().get("idempotency-key").cloned() else {
        return next.run(request).await;
    };
    let key = match raw_key
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= 255)
    {
        Some(key) => key.to_string(),
        None => {
            return ApiError::validation(vec![FieldError::new(
                "idempotency_key",
                "format",
                "Must be 1 to 255 printable ASCII characters",
            )])
            .into_response();
        }
    };
    let Some(organization_id) = request
        .extensions()
        .get::<Principal>()
        .map(|p| p.organization_id.clone())
    else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "The body is over 2 MB",
            )
            .into_response();
        }
    };
    let hash = request_hash(
        &parts.method,
        parts.uri.path_and_query().map_or("", |p| p.as_str()),
        &bytes,
    );
    let started = std::time::Instant::now();
    loop {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let existing = match idempotency::claim(&state.db, &organization_id, &key, &hash, now).await
        {
            Ok(existing) => existing,
            Err(e) => return ApiError::from(e).into_response(),
        };
        match existing {
            None => {
                let request = Request::from_parts(parts, Body::from(bytes));
                return run_and_store(&state, &organization_id, &key, request, next).await;
            }
            Some(Existing::Done { request_hash, .. } | Existing::InProgress { request_hash })
                if request_hash != hash =>
            {
                return with_key(reused(), &key, false);
            }
            Some(Existing::Done {
                status,
                headers,
                body,
                ..
            }) => return replay(status, &headers, body, &key),
            Some(Existing::InProgress { .. }) => {
                if started.elapsed() > WAIT_FOR_FIRST {
                    return with_key(
                        ApiError::conflict(
                            "idempotency_key_in_progress",
                            "A request with this Idempotency-Key is still running; retry later",
                        )
                        .into_response(),
                        &key,
                        false,
                    );
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        }
    }
}

fn request_hash(method: &Method, path_and_query: &str, body: &Bytes) -> String {
    let mut hasher = Sha256::new();
    hasher.update(method.as_str().as_bytes());
    hasher.update(b"\n");
    hasher.update(path_and_query.as_bytes());
    hasher.update(b"\n");
    // The same JSON written with other spacing or key order is the same request.
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => hasher.update(canonical_json(&value).as_bytes()),
        Err(_) => hasher.update(body),
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn reused() -> Response {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request in the last 24 hours; use a new key for a new request",
    )
    .into_response()
}

async fn run_and_store(
    state: &AppState,
    organization_id: &str,
    key: &str,
    request: Request,
    next: Next,
) -> Response {
    let response = next.run(request).await;
    if !response.status().is_success() {
        // Failures are not kept: the same key may try again.
        if let Err(e) = idempotency::release(&state.db, organization_id, key).await {
            tracing::error!("cannot release idempotency key: {e}");
        }
        return with_key(response, key, false);
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let headers = stored_headers(&parts.headers);
    let text = String::from_utf8_lossy(&bytes).to_string();
    if let Err(e) = idempotency::complete(
        &state.db,
        organization_id,
        key,
        parts.status.as_u16(),
        &headers,
        &text,
    )
    .await
    {
        tracing::error!("cannot store idempotent response: {e}");
    }
    with_key(Response::from_parts(parts, Body::from(bytes)), key, false)
}

fn stored_headers(headers: &HeaderMap) -> String {
    let mut map = Map::new();
    for name in REPLAYED_HEADERS {
        if let Some(value) = headers.get(*name).and_then(|v| v.to_str().ok()) {
            map.insert(name.to_string(), Value::String(value.to_string()));
        }
    }
    Value::Object(map).to_string()
}

fn replay(status: u16, headers: &str, body: String, key: &str) -> Response {
    let mut response =
        (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), body).into_response();
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(headers) {
        for (name, value) in map {
            if let (Ok(name), Some(Ok(value))) = (
                http::HeaderName::from_bytes(name.as_bytes()),
                value.as_str().map(HeaderValue::from_str),
            ) {
                response.headers_mut().insert(name, value);
            }
        }
    }
    with_key(response, key, true)
}

fn with_key(mut response: Response, key: &str, replayed: bool) -> Response {
    if let Ok(value) = HeaderValue::from_str(key) {
        response.headers_mut().insert("idempotency-key", value);
    }
    response.headers_mut().insert(
        "idempotent-replayed",
        HeaderValue::from_static(if replayed { "true" } else { "false" }),
    );
    response
}
