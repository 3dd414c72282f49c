//! API keys: the `X-API-Key` header every route requires, and `GET /whoami`, which tells
//! whose key it is.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::error::{ApiError, ErrorBody};

/// The header that carries the key.
pub const HEADER: &str = "x-api-key";

/// API key → the name of who holds it.
#[derive(Debug, Clone, Default)]
pub struct ApiKeys(BTreeMap<String, String>);

impl ApiKeys {
    /// Keys from `KEY=OWNER` pairs; the error names the first pair that is not one.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<ApiKeys, String> {
        let mut keys = BTreeMap::new();
        for pair in pairs {
            match pair.split_once('=') {
                Some((key, owner)) if !key.is_empty() && !owner.is_empty() => {
                    keys.insert(key.to_string(), owner.to_string());
                }
                _ => return Err(format!("not KEY=OWNER: {pair}")),
            }
        }
        Ok(ApiKeys(keys))
    }

    /// Who holds `key`, if anyone.
    pub fn owner(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// No key at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Who made the request, for the handlers that record it.
#[derive(Debug, Clone)]
pub struct Owner(pub String);

/// Lets a request through only with a known key, recording its [`Owner`].
pub async fn require_api_key(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let owner = match owner_of(&state, request.headers()) {
        Ok(owner) => owner.to_string(),
        Err(error) => return error.into_response(),
    };
    request.extensions_mut().insert(Owner(owner));
    next.run(request).await
}

fn owner_of<'a>(state: &'a AppState, headers: &HeaderMap) -> Result<&'a str, ApiError> {
    let key = headers
        .get(HEADER)
        .ok_or_else(|| ApiError::unauthorized("missing X-API-Key header"))?;
    key.to_str()
        .ok()
        .and_then(|key| state.keys.owner(key))
        .ok_or_else(|| ApiError::unauthorized("unknown API key"))
}

/// Who the caller is.
#[derive(Debug, Serialize, ToSchema)]
pub struct Whoami {
    /// Who holds the key the request was made with.
    #[schema(example = "alice")]
    pub owner: String,
}

/// Who am I
///
/// Says who holds the API key of the request.
#[utoipa::path(
    get,
    path = "/whoami",
    tag = "account",
    responses(
        (status = 200, description = "The key's holder", body = Whoami),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
    )
)]
pub async fn whoami(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Json<Whoami>, ApiError> {
    // Read from the header itself, not from what the middleware recorded: the header is what
    // this handler was written against.
    let owner = owner_of(&state, &headers)?;
    Ok(Json(Whoami {
        owner: owner.to_string(),
    }))
}
