//! `Idempotency-Key` on writes: the first response is kept 24 hours and replayed for the same
//! key and the same request; the same key with another request is refused; duplicates that
//! arrive together run once (the second waits for the first and gets its response).
//!
//! Crash safety: the response is stored **in the transaction of the effect** (handlers end
//! with [`commit`]), so a committed write always replays its answer and an uncommitted one
//! left nothing behind. The key is held under a lease the running request renews; when a
//! process dies mid-request its lease runs out and the next retry takes the key over and
//! runs the write once. A holder that lost its key cannot commit: the stored response is
//! written only where the owner still matches.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use mcpgen_catalog::canonical_json;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::api::answers::reply::{Reply, written};
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult, FieldError};
use crate::state::AppState;
use dunning_store::idempotency::{self, Claim, Existing, StoredResponse};
use dunning_store::ids;
use dunning_store::retry::Failure;

/// Request bodies above this are refused before they are hashed (the API's ceiling).
const MAX_BODY: usize = 2 * 1024 * 1024;
/// Response headers worth replaying.
const REPLAYED_HEADERS: &[&str] = &["content-type", "etag", "location"];

/// The key a request holds while its handler runs: [`commit`] stores the response with the
/// effect. It travels as a task-local because it belongs to the request, not to the handler's
/// arguments: every write handler ends in `commit` whether or not a key was sent.
#[derive(Debug)]
struct HeldKey {
    organization_id: String,
    key: String,
    owner: String,
    /// Set once the response was stored inside the handler's transaction.
    stored: AtomicBool,
}

tokio::task_local! {
    static HELD_KEY: Arc<HeldKey>;
}

pub async fn idempotency<F: Future<Output = Response>>(
    state: &AppState,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        return next(request).await;
    }
    let Some(raw_key) = request.headers().get(IDEMPOTENCY_KEY).cloned() else {
        return next(request).await;
    };
    // Boxed: see `authenticate::authenticate_v1`. A keyed write's future is large (the claim,
    // the lease, the stored answer), and reads and unkeyed writes should not carry it.
    Box::pin(keyed(state, raw_key, request, next)).await
}

/// A write that sent an `Idempotency-Key`: claim the key, then run it once or replay.
async fn keyed<F: Future<Output = Response>>(
    state: &AppState,
    raw_key: HeaderValue,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
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
        return next(request).await;
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
    let lease = state.config.idempotency_lease;
    let owner = ids::new_id("own");
    // A duplicate waits for the holder at most one lease: by then the holder has either
    // finished or died (it renews its lease while alive, and a dead one's key is taken over).
    let give_up_at = std::time::Instant::now() + lease + Duration::from_secs(1);
    loop {
        let now = dunning_domain::timestamp::now().unix_timestamp();
        let lease_until = now + lease_secs(lease);
        let claim = match idempotency::claim(
            &state.db,
            &organization_id,
            &key,
            &hash,
            &owner,
            (now, lease_until),
        )
        .await
        {
            Ok(claim) => claim,
            Err(e) => return ApiError::from(e).into_response(),
        };
        match claim {
            Claim::Owned => {
                let held = Arc::new(HeldKey {
                    organization_id,
                    key,
                    owner,
                    stored: AtomicBool::new(false),
                });
                let request = Request::from_parts(parts, Body::from(bytes));
                return run_and_store(state, held, request, next).await;
            }
            Claim::Vanished => continue,
            Claim::Held(
                Existing::Done { request_hash, .. } | Existing::InProgress { request_hash, .. },
            ) if request_hash != hash => {
                return with_key(reused(), &key, false);
            }
            Claim::Held(Existing::Done {
                status,
                headers,
                body,
                ..
            }) => {
                state.metrics.idempotent_replay();
                return replay(status, &headers, body, &key);
            }
            Claim::Held(Existing::InProgress { lease_until, .. }) => {
                if std::time::Instant::now() > give_up_at {
                    let mut error = ApiError::conflict(
                        "idempotency_key_in_progress",
                        "A request with this Idempotency-Key is still running; retry later",
                    );
                    error.retry_after =
                        Some((lease_until - now).clamp(1, lease_secs(lease)) as u64);
                    return with_key(error.into_response(), &key, false);
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        }
    }
}

fn lease_secs(lease: Duration) -> i64 {
    i64::try_from(lease.as_secs()).unwrap_or(60).max(1)
}

/// How long a stored replay keeps a secret the first answer showed (a webhook's signing
/// key): long enough for a client's retries, short enough not to keep secrets at rest.
pub const SECRET_REPLAY_SECS: i64 = 10 * 60;

/// Marks an answer whose body shows a secret at this JSON pointer: its stored replay drops
/// the secret after [`SECRET_REPLAY_SECS`] (the engine's housekeeping does it).
#[derive(Debug, Clone, Copy)]
pub struct ReplaySecret(pub &'static str);

/// End a write handler: store the response with the held key (if the request holds one) in
/// `tx`, then commit. When the key was taken over meanwhile (this request outlived its
/// lease), nothing is committed and the client is told to retry.
pub async fn commit(tx: sqlx::Transaction<'static, sqlx::Any>, reply: Reply) -> ApiResult<Reply> {
    commit_attempt(tx, reply).await.map_err(problem_of)
}

/// The usual end of a write: the object just written, read back inside `tx` (missing is our
/// own fault), answered by `reply` and committed with that answer; see [`commit`].
pub async fn commit_read<T>(
    found: Option<T>,
    what: &str,
    tx: sqlx::Transaction<'static, sqlx::Any>,
    reply: impl FnOnce(T) -> Reply,
) -> ApiResult<Reply> {
    commit_written(found, what, tx, reply)
        .await
        .map_err(problem_of)
}

/// [`commit_read`] inside a [`dunning_store::retry::run`] attempt; see [`commit_attempt`].
pub async fn commit_written<T>(
    found: Option<T>,
    what: &str,
    tx: sqlx::Transaction<'static, sqlx::Any>,
    reply: impl FnOnce(T) -> Reply,
) -> Result<Reply, Failure<ApiError>> {
    let object = written(found, what).map_err(Failure::Refused)?;
    commit_attempt(tx, reply(object)).await
}

fn problem_of(failure: Failure<ApiError>) -> ApiError {
    match failure {
        Failure::Refused(e) => e,
        Failure::Store(e) => e.into(),
    }
}

/// [`commit`] inside a [`dunning_store::retry::run`] attempt: a transient database failure
/// stays one, so that the attempt is run again.
pub async fn commit_attempt(
    mut tx: sqlx::Transaction<'static, sqlx::Any>,
    reply: Reply,
) -> Result<Reply, Failure<ApiError>> {
    let held = HELD_KEY.try_with(Arc::clone).ok();
    let Some(held) = held.filter(|_| reply.status().is_success()) else {
        tx.commit().await?;
        return Ok(reply);
    };
    let (parts, body) = reply.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|e| Failure::Refused(ApiError::internal(e)))?;
    let headers = stored_headers(&parts.headers);
    let redact = parts.extensions.get::<ReplaySecret>().map(|secret| {
        let after = dunning_domain::timestamp::now().unix_timestamp() + SECRET_REPLAY_SECS;
        (secret.0, after)
    });
    let stored = idempotency::complete(
        &mut tx,
        &held.organization_id,
        &held.key,
        &held.owner,
        StoredResponse {
            status: parts.status.as_u16(),
            headers: &headers,
            body: &String::from_utf8_lossy(&bytes),
            redact,
        },
    )
    .await?;
    if !stored {
        // Dropping `tx` rolls the effect back.
        return Err(Failure::Refused(lost_key()));
    }
    tx.commit().await?;
    held.stored.store(true, Ordering::Release);
    Ok(Response::from_parts(parts, Body::from(bytes)))
}

fn lost_key() -> ApiError {
    ApiError::conflict(
        "idempotency_key_in_progress",
        "This request outlived its hold on the Idempotency-Key and another request took it over; nothing was changed by this one. Retry to get the outcome",
    )
}

async fn run_and_store<F: Future<Output = Response>>(
    state: &AppState,
    held: Arc<HeldKey>,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let response = HELD_KEY
        .scope(held.clone(), renewing(state, &held, next(request)))
        .await;
    let (organization_id, key, owner) = (&held.organization_id, &held.key, &held.owner);
    if held.stored.load(Ordering::Acquire) {
        return with_key(response, key, false);
    }
    if !response.status().is_success() {
        // Failures are not kept: the same key may try again.
        if let Err(e) = idempotency::release(&state.db, organization_id, key, owner).await {
            tracing::error!("cannot release idempotency key: {e}");
        }
        return with_key(response, key, false);
    }
    // A success that changed nothing in the database (the handler did not end in `commit`):
    // its response is stored on its own.
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let headers = stored_headers(&parts.headers);
    let stored = async {
        let mut conn = state.db.pool.acquire().await?;
        idempotency::complete(
            &mut conn,
            organization_id,
            key,
            owner,
            StoredResponse {
                status: parts.status.as_u16(),
                headers: &headers,
                body: &String::from_utf8_lossy(&bytes),
                redact: None,
            },
        )
        .await
    }
    .await;
    if let Err(e) = stored {
        tracing::error!("cannot store idempotent response: {e}");
    }
    with_key(Response::from_parts(parts, Body::from(bytes)), key, false)
}

/// Run `work` while renewing the key's lease every third of it, so that only a dead process
/// loses its keys, however long a request runs.
async fn renewing(
    state: &AppState,
    held: &HeldKey,
    work: impl std::future::Future<Output = Response>,
) -> Response {
    let lease = state.config.idempotency_lease;
    let mut ticks = tokio::time::interval((lease / 3).max(Duration::from_millis(100)));
    ticks.tick().await;
    tokio::pin!(work);
    loop {
        tokio::select! {
            response = &mut work => return response,
            _ = ticks.tick() => {
                let until = dunning_domain::timestamp::now().unix_timestamp() + lease_secs(lease);
                if let Err(e) = idempotency::renew(&state.db, &held.organization_id, &held.key, &held.owner, until).await {
                    tracing::warn!("cannot renew idempotency lease: {e}");
                }
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
    hex::encode(hasher.finalize())
}

fn reused() -> Response {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request in the last 24 hours; use a new key for a new request",
    )
    .into_response()
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

// Named once: a header name given as `&str` is parsed again on every use, and every write
// asks for the key.
const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

fn with_key(mut response: Response, key: &str, replayed: bool) -> Response {
    if let Ok(value) = HeaderValue::from_str(key) {
        response.headers_mut().insert(IDEMPOTENCY_KEY, value);
    }
    response.headers_mut().insert(
        IDEMPOTENT_REPLAYED,
        HeaderValue::from_static(if replayed { "true" } else { "false" }),
    );
    response
}
