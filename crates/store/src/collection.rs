//! Collection of charges: payments, negativation and protest states, the record of which plan
//! step ran for which charge, and the requests awaiting a bureau's or notary's answer.
//!
//! Exactly-once is the database's job here: `collection_step_runs` has the primary key
//! (charge, step), and a bureau or notary request is one row per (charge, kind) re-armed only
//! once its previous round is done, so replicas racing on the same work conflict in the
//! database instead of acting twice.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::{Db, Result, ids};
use dunning_domain::collection::{NegativationStatus, ProtestStatus};
use dunning_domain::timestamp::Timestamp;

/// Money received for a charge (validated by the API layer).
#[derive(Debug, Clone, Copy)]
pub struct Payment<'a> {
    pub charge_id: &'a str,
    pub amount_cents: i64,
    pub method: &'a str,
    pub note: Option<&'a str>,
    /// When the money was received, stored timestamp.
    pub paid_at: &'a str,
}

/// Record a payment row.
pub async fn insert_payment(
    conn: &mut AnyConnection,
    organization_id: &str,
    payment: &Payment<'_>,
    now: &str,
) -> Result<String> {
    let id = ids::new_id("pay");
    sqlx::query(
        "INSERT INTO payments (id, organization_id, charge_id, amount_cents, method, note, paid_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&id)
    .bind(organization_id)
    .bind(payment.charge_id)
    .bind(payment.amount_cents)
    .bind(payment.method)
    .bind(payment.note)
    .bind(payment.paid_at)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(id)
}

crate::row! {
    /// A payment as reversing it needs it.
    #[derive(Debug, Clone)]
    pub struct StoredPayment {
        pub id: String,
        pub charge_id: String,
        pub amount_cents: dunning_domain::money::Cents,
        pub refunded_cents: dunning_domain::money::Cents,
        pub paid_at: Timestamp,
    }
}

/// A payment by id.
pub async fn payment(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<StoredPayment>> {
    Ok(sqlx::query_as(
        "SELECT id, charge_id, amount_cents, refunded_cents, paid_at FROM payments
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(organization_id)
    .bind(id)
    .fetch_optional(conn)
    .await?)
}

/// Take `cents` of a payment back (a devolução): the payment's `refunded_cents`, and its
/// charge at `version` with its paid amount, its payments by day as they now stand, and —
/// when `reopen` — back to `open` (no longer paid). False when the charge moved on.
#[allow(clippy::too_many_arguments)]
pub async fn reverse_payment(
    conn: &mut AnyConnection,
    organization_id: &str,
    payment: &StoredPayment,
    cents: i64,
    version: i64,
    payment_days: &str,
    reopen: bool,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE charges SET paid_cents = paid_cents - $1, payment_days = $2,
             state = CASE WHEN $3 = 1 THEN 'open' ELSE state END,
             paid_at = CASE WHEN $3 = 1 THEN NULL ELSE paid_at END,
             version = version + 1, updated_at = $4
         WHERE organization_id = $5 AND id = $6 AND version = $7",
    )
    .bind(cents)
    .bind(payment_days)
    .bind(i64::from(reopen))
    .bind(now)
    .bind(organization_id)
    .bind(&payment.charge_id)
    .bind(version)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(
        "UPDATE payments SET refunded_cents = refunded_cents + $1 WHERE organization_id = $2 AND id = $3",
    )
    .bind(cents)
    .bind(organization_id)
    .bind(&payment.id)
    .execute(conn)
    .await?;
    Ok(true)
}

/// Add a payment to its open charge at `version`, with the charge's payments by day as they
/// now stand (`payment_days`, written whole: the charge is locked); when `settles`, the
/// charge becomes paid and a requested or active negativation gets its removal requested.
/// False when the row moved on.
pub async fn apply_payment(
    conn: &mut AnyConnection,
    organization_id: &str,
    payment: &Payment<'_>,
    payment_days: &str,
    version: i64,
    settles: bool,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE charges SET paid_cents = paid_cents + $1, payment_days = $8,
             state = CASE WHEN $2 = 1 THEN 'paid' ELSE state END,
             paid_at = CASE WHEN $2 = 1 THEN $3 ELSE paid_at END,
             negativation_status = CASE WHEN $2 = 1 AND negativation_status IN ('requested', 'active')
                 THEN 'removal_requested' ELSE negativation_status END,
             version = version + 1, updated_at = $4
         WHERE organization_id = $5 AND id = $6 AND version = $7 AND state = 'open'",
    )
    .bind(payment.amount_cents)
    .bind(i64::from(settles))
    .bind(payment.paid_at)
    .bind(now)
    .bind(organization_id)
    .bind(payment.charge_id)
    .bind(version)
    .bind(payment_days)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A move of a charge's negativation (recording `bureau` when given) or protest status, from
/// one of `from` to `to`.
#[derive(Debug, Clone, Copy)]
pub enum StatusMove<'a> {
    Negativation {
        from: &'a [NegativationStatus],
        to: NegativationStatus,
        bureau: Option<&'a str>,
    },
    Protest {
        from: &'a [ProtestStatus],
        to: ProtestStatus,
    },
}

impl StatusMove<'_> {
    /// The word of the status moved to.
    pub fn to_word(&self) -> &'static str {
        match self {
            StatusMove::Negativation { to, .. } => to.as_str(),
            StatusMove::Protest { to, .. } => to.as_str(),
        }
    }
}

/// Make `change` to a charge, at `version` when given. False when the row was not in one of
/// the states it moves from.
pub async fn set_collection_status(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: Option<i64>,
    change: &StatusMove<'_>,
    now: &str,
) -> Result<bool> {
    let (column, from, bureau) = match *change {
        StatusMove::Negativation { from, bureau, .. } => (
            "negativation_status",
            from.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            bureau,
        ),
        StatusMove::Protest { from, .. } => (
            "protest_status",
            from.iter().map(|s| s.as_str()).collect(),
            None,
        ),
    };
    let states = from
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ");
    // Versions start at 1, so 0 stands for "any version".
    let sql = format!(
        "UPDATE charges SET {column} = $1, negativation_bureau = COALESCE($2, negativation_bureau),
             version = version + 1, updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND ($6 = 0 OR version = $6) AND {column} IN ({states})"
    );
    let query = sqlx::query(AssertSqlSafe(sql))
        .bind(change.to_word())
        .bind(bureau)
        .bind(now)
        .bind(organization_id)
        .bind(id)
        .bind(version.unwrap_or(0));
    Ok(query.execute(conn).await?.rows_affected() == 1)
}

/// The bureau a charge's negativation was reported to.
pub async fn negativation_bureau(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT negativation_bureau FROM charges WHERE organization_id = $1 AND id = $2",
    )
    .bind(organization_id)
    .bind(charge_id)
    .fetch_optional(conn)
    .await?
    .flatten())
}

/// Days of notice an organization requires before a negativation.
pub async fn negativation_notice_days(
    conn: &mut AnyConnection,
    organization_id: &str,
) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT negativation_notice_days FROM organizations WHERE id = $1")
            .bind(organization_id)
            .fetch_optional(conn)
            .await?
            .unwrap_or(10),
    )
}

/// The organization's name (for notices).
pub async fn organization_name(conn: &mut AnyConnection, organization_id: &str) -> Result<String> {
    Ok(
        sqlx::query_scalar("SELECT name FROM organizations WHERE id = $1")
            .bind(organization_id)
            .fetch_optional(conn)
            .await?
            .unwrap_or_default(),
    )
}

/// Record that the charge got a (new) plan now.
pub async fn mark_plan_attached(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query("UPDATE charges SET plan_attached_at = $1 WHERE organization_id = $2 AND id = $3")
        .bind(now)
        .bind(organization_id)
        .bind(charge_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// A plan step not yet run for an open, undisputed charge of its plan (read by
/// `plan_schedule::due`).
#[derive(Debug, Clone)]
pub struct PendingStep {
    pub organization_id: String,
    pub charge_id: String,
    pub due_date: time::Date,
    /// When the charge got its plan (or was created).
    pub attached_at: Timestamp,
    pub step_id: String,
    pub step_created_at: Timestamp,
    pub offset_days: i64,
    pub day_count: dunning_domain::collection::DayCount,
    pub position: i64,
    pub action: String,
    pub channel: Option<String>,
    pub template: Option<String>,
    pub bureau: Option<String>,
}

/// What running a plan step on a charge came to.
#[derive(Debug, Clone, Copy)]
pub struct StepRun<'a> {
    pub charge_id: &'a str,
    pub step_id: &'a str,
    /// `done` or `skipped`.
    pub outcome: &'a str,
    /// Why it was skipped: the refusal's code.
    pub reason: Option<&'a str>,
    pub delivery_id: Option<&'a str>,
}

/// Claim a (charge, step) pair with its outcome. False when it already ran: the primary key
/// refused the row, and the caller must roll back whatever it prepared.
pub async fn record_step_run(
    conn: &mut AnyConnection,
    organization_id: &str,
    run: &StepRun<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO collection_step_runs (charge_id, step_id, organization_id, outcome, reason, delivery_id, ran_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (charge_id, step_id) DO NOTHING",
    )
    .bind(run.charge_id)
    .bind(run.step_id)
    .bind(organization_id)
    .bind(run.outcome)
    .bind(run.reason)
    .bind(run.delivery_id)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

crate::row! {
    /// A charge whose negativation or protest awaits the outside party's answer.
    #[derive(Debug, Clone)]
    pub struct AwaitingAnswer {
        pub organization_id: String,
        pub charge_id: String,
        pub negativation_status: NegativationStatus,
        pub protest_status: ProtestStatus,
        pub negativation_bureau: Option<String>,
        pub updated_at: Timestamp,
    }
}

/// The statement of [`awaiting_answers`]: its condition is the one of the partial index
/// `charges_awaiting_answer` (migration 20), word for word, so both engines read through it
/// (`tests/integration/query_plans.rs`).
pub const AWAITING_ANSWERS_SQL: &str = "SELECT organization_id, id AS charge_id, negativation_status, protest_status, negativation_bureau, updated_at FROM charges
         WHERE negativation_status IN ('requested', 'removal_requested') OR protest_status IN ('requested', 'cancel_requested')";

/// Charges with a negativation or protest requested, or its removal or cancellation (the
/// collection worker asks every tick).
pub async fn awaiting_answers(db: &Db) -> Result<Vec<AwaitingAnswer>> {
    Ok(sqlx::query_as(AWAITING_ANSWERS_SQL)
        .fetch_all(&db.pool)
        .await?)
}

/// Make sure a request of `kind` is pending for the charge: insert it, or re-arm a finished
/// one for a new round. A pending one is left alone, so calling this every tick is harmless.
pub async fn ensure_request(
    db: &Db,
    organization_id: &str,
    charge_id: &str,
    kind: &str,
    party: &str,
    next_attempt_at: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO collection_requests (charge_id, kind, organization_id, party, status, attempts, next_attempt_at,
             created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $6)
         ON CONFLICT (charge_id, kind) DO UPDATE SET status = 'pending', party = excluded.party, attempts = 0,
             last_error = NULL, next_attempt_at = excluded.next_attempt_at, claim_token = NULL, claimed_until = NULL,
             updated_at = excluded.updated_at
         WHERE collection_requests.status = 'done'",
    )
    .bind(charge_id)
    .bind(kind)
    .bind(organization_id)
    .bind(party)
    .bind(next_attempt_at)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(())
}

crate::row! {
    /// A bureau or notary request due now.
    #[derive(Debug, Clone)]
    pub struct DueRequest {
        pub organization_id: String,
        pub charge_id: String,
        pub kind: String,
        pub party: String,
        pub attempts: i64,
    }
}

/// Pending requests due at `now` and not claimed by a live worker.
pub async fn due_requests(db: &Db, now: &str, limit: i64) -> Result<Vec<DueRequest>> {
    let sql = format!(
        "SELECT organization_id, charge_id, kind, party, attempts FROM collection_requests
         WHERE status = 'pending' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)
         ORDER BY next_attempt_at LIMIT {limit}"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(now)
        .fetch_all(&db.pool)
        .await?)
}

/// Take a pending request until `until`; false when another worker has it.
pub async fn claim_request(
    db: &Db,
    charge_id: &str,
    kind: &str,
    token: &str,
    now: &str,
    until: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE collection_requests SET claim_token = $1, claimed_until = $2
         WHERE charge_id = $3 AND kind = $4 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < $5)",
    )
    .bind(token)
    .bind(until)
    .bind(charge_id)
    .bind(kind)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Close a claimed request (`done`) or schedule its retry; false when the claim was lost.
pub async fn finish_request(
    conn: &mut AnyConnection,
    charge_id: &str,
    kind: &str,
    token: &str,
    retry: Option<(&str, &str)>,
    now: &str,
) -> Result<bool> {
    let done = match retry {
        None => sqlx::query(
            "UPDATE collection_requests SET status = 'done', attempts = attempts + 1, claim_token = NULL,
                 claimed_until = NULL, updated_at = $1
             WHERE charge_id = $2 AND kind = $3 AND claim_token = $4 AND status = 'pending'",
        )
        .bind(now)
        .bind(charge_id)
        .bind(kind)
        .bind(token),
        Some((error, next)) => sqlx::query(
            "UPDATE collection_requests SET attempts = attempts + 1, last_error = $5, next_attempt_at = $6,
                 claim_token = NULL, claimed_until = NULL, updated_at = $1
             WHERE charge_id = $2 AND kind = $3 AND claim_token = $4 AND status = 'pending'",
        )
        .bind(now)
        .bind(charge_id)
        .bind(kind)
        .bind(token)
        .bind(error)
        .bind(next),
    }
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
