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

/// The [`SendingContext`] of each of these deliveries (a claimed batch), found by key. The ids
/// go as one JSON array: SQLite's driver looks each `$n` up by name among all of a
/// statement's parameters, so a batch bound one id a parameter cost a quarter of a burst's CPU.
pub async fn sending_context(db: &Db, delivery_ids: &[&str]) -> Result<Vec<SendingContext>> {
    if delivery_ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = match db.backend {
        Backend::Sqlite => "SELECT value FROM json_each($1)",
        Backend::Postgres => "SELECT json_array_elements_text($1::json)",
    };
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

/// Record an attempt of a claimed delivery; false when the claim was lost (another worker
/// took it after the lease ran out), in which case nothing is written.
pub async fn finish_attempt(
    conn: &mut AnyConnection,
    id: &str,
    token: &str,
    result: &AttemptResult<'_>,
    counts_as_attempt: bool,
    now: &str,
) -> Result<bool> {
    let attempts = if counts_as_attempt { 1 } else { 0 };
    let query = match result {
        AttemptResult::Sent {
            provider,
            delivered,
            message_id,
        } => sqlx::query(
            "UPDATE deliveries SET status = $1, provider = $2, sent_at = $3, delivered_at = $4, error = NULL,
                 attempts = attempts + $5, claim_token = NULL, claimed_until = NULL, next_attempt_at = NULL,
                 provider_message_id = $8, version = version + 1, updated_at = $3
             WHERE id = $6 AND claim_token = $7 AND status = 'queued'",
        )
        .bind(if *delivered { "delivered" } else { "sent" })
        .bind(*provider)
        .bind(now)
        .bind(delivered.then_some(now))
        .bind(attempts)
        .bind(id)
        .bind(token)
        .bind(*message_id),
        AttemptResult::Retry {
            error,
            next_attempt_at,
        } => sqlx::query(
            "UPDATE deliveries SET error = $1, next_attempt_at = $2, attempts = attempts + $3,
                 claim_token = NULL, claimed_until = NULL, version = version + 1, updated_at = $4
             WHERE id = $5 AND claim_token = $6 AND status = 'queued'",
        )
        .bind(*error)
        .bind(*next_attempt_at)
        .bind(attempts)
        .bind(now)
        .bind(id)
        .bind(token),
        AttemptResult::Ended { status, error } => sqlx::query(
            "UPDATE deliveries SET status = $1, error = $2, attempts = attempts + $3,
                 claim_token = NULL, claimed_until = NULL, next_attempt_at = NULL, version = version + 1, updated_at = $4
             WHERE id = $5 AND claim_token = $6 AND status = 'queued'",
        )
        .bind(*status)
        .bind(*error)
        .bind(attempts)
        .bind(now)
        .bind(id)
        .bind(token),
    };
    Ok(query.execute(conn).await?.rows_affected() == 1)
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
