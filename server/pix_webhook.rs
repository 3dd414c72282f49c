//! The PSPs' Pix callbacks (BACEN's API Pix: the webhook of a Pix key POSTs `{"pix": [...]}`
//! to the registered `webhookUrl` with `/pix` added): `POST /pix/webhook/{secret}/pix` (and
//! without `/pix`, as some PSPs send it), outside `/v1`; and Pix Automático's, to the same
//! URL with `/rec` (`{"recs": [...]}`, the agreements' recurrences) and `/cobr`
//! (`{"cobsr": [...]}`, the instalments' debits), read by `dunning_app::automatic_pix`.
//!
//! Authenticated the way PSPs do it, twice. Mutual TLS ends at the operator's reverse proxy,
//! which requires the PSP's client certificate and, with `--pix-webhook-require-header`,
//! tells us so in a header it sets (and strips from what clients send): a callback without
//! it is refused. And the URL carries the connection's secret (256 random bits, stored as its
//! SHA-256): a callback is found by that hash and the hashes are compared in constant time; a
//! wrong or missing secret is a 404 that says nothing more. Either refusal changes nothing.
//!
//! The body must be declared JSON (`application/json` or `application/*+json`, as on `/v1`),
//! else 415 before the secret is looked up: `text/plain`, forms and multipart are never read.
//! It is bounded and read whole before anything is applied: every Pix of it must be what
//! the API Pix says (a 400 naming the first fault otherwise, and nothing applied), then each is
//! received once (`dunning_app::pix_received`: idempotent by `endToEndId`, a payment on its charge or
//! kept for review). Storage faults are 503, which PSPs retry. Logs and traces show the path
//! without the secret (`ops::access_log::shown_path`).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http::{HeaderMap, StatusCode};
use serde::Serialize;
use serde_json::Value;
use subtle::ConstantTimeEq;

use crate::AppState;
use crate::http::media_type::is_json;
use crate::http::problem::{ApiError, FieldError};
use dunning_app::automatic_pix::{self as automatic, DebitReport, RecReport};
use dunning_app::pix_received::{self as app, Outcome, PixItem};
use dunning_engine::pix::connect::secret_hash;
use dunning_store::StoreError;
use dunning_store::events::Actor;
use dunning_store::pix_psp as store;

/// The largest callback body: a PSP may group many Pix in one.
pub const BODY_LIMIT: usize = 512 * 1024;

/// The most Pix one callback may carry.
const MAX_ITEMS: usize = 1000;

/// The routes, outside `/v1`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/pix/webhook/{secret}", post(callback))
        .route("/pix/webhook/{secret}/pix", post(callback))
        .route("/pix/webhook/{secret}/rec", post(rec_callback))
        .route("/pix/webhook/{secret}/cobr", post(cobr_callback))
        .with_state(state)
}

/// What a callback came to.
#[derive(Debug, Serialize)]
struct Answer {
    /// Pix recorded now (applied or kept for review).
    received: usize,
    /// Pix recorded before: nothing changed for them.
    duplicates: usize,
}

fn refused(status: StatusCode, code: &'static str, detail: &str) -> Response {
    ApiError::new(status, code, detail).into_response()
}

/// Whether the proxy's header is there, when one is required.
fn proxy_verified(state: &AppState, headers: &HeaderMap) -> bool {
    let Some((name, value)) = &state.config.pix.webhook_require_header else {
        return true;
    };
    let mut given = headers.get_all(name).iter();
    match (given.next(), given.next()) {
        (Some(got), None) => bool::from(got.as_bytes().ct_eq(value.as_bytes())),
        _ => false,
    }
}

/// The organization whose connection's secret this is.
async fn organization_of(state: &AppState, secret: &str) -> Result<Option<String>, Response> {
    // A secret we made is 43 characters of URL-safe base64; anything else is not one.
    if secret.len() != 43
        || !secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Ok(None);
    }
    // Found by its hash, which the caller cannot aim at byte by byte; the stored hash is then
    // compared in constant time all the same.
    let hash = secret_hash(secret);
    match store::by_webhook_secret_hash(&state.db, &hash).await {
        Ok(Some((org, stored))) => {
            Ok(bool::from(stored.as_bytes().ct_eq(hash.as_bytes())).then_some(org))
        }
        Ok(None) => Ok(None),
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

/// What every callback must be before its body is read: through the PSP's mutual TLS (the
/// proxy's header), declared JSON, for a secret of ours, and within the size limit. The
/// organization and the body, or the refusal.
async fn admitted(
    state: &AppState,
    secret: &str,
    headers: &HeaderMap,
    body: Body,
) -> Result<(String, Bytes), Response> {
    if !proxy_verified(state, headers) {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "client_certificate_required",
            "Pix callbacks come from the PSP through mutual TLS",
        ));
    }
    // The media type is judged after the proxy's header and before the secret. After the
    // header: a request that did not come through the PSP's mutual TLS learns nothing, not
    // even what we would read. Before the secret: it costs no database lookup, and the answer
    // is the same whether the secret is right or not, so it tells nothing about the secret;
    // all it says is that a callback is JSON, which BACEN's API Pix says to everyone. A body
    // that is not declared JSON (none, `text/plain`, a form, multipart: what a browser may
    // send cross-site unasked) is never read, let alone applied.
    if !is_json(headers) {
        return Err(ApiError::unsupported_media_type().into_response());
    }
    let org = match organization_of(state, secret).await {
        Ok(Some(org)) => org,
        Ok(None) => {
            return Err(refused(
                StatusCode::NOT_FOUND,
                "not_found",
                "No Pix webhook at this address",
            ));
        }
        Err(response) => return Err(response),
    };
    match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => Ok((org, bytes)),
        Err(_) => Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "The callback is over 512 KB",
        )),
    }
}

async fn callback(
    State(state): State<AppState>,
    Path(secret): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (org, bytes) = match admitted(&state, &secret, &headers, body).await {
        Ok(admitted) => admitted,
        Err(response) => return response,
    };
    let items = match read(&bytes) {
        Ok(items) => items,
        Err(problem) => return problem.into_response(),
    };
    let mut answer = Answer {
        received: 0,
        duplicates: 0,
    };
    for item in &items {
        match app::receive_once(&state.db, &org, item, "webhook").await {
            Ok(Outcome::Duplicate) => answer.duplicates += 1,
            Ok(_) => answer.received += 1,
            Err(e) => return ApiError::from(e).into_response(),
        }
    }
    if answer.received > 0 {
        tracing::info!(organization = %org, received = answer.received, duplicates = answer.duplicates, "pix callback");
    }
    (StatusCode::OK, axum::Json(answer)).into_response()
}

/// What a callback of Pix Automático came to.
#[derive(Debug, Serialize)]
struct Moved {
    /// Recurrences or recurring charges whose status moved now.
    moved: usize,
    /// Those reported as they already stood (or not ours): nothing changed.
    unchanged: usize,
}

impl Moved {
    /// Count what applying one report came to; a storage fault stops the callback (answered
    /// 503: the PSP sends it again).
    fn count(&mut self, moved: Result<bool, StoreError>) -> Result<(), StoreError> {
        match moved? {
            true => self.moved += 1,
            false => self.unchanged += 1,
        }
        Ok(())
    }
}

/// `POST {webhookUrl}/rec` (`WebhookRecBody`: `{"recs": [RecNotification]}`): where the
/// agreements' recurrences stand — authorized, rejected, expired, canceled by the debtor.
async fn rec_callback(
    State(state): State<AppState>,
    Path(secret): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (org, bytes) = match admitted(&state, &secret, &headers, body).await {
        Ok(admitted) => admitted,
        Err(response) => return response,
    };
    let reports = match read_list(&bytes, "recs", RecReport::read) {
        Ok(reports) => reports,
        Err(problem) => return problem.into_response(),
    };
    let mut answer = Moved {
        moved: 0,
        unchanged: 0,
    };
    for report in &reports {
        let moved = automatic::rec_reported_once(&state.db, &org, &webhook_actor(), report).await;
        if let Err(e) = answer.count(moved) {
            return ApiError::from(e).into_response();
        }
    }
    (StatusCode::OK, axum::Json(answer)).into_response()
}

/// `POST {webhookUrl}/cobr` (`WebhookCobRBody`: `{"cobsr": [CobRNotification]}`): each
/// instalment's debit — scheduled, paid (its Pix applied like any other), failed (the
/// instalment falls back to its own code), canceled.
async fn cobr_callback(
    State(state): State<AppState>,
    Path(secret): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (org, bytes) = match admitted(&state, &secret, &headers, body).await {
        Ok(admitted) => admitted,
        Err(response) => return response,
    };
    let reports = match read_list(&bytes, "cobsr", DebitReport::read) {
        Ok(reports) => reports,
        Err(problem) => return problem.into_response(),
    };
    let mut answer = Moved {
        moved: 0,
        unchanged: 0,
    };
    for report in &reports {
        let actor = webhook_actor();
        let moved = automatic::debit_reported_once(&state.db, &org, &actor, report, "webhook");
        if let Err(e) = answer.count(moved.await) {
            return ApiError::from(e).into_response();
        }
    }
    (StatusCode::OK, axum::Json(answer)).into_response()
}

fn webhook_actor() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("pix webhook".into()),
    }
}

/// The list `field` of a callback, each item read by `read_one`, or the 400 naming the first
/// fault (nothing applied).
fn read_list<T>(
    bytes: &[u8],
    field: &str,
    read_one: impl Fn(&Value) -> Result<T, String>,
) -> Result<Vec<T>, ApiError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::malformed(format!("The body is not valid JSON: {e}")))?;
    let fault = |name: String, code: &str, message: String| {
        ApiError::validation(vec![FieldError::new(name, code, message)])
    };
    let Some(list) = value.get(field).and_then(Value::as_array) else {
        return Err(fault(
            field.into(),
            "required",
            format!("Must be the list ({{\"{field}\": [...]}})"),
        ));
    };
    if list.len() > MAX_ITEMS {
        return Err(fault(
            field.into(),
            "max_items",
            "At most 1000 per callback".into(),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            read_one(item).map_err(|why| fault(format!("{field}[{i}]"), "invalid", why))
        })
        .collect()
}

/// The callback's Pix, each as the API Pix says, or the 400 naming the first fault.
fn read(bytes: &[u8]) -> Result<Vec<PixItem>, ApiError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::malformed(format!("The body is not valid JSON: {e}")))?;
    let field = |name: String, code: &str, message: &str| {
        ApiError::validation(vec![FieldError::new(name, code, message)])
    };
    let Some(list) = value.get("pix").and_then(Value::as_array) else {
        return Err(field(
            "pix".into(),
            "required",
            "Must be the list of Pix received ({\"pix\": [...]})",
        ));
    };
    if list.len() > MAX_ITEMS {
        return Err(field(
            "pix".into(),
            "max_items",
            "At most 1000 Pix per callback",
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            PixItem::read(item).map_err(|bad| {
                let name = if bad.field == "pix[]" {
                    format!("pix[{i}]")
                } else {
                    format!("pix[{i}].{}", bad.field)
                };
                field(name, "invalid", bad.message)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_body_is_read_whole_or_refused_naming_its_fault() {
        let good = br#"{"pix": [{"endToEndId": "E12345678202009091221kkkkkkkkkkk", "txid": "chg0123456789abcdefcobv000", "valor": "110.00", "horario": "2020-09-09T20:15:00.358Z"}]}"#;
        assert_eq!(read(good).unwrap().len(), 1);
        let cases: &[(&[u8], &str)] = &[
            (b"not json", "malformed_request"),
            (br#"{"pix": {}}"#, "pix"),
            (br#"{}"#, "pix"),
            (br#"{"pix": [7]}"#, "pix[0]"),
            (
                br#"{"pix": [{"endToEndId": "E12345678202009091221kkkkkkkkkkk", "valor": "1.00", "horario": "2020-09-09T20:15:00Z"}, {"endToEndId": "short", "valor": "1.00", "horario": "2020-09-09T20:15:00Z"}]}"#,
                "pix[1].endToEndId",
            ),
        ];
        for (body, fault) in cases {
            let problem = read(body).unwrap_err();
            let named = problem
                .errors
                .first()
                .map_or(problem.code, |e| e.field.as_str());
            assert_eq!(named, *fault, "{}", String::from_utf8_lossy(body));
        }
    }
}
