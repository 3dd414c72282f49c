//! Success responses: a generated response model written once with its status and ETag, the
//! page a list asks for and its `meta`, and `If-Match`.

use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde::Serialize;

use crate::generated::models::response::PaginationMeta;
use crate::http::json;
use crate::http::problem::{ApiError, ApiResult};
use dunning_store::{Page, PageRequest};

/// What handlers return.
pub type Reply = Response;

/// The typed answer `body` (a generated response model) with `status`, and the object's
/// ETag when it has a `version`: written straight from the borrowed views, once, by
/// [`json::to_vec`] (`serde_json`'s text, its strings escaped a word at a time).
pub fn answer(status: StatusCode, body: &impl Serialize, version: Option<i64>) -> Reply {
    let written = match json::to_vec(body) {
        Ok(written) => written,
        Err(e) => {
            return ApiError::internal(format!("an answer could not be written: {e}"))
                .into_response();
        }
    };
    let body = Bytes::from(written.json);
    let content_type = HeaderValue::from_static("application/json");
    let mut response =
        (status, [(header::CONTENT_TYPE, content_type)], body.clone()).into_response();
    // The body says where its serializer wrote its members, so that a tool call reading it
    // (`mcpgen_axum::WrittenJson`) takes them from there instead of proving it JSON again.
    if let Some(members) = written.members {
        response
            .extensions_mut()
            .insert(mcpgen_axum::WrittenJson { body, members });
    }
    if let Some(version) = version {
        response
            .headers_mut()
            .insert(header::ETAG, etag_header(version));
    }
    response
}

/// The page a list asks for: `page` and `per_page` of its query (default 1 and 25). Their
/// ranges are the document's (1 to 1 000 000 and 1 to 100); the clamp only keeps a reader
/// that no schema judged from asking the store for an unbounded page.
pub fn page_request(page: Option<i64>, per_page: Option<i64>) -> PageRequest {
    PageRequest {
        page: page.unwrap_or(1).clamp(1, 1_000_000),
        per_page: per_page.unwrap_or(25).clamp(1, 100),
    }
}

/// The `meta` of a list page: `total_exact: false` only when the count stopped at its cap.
pub fn page_meta<T>(page: &Page<T>, request: PageRequest) -> PaginationMeta {
    PaginationMeta {
        total: page.total,
        page: request.page,
        per_page: request.per_page,
        total_pages: (page.total + request.per_page - 1) / request.per_page,
        total_exact: (!page.total_exact).then_some(false),
    }
}

/// The object a write just made or changed, read back inside its transaction: missing means
/// our own code is wrong, not the request.
pub fn written<T>(found: Option<T>, what: &str) -> ApiResult<T> {
    found.ok_or_else(|| ApiError::internal(format!("the {what} just written is missing")))
}

/// The ETag of an object at `version`.
pub fn etag(version: i64) -> String {
    format!("\"v{version}\"")
}

fn etag_header(version: i64) -> HeaderValue {
    HeaderValue::from_str(&etag(version)).expect("an etag is ASCII")
}

/// Refuse with 412 when `If-Match` is present and names another version.
pub fn check_if_match(headers: &HeaderMap, version: i64) -> ApiResult<()> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(());
    };
    let current = etag(version);
    let text = value.to_str().unwrap_or_default();
    let matches = text
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag == current || tag.trim_start_matches("W/") == current);
    if matches {
        Ok(())
    } else {
        Err(ApiError::precondition_failed(&current))
    }
}
