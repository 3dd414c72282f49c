//! How much due work waits in each engine queue, across all organizations, for the metrics
//! scrape: a bounded count and the age of the oldest piece. Aggregates only; no row leaves.

use std::time::Duration;

use sqlx::AssertSqlSafe;

use super::{Db, Result, timestamp_text};

/// Counts stop here: a scrape must stay cheap however large a backlog grows.
pub const MAX_COUNTED: i64 = 10_000;

/// One queue of one worker.
#[derive(Debug, Clone)]
pub struct Queue {
    pub worker: &'static str,
    pub queue: &'static str,
    /// Pieces due now and not claimed, at most [`MAX_COUNTED`].
    pub depth: i64,
    /// How long the oldest due piece has been due (zero when none is).
    pub lag: Duration,
}

/// Each queue: its worker, its name, the table and condition of its due rows (the same as the
/// worker's own query, `$1` the time now) and the column saying since when a row is due.
const QUEUES: &[(&str, &str, &str, &str)] = &[
    (
        "collection",
        "deliveries",
        "deliveries WHERE status = 'queued' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "collection",
        "collection_requests",
        "collection_requests WHERE status = 'pending' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "webhooks",
        "webhook_deliveries",
        "webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.enabled = 1 AND (d.claimed_until IS NULL OR d.claimed_until < $1)",
        "d.next_attempt_at",
    ),
    (
        "pix",
        "pix_cobv",
        "pix_cobv WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "pix",
        "pix_refunds",
        "pix_refunds WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "pix",
        "automatic_pix",
        "automatic_pix WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "pix",
        "automatic_pix_charges",
        "automatic_pix_charges WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)",
        "next_attempt_at",
    ),
    (
        "exports",
        "exports",
        "exports WHERE (status = 'pending' OR (status = 'running' AND claimed_until < $1)) AND created_at <= $1",
        "created_at",
    ),
];

/// Every queue's depth and lag at `now`.
pub async fn due(db: &Db, now: time::OffsetDateTime) -> Result<Vec<Queue>> {
    let now_text = timestamp_text(now);
    let mut queues = Vec::with_capacity(QUEUES.len());
    for (worker, queue, rows, since) in QUEUES {
        let depth: i64 = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM (SELECT 1 AS one FROM {rows} LIMIT {MAX_COUNTED}) AS due"
        )))
        .bind(&now_text)
        .fetch_one(&db.pool)
        .await?;
        let oldest: Option<String> =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT MIN({since}) FROM {rows}")))
                .bind(&now_text)
                .fetch_one(&db.pool)
                .await?;
        let lag = oldest
            .and_then(|t| {
                time::OffsetDateTime::parse(&t, &time::format_description::well_known::Rfc3339).ok()
            })
            .map_or(Duration::ZERO, |since| {
                Duration::try_from(now - since).unwrap_or(Duration::ZERO)
            });
        queues.push(Queue {
            worker,
            queue,
            depth,
            lag,
        });
    }
    Ok(queues)
}
