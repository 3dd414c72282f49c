//! Devoluções of the Pix received (`pix_refunds`): each one the PSP reported (the payer's
//! bank, the MED) or the organization asked for, once per (Pix, devolução id), with where it
//! stands and the payment it reversed. The ones the organization asked for are also the Pix
//! worker's queue until the PSP says how they ended, claimed with a lease like every engine
//! queue.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::{Db, Result};
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

crate::stored_words! {
    /// Where a devolução stands: asked of us and not yet at the PSP, in processing, returned
    /// (the money left the account), or not done.
    pub enum RefundStatus {
        Requested = "requested",
        InProcess = "in_process",
        Returned = "returned",
        NotDone = "not_done",
    }
}

impl RefundStatus {
    /// The status of BACEN's word (`EM_PROCESSAMENTO`, `DEVOLVIDO`, `NAO_REALIZADO`).
    pub fn from_bacen(word: &str) -> Option<RefundStatus> {
        match word {
            "EM_PROCESSAMENTO" => Some(RefundStatus::InProcess),
            "DEVOLVIDO" => Some(RefundStatus::Returned),
            "NAO_REALIZADO" => Some(RefundStatus::NotDone),
            _ => None,
        }
    }

    /// Whether it has ended (returned or not done).
    pub fn is_final(self) -> bool {
        matches!(self, RefundStatus::Returned | RefundStatus::NotDone)
    }
}

crate::row! {
    /// A devolução as recorded; `api::pix_psp` shows it with its Pix.
    #[derive(Debug, Clone)]
    pub struct Refund {
        pub id: String,
        pub received_id: String,
        pub end_to_end_id: String,
        /// The devolução's id at the PSP (ours, for one the organization asked for).
        pub refund_id: String,
        pub rtr_id: Option<String>,
        pub amount_cents: Cents,
        /// BACEN's `natureza`: ORIGINAL, RETIRADA, MED_OPERACIONAL, MED_FRAUDE,
        /// MED_PIX_AUTOMATICO.
        pub nature: String,
        pub status: RefundStatus,
        /// The PSP's `motivo`, when it gave one.
        pub reason: Option<String>,
        /// `organization` or `psp`.
        pub requested_by: String,
        pub description: Option<String>,
        pub charge_id: Option<String>,
        pub reversed_payment_id: Option<String>,
        pub reversed_cents: Cents,
        pub last_error: Option<String>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }
}

const COLUMNS: &str = "id, received_id, end_to_end_id, refund_id, rtr_id, amount_cents, nature, status, reason,
    requested_by, description, charge_id, reversed_payment_id, reversed_cents, last_error, created_at, updated_at";

/// A devolução as first recorded.
#[derive(Debug, Clone)]
pub struct NewRefund<'a> {
    pub id: &'a str,
    pub received_id: &'a str,
    pub end_to_end_id: &'a str,
    pub refund_id: &'a str,
    pub rtr_id: Option<&'a str>,
    pub amount_cents: i64,
    pub nature: &'a str,
    pub status: RefundStatus,
    pub reason: Option<&'a str>,
    pub requested_by: &'a str,
    pub description: Option<&'a str>,
    pub charge_id: Option<&'a str>,
    /// When the Pix worker is to take it up (one the organization asked for), else `None`.
    pub next_attempt_at: Option<&'a str>,
}

/// Record a devolução; false when one with its id was recorded for the Pix already.
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    r: &NewRefund<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO pix_refunds (id, organization_id, received_id, end_to_end_id, refund_id, rtr_id, amount_cents,
             nature, status, reason, requested_by, description, charge_id, reversed_payment_id, reversed_cents,
             attempts, last_error, next_attempt_at, claim_token, claimed_until, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, 0, 0, NULL, $14, NULL, NULL, $15, $15)
         ON CONFLICT (organization_id, end_to_end_id, refund_id) DO NOTHING",
    )
    .bind(r.id)
    .bind(organization_id)
    .bind(r.received_id)
    .bind(r.end_to_end_id)
    .bind(r.refund_id)
    .bind(r.rtr_id)
    .bind(r.amount_cents)
    .bind(r.nature)
    .bind(r.status.as_str())
    .bind(r.reason)
    .bind(r.requested_by)
    .bind(r.description)
    .bind(r.charge_id)
    .bind(r.next_attempt_at)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The devolução `refund_id` of the Pix `end_to_end_id`. (Two reports of one devolução
/// racing both find it: [`set_reversed`] lets one of them reverse its payment.)
pub async fn find(
    conn: &mut AnyConnection,
    organization_id: &str,
    end_to_end_id: &str,
    refund_id: &str,
) -> Result<Option<Refund>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM pix_refunds WHERE organization_id = $1 AND end_to_end_id = $2 AND refund_id = $3"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(end_to_end_id)
        .bind(refund_id)
        .fetch_optional(conn)
        .await?)
}

/// A devolução by our id.
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Refund>> {
    let sql = format!("SELECT {COLUMNS} FROM pix_refunds WHERE organization_id = $1 AND id = $2");
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// The devoluções of these Pix received, oldest first.
pub async fn of_received(
    db: &Db,
    organization_id: &str,
    received_ids: &[&str],
) -> Result<Vec<Refund>> {
    if received_ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (0..received_ids.len())
        .map(|i| format!("${}", i + 2))
        .collect();
    let sql = format!(
        "SELECT {COLUMNS} FROM pix_refunds WHERE organization_id = $1 AND received_id IN ({})
         ORDER BY created_at, id",
        marks.join(", ")
    );
    let mut query = sqlx::query_as(AssertSqlSafe(sql)).bind(organization_id);
    for id in received_ids {
        query = query.bind(*id);
    }
    Ok(query.fetch_all(&db.pool).await?)
}

/// What of a Pix is returned or on its way back: the devoluções not refused.
pub async fn committed_cents(
    conn: &mut AnyConnection,
    organization_id: &str,
    received_id: &str,
) -> Result<Cents> {
    sum_cents(conn, organization_id, received_id, "status <> 'not_done'").await
}

/// What of a Pix has been returned.
pub async fn returned_cents(
    conn: &mut AnyConnection,
    organization_id: &str,
    received_id: &str,
) -> Result<Cents> {
    sum_cents(conn, organization_id, received_id, "status = 'returned'").await
}

/// The sum of a Pix's devoluções that meet `condition` (our own SQL, never a caller's). Cast
/// back to `BIGINT`: PostgreSQL sums a `BIGINT` column as `NUMERIC`, which the `Any` driver
/// cannot read.
async fn sum_cents(
    conn: &mut AnyConnection,
    organization_id: &str,
    received_id: &str,
    condition: &'static str,
) -> Result<Cents> {
    let sql = format!(
        "SELECT CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) FROM pix_refunds
         WHERE organization_id = $1 AND received_id = $2 AND {condition}"
    );
    let sum: i64 = sqlx::query_scalar(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(received_id)
        .fetch_one(conn)
        .await?;
    Ok(Cents(sum))
}

/// A devolução's new standing as the PSP reports it (its `rtrId` and `motivo` kept when
/// given); it leaves the worker's queue once final. True for the one transaction that moves
/// it (a conditional update: another reporting the same move waits for it, then finds the
/// row moved): what a reversal happens once behind.
pub async fn set_status(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    status: RefundStatus,
    rtr_id: Option<&str>,
    reason: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_refunds SET status = $1, rtr_id = COALESCE($2, rtr_id), reason = COALESCE($3, reason),
             next_attempt_at = CASE WHEN $1 IN ('returned', 'not_done') THEN NULL ELSE next_attempt_at END,
             updated_at = $4
         WHERE organization_id = $5 AND id = $6 AND status <> $1",
    )
    .bind(status.as_str())
    .bind(rtr_id)
    .bind(reason)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The payment a returned devolução reversed, and by how much.
pub async fn set_reversed(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    payment_id: &str,
    cents: Cents,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE pix_refunds SET reversed_payment_id = $1, reversed_cents = $2, updated_at = $3
         WHERE organization_id = $4 AND id = $5",
    )
    .bind(payment_id)
    .bind(cents.0)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Devoluções the organization asked for that the Pix worker must take up at `now`, unclaimed:
/// `(organization, id)`.
pub async fn due(db: &Db, now: &str, limit: i64) -> Result<Vec<(String, String)>> {
    Ok(sqlx::query_as(
        "SELECT organization_id, id FROM pix_refunds
         WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)
         ORDER BY next_attempt_at LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Claim a due devolução until `until`: the row as claimed, or `None` when another worker
/// holds it or it is not due any more.
pub async fn claim(
    db: &Db,
    (organization_id, id): (&str, &str),
    token: &str,
    now: &str,
    until: &str,
) -> Result<Option<Refund>> {
    let done = sqlx::query(
        "UPDATE pix_refunds SET claim_token = $1, claimed_until = $2
         WHERE organization_id = $3 AND id = $4 AND next_attempt_at <= $5
           AND (claimed_until IS NULL OR claimed_until < $5)",
    )
    .bind(token)
    .bind(until)
    .bind(organization_id)
    .bind(id)
    .bind(now)
    .execute(&db.pool)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    let mut conn = db.pool.acquire().await?;
    get_in(&mut conn, organization_id, id).await
}

/// Release a claim, the row due again at `next` (`None`: no more) with the attempt's error
/// (`None` after a success), if `token` still holds it.
pub async fn release(
    conn: &mut AnyConnection,
    (organization_id, id): (&str, &str),
    token: &str,
    next: Option<&str>,
    error: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_refunds SET claim_token = NULL, claimed_until = NULL,
             next_attempt_at = CASE WHEN status IN ('returned', 'not_done') THEN NULL ELSE $1 END,
             attempts = CASE WHEN $2 IS NULL THEN 0 ELSE attempts + 1 END, last_error = $2, updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND claim_token = $6",
    )
    .bind(next)
    .bind(error)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(token)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// How many times in a row the worker failed to reach the PSP for it.
pub async fn attempts(conn: &mut AnyConnection, organization_id: &str, id: &str) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT attempts FROM pix_refunds WHERE organization_id = $1 AND id = $2",
    )
    .bind(organization_id)
    .bind(id)
    .fetch_one(conn)
    .await?)
}
