//! Providers' status callbacks: `POST /callbacks/twilio/{organization}`, where Twilio reports
//! what became of each SMS and WhatsApp message it accepted (`dunning_engine::twilio`).
//!
//! Nothing here is believed before Twilio's signature is: `X-Twilio-Signature` must sign the
//! URL Twilio called (this server's public URL, `--canonical-url` behind a proxy, with the
//! request's path and query) and every POST parameter under the account's auth token, and
//! `AccountSid` must be the configured account's. Otherwise the answer is 403 and nothing
//! moves. A believed callback finds the delivery by the organization in its path and the
//! message's `MessageSid`, the two keys the engine stored when Twilio accepted the message;
//! a delivery id in the URL would be a third key that must agree with them.
//!
//! `delivered` and `read` make a `sent` delivery `delivered`, `undelivered` and `failed` make
//! it `bounced` with Twilio's `ErrorCode`; the statuses on the way change nothing. A receipt
//! applies only to a `sent` delivery (`dunning_engine::collection::record_receipt`): a repeat,
//! or a late `sent` after `delivered`, writes nothing and is answered like the first.

use axum::Router;
use axum::body::Body;
use axum::extract::{OriginalUri, Path, State};
use axum::routing::post;
use http::{HeaderMap, StatusCode};

use dunning_engine::collection::record_receipt;
use dunning_engine::providers::Receipt;
use dunning_engine::twilio;
use dunning_store::deliveries;
use dunning_store::events::Actor;

use crate::AppState;
use crate::http::media_type::is_urlencoded_form;
use crate::http::problem::{ApiError, ApiResult};

/// The largest callback read: Twilio's are under 2 KiB.
const BODY_LIMIT: usize = 16 * 1024;

/// The routes, outside `/v1`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route(
            &format!("{}/{{organization_id}}", twilio::CALLBACK_PATH),
            post(twilio_status),
        )
        .with_state(state)
}

/// `POST /callbacks/twilio/{organization_id}`: 204 once believed (whether or not it moved the
/// delivery), 403 when the signature or the account is wrong.
async fn twilio_status(
    State(state): State<AppState>,
    Path(organization_id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<StatusCode> {
    let Some(account) = &state.config.twilio else {
        return Err(ApiError::route_not_found(uri.path()));
    };
    if !is_urlencoded_form(&headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "A status callback is a form: 'Content-Type: application/x-www-form-urlencoded'",
        ));
    }
    let bytes = axum::body::to_bytes(body, BODY_LIMIT).await.map_err(|_| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("A status callback is at most {} KiB", BODY_LIMIT / 1024),
        )
    })?;
    let params = parse_form(&bytes)?;
    let url = format!(
        "{}{}",
        state.config.public_url(),
        uri.path_and_query().map_or(uri.path(), |pq| pq.as_str())
    );
    let signature = headers
        .get("x-twilio-signature")
        .and_then(|v| v.to_str().ok());
    if !account.verify(&url, &params, signature) {
        tracing::warn!(organization = %organization_id, signed = signature.is_some(), "twilio callback refused: the signature does not sign it");
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "invalid_signature",
            "X-Twilio-Signature is missing or does not sign this request",
        ));
    }
    if one(&params, "AccountSid")? != Some(account.account_sid()) {
        tracing::warn!(organization = %organization_id, "twilio callback refused: another account");
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "unknown_account",
            "The callback's AccountSid is not this server's Twilio account",
        ));
    }
    let required = |name: &str| {
        one(&params, name)?
            .ok_or_else(|| ApiError::malformed(format!("The callback has no {name}")))
    };
    let (message_sid, status) = (required("MessageSid")?, required("MessageStatus")?);
    let Some(reported) = twilio::reported(status, one(&params, "ErrorCode")?) else {
        return Ok(StatusCode::NO_CONTENT);
    };
    let receipt = Receipt::from(reported);
    let mut conn = state.db.acquire().await?;
    let found =
        deliveries::by_provider_message(&mut conn, &organization_id, twilio::PROVIDER, message_sid)
            .await?;
    drop(conn);
    let Some(delivery) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("No delivery of this organization was sent as {message_sid}"),
        ));
    };
    let actor = Actor {
        kind: "system",
        id: None,
        name: Some("twilio (status callback)".into()),
    };
    let now = dunning_domain::timestamp::now();
    if record_receipt(&state.db, &delivery, &receipt, &actor, now).await? {
        tracing::info!(delivery = %delivery.id, status, "twilio status applied");
    }
    Ok(StatusCode::NO_CONTENT)
}

/// The form's name-value pairs, in order. A form is ASCII (`application/x-www-form-urlencoded`
/// percent-encodes the rest), and what it encodes must be UTF-8.
fn parse_form(bytes: &[u8]) -> ApiResult<Vec<(String, String)>> {
    if !bytes.is_ascii() {
        return Err(ApiError::malformed(
            "The form has bytes that are not percent-encoded",
        ));
    }
    let params: Vec<(String, String)> = form_urlencoded::parse(bytes).into_owned().collect();
    // `parse` replaces what does not decode to UTF-8 with U+FFFD, which an encoder writes
    // as %EF%BF%BD.
    let replaced = params
        .iter()
        .map(|(n, v)| n.matches('\u{FFFD}').count() + v.matches('\u{FFFD}').count())
        .sum::<usize>();
    let written = String::from_utf8_lossy(bytes)
        .to_ascii_uppercase()
        .matches("%EF%BF%BD")
        .count();
    if replaced != written {
        return Err(ApiError::malformed(
            "The form encodes text that is not UTF-8",
        ));
    }
    Ok(params)
}

/// The value of `name`, when the form has it once; twice is malformed.
fn one<'a>(params: &'a [(String, String)], name: &str) -> ApiResult<Option<&'a str>> {
    let mut values = params.iter().filter(|(n, _)| n == name);
    let first = values.next().map(|(_, v)| v.as_str());
    if values.next().is_some() {
        return Err(ApiError::malformed(format!(
            "The callback has {name} more than once"
        )));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_decodes_to_its_pairs_and_what_is_not_utf8_is_refused() {
        let params =
            parse_form(b"MessageSid=SM1&To=whatsapp%3A%2B5511&Body=ol%C3%A1+m%C3%BAndo").unwrap();
        assert_eq!(
            params,
            [
                ("MessageSid".to_string(), "SM1".to_string()),
                ("To".to_string(), "whatsapp:+5511".to_string()),
                ("Body".to_string(), "olá múndo".to_string()),
            ]
        );
        assert!(
            parse_form(b"Body=%EF%BF%BD").is_ok(),
            "a written U+FFFD is text"
        );
        assert_eq!(
            parse_form(b"Body=%C3").unwrap_err().status,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            parse_form("Body=olá".as_bytes()).unwrap_err().status,
            StatusCode::BAD_REQUEST
        );
        let twice = parse_form(b"MessageStatus=sent&MessageStatus=delivered").unwrap();
        assert_eq!(
            one(&twice, "MessageStatus").unwrap_err().status,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(one(&twice, "ErrorCode").unwrap(), None);
    }
}
