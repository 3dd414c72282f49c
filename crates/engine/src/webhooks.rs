//! The webhook worker: fans every organization event out to the endpoints subscribed to it
//! (one delivery per endpoint and event), then POSTs due deliveries for real, signed with
//! HMAC-SHA256, retrying failures with exponential backoff until they succeed or run out.
//!
//! Delivery is at-least-once: a delivery is claimed (a lease in the database) before its POST
//! and released with the attempt's outcome, so two replicas never send the same attempt, and
//! a process that dies mid-POST leaves a lease that runs out and lets another one retry.
//!
//! The body of every POST is the event as `events_list` returns it, plus `organization_id`:
//! `{"id", "type", "subject_type", "subject_id", "actor": {"type", "id", "name"}, "data",
//! "created_at", "organization_id"}`. Headers: `X-Signature: t=<Unix seconds of the
//! attempt>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's secret>` (the
//! time is signed, so a receiver that refuses an old `t` cannot be replayed an old POST),
//! `X-Delivery-Id` (the same on every retry: receivers can deduplicate with it), `X-Event-Id`,
//! `X-Event-Type` and `X-Delivery-Attempt`.
//!
//! Targets go through `net::outbound` at every attempt: the URL is checked, its name resolved
//! and every address checked, and the connection made to those addresses only. A failed
//! attempt is recorded as a [`Failure`] category; the details (OS errors, addresses) go to
//! the log only, since a tenant reading them could map the networks around the server.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use sha2::Sha256;
use time::OffsetDateTime;
use tokio::task::JoinSet;

use crate::Engine;
use crate::outbound::{self, Policy, ResolveError};
use dunning_app::events;
use dunning_app::webhooks::payload;
use dunning_domain::timestamp::Timestamp;
use dunning_models::response::WebhookDeliveryFailedData;
use dunning_store::events::Actor;
use dunning_store::webhooks::{self as store, AttemptOutcome, Claimed, NewDelivery};
use dunning_store::{Result, ids, timestamp_text};

/// Waits before each retry: the first POST is immediate, the retries come 1 min, 5 min,
/// 30 min, 2 h and 12 h after the failure before them; a sixth failure is final.
pub const RETRY_SCHEDULE: [Duration; 5] = [
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 60 * 60),
    Duration::from_secs(12 * 60 * 60),
];

/// A receiver has this long to answer (connection, request and response body).
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// How long a claim holds a delivery; far longer than one POST can take.
const LEASE: Duration = Duration::from_secs(5 * 60);

/// How much of a receiver's answer is kept with an attempt.
const RESPONSE_BODY_LIMIT: usize = 1024;

/// Events fanned out per transaction, and deliveries POSTed per tick.
const BATCH: i64 = 200;
const SENDS_PER_TICK: i64 = 50;

/// Events about webhook deliveries themselves are never delivered: a failing endpoint
/// subscribed to `*` would otherwise be sent news of its own failures, forever.
pub fn deliverable(event_type: &str) -> bool {
    event_type != "webhook.test" && !event_type.starts_with("webhook_delivery.")
}

/// Whether an endpoint's subscription list takes this event type (`*` takes all).
pub fn subscribes(patterns: &[String], event_type: &str) -> bool {
    patterns.iter().any(|p| p == "*" || p == event_type)
}

/// The wait before the next try after `failed_in_round` consecutive failures, or `None`
/// when retries ran out.
pub fn retry_delay(failed_in_round: i64) -> Option<Duration> {
    usize::try_from(failed_in_round - 1)
        .ok()
        .and_then(|i| RETRY_SCHEDULE.get(i).copied())
}

/// The `X-Signature` of `body` sent at `timestamp` (Unix seconds): `t=<timestamp>,v1=<hex
/// HMAC-SHA256 of "<timestamp>.<body>" keyed with the secret>`, as Stripe does it.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

/// Why an attempt failed, as delivery records and events say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The target is, or resolved to, an address webhooks must not reach.
    TargetForbidden,
    /// The host name did not resolve.
    DnsFailed,
    /// No TCP connection (refused, reset, unreachable).
    ConnectionFailed,
    /// The TLS handshake failed (certificate, protocol).
    TlsError,
    /// No complete answer within [`TIMEOUT`].
    Timeout,
    /// Something answered, but not HTTP.
    InvalidResponse,
    /// A redirect: not followed.
    Http3xx,
    Http4xx,
    Http5xx,
}

impl Failure {
    pub const ALL: [Failure; 9] = [
        Failure::TargetForbidden,
        Failure::DnsFailed,
        Failure::ConnectionFailed,
        Failure::TlsError,
        Failure::Timeout,
        Failure::InvalidResponse,
        Failure::Http3xx,
        Failure::Http4xx,
        Failure::Http5xx,
    ];

    /// The name stored and shown (one of `store::webhooks::FAILURES`).
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::TargetForbidden => "target_forbidden",
            Failure::DnsFailed => "dns_failed",
            Failure::ConnectionFailed => "connection_failed",
            Failure::TlsError => "tls_error",
            Failure::Timeout => "timeout",
            Failure::InvalidResponse => "invalid_response",
            Failure::Http3xx => "http_3xx",
            Failure::Http4xx => "http_4xx",
            Failure::Http5xx => "http_5xx",
        }
    }

    /// The failure an HTTP status is, `None` for a success.
    pub fn of_status(status: u16) -> Option<Failure> {
        match status {
            200..=299 => None,
            300..=399 => Some(Failure::Http3xx),
            400..=499 => Some(Failure::Http4xx),
            500..=599 => Some(Failure::Http5xx),
            _ => Some(Failure::InvalidResponse),
        }
    }

    /// The failure a request error is. TLS errors reach us as the I/O error rustls raises
    /// (`InvalidData`, `InvalidInput` for a name it cannot verify) under a connect error.
    pub(crate) fn of_error(error: &reqwest::Error, https: bool) -> Failure {
        if error.is_timeout() {
            return Failure::Timeout;
        }
        match outbound::resolve_error(error) {
            Some(ResolveError::Forbidden(_)) => return Failure::TargetForbidden,
            Some(ResolveError::Failed { .. }) => return Failure::DnsFailed,
            None => {}
        }
        if !error.is_connect() {
            return Failure::InvalidResponse;
        }
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            if https && tls_failure(cause) {
                return Failure::TlsError;
            }
            source = cause.source();
        }
        Failure::ConnectionFailed
    }
}

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    /// Deliveries queued from new events.
    pub queued: usize,
    /// POSTs made.
    pub attempted: usize,
}

/// Run forever: a tick a second. Errors are logged and the next tick tries again.
pub async fn run(engine: Engine) {
    super::run_worker(&engine, "webhooks", Duration::from_secs(1), || async {
        tick(&engine, dunning_domain::timestamp::now())
            .await
            .map(drop)
    })
    .await
}

/// One step at time `now`: queue deliveries for new events, then POST what is due.
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<TickReport> {
    let queued = fan_out(engine, now).await?;
    let attempted = send_due(engine, now).await?;
    Ok(TickReport { queued, attempted })
}

/// Turn undispatched events into deliveries, a batch per transaction.
async fn fan_out(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let mut queued = 0;
    loop {
        // A read first: most ticks find nothing, and need not take SQLite's write lock.
        if !store::has_undispatched_events(&engine.db).await? {
            return Ok(queued);
        }
        let mut tx = engine.db.begin().await?;
        let batch = store::undispatched_events(&mut tx, BATCH).await?;
        let mut endpoints: HashMap<String, Vec<store::Webhook>> = HashMap::new();
        for event in &batch {
            if deliverable(&event.kind) && !endpoints.contains_key(&event.organization_id) {
                let found = store::enabled_webhooks(&mut tx, &event.organization_id).await?;
                endpoints.insert(event.organization_id.clone(), found);
            }
        }
        for event in &batch {
            let targets = endpoints
                .get(&event.organization_id)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                // An endpoint gets the events made while it was enabled: not those from
                // before its creation, nor from while it was disabled.
                .filter(|w| {
                    deliverable(&event.kind)
                        && subscribes(&w.events, &event.kind)
                        && event.created_at >= w.active_since
                });
            let body = payload(event);
            for webhook in targets {
                let inserted = store::insert_delivery(
                    &mut tx,
                    &NewDelivery {
                        id: &ids::new_id("whd"),
                        organization_id: &event.organization_id,
                        webhook_id: &webhook.id,
                        event_id: &event.id,
                        event_type: &event.kind,
                        payload: &body,
                        first_attempt_at: &now_text,
                        now: &now_text,
                    },
                )
                .await?;
                queued += usize::from(inserted);
            }
        }
        let ids: Vec<&str> = batch.iter().map(|e| e.id.as_str()).collect();
        store::mark_dispatched(&mut tx, &ids).await?;
        tx.commit().await?;
        if batch.len() < BATCH as usize {
            return Ok(queued);
        }
    }
}

/// Claim and POST the deliveries due at `now`, concurrently; wait for all of them.
async fn send_due(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let lease_until = timestamp_text(now + super::lease(engine, LEASE));
    let mut running = JoinSet::new();
    for id in store::due_deliveries(&engine.db, &now_text, SENDS_PER_TICK).await? {
        let token = ids::new_id("clm");
        if let Some(claimed) =
            store::claim(&engine.db, &id, &now_text, &lease_until, &token).await?
        {
            let engine = engine.clone();
            running.spawn(async move { attempt(&engine, claimed, now).await });
        }
    }
    let mut attempted = 0;
    while let Some(done) = running.join_next().await {
        match done {
            Ok(Ok(())) => attempted += 1,
            Ok(Err(e)) => tracing::warn!("webhook attempt not recorded: {e}"),
            Err(e) => tracing::error!("webhook attempt panicked: {e}"),
        }
    }
    Ok(attempted)
}

/// Whether an I/O error is rustls's: an `InvalidData` (or `InvalidInput`) I/O error,
/// possibly inside another I/O error (whose `source` skips the inner one, hence `get_ref`).
fn tls_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = error.downcast_ref::<std::io::Error>();
    while let Some(io) = current {
        if matches!(
            io.kind(),
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput
        ) {
            return true;
        }
        current = io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<std::io::Error>());
    }
    false
}

/// What a receiver did with one POST.
struct Answer {
    status: Option<u16>,
    body: Option<String>,
    failure: Option<Failure>,
}

impl Answer {
    fn failed(failure: Failure) -> Answer {
        Answer {
            status: None,
            body: None,
            failure: Some(failure),
        }
    }
}

/// The client for this policy, built once (a client per request would parse the root
/// certificates and open connections anew every time).
fn client(policy: Policy) -> std::result::Result<&'static outbound::Client, String> {
    static PUBLIC_ONLY: OnceLock<std::result::Result<outbound::Client, String>> = OnceLock::new();
    static PRIVATE_ALLOWED: OnceLock<std::result::Result<outbound::Client, String>> =
        OnceLock::new();
    let cell = if policy.allow_private {
        &PRIVATE_ALLOWED
    } else {
        &PUBLIC_ONLY
    };
    cell.get_or_init(|| {
        outbound::Client::new(policy, |builder| {
            builder
                .timeout(TIMEOUT)
                .connect_timeout(TIMEOUT)
                .user_agent(concat!(
                    "KobanaDunning-Webhooks/",
                    env!("CARGO_PKG_VERSION")
                ))
        })
        .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The error and its causes in one line (reqwest's top-level message alone says little).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

async fn post(policy: Policy, claimed: &Claimed, now: OffsetDateTime) -> Answer {
    let client = match client(policy) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(delivery = %claimed.id, "webhook not sent: {error}");
            return Answer::failed(Failure::ConnectionFailed);
        }
    };
    // Checked at every attempt: the endpoint may predate the guard, or the setting changed.
    let request = match client.request(reqwest::Method::POST, &claimed.url) {
        Ok(request) => request,
        Err(refusal) => {
            tracing::warn!(delivery = %claimed.id, webhook = %claimed.webhook_id, "webhook target refused: {refusal}");
            return Answer::failed(Failure::TargetForbidden);
        }
    };
    let sent = request
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(
            "X-Signature",
            signature(
                &claimed.secret,
                now.unix_timestamp(),
                claimed.payload.as_bytes(),
            ),
        )
        .header("X-Delivery-Id", &claimed.id)
        .header("X-Event-Id", &claimed.event_id)
        .header("X-Event-Type", &claimed.event_type)
        .header("X-Delivery-Attempt", (claimed.attempts + 1).to_string())
        .body(claimed.payload.clone())
        .send()
        .await;
    let mut response = match sent {
        Ok(response) => response,
        Err(e) => {
            let failure = Failure::of_error(&e, claimed.url.starts_with("https:"));
            // The whole story for operators; the tenant sees the category.
            tracing::warn!(
                delivery = %claimed.id,
                webhook = %claimed.webhook_id,
                failure = failure.as_str(),
                "webhook attempt failed: {}",
                error_chain(&e)
            );
            return Answer::failed(failure);
        }
    };
    let status = response.status();
    // Keep the start of the answer only: a receiver's error page can be large.
    let mut kept: Vec<u8> = Vec::new();
    let mut truncated = false;
    // A body cut short by an error still counts as the answer we got.
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = RESPONSE_BODY_LIMIT - kept.len();
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            truncated = true;
            break;
        }
    }
    let mut body = String::from_utf8_lossy(&kept).into_owned();
    if truncated {
        body.push('…');
    }
    let failure = Failure::of_status(status.as_u16());
    if let Some(failure) = failure {
        tracing::info!(
            delivery = %claimed.id,
            webhook = %claimed.webhook_id,
            failure = failure.as_str(),
            "webhook receiver answered {status}"
        );
    }
    Answer {
        status: Some(status.as_u16()),
        body: Some(body),
        failure,
    }
}

/// POST a claimed delivery and record the attempt, scheduling a retry or giving up.
async fn attempt(engine: &Engine, claimed: Claimed, now: OffsetDateTime) -> Result<()> {
    let started = Instant::now();
    let answer = post(Policy::for_webhooks(&engine.settings), &claimed, now).await;
    let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    let succeeded = answer.status.is_some_and(|s| (200..300).contains(&s));
    let (status, next_attempt_at) = if succeeded {
        ("succeeded", None)
    } else {
        match retry_delay(claimed.round_attempts + 1) {
            Some(wait) => ("pending", Some(Timestamp::new(now + wait))),
            None => ("failed", None),
        }
    };
    let outcome = AttemptOutcome {
        attempted_at: Timestamp::new(now),
        duration_ms,
        response_status: answer.status.map(i64::from),
        response_body: answer.body,
        error: answer.failure.map(|f| f.as_str().to_string()),
        status,
        next_attempt_at,
    };
    engine.observer.webhook_attempt(
        if status == "pending" {
            "retrying"
        } else {
            status
        },
        claimed.attempts > 0,
    );
    let mut tx = engine.db.begin().await?;
    if !store::record_attempt(&mut tx, &claimed, &outcome).await? {
        tracing::warn!(delivery = %claimed.id, "lost the claim on a webhook delivery; its outcome is dropped");
        return Ok(());
    }
    if status == "failed" {
        events::record(
            &mut tx,
            &claimed.organization_id,
            "webhook_delivery.failed",
            ("webhook_delivery", &claimed.id),
            &Actor {
                kind: "system",
                id: None,
                name: Some("webhooks".to_string()),
            },
            &WebhookDeliveryFailedData {
                webhook_id: &claimed.webhook_id,
                event_id: &claimed.event_id,
                event_type: &claimed.event_type,
                attempts: claimed.attempts + 1,
                error: outcome.error.as_deref(),
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_then_stop_after_the_sixth_try() {
        let waits: Vec<Option<u64>> = (1..=6)
            .map(|n| retry_delay(n).map(|d| d.as_secs()))
            .collect();
        assert_eq!(
            waits,
            vec![
                Some(60),
                Some(300),
                Some(1800),
                Some(7200),
                Some(43200),
                None
            ]
        );
        assert_eq!(retry_delay(0), None);
    }

    #[test]
    fn subscriptions_take_their_types_or_everything() {
        let list = vec!["charge.paid".to_string(), "agreement.accepted".to_string()];
        assert!(subscribes(&list, "charge.paid"));
        assert!(!subscribes(&list, "charge.created"));
        assert!(subscribes(&["*".to_string()], "customer.created"));
    }

    #[test]
    fn delivery_events_are_never_delivered() {
        assert!(!deliverable("webhook.test"));
        assert!(!deliverable("webhook_delivery.failed"));
        assert!(deliverable("webhook.created"));
        assert!(deliverable("charge.paid"));
    }

    #[test]
    fn the_signature_covers_the_timestamp_and_the_body() {
        // Computed independently, as the Python verifier of docs/outbound-channels.md does:
        // hmac.new(b"whsec_test", b'1700000000.{"id":"evt_1"}', hashlib.sha256).hexdigest()
        assert_eq!(
            signature("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#),
            "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
        );
        assert_ne!(
            signature("whsec_test", 1_700_000_001, br#"{"id":"evt_1"}"#)[16..],
            signature("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#)[16..],
            "another time, another signature"
        );
    }

    #[test]
    fn failures_are_named_by_category_and_statuses_by_class() {
        for failure in Failure::ALL {
            assert!(
                dunning_store::webhooks::FAILURES.contains(&failure.as_str()),
                "{failure:?}"
            );
        }
        assert_eq!(Failure::ALL.len(), dunning_store::webhooks::FAILURES.len());
        let classes: Vec<Option<&str>> = [200, 204, 302, 404, 410, 500, 503, 600]
            .into_iter()
            .map(|s| Failure::of_status(s).map(Failure::as_str))
            .collect();
        assert_eq!(
            classes,
            vec![
                None,
                None,
                Some("http_3xx"),
                Some("http_4xx"),
                Some("http_4xx"),
                Some("http_5xx"),
                Some("http_5xx"),
                Some("invalid_response")
            ]
        );
    }
}
