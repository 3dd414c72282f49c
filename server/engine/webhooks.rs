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
//! "created_at", "organization_id"}`. Headers: `X-Signature: sha256=<hex HMAC-SHA256 of the
//! raw body keyed with the endpoint's secret>`, `X-Delivery-Id` (the same on every retry:
//! receivers can deduplicate with it), `X-Event-Id`, `X-Event-Type`, `X-Delivery-Attempt`
//! and `X-Timestamp` (Unix seconds of the attempt).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use time::OffsetDateTime;
use tokio::task::JoinSet;

use crate::state::AppState;
use crate::store::events::{self, Actor};
use crate::store::webhooks::{self as store, AttemptOutcome, Claimed, NewDelivery, PendingEvent};
use crate::store::{Result, ids, timestamp_text};

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

/// Hex HMAC-SHA256 of `body` with `secret`: the value after `sha256=` in `X-Signature`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The body POSTed for an event.
pub fn payload(event: &PendingEvent) -> String {
    let data: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
    json!({
        "id": event.id,
        "type": event.kind,
        "subject_type": event.subject_type,
        "subject_id": event.subject_id,
        "actor": {
            "type": event.actor_type,
            "id": event.actor_id,
            "name": event.actor_name,
        },
        "data": data,
        "created_at": event.created_at,
        "organization_id": event.organization_id,
    })
    .to_string()
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
pub async fn run(state: AppState) {
    super::run_worker("webhooks", Duration::from_secs(1), || async {
        tick(&state, OffsetDateTime::now_utc()).await.map(drop)
    })
    .await
}

/// One step at time `now`: queue deliveries for new events, then POST what is due.
pub async fn tick(state: &AppState, now: OffsetDateTime) -> Result<TickReport> {
    let queued = fan_out(state, now).await?;
    let attempted = send_due(state, now).await?;
    Ok(TickReport { queued, attempted })
}

/// Turn undispatched events into deliveries, a batch per transaction.
async fn fan_out(state: &AppState, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let mut queued = 0;
    loop {
        // A read first: most ticks find nothing, and need not take SQLite's write lock.
        if !store::has_undispatched_events(&state.db).await? {
            return Ok(queued);
        }
        let mut tx = state.db.begin().await?;
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
            store::mark_dispatched(&mut tx, &event.organization_id, &event.id).await?;
        }
        tx.commit().await?;
        if batch.len() < BATCH as usize {
            return Ok(queued);
        }
    }
}

/// Claim and POST the deliveries due at `now`, concurrently; wait for all of them.
async fn send_due(state: &AppState, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let lease_until = timestamp_text(now + LEASE);
    let mut running = JoinSet::new();
    for id in store::due_deliveries(&state.db, &now_text, SENDS_PER_TICK).await? {
        let token = ids::new_id("clm");
        if let Some(claimed) = store::claim(&state.db, &id, &now_text, &lease_until, &token).await?
        {
            let state = state.clone();
            running.spawn(async move { attempt(&state, claimed, now).await });
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

/// What a receiver did with one POST.
struct Answer {
    status: Option<u16>,
    body: Option<String>,
    error: Option<String>,
}

fn client() -> std::result::Result<&'static reqwest::Client, String> {
    static CLIENT: OnceLock<std::result::Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .timeout(TIMEOUT)
                .connect_timeout(TIMEOUT)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!(
                    "KobanaDunning-Webhooks/",
                    env!("CARGO_PKG_VERSION")
                ))
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The error and its causes in one line (reqwest's top-level message alone says little).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

async fn post(claimed: &Claimed, now: OffsetDateTime) -> Answer {
    let client = match client() {
        Ok(client) => client,
        Err(error) => {
            return Answer {
                status: None,
                body: None,
                error: Some(error),
            };
        }
    };
    let signature = signature(&claimed.secret, claimed.payload.as_bytes());
    let sent = client
        .post(&claimed.url)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header("X-Signature", format!("sha256={signature}"))
        .header("X-Delivery-Id", &claimed.id)
        .header("X-Event-Id", &claimed.event_id)
        .header("X-Event-Type", &claimed.event_type)
        .header("X-Delivery-Attempt", (claimed.attempts + 1).to_string())
        .header("X-Timestamp", now.unix_timestamp().to_string())
        .body(claimed.payload.clone())
        .send()
        .await;
    let mut response = match sent {
        Ok(response) => response,
        Err(e) => {
            let error = if e.is_timeout() {
                format!("no answer within {} s", TIMEOUT.as_secs())
            } else {
                error_chain(&e)
            };
            return Answer {
                status: None,
                body: None,
                error: Some(error),
            };
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
    let reason = status.canonical_reason().unwrap_or("");
    let error = if status.is_success() {
        None
    } else if status.is_redirection() {
        Some(format!(
            "receiver answered {} {reason}; redirects are not followed",
            status.as_u16()
        ))
    } else {
        Some(format!("receiver answered {} {reason}", status.as_u16()))
    };
    Answer {
        status: Some(status.as_u16()),
        body: Some(body),
        error,
    }
}

/// POST a claimed delivery and record the attempt, scheduling a retry or giving up.
async fn attempt(state: &AppState, claimed: Claimed, now: OffsetDateTime) -> Result<()> {
    let started = Instant::now();
    let answer = post(&claimed, now).await;
    let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    let succeeded = answer.status.is_some_and(|s| (200..300).contains(&s));
    let (status, next_attempt_at) = if succeeded {
        ("succeeded", None)
    } else {
        match retry_delay(claimed.round_attempts + 1) {
            Some(wait) => ("pending", Some(timestamp_text(now + wait))),
            None => ("failed", None),
        }
    };
    let outcome = AttemptOutcome {
        attempted_at: timestamp_text(now),
        duration_ms,
        response_status: answer.status.map(i64::from),
        response_body: answer.body,
        error: answer.error,
        status,
        next_attempt_at,
    };
    let mut tx = state.db.begin().await?;
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
            &json!({
                "webhook_id": claimed.webhook_id,
                "event_id": claimed.event_id,
                "event_type": claimed.event_type,
                "attempts": claimed.attempts + 1,
                "error": outcome.error,
            }),
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
    fn the_signature_is_the_hex_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
