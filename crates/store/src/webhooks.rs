//! Webhook endpoints, their deliveries (one per event and endpoint) and every attempt to POST
//! a delivery, always inside one organization; plus the queries the webhook worker runs
//! across organizations to fan events out and claim due deliveries.
//!
//! Events reach endpoints through `events.webhooks_dispatched`: every event starts at 0, and
//! the worker turns it to 1 in the same transaction that inserts its deliveries, which are
//! unique per (webhook, event). So an event is never missed (nothing else clears the flag)
//! and never queued twice (two replicas racing on the same event meet the unique key).

use sqlx::{AnyConnection, AssertSqlSafe};

use super::rows::{Stored, by_id};
use super::{Backend, Bind, Conditions, Db, ListQuery, Page, PageRequest, Result};
use dunning_domain::timestamp::Timestamp;

crate::row! {
    /// A webhook endpoint as stored (without its signing secret); `api::webhooks` shows it.
    #[derive(Debug, Clone)]
    pub struct Webhook {
        pub id: String,
        pub url: String,
        pub events: Vec<String>,
        pub description: Option<String>,
        pub enabled: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
        /// Events created before this time are not delivered (creation, or the last re-enable).
        pub active_since: Timestamp,
    }
}

/// Writable fields of a webhook (validated by the API layer).
#[derive(Debug, Clone)]
pub struct WebhookFields {
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
}

impl Stored for Webhook {
    const TABLE: &'static str = "webhooks";
    const COLUMNS: &'static str =
        "id, url, events, description, enabled, version, active_since, created_at, updated_at";
}

pub async fn list(db: &Db, organization_id: &str, page: PageRequest) -> Result<Page<Webhook>> {
    list_query(organization_id).fetch_rows(db, page).await
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str) -> ListQuery {
    ListQuery::new(
        Conditions::for_organization(organization_id),
        Webhook::COLUMNS,
        "FROM webhooks",
        "created_at DESC, id DESC",
    )
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Webhook>> {
    db.by_id(organization_id, id).await
}

/// Same as [`get`] on a given connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Webhook>> {
    by_id(conn, organization_id, id).await
}

fn events_text(events: &[String]) -> String {
    serde_json::to_string(events).expect("strings serialise")
}

pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    fields: &WebhookFields,
    secret: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO webhooks (id, organization_id, url, events, description, enabled, secret, active_since, version,
             created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $8, $8)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(&fields.url)
    .bind(events_text(&fields.events))
    .bind(fields.description.as_deref())
    .bind(i64::from(fields.enabled))
    .bind(secret)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Overwrite the fields if the row is still at `version`; false otherwise.
pub async fn update(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    fields: &WebhookFields,
    active_since: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE webhooks SET url = $1, events = $2, description = $3, enabled = $4, active_since = $5,
             version = version + 1, updated_at = $6
         WHERE organization_id = $7 AND id = $8 AND version = $9",
    )
    .bind(&fields.url)
    .bind(events_text(&fields.events))
    .bind(fields.description.as_deref())
    .bind(i64::from(fields.enabled))
    .bind(active_since)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Delete an endpoint with its deliveries and their attempts (pending retries are dropped).
pub async fn delete(conn: &mut AnyConnection, organization_id: &str, id: &str) -> Result<bool> {
    for sql in [
        "DELETE FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2",
        "DELETE FROM webhook_deliveries WHERE organization_id = $1 AND webhook_id = $2",
    ] {
        sqlx::query(sql)
            .bind(organization_id)
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    let done = sqlx::query("DELETE FROM webhooks WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

crate::row! {
    /// One POST of an event to an endpoint, with its retries; `api::webhooks` shows it.
    #[derive(Debug, Clone)]
    pub struct Delivery {
        pub id: String,
        pub webhook_id: String,
        pub event_id: String,
        pub event_type: String,
        pub status: DeliveryStatus,
        pub attempts: i64,
        pub response_status: Option<i64>,
        /// One of [`FAILURES`] when the last attempt failed.
        pub error: Option<String>,
        pub next_retry_at: Option<Timestamp>,
        pub delivered_at: Option<Timestamp>,
        pub created_at: Timestamp,
        pub version: i64,
    }
}

crate::stored_words! {
    /// Where a delivery stands: queued or being retried, done, or out of retries.
    pub enum DeliveryStatus {
        Pending = "pending",
        Succeeded = "succeeded",
        Failed = "failed",
    }
}

/// Delivery statuses as the API names them.
pub const DELIVERY_STATUSES: &[&str] = DeliveryStatus::ALL;

/// What a failed attempt is recorded as (`engine::webhooks::Failure`): a category, never the
/// receiver's or the operating system's words.
pub const FAILURES: &[&str] = &[
    "target_forbidden",
    "dns_failed",
    "connection_failed",
    "tls_error",
    "timeout",
    "invalid_response",
    "http_3xx",
    "http_4xx",
    "http_5xx",
];

/// The category of a recorded failure. Rows written before failures were categories hold
/// words such as "tcp connect error: Connection refused": they are shown as the category
/// they fall in, never as they are.
fn failure_category(error: Option<String>, status: Option<i64>) -> Option<String> {
    let error = error?;
    if FAILURES.contains(&error.as_str()) {
        return Some(error);
    }
    let category = match status {
        Some(300..=399) => "http_3xx",
        Some(400..=499) => "http_4xx",
        Some(500..=599) => "http_5xx",
        Some(_) => "invalid_response",
        None if error.starts_with("no answer within") => "timeout",
        None => "connection_failed",
    };
    Some(category.to_string())
}

const DELIVERY_COLUMNS: &str =
    "id, webhook_id, event_id, event_type, status, attempts, response_status, error,
    next_attempt_at AS next_retry_at, delivered_at, version, created_at";

impl Delivery {
    /// The delivery as shown: a retry time only while pending, a failure as its category.
    fn shown(mut self) -> Delivery {
        if self.status != DeliveryStatus::Pending {
            self.next_retry_at = None;
        }
        self.error = failure_category(self.error.take(), self.response_status);
        self
    }
}

/// Filters of a webhook's delivery list (validated).
#[derive(Debug, Default)]
pub struct DeliveryFilter {
    pub status: Option<String>,
    pub event_type: Option<String>,
}

pub async fn list_deliveries(
    db: &Db,
    organization_id: &str,
    webhook_id: &str,
    filter: &DeliveryFilter,
    page: PageRequest,
) -> Result<Page<Delivery>> {
    let page = deliveries_query(organization_id, webhook_id, filter)
        .fetch_rows::<Delivery>(db, page)
        .await?;
    Ok(page.map(Delivery::shown))
}

/// The query behind [`list_deliveries`].
pub fn deliveries_query(
    organization_id: &str,
    webhook_id: &str,
    filter: &DeliveryFilter,
) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    c.push("webhook_id = {}", Bind::Text(webhook_id.to_string()));
    if let Some(status) = &filter.status {
        c.push("status = {}", Bind::Text(status.clone()));
    }
    if let Some(event_type) = &filter.event_type {
        c.push("event_type = {}", Bind::Text(event_type.clone()));
    }
    ListQuery::new(
        c,
        DELIVERY_COLUMNS,
        "FROM webhook_deliveries",
        "created_at DESC, id DESC",
    )
}

pub async fn get_delivery(
    db: &Db,
    organization_id: &str,
    webhook_id: &str,
    id: &str,
) -> Result<Option<Delivery>> {
    let mut conn = db.pool.acquire().await?;
    get_delivery_in(&mut conn, organization_id, webhook_id, id).await
}

/// Same as [`get_delivery`] on a given connection (inside a transaction).
pub async fn get_delivery_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    webhook_id: &str,
    id: &str,
) -> Result<Option<Delivery>> {
    let sql = format!(
        "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE organization_id = $1 AND webhook_id = $2 AND id = $3"
    );
    let row: Option<Delivery> = sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(webhook_id)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(Delivery::shown))
}

/// A delivery to insert: the body is fixed once, so every attempt sends the same bytes and
/// the same signature.
#[derive(Debug)]
pub struct NewDelivery<'a> {
    pub id: &'a str,
    pub organization_id: &'a str,
    pub webhook_id: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub payload: &'a str,
    pub first_attempt_at: &'a str,
    pub now: &'a str,
}

/// Queue a delivery unless this endpoint already has one for this event. True if inserted.
pub async fn insert_delivery(conn: &mut AnyConnection, d: &NewDelivery<'_>) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO webhook_deliveries (id, organization_id, webhook_id, event_id, event_type, payload, status, attempts,
             round_attempts, response_status, error, next_attempt_at, claim_token, claimed_until, delivered_at, version,
             created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, 0, NULL, NULL, $7, NULL, NULL, NULL, 1, $8, $8)
         ON CONFLICT (webhook_id, event_id) DO NOTHING",
    )
    .bind(d.id)
    .bind(d.organization_id)
    .bind(d.webhook_id)
    .bind(d.event_id)
    .bind(d.event_type)
    .bind(d.payload)
    .bind(d.first_attempt_at)
    .bind(d.now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Put a finished delivery (succeeded or failed) back in the queue with a fresh series of
/// retries. False when it is pending or moved on from `version`.
pub async fn requeue(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = $1,
             version = version + 1, updated_at = $1
         WHERE organization_id = $2 AND id = $3 AND version = $4 AND status <> 'pending'",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

crate::row! {
    /// An event not yet fanned out to the organization's endpoints.
    #[derive(Debug, Clone)]
    pub struct PendingEvent {
        pub id: String,
        pub organization_id: String,
        pub kind: String,
        pub subject_type: String,
        pub subject_id: String,
        pub actor_type: String,
        pub actor_id: Option<String>,
        pub actor_name: Option<String>,
        pub data: String,
        pub created_at: Timestamp,
    }
}

const EVENT_COLUMNS: &str = "id, organization_id, type AS kind, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at";

/// The statement of [`has_undispatched_events`], read through the partial index
/// `events_undispatched` (migration 20; `tests/integration/query_plans.rs`).
pub const HAS_UNDISPATCHED_SQL: &str =
    "SELECT id FROM events WHERE webhooks_dispatched = 0 LIMIT 1";

/// Worker query (all organizations): whether any event waits to be fanned out (every tick).
pub async fn has_undispatched_events(db: &Db) -> Result<bool> {
    let found: Option<String> = sqlx::query_scalar(HAS_UNDISPATCHED_SQL)
        .fetch_optional(&db.pool)
        .await?;
    Ok(found.is_some())
}

/// Worker query (all organizations): the oldest events not yet fanned out.
pub async fn undispatched_events(
    conn: &mut AnyConnection,
    limit: i64,
) -> Result<Vec<PendingEvent>> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE webhooks_dispatched = 0 ORDER BY created_at, id LIMIT {limit}"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql)).fetch_all(conn).await?)
}

/// One event of an organization, as the worker would send it.
pub async fn event_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<PendingEvent>> {
    let sql = format!("SELECT {EVENT_COLUMNS} FROM events WHERE organization_id = $1 AND id = $2");
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// The enabled endpoints of an organization, for fan-out.
pub async fn enabled_webhooks(
    conn: &mut AnyConnection,
    organization_id: &str,
) -> Result<Vec<Webhook>> {
    let sql = format!(
        "SELECT {} FROM webhooks WHERE organization_id = $1 AND enabled = 1 ORDER BY created_at, id",
        Webhook::COLUMNS
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .fetch_all(conn)
        .await?)
}

/// Mark these events fanned out, in one statement: a batch of the worker's is marked with the
/// deliveries it queued, in the same transaction (so an event is fanned out at least once).
/// On PostgreSQL the rows are locked in id order first, so two replicas marking overlapping
/// batches wait for one another instead of deadlocking.
pub async fn mark_dispatched(conn: &mut AnyConnection, event_ids: &[&str]) -> Result<()> {
    if event_ids.is_empty() {
        return Ok(());
    }
    let ids = Backend::of(conn).json_strings(1);
    let in_id_order = match Backend::of(conn) {
        Backend::Sqlite => "",
        Backend::Postgres => " ORDER BY id FOR UPDATE",
    };
    let sql = format!(
        "UPDATE events SET webhooks_dispatched = 1
         WHERE id IN (SELECT id FROM events WHERE id IN ({ids}){in_id_order})"
    );
    sqlx::query(AssertSqlSafe(sql))
        .bind(serde_json::to_string(event_ids).expect("strings serialise"))
        .execute(conn)
        .await?;
    Ok(())
}

/// Worker query (all organizations): pending deliveries of enabled endpoints whose attempt
/// is due at `now` and that nobody holds, oldest first.
pub async fn due_deliveries(db: &Db, now: &str, limit: i64) -> Result<Vec<String>> {
    let sql = format!(
        "SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.enabled = 1
           AND (d.claimed_until IS NULL OR d.claimed_until < $1)
         ORDER BY d.next_attempt_at, d.id LIMIT {limit}"
    );
    Ok(sqlx::query_scalar(AssertSqlSafe(sql))
        .bind(now)
        .fetch_all(&db.pool)
        .await?)
}

crate::row! {
    /// A delivery this process holds, with what it needs to POST it.
    #[derive(Debug, Clone)]
    pub struct Claimed {
        pub id: String,
        pub organization_id: String,
        pub webhook_id: String,
        pub event_id: String,
        pub event_type: String,
        pub payload: String,
        pub attempts: i64,
        pub round_attempts: i64,
        pub url: String,
        pub secret: String,
        pub claim_token: String = String::new(),
    }
}

/// Take a due delivery for this process until `lease_until`. `None` when another process
/// took it first, it is no longer due, or its endpoint was disabled or deleted meanwhile:
/// the conditional update is the lock, so two replicas never POST the same attempt.
pub async fn claim(
    db: &Db,
    id: &str,
    now: &str,
    lease_until: &str,
    token: &str,
) -> Result<Option<Claimed>> {
    let done = sqlx::query(
        "UPDATE webhook_deliveries SET claim_token = $1, claimed_until = $2
         WHERE id = $3 AND status = 'pending' AND next_attempt_at <= $4
           AND (claimed_until IS NULL OR claimed_until < $4)
           AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id AND w.enabled = 1)",
    )
    .bind(token)
    .bind(lease_until)
    .bind(id)
    .bind(now)
    .execute(&db.pool)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    let claimed: Option<Claimed> = sqlx::query_as(
        "SELECT d.id, d.organization_id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts,
                d.round_attempts, w.url, w.secret
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.id = $1 AND d.claim_token = $2",
    )
    .bind(id)
    .bind(token)
    .fetch_optional(&db.pool)
    .await?;
    Ok(claimed.map(|claimed| Claimed {
        claim_token: token.to_string(),
        ..claimed
    }))
}

/// What one POST came to.
#[derive(Debug, Clone)]
pub struct AttemptOutcome {
    pub attempted_at: Timestamp,
    pub duration_ms: i64,
    pub response_status: Option<i64>,
    pub response_body: Option<String>,
    pub error: Option<String>,
    /// The delivery's status afterwards: `succeeded`, `pending` (retry at `next_attempt_at`)
    /// or `failed`.
    pub status: &'static str,
    pub next_attempt_at: Option<Timestamp>,
}

/// Record an attempt and release the claim, if this process still holds it. False when the
/// claim was lost (the lease ran out and another process took the delivery, or the endpoint
/// was deleted): then nothing is written.
pub async fn record_attempt(
    conn: &mut AnyConnection,
    claimed: &Claimed,
    outcome: &AttemptOutcome,
) -> Result<bool> {
    let attempted_at = outcome.attempted_at.to_string();
    let delivered_at = (outcome.status == "succeeded").then_some(attempted_at.as_str());
    let done = sqlx::query(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, round_attempts = round_attempts + 1, status = $1,
             response_status = $2, error = $3, next_attempt_at = $4,
             delivered_at = COALESCE($5, delivered_at), claim_token = NULL, claimed_until = NULL,
             version = version + 1, updated_at = $6
         WHERE id = $7 AND organization_id = $8 AND claim_token = $9",
    )
    .bind(outcome.status)
    .bind(outcome.response_status)
    .bind(outcome.error.as_deref())
    .bind(outcome.next_attempt_at.map(|t| t.to_string()))
    .bind(delivered_at)
    .bind(&attempted_at)
    .bind(&claimed.id)
    .bind(&claimed.organization_id)
    .bind(&claimed.claim_token)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO webhook_attempts (id, organization_id, delivery_id, webhook_id, number, attempted_at, duration_ms,
             response_status, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(super::ids::new_id("wha"))
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.webhook_id)
    .bind(claimed.attempts + 1)
    .bind(&attempted_at)
    .bind(outcome.duration_ms)
    .bind(outcome.response_status)
    .bind(outcome.response_body.as_deref())
    .bind(outcome.error.as_deref())
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

crate::row! {
    /// One recorded attempt (for tests and support; the API shows the latest on the delivery).
    #[derive(Debug, Clone)]
    pub struct Attempt {
        pub number: i64,
        pub attempted_at: Timestamp,
        pub duration_ms: i64,
        pub response_status: Option<i64>,
        pub response_body: Option<String>,
        pub error: Option<String>,
    }
}

/// Every attempt of a delivery, first first.
pub async fn attempts(db: &Db, organization_id: &str, delivery_id: &str) -> Result<Vec<Attempt>> {
    Ok(sqlx::query_as(
        "SELECT number, attempted_at, duration_ms, response_status, response_body, error
         FROM webhook_attempts WHERE organization_id = $1 AND delivery_id = $2 ORDER BY number",
    )
    .bind(organization_id)
    .bind(delivery_id)
    .fetch_all(&db.pool)
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_recorded_in_words_are_shown_as_their_category() {
        let shown = |error: &str, status: Option<i64>| failure_category(Some(error.into()), status);
        assert_eq!(
            shown("error sending request for url (http://10.0.0.5:22/): client error (Connect): tcp connect error: Connection refused (os error 111)", None).as_deref(),
            Some("connection_failed")
        );
        assert_eq!(
            shown("no answer within 10 s", None).as_deref(),
            Some("timeout")
        );
        assert_eq!(
            shown("receiver answered 503 Service Unavailable", Some(503)).as_deref(),
            Some("http_5xx")
        );
        assert_eq!(
            shown(
                "receiver answered 302 Found; redirects are not followed",
                Some(302)
            )
            .as_deref(),
            Some("http_3xx")
        );
        assert_eq!(shown("tls_error", None).as_deref(), Some("tls_error"));
        assert_eq!(failure_category(None, Some(200)), None);
    }
}
