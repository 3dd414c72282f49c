//! Deliveries: messages to debtors and their way out (queued → sent → delivered, or failed /
//! bounced). The table is also the engine's work queue: a queued row with `next_attempt_at`
//! is pending work, claimed for a while (`claim_token`, `claimed_until`) by one worker at a
//! time, so that replicas sharing the database never send the same message twice and work
//! survives a restart.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::rows::{Stored, by_id};
use super::{Backend, Bind, Conditions, Db, ListQuery, Page, PageRequest, Result, Sort};
use dunning_domain::charge_math::ChargeState;
use dunning_domain::timestamp::Timestamp;

crate::stored_words! {
    /// Where a message stands: waiting for its provider, handed to it, confirmed received,
    /// or not sent (failed) or returned (bounced).
    pub enum DeliveryStatus {
        Queued = "queued",
        Sent = "sent",
        Delivered = "delivered",
        Failed = "failed",
        Bounced = "bounced",
    }
}

/// Statuses as the API names them.
pub const STATUSES: &[&str] = DeliveryStatus::ALL;

crate::row! {
    /// A delivery as stored; `api::deliveries` shows it.
    #[derive(Debug, Clone)]
    pub struct Delivery {
        pub id: String,
        pub charge_id: String,
        pub customer_id: String,
        pub channel: String,
        pub status: DeliveryStatus,
        pub recipient: String,
        pub subject: Option<String>,
        pub body: String,
        pub step_id: Option<String>,
        pub attempts: i64,
        pub error: Option<String>,
        pub sent_at: Option<Timestamp>,
        pub created_at: Timestamp,
        pub organization_id: String,
        pub provider: Option<String>,
        pub version: i64,
    }
}

impl Stored for Delivery {
    const TABLE: &'static str = "deliveries";
    const COLUMNS: &'static str = COLUMNS;
}

/// What a new (queued) delivery holds.
#[derive(Debug, Clone)]
pub struct NewDelivery<'a> {
    pub id: &'a str,
    pub charge_id: &'a str,
    pub customer_id: &'a str,
    pub channel: &'a str,
    pub recipient: &'a str,
    pub subject: Option<&'a str>,
    pub body: &'a str,
    pub step_id: Option<&'a str>,
    pub resent_from: Option<&'a str>,
}

/// List filters (validated); stored with an export (`store::exports::ExportFilter`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DeliveryFilter {
    pub charge_id: Option<String>,
    pub customer_id: Option<String>,
    pub channel: Option<String>,
    pub status: Option<String>,
}

const COLUMNS: &str = "id, organization_id, charge_id, customer_id, channel, status, recipient, subject, body, step_id,
    attempts, error, sent_at, created_at, provider, version";

/// Queue a delivery, due at once.
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    new: &NewDelivery<'_>,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO deliveries (id, organization_id, charge_id, customer_id, channel, status, recipient, subject, body,
             step_id, resent_from, attempts, next_attempt_at, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10, 0, $11, 1, $11, $11)",
    )
    .bind(new.id)
    .bind(organization_id)
    .bind(new.charge_id)
    .bind(new.customer_id)
    .bind(new.channel)
    .bind(new.recipient)
    .bind(new.subject)
    .bind(new.body)
    .bind(new.step_id)
    .bind(new.resent_from)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Delivery>> {
    db.by_id(organization_id, id).await
}

/// Same as [`get`] on a given connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Delivery>> {
    by_id(conn, organization_id, id).await
}

/// Newest first.
pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &DeliveryFilter,
    page: PageRequest,
) -> Result<Page<Delivery>> {
    list_query(organization_id, filter)
        .fetch_rows(db, page)
        .await
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str, filter: &DeliveryFilter) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    for (column, value) in [
        ("charge_id", &filter.charge_id),
        ("customer_id", &filter.customer_id),
        ("channel", &filter.channel),
        ("status", &filter.status),
    ] {
        if let Some(value) = value {
            c.push(&format!("{column} = {{}}"), Bind::Text(value.clone()));
        }
    }
    let newest_first = Sort {
        column: "created_at",
        integer: false,
        descending: true,
    };
    ListQuery::sorted(c, COLUMNS, "FROM deliveries", newest_first)
}

/// When the oldest notice of a charge that reached the debtor was sent (stored timestamp).
pub async fn first_delivered_notice(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT MIN(sent_at) FROM deliveries WHERE organization_id = $1 AND charge_id = $2 AND status = 'delivered'",
    )
    .bind(organization_id)
    .bind(charge_id)
    .fetch_one(conn)
    .await?)
}

/// Take up to `limit` queued deliveries of `channel` due at `now` and not held by a live
/// worker, oldest first, for this worker until `until`, in one statement: the conditional
/// update is the lock, on both engines, and the rows come back with it. On PostgreSQL the
/// rows are chosen `FOR UPDATE SKIP LOCKED`, so two replicas claiming at once each take
/// other rows instead of queueing behind one another (and neither gets a row twice: the
/// outer conditions are checked again on the locked row). SQLite runs one writer at a time.
pub async fn claim_due(
    db: &Db,
    token: &str,
    channel: &str,
    now: &str,
    until: &str,
    limit: i64,
) -> Result<Vec<Delivery>> {
    let skip_locked = match db.backend {
        Backend::Postgres => "FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let free = "status = 'queued' AND (claimed_until IS NULL OR claimed_until < $3)";
    let sql = format!(
        "UPDATE deliveries SET claim_token = $1, claimed_until = $2
         WHERE id IN (
             SELECT id FROM deliveries
             WHERE channel = $4 AND status = 'queued' AND next_attempt_at <= $3
               AND (claimed_until IS NULL OR claimed_until < $3)
             ORDER BY next_attempt_at, id LIMIT $5 {skip_locked}
         ) AND {free}
         RETURNING {COLUMNS}"
    );
    let mut claimed: Vec<Delivery> = sqlx::query_as(AssertSqlSafe(sql))
        // Planned at each execution, not kept prepared: PostgreSQL keeps a prepared
        // statement's generic plan, and one made while the table was empty (a server started
        // before a due day) walked `deliveries_work` through every queued row of every
        // channel for each claim — 59 million index entries read during one burst of
        // 100 000, each claim taking seconds. Planned with the channel and the batch size
        // in hand it takes `deliveries_channel_due`; planning costs far less than a batch.
        .persistent(false)
        .bind(token)
        .bind(until)
        .bind(now)
        .bind(channel)
        // A bound value, not text: a sender's batch size varies, and each text would be
        // kept prepared in every connection's statement cache.
        .bind(limit)
        .fetch_all(&db.pool)
        .await?;
    // RETURNING gives no order; the oldest go first.
    claimed.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(claimed)
}

crate::row! {
    /// What decides whether a claimed delivery may still go out, and the sender's name, read
    /// for a whole claim in one statement (`sending_context`).
    #[derive(Debug, Clone)]
    pub struct SendingContext {
        pub delivery_id: String,
        /// `None`: the charge no longer exists.
        pub charge_state: Option<ChargeState>,
        pub open_dispute_id: Option<String>,
        /// `None`: the customer no longer exists.
        pub channel_opt_outs: Option<Vec<String>>,
        pub organization_name: Option<String>,
    }
}

/// The [`SendingContext`] of each of these deliveries (a claimed batch), found by key, the
/// ids as one JSON array ([`Backend::json_strings`]).
pub async fn sending_context(db: &Db, delivery_ids: &[&str]) -> Result<Vec<SendingContext>> {
    if delivery_ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = db.backend.json_strings(1);
    let sql = format!(
        "SELECT d.id AS delivery_id, ch.state AS charge_state, ch.open_dispute_id,
                cu.channel_opt_outs, o.name AS organization_name
         FROM deliveries d
         LEFT JOIN charges ch ON ch.organization_id = d.organization_id AND ch.id = d.charge_id
         LEFT JOIN customers cu ON cu.organization_id = d.organization_id AND cu.id = d.customer_id
         LEFT JOIN organizations o ON o.id = d.organization_id
         WHERE d.id IN ({ids})"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        // Planned at each execution, as `claim_due` says why.
        .persistent(false)
        .bind(serde_json::to_string(delivery_ids).expect("strings serialise"))
        .fetch_all(&db.pool)
        .await?)
}

/// How an attempt ended, as the engine writes it.
#[derive(Debug, Clone)]
pub enum AttemptResult<'a> {
    /// Handed to the provider; `delivered` when it also confirmed delivery. `message_id` is
    /// the provider's name for the message, when it gave one (its receipts use it).
    Sent {
        provider: &'a str,
        delivered: bool,
        message_id: Option<&'a str>,
    },
    /// Not sent this time; try again at `next_attempt_at`.
    Retry {
        error: &'a str,
        next_attempt_at: &'a str,
    },
    /// Given up (or dropped): `failed`, or `bounced` when the address refused it.
    Ended { status: &'a str, error: &'a str },
}

/// One attempt of a claimed delivery, to record with its batch ([`finish_attempts`]).
#[derive(Debug, Clone)]
pub struct Finished<'a> {
    pub id: &'a str,
    pub result: AttemptResult<'a>,
    /// Whether it counts against the retry schedule.
    pub counts_as_attempt: bool,
}

/// Record the attempts of a batch claimed under `token`, in one statement; the ids of those
/// recorded. One whose claim was lost (another worker took it after the lease ran out) is
/// left as it is and not among them: that worker's word counts.
///
/// Each attempt goes as a row of one JSON array (its kind, then the values its kind sets):
/// a burst's batch costs one round trip instead of one per delivery. A retry leaves the
/// status and what a sending set alone; only a sending sets the provider and the instants.
/// The status is compared through `COALESCE` so that SQLite cannot read it through
/// `deliveries_work`: with it, SQLite walked every queued delivery and, for each, the batch
/// (a burst's CPU doubled); without it, it walks the batch and finds each row by id.
pub async fn finish_attempts(
    conn: &mut AnyConnection,
    token: &str,
    attempts: &[Finished<'_>],
    now: &str,
) -> Result<Vec<String>> {
    if attempts.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<serde_json::Value> = attempts
        .iter()
        .map(|a| {
            let counts = i64::from(a.counts_as_attempt);
            match &a.result {
                AttemptResult::Sent {
                    provider,
                    delivered,
                    message_id,
                } => serde_json::json!([
                    a.id,
                    "sent",
                    if *delivered { "delivered" } else { "sent" },
                    provider,
                    delivered.then_some(now),
                    message_id,
                    null,
                    null,
                    counts,
                ]),
                AttemptResult::Retry {
                    error,
                    next_attempt_at,
                } => serde_json::json!([
                    a.id,
                    "retry",
                    null,
                    null,
                    null,
                    null,
                    error,
                    next_attempt_at,
                    counts,
                ]),
                AttemptResult::Ended { status, error } => {
                    serde_json::json!([
                        a.id, "ended", status, null, null, null, error, null, counts
                    ])
                }
            }
        })
        .collect();
    let (rows_of, row) = Backend::of(conn).json_rows(1);
    let sql = format!(
        "UPDATE deliveries SET
             status = COALESCE(r.status, deliveries.status),
             provider = CASE WHEN r.kind = 'sent' THEN r.provider ELSE deliveries.provider END,
             sent_at = CASE WHEN r.kind = 'sent' THEN $2 ELSE deliveries.sent_at END,
             delivered_at = CASE WHEN r.kind = 'sent' THEN r.delivered_at ELSE deliveries.delivered_at END,
             provider_message_id = CASE WHEN r.kind = 'sent' THEN r.message_id ELSE deliveries.provider_message_id END,
             error = r.error, next_attempt_at = r.next_attempt_at,
             attempts = deliveries.attempts + r.counts,
             claim_token = NULL, claimed_until = NULL, version = deliveries.version + 1, updated_at = $2
         FROM (SELECT {row} ->> 0 AS id, {row} ->> 1 AS kind, {row} ->> 2 AS status,
                      {row} ->> 3 AS provider, {row} ->> 4 AS delivered_at, {row} ->> 5 AS message_id,
                      {row} ->> 6 AS error, {row} ->> 7 AS next_attempt_at,
                      CAST({row} ->> 8 AS BIGINT) AS counts
               FROM {rows_of}) AS r
         WHERE deliveries.id = r.id AND deliveries.claim_token = $3
           AND COALESCE(deliveries.status, '') = 'queued'
         RETURNING deliveries.id"
    );
    Ok(sqlx::query_scalar(AssertSqlSafe(sql))
        // Planned at each execution, as `claim_due` says why.
        .persistent(false)
        .bind(serde_json::Value::Array(rows).to_string())
        .bind(now)
        .bind(token)
        .fetch_all(conn)
        .await?)
}

/// The delivery of `organization_id` that `provider` accepted as `message_id` (a status
/// callback names the message so).
pub async fn by_provider_message(
    conn: &mut AnyConnection,
    organization_id: &str,
    provider: &str,
    message_id: &str,
) -> Result<Option<Delivery>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM deliveries
         WHERE organization_id = $1 AND provider = $2 AND provider_message_id = $3"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(provider)
        .bind(message_id)
        .fetch_optional(conn)
        .await?)
}

/// Sent deliveries of `provider` sent at or before `sent_before`, awaiting a receipt.
pub async fn awaiting_receipt(
    db: &Db,
    provider: &str,
    sent_before: &str,
    limit: i64,
) -> Result<Vec<Delivery>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM deliveries WHERE status = 'sent' AND provider = $1 AND sent_at <= $2
         ORDER BY sent_at, id LIMIT {limit}"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(provider)
        .bind(sent_before)
        .fetch_all(&db.pool)
        .await?)
}

/// Apply a receipt (`delivered` or `bounced`) to a sent delivery; false when it is no longer
/// `sent` (another worker applied it).
pub async fn apply_receipt(
    conn: &mut AnyConnection,
    id: &str,
    status: &str,
    error: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE deliveries SET status = $1, error = $2,
             delivered_at = CASE WHEN $1 = 'delivered' THEN $3 ELSE delivered_at END,
             version = version + 1, updated_at = $3
         WHERE id = $4 AND status = 'sent'",
    )
    .bind(status)
    .bind(error)
    .bind(now)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// What a sandbox provider recorded instead of sending.
pub async fn record_sandbox_message(
    conn: &mut AnyConnection,
    delivery: &Delivery,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO sandbox_messages (id, organization_id, delivery_id, channel, recipient, subject, body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(super::ids::new_id("sbx"))
    .bind(&delivery.organization_id)
    .bind(&delivery.id)
    .bind(&delivery.channel)
    .bind(&delivery.recipient)
    .bind(delivery.subject.as_deref())
    .bind(&delivery.body)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}
