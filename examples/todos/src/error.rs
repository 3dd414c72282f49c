//! The service's errors, as it has always written them: a status and `{"error": "<what>"}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// The body of every error answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, for a person.
    #[schema(example = "todo not found: 7")]
    pub error: String,
}

/// An error answer: its status and message.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    /// 400: the request cannot be done as asked.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 401: no key, or a key nobody holds.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 404: no todo with this id.
    pub fn todo_not_found(id: u64) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, format!("todo not found: {id}"))
    }

    /// 409: the id asked for is taken.
    pub fn todo_exists(id: u64) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, format!("todo already exists: {id}"))
    }

    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(ErrorBody {
                error: self.message,
            }),
        )
            .into_response()
    }
}
