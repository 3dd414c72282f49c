//! RFC 9457 problem responses: one error type for every `/v1` failure.
//!
//! A problem carries the HTTP status, a stable machine `code`, a message for the client and,
//! for internal faults, the full story for the log only.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;
use serde_json::json;

use dunning_app::refusals;
use dunning_store::StorageFault;

/// Media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// One field-level complaint inside a problem.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldError {
    pub field: String,
    pub code: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            code: code.to_string(),
            message: message.into(),
        }
    }
}

/// An error answered as a problem document.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    pub errors: Vec<FieldError>,
    pub retry_after: Option<u64>,
    /// Logged, never sent.
    pub internal: Option<String>,
}

/// Result type of handlers.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            detail: detail.into(),
            errors: Vec::new(),
            retry_after: None,
            internal: None,
        }
    }

    /// 400 `VALIDATION_ERROR` with the fields at fault, each (field, code) once.
    pub fn validation(mut errors: Vec<FieldError>) -> Self {
        let mut seen = std::collections::HashSet::new();
        errors.retain(|e| seen.insert((e.field.clone(), e.code.clone())));
        let detail = match errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!(
                "{} fields are invalid: {}",
                many.len(),
                many.iter()
                    .map(|e| e.field.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        ApiError {
            errors,
            ..ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", detail)
        }
    }

    /// 400 for a body that is not JSON at all.
    pub fn malformed(detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "malformed_request", detail)
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("No {what} with id '{id}' in this organization"),
        )
    }

    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::CONFLICT, code, detail)
    }

    /// 409 `concurrent_update`: `what` changed between our read and our write.
    pub fn concurrent_update(what: &str) -> Self {
        ApiError::conflict(
            refusals::CONCURRENT_UPDATE,
            format!("The {what} changed while this request ran; read it again and retry"),
        )
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }

    pub fn insufficient_scope(scope: &str) -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            format!(
                "This token or its person's role lacks the scope '{scope}' that this operation requires"
            ),
        )
    }

    pub fn precondition_failed(current_etag: &str) -> Self {
        ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            "precondition_failed",
            format!(
                "If-Match does not match the current version ({current_etag}); read the object again and retry"
            ),
        )
    }

    /// 415: a body that does not say it is JSON.
    pub fn unsupported_media_type() -> Self {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "Send the body as JSON, with 'Content-Type: application/json' (or an application/*+json type) in UTF-8",
        )
    }

    /// 413: a body over the API's ceiling.
    pub fn payload_too_large(limit_bytes: usize) -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("The body is over {} MB", limit_bytes / (1024 * 1024)),
        )
    }

    /// 408: the body did not arrive within the server's body timeout. The connection is closed
    /// after it (the rest of the body can no longer be told apart from a next request).
    pub fn request_timeout(timeout: std::time::Duration) -> Self {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!(
                "The request body did not arrive within {} seconds",
                timeout.as_secs_f64()
            ),
        )
    }

    /// 404 for a path no route serves (as opposed to `not_found`, an object that does not exist).
    pub fn route_not_found(path: &str) -> Self {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "route_not_found",
            format!("Nothing is served at '{path}'; the API is under /v1 (see /v1/openapi.json)"),
        )
    }

    /// 405; the router adds the `Allow` header naming the methods the route takes.
    pub fn method_not_allowed(method: &http::Method) -> Self {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!(
                "This route does not take {method}; the Allow header lists the methods it takes"
            ),
        )
    }

    pub fn not_implemented(operation: &str) -> Self {
        ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "not_implemented",
            format!(
                "The operation '{operation}' is described in the API but not implemented by this server yet"
            ),
        )
    }

    /// 500: the client learns nothing but that it was our fault; the log gets the story.
    pub fn internal(story: impl std::fmt::Display) -> Self {
        ApiError {
            internal: Some(story.to_string()),
            ..ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "internal error",
            )
        }
    }

    fn title(&self) -> &'static str {
        self.status.canonical_reason().unwrap_or("Error")
    }

    /// The problem document.
    pub fn body(&self) -> serde_json::Value {
        let mut body = json!({
            "type": format!("https://docs.kobana.com.br/dunning/problems/{}", self.code.to_lowercase().replace('_', "-")),
            "title": self.title(),
            "status": self.status.as_u16(),
            "detail": self.detail,
            "code": self.code,
            "errors": self.errors,
        });
        if let Some(retry) = self.retry_after {
            body["retry_after"] = json!(retry);
        }
        body
    }
}

impl ApiError {
    /// 503 with `Retry-After`: the storage is at fault, not the request; the log gets the
    /// driver's words.
    pub fn storage(fault: StorageFault, story: impl std::fmt::Display) -> Self {
        ApiError {
            retry_after: Some(fault.retry_after().as_secs()),
            internal: Some(story.to_string()),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                fault.code(),
                fault.message(),
            )
        }
    }
}

/// The whole server's fallback: no route matches the path.
pub async fn no_route(uri: http::Uri) -> ApiError {
    ApiError::route_not_found(uri.path())
}

/// The whole server's fallback for a route that exists without the request's method.
pub async fn wrong_method(method: http::Method) -> ApiError {
    ApiError::method_not_allowed(&method)
}

impl From<dunning_store::StoreError> for ApiError {
    fn from(e: dunning_store::StoreError) -> Self {
        match e.storage_fault() {
            Some(fault) => ApiError::storage(fault, e),
            None => ApiError::internal(e),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        dunning_store::StoreError::from(e).into()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Some(story) = &self.internal {
            tracing::error!(code = self.code, "{story}");
        }
        let mut response = (self.status, self.body().to_string()).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(retry) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry));
        }
        response
    }
}
