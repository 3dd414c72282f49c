//! Pix Automático for agreements (BACEN's API Pix: `/locrec`, `/rec`, `/cobr`): each request
//! for one (`automatic_pix`: a recurrence the debtor authorizes once, for the agreement's
//! instalments) and each instalment debited through it (`automatic_pix_charges`: a `cobr`).
//! Migration 24.
//!
//! Both tables are Pix worker queues like `pix_refunds`: a row is due at `next_attempt_at`
//! (`NULL`: nothing to do until something makes it due) and claimed with a lease
//! (`claim_token`, `claimed_until`) before the PSP is called; what came of the call is written
//! only while the claim holds. A status moves by a conditional update, so that of two reports
//! of one move (the PSP's callback and the sweep) one does the work behind it.

use sqlx::{AnyConnection, AssertSqlSafe};
use time::Date;

use super::{Db, Result};
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

crate::stored_words! {
    /// Where a request for Pix Automático stands: not yet at the PSP (`requested`), created and
    /// waiting for the debtor (`awaiting_authorization`, BACEN's `CRIADA`), `authorized`
    /// (`APROVADA`), or ended: `rejected`, `expired`, `canceled` (BACEN's words), or `failed`
    /// (the PSP refused to create it, or offers no Pix Automático).
    pub enum AutomaticPixStatus {
        Requested = "requested",
        AwaitingAuthorization = "awaiting_authorization",
        Authorized = "authorized",
        Rejected = "rejected",
        Expired = "expired",
        Canceled = "canceled",
        Failed = "failed",
    }
}

impl AutomaticPixStatus {
    /// The status of BACEN's word for a recurrence (`RecStatus`).
    pub fn from_bacen(word: &str) -> Option<AutomaticPixStatus> {
        match word {
            "CRIADA" => Some(AutomaticPixStatus::AwaitingAuthorization),
            "APROVADA" => Some(AutomaticPixStatus::Authorized),
            "REJEITADA" => Some(AutomaticPixStatus::Rejected),
            "EXPIRADA" => Some(AutomaticPixStatus::Expired),
            "CANCELADA" => Some(AutomaticPixStatus::Canceled),
            _ => None,
        }
    }

    /// Whether it has ended: nothing more will happen to it.
    pub fn is_final(self) -> bool {
        !self.is_live()
    }

    /// Whether it is live: requested, waiting for the debtor, or authorized.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            AutomaticPixStatus::Requested
                | AutomaticPixStatus::AwaitingAuthorization
                | AutomaticPixStatus::Authorized
        )
    }
}

crate::stored_words! {
    /// How the debtor authorizes: a QR for the recurrence alone (BACEN's journey 2), or one QR
    /// that pays the down payment and authorizes the recurrence together (journey 4: the down
    /// payment is a `cobv`, a charge with a due date).
    pub enum Journey {
        Qr = "qr",
        QrWithDownPayment = "qr_with_down_payment",
    }
}

impl Journey {
    /// BACEN's name of the journey (`tipoJornada`).
    pub fn bacen(self) -> &'static str {
        match self {
            Journey::Qr => "JORNADA_2",
            Journey::QrWithDownPayment => "JORNADA_4",
        }
    }
}

crate::stored_words! {
    /// Whether a failed debit may be tried again: never (`NAO_PERMITE`), or up to three times
    /// within seven days of its date (`PERMITE_3R_7D`).
    pub enum RetryPolicy {
        None = "none",
        ThreeInSevenDays = "three_in_seven_days",
    }
}

impl RetryPolicy {
    /// BACEN's word (`politicaRetentativa`).
    pub fn bacen(self) -> &'static str {
        match self {
            RetryPolicy::None => "NAO_PERMITE",
            RetryPolicy::ThreeInSevenDays => "PERMITE_3R_7D",
        }
    }
}

crate::row! {
    /// A request for Pix Automático, as stored.
    #[derive(Debug, Clone)]
    pub struct AutomaticPix {
        pub id: String,
        pub agreement_id: String,
        pub journey: Journey,
        pub retry_policy: RetryPolicy,
        pub status: AutomaticPixStatus,
        /// The organization asked to cancel it and the PSP has not been told yet.
        pub cancel_requested: bool,
        /// The recurrence's id at the PSP (`idRec`).
        pub rec_id: Option<String>,
        pub location_id: Option<String>,
        pub location: Option<String>,
        /// The code the debtor scans or pastes (`dadosQR.pixCopiaECola`).
        pub qr_code: Option<String>,
        /// The journey by which the debtor authorized it, as the PSP reported it.
        pub authorized_journey: Option<String>,
        pub authorized_at: Option<Timestamp>,
        pub ended_at: Option<Timestamp>,
        /// Who ended it: `payer`, `organization`, `psp`.
        pub ended_by: Option<String>,
        /// BACEN's code of the rejection or cancellation (`AP13`, `ACCL`, …).
        pub end_code: Option<String>,
        pub end_reason: Option<String>,
        pub attempts: i64,
        pub last_error: Option<String>,
        pub next_attempt_at: Option<Timestamp>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }
}

/// A request with its debits: what an agreement shows.
#[derive(Debug, Clone)]
pub struct AutomaticPixDetails {
    pub request: AutomaticPix,
    pub debits: Vec<Debit>,
}

const COLUMNS: &str = "id, agreement_id, journey, retry_policy, status, cancel_requested, rec_id, location_id, location,
    qr_code, authorized_journey, authorized_at, ended_at, ended_by, end_code, end_reason, attempts, last_error,
    next_attempt_at, created_at, updated_at";

/// A request as first stored.
#[derive(Debug, Clone)]
pub struct NewAutomaticPix<'a> {
    pub id: &'a str,
    pub agreement_id: &'a str,
    pub journey: Journey,
    pub retry_policy: RetryPolicy,
    /// When the worker is to take it up; `None` while the agreement is only proposed.
    pub next_attempt_at: Option<&'a str>,
}

/// Store a request; the unique index keeps one live per agreement (the caller checked under
/// the agreement's lock, so a violation here is a writer that skipped it).
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    new: &NewAutomaticPix<'_>,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO automatic_pix (id, organization_id, agreement_id, journey, retry_policy, status, cancel_requested,
             attempts, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'requested', 0, 0, $6, $7, $7)",
    )
    .bind(new.id)
    .bind(organization_id)
    .bind(new.agreement_id)
    .bind(new.journey.as_str())
    .bind(new.retry_policy.as_str())
    .bind(new.next_attempt_at)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<AutomaticPix>> {
    let sql = format!("SELECT {COLUMNS} FROM automatic_pix WHERE organization_id = $1 AND id = $2");
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// The request whose recurrence is `rec_id` at the PSP.
pub async fn by_rec_id(
    conn: &mut AnyConnection,
    organization_id: &str,
    rec_id: &str,
) -> Result<Option<AutomaticPix>> {
    let sql =
        format!("SELECT {COLUMNS} FROM automatic_pix WHERE organization_id = $1 AND rec_id = $2");
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(rec_id)
        .fetch_optional(conn)
        .await?)
}

/// The live request of an agreement, if any.
pub async fn live_of_agreement(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement_id: &str,
) -> Result<Option<AutomaticPix>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM automatic_pix WHERE organization_id = $1 AND agreement_id = $2
           AND status IN ('requested', 'awaiting_authorization', 'authorized')"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(agreement_id)
        .fetch_optional(conn)
        .await?)
}

/// The newest request of each of these agreements (one query for a page of them).
pub async fn newest_of_agreements(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement_ids: &[&str],
) -> Result<Vec<AutomaticPix>> {
    if agreement_ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (0..agreement_ids.len())
        .map(|i| format!("${}", i + 2))
        .collect();
    let sql = format!(
        "SELECT {COLUMNS} FROM automatic_pix WHERE organization_id = $1 AND agreement_id IN ({})
         ORDER BY agreement_id, created_at DESC, id DESC",
        marks.join(", ")
    );
    let mut query = sqlx::query_as::<_, AutomaticPix>(AssertSqlSafe(sql)).bind(organization_id);
    for id in agreement_ids {
        query = query.bind(*id);
    }
    let mut newest: Vec<AutomaticPix> = Vec::new();
    for row in query.fetch_all(conn).await? {
        if newest
            .last()
            .is_none_or(|n| n.agreement_id != row.agreement_id)
        {
            newest.push(row);
        }
    }
    Ok(newest)
}

/// Make the agreement's live request due now (it was waiting for the agreement to be
/// accepted, or the organization asked to cancel it).
pub async fn make_due(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    cancel: bool,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE automatic_pix SET next_attempt_at = $1, updated_at = $1,
             cancel_requested = CASE WHEN $2 = 1 THEN 1 ELSE cancel_requested END
         WHERE organization_id = $3 AND id = $4",
    )
    .bind(now)
    .bind(i64::from(cancel))
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// What the PSP answered when the recurrence was created there.
#[derive(Debug, Clone)]
pub struct Created<'a> {
    pub rec_id: &'a str,
    pub location_id: &'a str,
    pub location: &'a str,
    pub qr_code: &'a str,
}

/// The recurrence created at the PSP: waiting for the debtor, with its code. False when it
/// was not `requested` any more.
pub async fn set_created(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    created: &Created<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE automatic_pix SET status = 'awaiting_authorization', rec_id = $1, location_id = $2, location = $3,
             qr_code = $4, updated_at = $5
         WHERE organization_id = $6 AND id = $7 AND status = 'requested'",
    )
    .bind(created.rec_id)
    .bind(created.location_id)
    .bind(created.location)
    .bind(created.qr_code)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// How a request moved, as the PSP (or our refusal to go on) reports it.
#[derive(Debug, Clone, Default)]
pub struct Move<'a> {
    pub authorized_journey: Option<&'a str>,
    pub ended_by: Option<&'a str>,
    pub end_code: Option<&'a str>,
    pub end_reason: Option<&'a str>,
}

/// Move a request to `status` (from any other live one). True for the one transaction that
/// moves it; a final status ends the claim's work (`next_attempt_at` cleared by
/// [`release`]) and the cancel request with it.
pub async fn set_status(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    status: AutomaticPixStatus,
    moved: &Move<'_>,
    now: &str,
) -> Result<bool> {
    let final_status = status.is_final();
    let done = sqlx::query(
        "UPDATE automatic_pix SET status = $1,
             authorized_journey = COALESCE($2, authorized_journey),
             authorized_at = CASE WHEN $1 = 'authorized' THEN $3 ELSE authorized_at END,
             ended_at = CASE WHEN $4 = 1 THEN $3 ELSE ended_at END,
             ended_by = COALESCE($5, ended_by), end_code = COALESCE($6, end_code),
             end_reason = COALESCE($7, end_reason),
             cancel_requested = CASE WHEN $4 = 1 THEN 0 ELSE cancel_requested END,
             next_attempt_at = CASE WHEN $4 = 1 THEN NULL ELSE next_attempt_at END,
             updated_at = $3
         WHERE organization_id = $8 AND id = $9 AND status <> $1
           AND status IN ('requested', 'awaiting_authorization', 'authorized')",
    )
    .bind(status.as_str())
    .bind(moved.authorized_journey)
    .bind(now)
    .bind(i64::from(final_status))
    .bind(moved.ended_by)
    .bind(moved.end_code)
    .bind(moved.end_reason)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A worker queue: its table (our SQL, never a caller's).
#[derive(Debug, Clone, Copy)]
pub enum Queue {
    Recurrences,
    Charges,
}

impl Queue {
    fn table(self) -> &'static str {
        match self {
            Queue::Recurrences => "automatic_pix",
            Queue::Charges => "automatic_pix_charges",
        }
    }
}

/// Rows of `queue` due at `now`, unclaimed: `(organization, id)`.
pub async fn due(db: &Db, queue: Queue, now: &str, limit: i64) -> Result<Vec<(String, String)>> {
    let sql = format!(
        "SELECT organization_id, id FROM {} WHERE next_attempt_at <= $1
           AND (claimed_until IS NULL OR claimed_until < $1)
         ORDER BY next_attempt_at LIMIT $2",
        queue.table()
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(now)
        .bind(limit)
        .fetch_all(&db.pool)
        .await?)
}

/// Claim a due row until `until`: true when this worker holds it now.
pub async fn claim(
    db: &Db,
    queue: Queue,
    (organization_id, id): (&str, &str),
    token: &str,
    now: &str,
    until: &str,
) -> Result<bool> {
    let sql = format!(
        "UPDATE {} SET claim_token = $1, claimed_until = $2
         WHERE organization_id = $3 AND id = $4 AND next_attempt_at <= $5
           AND (claimed_until IS NULL OR claimed_until < $5)",
        queue.table()
    );
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(token)
        .bind(until)
        .bind(organization_id)
        .bind(id)
        .bind(now)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Release a claim, the row due again at `next` (`None`: not until something makes it due)
/// with the attempt's error (`None` after a success, which resets the count), if `token`
/// still holds it. A row that has ended is never due again.
pub async fn release(
    conn: &mut AnyConnection,
    queue: Queue,
    (organization_id, id): (&str, &str),
    token: &str,
    next: Option<&str>,
    error: Option<&str>,
    now: &str,
) -> Result<bool> {
    let ended = match queue {
        Queue::Recurrences => {
            "status NOT IN ('requested', 'awaiting_authorization', 'authorized') AND cancel_requested = 0"
        }
        Queue::Charges => "status IN ('paid', 'failed', 'canceled')",
    };
    let sql = format!(
        "UPDATE {} SET claim_token = NULL, claimed_until = NULL,
             next_attempt_at = CASE WHEN {ended} THEN NULL ELSE $1 END,
             attempts = CASE WHEN $2 IS NULL THEN 0 ELSE attempts + 1 END, last_error = $2, updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND claim_token = $6",
        queue.table()
    );
    let done = sqlx::query(AssertSqlSafe(sql))
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

crate::stored_words! {
    /// Where an instalment's debit stands: being sent to the PSP (`scheduling`), accepted and
    /// waiting for its date (`scheduled`, BACEN's `ATIVA`), `paid` (`CONCLUIDA`), `failed`
    /// (the debit or the PSP refused it: the instalment falls back to its own Pix code), or
    /// `canceled`.
    pub enum DebitStatus {
        Scheduling = "scheduling",
        Scheduled = "scheduled",
        Paid = "paid",
        Failed = "failed",
        Canceled = "canceled",
    }
}

impl DebitStatus {
    /// The status of BACEN's word for a recurring charge (`CobRStatus`).
    pub fn from_bacen(word: &str) -> Option<DebitStatus> {
        match word {
            "CRIADA" | "ATIVA" => Some(DebitStatus::Scheduled),
            "CONCLUIDA" => Some(DebitStatus::Paid),
            "REJEITADA" | "EXPIRADA" => Some(DebitStatus::Failed),
            "CANCELADA" => Some(DebitStatus::Canceled),
            _ => None,
        }
    }

    pub fn is_final(self) -> bool {
        matches!(
            self,
            DebitStatus::Paid | DebitStatus::Failed | DebitStatus::Canceled
        )
    }
}

crate::row! {
    /// One instalment debited through a recurrence (a `cobr` at the PSP).
    #[derive(Debug, Clone)]
    pub struct Debit {
        pub id: String,
        pub automatic_pix_id: String,
        pub charge_id: String,
        pub txid: String,
        pub due_date: Date,
        pub amount_cents: Cents,
        pub status: DebitStatus,
        pub end_to_end_id: Option<String>,
        pub end_code: Option<String>,
        pub end_reason: Option<String>,
        pub attempts: i64,
        pub last_error: Option<String>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }
}

const DEBIT_COLUMNS: &str =
    "id, automatic_pix_id, charge_id, txid, due_date, amount_cents, status, end_to_end_id,
    end_code, end_reason, attempts, last_error, created_at, updated_at";

/// A debit as first stored: due to be sent now.
#[derive(Debug, Clone)]
pub struct NewDebit<'a> {
    pub id: &'a str,
    pub automatic_pix_id: &'a str,
    pub charge_id: &'a str,
    pub txid: &'a str,
    pub due_date: Date,
    pub amount_cents: Cents,
}

pub async fn insert_debit(
    conn: &mut AnyConnection,
    organization_id: &str,
    new: &NewDebit<'_>,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO automatic_pix_charges (id, organization_id, automatic_pix_id, charge_id, txid, due_date, amount_cents,
             status, attempts, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'scheduling', 0, $8, $8, $8)",
    )
    .bind(new.id)
    .bind(organization_id)
    .bind(new.automatic_pix_id)
    .bind(new.charge_id)
    .bind(new.txid)
    .bind(new.due_date.to_string())
    .bind(new.amount_cents.0)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// The debits of a request, by due date.
pub async fn debits_of(
    conn: &mut AnyConnection,
    organization_id: &str,
    automatic_pix_id: &str,
) -> Result<Vec<Debit>> {
    let sql = format!(
        "SELECT {DEBIT_COLUMNS} FROM automatic_pix_charges WHERE organization_id = $1 AND automatic_pix_id = $2
         ORDER BY due_date, created_at"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(automatic_pix_id)
        .fetch_all(conn)
        .await?)
}

pub async fn debit_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Debit>> {
    let sql = format!(
        "SELECT {DEBIT_COLUMNS} FROM automatic_pix_charges WHERE organization_id = $1 AND id = $2"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

pub async fn debit_by_txid(
    conn: &mut AnyConnection,
    organization_id: &str,
    txid: &str,
) -> Result<Option<Debit>> {
    let sql = format!(
        "SELECT {DEBIT_COLUMNS} FROM automatic_pix_charges WHERE organization_id = $1 AND txid = $2"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(txid)
        .fetch_optional(conn)
        .await?)
}

/// How many debits a charge has had (its next cobr txid's revision).
pub async fn debits_of_charge(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT COUNT(*) FROM automatic_pix_charges WHERE organization_id = $1 AND charge_id = $2",
    )
    .bind(organization_id)
    .bind(charge_id)
    .fetch_one(conn)
    .await?)
}

/// What the PSP reported of a debit.
#[derive(Debug, Clone, Default)]
pub struct DebitMove<'a> {
    pub end_to_end_id: Option<&'a str>,
    pub end_code: Option<&'a str>,
    pub end_reason: Option<&'a str>,
}

/// Move a debit to `status` (from any other not final one); true for the one transaction
/// that moves it.
pub async fn set_debit_status(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    status: DebitStatus,
    moved: &DebitMove<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE automatic_pix_charges SET status = $1, end_to_end_id = COALESCE($2, end_to_end_id),
             end_code = COALESCE($3, end_code), end_reason = COALESCE($4, end_reason), updated_at = $5
         WHERE organization_id = $6 AND id = $7 AND status <> $1 AND status IN ('scheduling', 'scheduled')",
    )
    .bind(status.as_str())
    .bind(moved.end_to_end_id)
    .bind(moved.end_code)
    .bind(moved.end_reason)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The debits of a request not yet final, made due now (the recurrence ended: each is
/// canceled at the PSP or found ended there).
pub async fn make_open_debits_due(
    conn: &mut AnyConnection,
    organization_id: &str,
    automatic_pix_id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE automatic_pix_charges SET next_attempt_at = $1, updated_at = $1
         WHERE organization_id = $2 AND automatic_pix_id = $3 AND status IN ('scheduling', 'scheduled')",
    )
    .bind(now)
    .bind(organization_id)
    .bind(automatic_pix_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Make a debit due now (its last attempt failed: a retry, or its end, is the worker's).
pub async fn make_debit_due(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE automatic_pix_charges SET next_attempt_at = $1, updated_at = $1
         WHERE organization_id = $2 AND id = $3 AND status IN ('scheduling', 'scheduled')",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}
