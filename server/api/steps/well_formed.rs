//! The first look at a request's input, after authorization and before idempotency and the
//! handler: [`well_formed`] refuses what no handler should see — a path that is not UTF-8 (or
//! holds what the text rule refuses), a body over [`MAX_BODY_BYTES`] or too slow to arrive, a
//! body that is not declared JSON — and reads the body once, so every later reader has it
//! whole. The document's schemas then judge the body and query string (`super::schema_check`).

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, header};

use super::text_rule::allowed_char;
use crate::http::media_type::is_json;
use crate::http::problem::ApiError;

/// The largest request body (the MCP endpoint has the same ceiling).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Refuse, after authorization and before idempotency and the handler, what no handler should
/// see: a path that is not UTF-8 once percent-decoded or holds control characters; a body
/// over [`MAX_BODY_BYTES`] (413), unreadable (400) or not there within the server's body
/// timeout (408); a non-empty body without a JSON media type (415). The body is read here
/// once, so every later reader sees whole bytes.
pub async fn well_formed<F: Future<Output = Response>>(
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    if !path_is_text(request.uri().path()) {
        return ApiError::malformed(
            "The path is not valid UTF-8 text once percent-decoded (or holds control characters)",
        )
        .into_response();
    }
    if matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        return next(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => return unreadable_body(&e),
    };
    if !bytes.is_empty() && !is_json(&parts.headers) {
        return ApiError::unsupported_media_type().into_response();
    }
    next(Request::from_parts(parts, Body::from(bytes))).await
}

/// Why a body could not be read, as a problem. After a body fault the connection cannot be
/// reused (what is left of the body would be read as the next request), so it is closed.
fn unreadable_body(error: &axum::Error) -> Response {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut problem = None;
    while let Some(e) = source {
        if e.is::<http_body_util::LengthLimitError>() {
            problem = Some(ApiError::payload_too_large(MAX_BODY_BYTES));
            break;
        }
        if let Some(timeout) = e.downcast_ref::<crate::http::serve::BodyTimedOut>() {
            problem = Some(ApiError::request_timeout(timeout.after));
            break;
        }
        source = e.source();
    }
    let problem = problem
        .unwrap_or_else(|| ApiError::malformed(format!("The body could not be read: {error}")));
    let mut response = problem.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Whether a request path percent-decodes to text: UTF-8 without control characters or
/// bidirectional overrides (path parameters are ids and reach problem details and logs).
fn path_is_text(path: &str) -> bool {
    // Most paths hold no escapes: the text is already the path's own.
    if !path.contains('%') {
        return path.chars().all(|c| allowed_char(c, false));
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).is_ok_and(|text| text.chars().all(|c| allowed_char(c, false)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_must_decode_to_text() {
        let cases = [
            ("/v1/customers/cus_abc", true),
            ("/v1/customers/Jo%C3%A3o", true),
            ("/v1/customers/100%", true),
            ("/v1/customers/%zz", true),
            ("/v1/customers/%FF", false),
            ("/v1/customers/%C3%28", false),
            ("/v1/customers/%00", false),
            ("/v1/customers/a%0Ab", false),
            ("/v1/customers/%E2%80%AE", false),
        ];
        for (path, text) in cases {
            assert_eq!(path_is_text(path), text, "{path}");
        }
    }
}
