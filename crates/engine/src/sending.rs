//! Sending the queued deliveries, a due-day burst included: each channel's due deliveries are
//! claimed a batch at a time (one statement), checked against their charge and customer with
//! one read, sent concurrently within the channel's bound (the SMTP pool's connections,
//! Twilio's concurrency and its sender's pace) and the organization's on that channel, and
//! recorded in one transaction per batch.
//!
//! Sending runs alongside the tick's run of the plans, so the first notices of a burst go out
//! while the later ones are still being queued. The channels go side by side, each at its own
//! pace: e-mails go out as fast as the relay
//! takes them while SMS wait for their sender's turns. A batch is claimed under one token with
//! a lease; an attempt is recorded only while that claim holds (`deliveries::finish_attempt`),
//! so a worker whose lease ran out, and whose deliveries another took, has no say on them, and
//! two replicas never hold one delivery at once.
//!
//! A provider that asks us to slow down (Twilio's 429 with `Retry-After`), or a sender whose
//! pace has no turn soon, sends the delivery back to the queue for that long without counting
//! an attempt: the retry schedule is for failures, and waiting our turn is not one.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use time::OffsetDateTime;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::Engine;
use crate::providers::SendResult;
use dunning_app::events;
use dunning_domain::charge_math::ChargeState;
use dunning_models::response::DeliveryOutcomeData;
use dunning_store::deliveries::{self, AttemptResult, Delivery, SendingContext};
use dunning_store::events::{Actor, NewEvent};
use dunning_store::{Result, ids, timestamp_text};

/// Waits before each new attempt of a delivery that could not go; after the last one fails,
/// the delivery is `failed`.
pub const RETRY_SCHEDULE: [Duration; 4] = [
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 60 * 60),
];

/// How long a claim holds a batch of deliveries: far longer than a batch takes (a batch is
/// what its channel sends in seconds).
const LEASE: Duration = Duration::from_secs(5 * 60);

/// Deliveries of one organization in flight at once unless the operator says otherwise.
pub const DEFAULT_PER_ORGANIZATION: usize = 8;

/// How long one tick keeps claiming new batches: past it the tick ends, the other collection
/// work (plans, receipts, answers) runs, and the next tick carries on with the burst.
const SENDING_WINDOW: Duration = Duration::from_secs(120);

/// How long a channel's loop waits for the plans to queue more when it found fewer than a
/// batch.
const QUEUING_POLL: Duration = Duration::from_millis(100);

/// The channels, each sent by its own loop.
const CHANNELS: [&str; 3] = ["email", "sms", "whatsapp"];

/// Who the engine's events name.
pub fn engine_actor() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("collection engine".into()),
    }
}

/// `now` plus `wait`.
pub fn plus(now: OffsetDateTime, wait: Duration) -> OffsetDateTime {
    now + time::Duration::try_from(wait).unwrap_or(time::Duration::ZERO)
}

/// The bound per organization on each channel. Per channel, so that one channel's slow
/// messages (SMS waiting for their sender's turns) never hold the permits another channel's
/// messages of the same organization need.
struct Organizations {
    per_organization: usize,
    permits: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl Organizations {
    fn new(per_organization: usize) -> Organizations {
        Organizations {
            per_organization: per_organization.max(1),
            permits: Mutex::new(HashMap::new()),
        }
    }

    fn of(&self, organization_id: &str) -> Arc<Semaphore> {
        self.permits
            .lock()
            .expect("no panic holds the lock")
            .entry(organization_id.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_organization)))
            .clone()
    }
}

/// A claimed delivery and how its attempt ended.
struct Attempt {
    delivery: Delivery,
    result: SendResult,
    /// Whether it counts against the retry schedule: a message handed to its provider (or
    /// refused by it) does, one that waits its turn or was dropped before sending does not.
    counts: bool,
}

/// Send every delivery due as of `now`, the channels side by side, while `queuing` (the same
/// tick's run of the plans) may still queue more: sending starts with the first notices queued,
/// not after the last. `queuing`'s answer, and the attempts made.
pub async fn send_due_while<T>(
    engine: &Engine,
    now: OffsetDateTime,
    queuing: impl Future<Output = Result<T>>,
) -> Result<(T, usize)> {
    let still_queuing = AtomicBool::new(true);
    let queue = async {
        let queued = queuing.await;
        still_queuing.store(false, Ordering::SeqCst);
        queued
    };
    let started = Instant::now();
    let sending = Sending {
        engine,
        now,
        started,
        still_queuing: &still_queuing,
    };
    let [email, sms, whatsapp] = CHANNELS.map(|channel| sending.channel(channel));
    let (queued, email, sms, whatsapp) = tokio::join!(queue, email, sms, whatsapp);
    Ok((queued?, email? + sms? + whatsapp?))
}

/// What the channels' loops of one tick share.
struct Sending<'a> {
    engine: &'a Engine,
    now: OffsetDateTime,
    started: Instant,
    /// Whether the plans may still queue deliveries in this tick.
    still_queuing: &'a AtomicBool,
}

/// `now` moved on by the time since the tick began: a long burst claims and records at the
/// time it does so, so that a late batch's lease is as long as the first's.
fn moment(now: OffsetDateTime, started: Instant) -> OffsetDateTime {
    plus(now, started.elapsed())
}

impl Sending<'_> {
    /// One channel's due deliveries, a batch at a time, until none is due and none will be
    /// queued in this tick, or the sending window is over.
    async fn channel(&self, channel: &'static str) -> Result<usize> {
        let engine = self.engine;
        let provider = engine.providers.channel(channel);
        let claim = i64::try_from(provider.claim_size()).unwrap_or(i64::MAX);
        let bound = Arc::new(Semaphore::new(provider.concurrency().max(1)));
        let organizations = Organizations::new(engine.settings.sending.per_organization);
        let mut attempts = 0;
        loop {
            // Read before the claim: a claim made once queuing was over saw every delivery.
            let queuing = self.still_queuing.load(Ordering::SeqCst);
            let at = moment(self.now, self.started);
            let token = ids::new_id("clm");
            let until = timestamp_text(plus(at, super::lease(engine, LEASE)));
            let batch = deliveries::claim_due(
                &engine.db,
                &token,
                channel,
                &timestamp_text(at),
                &until,
                claim,
            )
            .await?;
            let full = i64::try_from(batch.len()).unwrap_or(i64::MAX) >= claim;
            if !batch.is_empty() {
                let done = send_batch(engine, batch, &bound, &organizations).await?;
                attempts += done.iter().filter(|a| a.counts).count();
                record(engine, &token, &done, moment(self.now, self.started)).await?;
            }
            if full {
                if !queuing && self.started.elapsed() >= SENDING_WINDOW {
                    break;
                }
            } else if queuing {
                tokio::time::sleep(QUEUING_POLL).await;
            } else {
                break;
            }
        }
        Ok(attempts)
    }
}

/// Send a claimed batch, at most `bound` at once and the organization's bound per
/// organization; what became of each.
async fn send_batch(
    engine: &Engine,
    batch: Vec<Delivery>,
    bound: &Arc<Semaphore>,
    organizations: &Organizations,
) -> Result<Vec<Attempt>> {
    let ids: Vec<&str> = batch.iter().map(|d| d.id.as_str()).collect();
    let contexts: HashMap<String, SendingContext> = deliveries::sending_context(&engine.db, &ids)
        .await?
        .into_iter()
        .map(|c| (c.delivery_id.clone(), c))
        .collect();
    let mut done = Vec::with_capacity(batch.len());
    let mut sends = JoinSet::new();
    for delivery in batch {
        let context = contexts.get(&delivery.id);
        if let Some(reason) = blocker(&delivery, context) {
            done.push(Attempt {
                delivery,
                result: SendResult::Failed(reason),
                counts: false,
            });
            continue;
        }
        let from_name = context
            .and_then(|c| c.organization_name.clone())
            .unwrap_or_default();
        // The organization's turn first, then the channel's: a permit of the channel is
        // never held while waiting for an organization.
        let organization = organizations
            .of(&delivery.organization_id)
            .acquire_owned()
            .await
            .expect("the bounds are never closed");
        let channel = bound
            .clone()
            .acquire_owned()
            .await
            .expect("the bounds are never closed");
        let engine = engine.clone();
        sends.spawn(async move {
            let result = engine
                .providers
                .channel(&delivery.channel)
                .send(&engine.db, &delivery, &from_name)
                .await;
            drop((channel, organization));
            let counts = !matches!(result, SendResult::Later { .. });
            Attempt {
                delivery,
                result,
                counts,
            }
        });
    }
    while let Some(finished) = sends.join_next().await {
        match finished {
            Ok(attempt) => done.push(attempt),
            // Its delivery stays claimed until the lease runs out, then goes again.
            Err(e) => tracing::error!("a delivery's send ended abnormally: {e}"),
        }
    }
    Ok(done)
}

/// Why a claimed delivery must not go out any more, if it must not: its charge is gone, no
/// longer open or in dispute, or its customer opted out of the channel.
fn blocker(delivery: &Delivery, context: Option<&SendingContext>) -> Option<String> {
    let Some((context, state)) = context.and_then(|c| Some((c, c.charge_state?))) else {
        return Some("Not sent: the charge no longer exists".into());
    };
    if state != ChargeState::Open {
        return Some(format!(
            "Not sent: the charge became {state} before the message went out"
        ));
    }
    if context.open_dispute_id.is_some() {
        return Some(
            "Not sent: a dispute was opened on the charge before the message went out".into(),
        );
    }
    if context
        .channel_opt_outs
        .as_ref()
        .is_some_and(|outs| outs.contains(&delivery.channel))
    {
        return Some(format!(
            "Not sent: the customer opted out of {} messages",
            delivery.channel
        ));
    }
    None
}

/// Record a batch's attempts in one transaction, each only while the batch's claim holds it:
/// one statement for the deliveries and one for their events, whatever the batch's size.
async fn record(
    engine: &Engine,
    token: &str,
    attempts: &[Attempt],
    now: OffsetDateTime,
) -> Result<()> {
    if attempts.is_empty() {
        return Ok(());
    }
    let now_text = timestamp_text(now);
    let next_attempts: Vec<Option<String>> = attempts
        .iter()
        .map(|attempt| next_attempt_at(attempt, now))
        .collect();
    let writes: Vec<(AttemptResult<'_>, &[&str])> = attempts
        .iter()
        .zip(&next_attempts)
        .map(|(attempt, next)| write(engine, attempt, next.as_deref()))
        .collect();
    let finished: Vec<deliveries::Finished<'_>> = attempts
        .iter()
        .zip(&writes)
        .map(|(attempt, (result, _))| deliveries::Finished {
            id: &attempt.delivery.id,
            result: result.clone(),
            counts_as_attempt: attempt.counts,
        })
        .collect();
    let mut tx = engine.db.begin().await?;
    let recorded: HashSet<String> =
        deliveries::finish_attempts(&mut tx, token, &finished, &now_text)
            .await?
            .into_iter()
            .collect();
    let actor = engine_actor();
    let mut new_events = Vec::new();
    // In the batch's order, each delivery's events in order; a delivery whose claim was lost
    // (the lease ran out and another worker took it) has no event: that worker's word counts.
    for (attempt, (result, kinds)) in attempts.iter().zip(&writes) {
        let delivery = &attempt.delivery;
        if !recorded.contains(&delivery.id) {
            continue;
        }
        let error = match result {
            AttemptResult::Ended { error, .. } => Some(*error),
            _ => None,
        };
        for kind in *kinds {
            new_events.push(NewEvent {
                organization_id: &delivery.organization_id,
                kind,
                subject: ("delivery", &delivery.id),
                actor: &actor,
                data: events::data_of(
                    kind,
                    "delivery",
                    &actor,
                    &DeliveryOutcomeData {
                        charge_id: &delivery.charge_id,
                        channel: &delivery.channel,
                        attempts: delivery.attempts + i64::from(attempt.counts),
                        error,
                    },
                )?,
            });
        }
    }
    events::record_many(&mut tx, &new_events).await?;
    tx.commit().await?;
    Ok(())
}

/// When an attempt's delivery goes again: after the provider's wait, or the retry schedule's
/// next (none once the schedule is spent: it has failed).
fn next_attempt_at(attempt: &Attempt, now: OffsetDateTime) -> Option<String> {
    let attempts = attempt.delivery.attempts + i64::from(attempt.counts);
    let wait = match &attempt.result {
        SendResult::Later { wait, .. } => Some(*wait),
        SendResult::Retry(_) => RETRY_SCHEDULE
            .get(usize::try_from(attempts - 1).unwrap_or(usize::MAX))
            .copied(),
        _ => None,
    };
    wait.map(|wait| timestamp_text(plus(now, wait)))
}

/// What an attempt writes on its delivery, and the events it raises; `next` is its
/// [`next_attempt_at`].
fn write<'a>(
    engine: &Engine,
    attempt: &'a Attempt,
    next: Option<&'a str>,
) -> (AttemptResult<'a>, &'static [&'static str]) {
    let provider = engine.providers.channel(&attempt.delivery.channel).name();
    match (&attempt.result, next) {
        (SendResult::Delivered, _) => (
            AttemptResult::Sent {
                provider,
                delivered: true,
                message_id: None,
            },
            &["delivery.sent", "delivery.delivered"],
        ),
        (SendResult::Sent { message_id }, _) => (
            AttemptResult::Sent {
                provider,
                delivered: false,
                message_id: message_id.as_deref(),
            },
            &["delivery.sent"],
        ),
        (SendResult::Later { reason: error, .. } | SendResult::Retry(error), Some(next)) => (
            AttemptResult::Retry {
                error,
                next_attempt_at: next,
            },
            &[],
        ),
        (SendResult::Later { reason: error, .. } | SendResult::Retry(error), None)
        | (SendResult::Failed(error), _) => (
            AttemptResult::Ended {
                status: "failed",
                error,
            },
            &["delivery.failed"],
        ),
        (SendResult::Bounced(error), _) => (
            AttemptResult::Ended {
                status: "bounced",
                error,
            },
            &["delivery.bounced"],
        ),
    }
}
