//! An organization's connection to its PSP's API Pix, the cobv of each of its charges there,
//! and every Pix the PSP reported: rows, and the queries the Pix worker runs across
//! organizations.
//!
//! Secrets are stored sealed (`engine::pix::sealed`: the client secret, the mTLS certificate
//! and key, the secret the callback URL carries); this module only moves their
//! sealed text and never returns it to anything but the engine (`SealedConnection`). The
//! callback's secret is found by its SHA-256 (`webhook_secret_hash`), as tokens are.
//!
//! Work is shared by replicas like every engine queue: a cobv row is due at
//! `next_attempt_at` and claimed with a lease (`claim_token`, `claimed_until`) before the PSP
//! is called, and the outcome is written only where the claim still holds; the connection row
//! is claimed the same way for its upkeep (the webhook registration, the sweep). A Pix is
//! recorded once per `(organization_id, end_to_end_id)`, a unique key.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::rows::{Stored, of_organization};
use super::{Bind, Conditions, Db, ListQuery, Page, PageRequest, Result};
use dunning_domain::timestamp::Timestamp;

/// The sealed secrets of a connection as the API writes them (already sealed).
#[derive(Debug, Clone)]
pub struct NewConnection<'a> {
    pub id: &'a str,
    pub api_url: &'a str,
    pub token_url: &'a str,
    pub client_id: &'a str,
    pub client_secret_sealed: &'a str,
    pub certificate_sealed: &'a str,
    pub private_key_sealed: &'a str,
    pub webhook_secret_sealed: &'a str,
    /// The fingerprint of the key that sealed them.
    pub sealed_with: &'a str,
    /// SHA-256 (hex) of the secret the callback URL carries.
    pub webhook_secret_hash: &'a str,
}

crate::row! {
    /// A connection as the API shows it: no secret, sealed or not.
    #[derive(Debug, Clone)]
    pub struct Connection {
        pub organization_id: String,
        pub id: String,
        pub api_url: String,
        pub token_url: String,
        pub client_id: String,
        /// The Pix key the webhook is registered for; `None` until the PSP took it.
        pub webhook_key: Option<String>,
        pub webhook_registered_at: Option<Timestamp>,
        pub webhook_error: Option<String>,
        pub swept_at: Option<Timestamp>,
        pub sweep_error: Option<String>,
        pub last_test_at: Option<Timestamp>,
        /// What the last `POST /v1/pix/psp/test` found (its JSON answer).
        pub last_test_result: Option<serde_json::Value>,
        /// The organization's account at the PSP (Pix Automático's receiver): branch, number,
        /// type (`checking`, `savings`, `payment`).
        pub account_branch: Option<String>,
        pub account_number: Option<String>,
        pub account_type: Option<String>,
        /// When the webhooks of recurrences and recurring charges were registered.
        pub automatic_webhooks_at: Option<Timestamp>,
        pub automatic_webhooks_error: Option<String>,
        pub configured_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
    }
}

const CONNECTION_COLUMNS: &str = "organization_id, id, api_url, token_url, client_id, webhook_key, webhook_registered_at,
    webhook_error, swept_at, sweep_error, last_test_at, last_test_result, account_branch, account_number, account_type,
    automatic_webhooks_at, automatic_webhooks_error, configured_at, updated_at, version";

crate::row! {
    /// A connection with its sealed secrets and its upkeep state: what the engine reads.
    #[derive(Debug, Clone)]
    pub struct SealedConnection {
        pub organization_id: String,
        pub id: String,
        pub api_url: String,
        pub token_url: String,
        pub client_id: String,
        pub client_secret_sealed: String,
        pub certificate_sealed: String,
        pub private_key_sealed: String,
        pub webhook_secret_sealed: String,
        pub sealed_with: String,
        pub webhook_key: Option<String>,
        pub webhook_attempts: i64,
        pub webhook_next_attempt_at: Option<Timestamp>,
        pub sweep_from: Timestamp,
        pub sweep_next_at: Timestamp,
        /// When the devoluções were last read over the MED's window (`None`: never).
        pub refunds_swept_at: Option<Timestamp>,
        pub charges_seen_at: String,
        pub charges_seen_id: String,
        pub account_branch: Option<String>,
        pub account_number: Option<String>,
        pub account_type: Option<String>,
        pub automatic_webhooks_at: Option<Timestamp>,
        pub configured_at: Timestamp,
    }
}

const SEALED_COLUMNS: &str = "organization_id, id, api_url, token_url, client_id, client_secret_sealed, certificate_sealed,
    private_key_sealed, webhook_secret_sealed, sealed_with, webhook_key, webhook_attempts, webhook_next_attempt_at,
    sweep_from, sweep_next_at, refunds_swept_at, charges_seen_at, charges_seen_id, account_branch, account_number,
    account_type, automatic_webhooks_at, configured_at";

impl Stored for Connection {
    const TABLE: &'static str = "pix_psp_connections";
    const COLUMNS: &'static str = CONNECTION_COLUMNS;
}

/// The organization's connection, without secrets, read outside a transaction as
/// [`Db::of_organization`] reads (`GET /v1/me` asks whether there is one on every call).
pub async fn get(db: &Db, organization_id: &str) -> Result<Option<Connection>> {
    db.of_organization(organization_id).await
}

/// Same as [`get`] inside a transaction.
pub async fn get_in(conn: &mut AnyConnection, organization_id: &str) -> Result<Option<Connection>> {
    of_organization(conn, organization_id).await
}

/// The organization's connection with its sealed secrets (for the engine and the test).
pub async fn sealed(db: &Db, organization_id: &str) -> Result<Option<SealedConnection>> {
    let sql =
        format!("SELECT {SEALED_COLUMNS} FROM pix_psp_connections WHERE organization_id = $1");
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .fetch_optional(&db.pool)
        .await?)
}

/// Set the organization's connection, or replace the one it has: new secrets, a new callback
/// secret, the webhook to be registered again at once. A replaced connection keeps its cobvs
/// (the engine revises them with the new credentials), its sweep window and its place in the
/// charges; a new one starts its sweep at `now` and looks at every charge.
pub async fn upsert(
    conn: &mut AnyConnection,
    organization_id: &str,
    new: &NewConnection<'_>,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO pix_psp_connections (organization_id, id, api_url, token_url, client_id, client_secret_sealed,
             certificate_sealed, private_key_sealed, webhook_secret_sealed, sealed_with, webhook_secret_hash,
             webhook_attempts, webhook_next_attempt_at, sweep_from, sweep_next_at, charges_seen_at, charges_seen_id,
             version, configured_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $12, $12, $12, '', '', 1, $12, $12)
         ON CONFLICT (organization_id) DO UPDATE SET api_url = excluded.api_url, token_url = excluded.token_url,
             client_id = excluded.client_id, client_secret_sealed = excluded.client_secret_sealed,
             certificate_sealed = excluded.certificate_sealed, private_key_sealed = excluded.private_key_sealed,
             webhook_secret_sealed = excluded.webhook_secret_sealed, sealed_with = excluded.sealed_with,
             webhook_secret_hash = excluded.webhook_secret_hash, webhook_key = NULL, webhook_registered_at = NULL,
             webhook_error = NULL, webhook_attempts = 0, webhook_next_attempt_at = excluded.configured_at,
             sweep_next_at = excluded.configured_at, last_test_at = NULL, last_test_result = NULL,
             automatic_webhooks_at = NULL, automatic_webhooks_error = NULL,
             version = pix_psp_connections.version + 1, configured_at = excluded.configured_at,
             updated_at = excluded.updated_at",
    )
    .bind(organization_id)
    .bind(new.id)
    .bind(new.api_url)
    .bind(new.token_url)
    .bind(new.client_id)
    .bind(new.client_secret_sealed)
    .bind(new.certificate_sealed)
    .bind(new.private_key_sealed)
    .bind(new.webhook_secret_sealed)
    .bind(new.sealed_with)
    .bind(new.webhook_secret_hash)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// An organization's account at its PSP: what Pix Automático debits into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account<'a> {
    pub branch: Option<&'a str>,
    pub number: &'a str,
    /// `checking`, `savings` or `payment`.
    pub kind: &'a str,
}

/// The organization's account at the PSP, for Pix Automático (`None`: none, which ends it
/// for new requests).
pub async fn set_account(
    conn: &mut AnyConnection,
    organization_id: &str,
    account: Option<Account<'_>>,
    now: &str,
) -> Result<()> {
    let (branch, number, kind) = match account {
        Some(a) => (a.branch, Some(a.number), Some(a.kind)),
        None => (None, None, None),
    };
    sqlx::query(
        "UPDATE pix_psp_connections SET account_branch = $1, account_number = $2, account_type = $3, updated_at = $4
         WHERE organization_id = $5",
    )
    .bind(branch)
    .bind(number)
    .bind(kind)
    .bind(now)
    .bind(organization_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// What registering the webhooks of recurrences and recurring charges came to: registered
/// at `now`, or the error (tried again at the next upkeep).
pub async fn automatic_webhooks(
    db: &Db,
    organization_id: &str,
    outcome: std::result::Result<(), &str>,
    now: &str,
) -> Result<()> {
    let (at, error) = match outcome {
        Ok(()) => (Some(now), None),
        Err(error) => (None, Some(error)),
    };
    sqlx::query(
        "UPDATE pix_psp_connections SET automatic_webhooks_at = $1, automatic_webhooks_error = $2
         WHERE organization_id = $3",
    )
    .bind(at)
    .bind(error)
    .bind(organization_id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Remove the organization's connection and its cobv rows; its charges show the static code
/// again (their dynamic codes are cleared). False when there was none. The cobvs at the PSP
/// stay as they are: without the connection nothing can reach them.
pub async fn delete(conn: &mut AnyConnection, organization_id: &str) -> Result<bool> {
    sqlx::query(
        "UPDATE charges SET pix_payload = NULL, pix_location = NULL
         WHERE organization_id = $1 AND pix_location IS NOT NULL",
    )
    .bind(organization_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM pix_cobv WHERE organization_id = $1")
        .bind(organization_id)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query("DELETE FROM pix_psp_connections WHERE organization_id = $1")
        .bind(organization_id)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// The organization whose callback secret hashes to `hash`, and the hash as stored (for
/// the caller's constant-time comparison).
pub async fn by_webhook_secret_hash(db: &Db, hash: &str) -> Result<Option<(String, String)>> {
    let found: Option<(String, String)> = sqlx::query_as(
        "SELECT organization_id, webhook_secret_hash FROM pix_psp_connections WHERE webhook_secret_hash = $1",
    )
    .bind(hash)
    .fetch_optional(&db.pool)
    .await?;
    Ok(found)
}

/// Keep what a test of the connection found.
pub async fn record_test(
    conn: &mut AnyConnection,
    organization_id: &str,
    result: &serde_json::Value,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_psp_connections SET last_test_at = $1, last_test_result = $2, version = version + 1, updated_at = $1
         WHERE organization_id = $3",
    )
    .bind(now)
    .bind(result.to_string())
    .bind(organization_id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The organization's Pix key (its `pix_settings`), which cobvs and the webhook name.
pub async fn pix_key(db: &Db, organization_id: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT key FROM pix_settings WHERE organization_id = $1")
            .bind(organization_id)
            .fetch_optional(&db.pool)
            .await?,
    )
}

// --- The connection's upkeep: webhook registration, the sweep, the look at changed charges ---

/// Organizations whose connection has upkeep due at `now` and unclaimed: a webhook to
/// register, or a sweep.
pub async fn due_upkeep(db: &Db, now: &str, limit: i64) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT organization_id FROM pix_psp_connections
         WHERE (claimed_until IS NULL OR claimed_until < $1)
           AND (webhook_next_attempt_at <= $1 OR sweep_next_at <= $1)
         ORDER BY organization_id LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Every organization with a connection (the look at changed charges runs for each).
pub async fn connected_organizations(db: &Db) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT organization_id FROM pix_psp_connections ORDER BY organization_id",
    )
    .fetch_all(&db.pool)
    .await?)
}

/// Claim the connection's upkeep until `until`; its state as claimed, or `None` when another
/// worker holds it (or it is gone).
pub async fn claim_upkeep(
    db: &Db,
    organization_id: &str,
    token: &str,
    now: &str,
    until: &str,
) -> Result<Option<SealedConnection>> {
    let done = sqlx::query(
        "UPDATE pix_psp_connections SET claim_token = $1, claimed_until = $2
         WHERE organization_id = $3 AND (claimed_until IS NULL OR claimed_until < $4)",
    )
    .bind(token)
    .bind(until)
    .bind(organization_id)
    .bind(now)
    .execute(&db.pool)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    sealed(db, organization_id).await
}

/// How one upkeep ended, written with the claim released.
#[derive(Debug, Clone, Default)]
pub struct Upkeep {
    /// The webhook is registered for this key now.
    pub webhook_registered: Option<String>,
    /// The registration failed: why, and when to try again.
    pub webhook_failed: Option<(String, String)>,
    /// A sweep ran: the next window's start, when the next one is due, and its error.
    pub swept: Option<(String, String, Option<String>)>,
    /// The devoluções were read over the MED's window, without error.
    pub refunds_swept: bool,
}

/// Write `upkeep` and release the claim, inside the caller's transaction (with the events
/// of what changed), if `token` still holds it.
pub async fn finish_upkeep(
    tx: &mut AnyConnection,
    organization_id: &str,
    token: &str,
    upkeep: &Upkeep,
    now: &str,
) -> Result<bool> {
    let held = |sql: &'static str| sqlx::query(sql).bind(organization_id).bind(token);
    if let Some(key) = &upkeep.webhook_registered {
        held(
            "UPDATE pix_psp_connections SET webhook_key = $3, webhook_registered_at = $4, webhook_error = NULL,
                 webhook_attempts = 0, webhook_next_attempt_at = NULL, updated_at = $4
             WHERE organization_id = $1 AND claim_token = $2",
        )
        .bind(key)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    if let Some((error, next)) = &upkeep.webhook_failed {
        held(
            "UPDATE pix_psp_connections SET webhook_error = $3, webhook_attempts = webhook_attempts + 1,
                 webhook_next_attempt_at = $4, updated_at = $5
             WHERE organization_id = $1 AND claim_token = $2",
        )
        .bind(error)
        .bind(next)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    if let Some((from, next, error)) = &upkeep.swept {
        held(
            "UPDATE pix_psp_connections SET sweep_from = $3, sweep_next_at = $4, sweep_error = $5,
                 swept_at = CASE WHEN $5 IS NULL THEN $6 ELSE swept_at END, updated_at = $6
             WHERE organization_id = $1 AND claim_token = $2",
        )
        .bind(from)
        .bind(next)
        .bind(error.as_deref())
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    if upkeep.refunds_swept {
        held(
            "UPDATE pix_psp_connections SET refunds_swept_at = $3
             WHERE organization_id = $1 AND claim_token = $2",
        )
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    let released = held(
        "UPDATE pix_psp_connections SET claim_token = NULL, claimed_until = NULL
         WHERE organization_id = $1 AND claim_token = $2",
    )
    .execute(&mut *tx)
    .await?;
    Ok(released.rows_affected() == 1)
}

/// The organization's charges changed after `(at, id)` and no later than `settled` (a write
/// stamped before `settled` has committed by now), in the order they changed, at most
/// `limit`: `(id, state, updated_at)`.
pub async fn changed_charges(
    db: &Db,
    organization_id: &str,
    (at, id): (&str, &str),
    settled: &str,
    limit: i64,
) -> Result<Vec<(String, String, String)>> {
    Ok(sqlx::query_as(
        "SELECT id, state, updated_at FROM charges
         WHERE organization_id = $1 AND (updated_at > $2 OR (updated_at = $2 AND id > $3)) AND updated_at <= $4
         ORDER BY updated_at, id LIMIT $5",
    )
    .bind(organization_id)
    .bind(at)
    .bind(id)
    .bind(settled)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Move the connection's place in its charges forward (only forward: two replicas may look).
pub async fn charges_seen(db: &Db, organization_id: &str, (at, id): (&str, &str)) -> Result<()> {
    sqlx::query(
        "UPDATE pix_psp_connections SET charges_seen_at = $1, charges_seen_id = $2
         WHERE organization_id = $3 AND (charges_seen_at < $1 OR (charges_seen_at = $1 AND charges_seen_id < $2))",
    )
    .bind(at)
    .bind(id)
    .bind(organization_id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// The organization's open charges that have no cobv row yet, at most `limit` (the full look
/// the sweep makes, for whatever the look at changed charges missed).
pub async fn open_charges_without_cobv(
    db: &Db,
    organization_id: &str,
    limit: i64,
) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT c.id FROM charges c
         WHERE c.organization_id = $1 AND c.state = 'open'
           AND NOT EXISTS (SELECT 1 FROM pix_cobv v WHERE v.organization_id = c.organization_id AND v.charge_id = c.id)
         ORDER BY c.id LIMIT $2",
    )
    .bind(organization_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Make the cobv rows of the organization's charges (or of one charge) that changed since
/// they were mirrored due at `now`, unless they wait out a failure; how many.
pub async fn stale_cobv_due(
    db: &Db,
    organization_id: &str,
    charge_id: Option<&str>,
    now: &str,
) -> Result<u64> {
    let one = if charge_id.is_some() {
        "AND charge_id = $3"
    } else {
        ""
    };
    let sql = format!(
        "UPDATE pix_cobv SET next_attempt_at = $1
         WHERE organization_id = $2 {one} AND attempts = 0 AND (next_attempt_at IS NULL OR next_attempt_at > $1)
           AND (synced_version IS NULL
                OR synced_version <> (SELECT c.version FROM charges c WHERE c.organization_id = pix_cobv.organization_id AND c.id = pix_cobv.charge_id))"
    );
    let mut query = sqlx::query(AssertSqlSafe(sql))
        .bind(now)
        .bind(organization_id);
    if let Some(charge_id) = charge_id {
        query = query.bind(charge_id);
    }
    Ok(query.execute(&db.pool).await?.rows_affected())
}

// --- cobv rows ---

crate::row! {
    /// A charge's cobv as the engine keeps it.
    #[derive(Debug, Clone)]
    pub struct Cobv {
        pub organization_id: String,
        pub charge_id: String,
        pub txid: String,
        pub txid_revision: i64,
        /// BACEN's `status` of the cobv (`ATIVA`, `CONCLUIDA`, `REMOVIDA_PELO_USUARIO_RECEBEDOR`,
        /// `REMOVIDA_PELO_PSP`); `None` before the PSP created it.
        pub psp_status: Option<String>,
        pub psp_revision: Option<i64>,
        pub location: Option<String>,
        pub synced_version: Option<i64>,
        pub attempts: i64,
        pub last_error: Option<String>,
        pub next_attempt_at: Option<Timestamp>,
    }
}

const COBV_COLUMNS: &str =
    "organization_id, charge_id, txid, txid_revision, psp_status, psp_revision, location,
    synced_version, attempts, last_error, next_attempt_at";

/// A cobv row for an open charge that has none, due at once (nothing when it has one).
pub async fn ensure_cobv(
    db: &Db,
    organization_id: &str,
    charge_id: &str,
    txid: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO pix_cobv (organization_id, charge_id, txid, txid_revision, attempts, next_attempt_at, created_at, updated_at)
         SELECT $1, $2, $3, 0, 0, $4, $4, $4 FROM charges
         WHERE organization_id = $1 AND id = $2 AND state = 'open'
         ON CONFLICT (organization_id, charge_id) DO NOTHING",
    )
    .bind(organization_id)
    .bind(charge_id)
    .bind(txid)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The charge's cobv row.
pub async fn cobv(db: &Db, organization_id: &str, charge_id: &str) -> Result<Option<Cobv>> {
    let sql = format!(
        "SELECT {COBV_COLUMNS} FROM pix_cobv WHERE organization_id = $1 AND charge_id = $2"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(charge_id)
        .fetch_optional(&db.pool)
        .await?)
}

/// Cobv rows due at `now` and unclaimed, oldest first: `(organization, charge)`.
pub async fn due_cobv(db: &Db, now: &str, limit: i64) -> Result<Vec<(String, String)>> {
    Ok(sqlx::query_as(
        "SELECT organization_id, charge_id FROM pix_cobv
         WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)
         ORDER BY next_attempt_at LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Claim a due cobv row until `until`; the row as claimed, or `None` when another worker
/// holds it or it is not due any more.
pub async fn claim_cobv(
    db: &Db,
    (organization_id, charge_id): (&str, &str),
    token: &str,
    now: &str,
    until: &str,
) -> Result<Option<Cobv>> {
    let done = sqlx::query(
        "UPDATE pix_cobv SET claim_token = $1, claimed_until = $2
         WHERE organization_id = $3 AND charge_id = $4 AND next_attempt_at <= $5
           AND (claimed_until IS NULL OR claimed_until < $5)",
    )
    .bind(token)
    .bind(until)
    .bind(organization_id)
    .bind(charge_id)
    .bind(now)
    .execute(&db.pool)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    cobv(db, organization_id, charge_id).await
}

/// What the PSP's answer left a cobv as.
#[derive(Debug, Clone)]
pub struct Mirrored<'a> {
    pub txid: &'a str,
    pub txid_revision: i64,
    pub psp_status: Option<&'a str>,
    pub psp_revision: Option<i64>,
    pub location: Option<&'a str>,
    /// The charge version the cobv now mirrors.
    pub synced_version: i64,
    /// The last day it can be paid (`None` when it cannot be paid at all).
    pub valid_until: Option<&'a str>,
    /// When to look again without a change of the charge (the day after `valid_until`).
    pub next_attempt_at: Option<&'a str>,
}

/// Record a cobv's new state and release the claim, if `token` still holds it; false when
/// the claim was lost (its outcome is then dropped: the next holder does the work again).
pub async fn cobv_mirrored(
    conn: &mut AnyConnection,
    (organization_id, charge_id): (&str, &str),
    token: &str,
    m: &Mirrored<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_cobv SET txid = $1, txid_revision = $2, psp_status = $3, psp_revision = $4, location = $5,
             synced_version = $6, valid_until = $7, next_attempt_at = $8, attempts = 0, last_error = NULL,
             claim_token = NULL, claimed_until = NULL, updated_at = $9
         WHERE organization_id = $10 AND charge_id = $11 AND claim_token = $12",
    )
    .bind(m.txid)
    .bind(m.txid_revision)
    .bind(m.psp_status)
    .bind(m.psp_revision)
    .bind(m.location)
    .bind(m.synced_version)
    .bind(m.valid_until)
    .bind(m.next_attempt_at)
    .bind(now)
    .bind(organization_id)
    .bind(charge_id)
    .bind(token)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Record a failed attempt (why, in words for the tenant) and release the claim: the row is
/// due again at `next`.
pub async fn cobv_failed(
    db: &Db,
    (organization_id, charge_id): (&str, &str),
    token: &str,
    error: &str,
    next: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_cobv SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2,
             claim_token = NULL, claimed_until = NULL, updated_at = $3
         WHERE organization_id = $4 AND charge_id = $5 AND claim_token = $6",
    )
    .bind(error)
    .bind(next)
    .bind(now)
    .bind(organization_id)
    .bind(charge_id)
    .bind(token)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A Pix paid the charge's cobv `txid`: the PSP has concluded it, so it takes no second
/// payment and is no code to show; the row is due, for a new cobv if the charge stays open.
/// Nothing when `txid` is not the charge's current cobv.
pub async fn cobv_paid(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    txid: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE pix_cobv SET psp_status = 'CONCLUIDA', synced_version = NULL, next_attempt_at = $1, attempts = 0,
             last_error = NULL, updated_at = $1
         WHERE organization_id = $2 AND charge_id = $3 AND txid = $4",
    )
    .bind(now)
    .bind(organization_id)
    .bind(charge_id)
    .bind(txid)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 1 {
        set_charge_code(conn, organization_id, charge_id, None, None).await?;
    }
    Ok(done.rows_affected() == 1)
}

/// The charge's dynamic code (`pixCopiaECola`) and its location, or none (the static code is
/// shown while the charge is open). The charge's version does not move: the code follows the
/// charge, it is not a change of it.
pub async fn set_charge_code(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    payload: Option<&str>,
    location: Option<&str>,
) -> Result<()> {
    sqlx::query(
        "UPDATE charges SET pix_payload = $1, pix_location = $2 WHERE organization_id = $3 AND id = $4",
    )
    .bind(payload)
    .bind(location)
    .bind(organization_id)
    .bind(charge_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The charge's dynamic code and location, as stored.
pub async fn charge_code(
    db: &Db,
    organization_id: &str,
    charge_id: &str,
) -> Result<(Option<String>, Option<String>)> {
    let found: Option<(Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT pix_payload, pix_location FROM charges WHERE organization_id = $1 AND id = $2",
    )
    .bind(organization_id)
    .bind(charge_id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(found.unwrap_or_default())
}

// --- Pix received ---

crate::stored_words! {
    /// What became of a Pix received: a payment on its charge, kept for a person to look, or
    /// (one that was kept) given back whole to its payer.
    pub enum ReceivedStatus {
        Applied = "applied",
        Review = "review",
        Refunded = "refunded",
    }
}

/// Statuses as the API names them.
pub const RECEIVED_STATUSES: &[&str] = ReceivedStatus::ALL;

crate::row! {
    /// A Pix the PSP reported; `api::pix_psp` shows it.
    #[derive(Debug, Clone)]
    pub struct Received {
        pub id: String,
        pub end_to_end_id: String,
        pub txid: Option<String>,
        pub amount_cents: dunning_domain::money::Cents,
        pub paid_at: Timestamp,
        pub payer_info: Option<String>,
        pub payer_name: Option<String>,
        pub payer_document: Option<String>,
        pub charge_id: Option<String>,
        pub payment_id: Option<String>,
        pub status: ReceivedStatus,
        /// Why it waits for review (a stable code).
        pub reason: Option<String>,
        /// The same in a sentence.
        pub detail: Option<String>,
        /// `webhook` or `sweep`: how it reached us first.
        pub source: String,
        pub received_at: Timestamp,
    }
}

const RECEIVED_COLUMNS: &str =
    "id, end_to_end_id, txid, amount_cents, paid_at, payer_info, payer_name, payer_document,
    charge_id, payment_id, status, reason, detail, source, received_at";

/// A Pix as it is recorded.
#[derive(Debug, Clone)]
pub struct NewReceived<'a> {
    pub id: &'a str,
    pub end_to_end_id: &'a str,
    pub txid: Option<&'a str>,
    pub amount_cents: i64,
    pub paid_at: &'a str,
    pub payer_info: Option<&'a str>,
    pub payer_name: Option<&'a str>,
    pub payer_document: Option<&'a str>,
    pub charge_id: Option<&'a str>,
    pub payment_id: Option<&'a str>,
    pub status: ReceivedStatus,
    pub reason: Option<&'a str>,
    pub detail: Option<&'a str>,
    pub source: &'a str,
    /// The item as the PSP sent it.
    pub raw: &'a str,
}

/// Whether the organization has recorded this Pix already.
pub async fn received_before(
    conn: &mut AnyConnection,
    organization_id: &str,
    end_to_end_id: &str,
) -> Result<bool> {
    let found: Option<String> = sqlx::query_scalar(
        "SELECT id FROM pix_received WHERE organization_id = $1 AND end_to_end_id = $2",
    )
    .bind(organization_id)
    .bind(end_to_end_id)
    .fetch_optional(conn)
    .await?;
    Ok(found.is_some())
}

/// Record a Pix; false when the organization has it already (the unique key decides between
/// a callback and a sweep that race).
pub async fn insert_received(
    conn: &mut AnyConnection,
    organization_id: &str,
    r: &NewReceived<'_>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO pix_received (id, organization_id, end_to_end_id, txid, amount_cents, paid_at, payer_info, payer_name,
             payer_document, charge_id, payment_id, status, reason, detail, source, raw, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT (organization_id, end_to_end_id) DO NOTHING",
    )
    .bind(r.id)
    .bind(organization_id)
    .bind(r.end_to_end_id)
    .bind(r.txid)
    .bind(r.amount_cents)
    .bind(r.paid_at)
    .bind(r.payer_info)
    .bind(r.payer_name)
    .bind(r.payer_document)
    .bind(r.charge_id)
    .bind(r.payment_id)
    .bind(r.status.as_str())
    .bind(r.reason)
    .bind(r.detail)
    .bind(r.source)
    .bind(r.raw)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A recorded Pix by id.
pub async fn received_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Received>> {
    let sql = format!(
        "SELECT {RECEIVED_COLUMNS} FROM pix_received WHERE organization_id = $1 AND id = $2"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// A recorded Pix by its `endToEndId`.
pub async fn received_by_end_to_end(
    conn: &mut AnyConnection,
    organization_id: &str,
    end_to_end_id: &str,
) -> Result<Option<Received>> {
    let sql = format!(
        "SELECT {RECEIVED_COLUMNS} FROM pix_received WHERE organization_id = $1 AND end_to_end_id = $2"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(end_to_end_id)
        .fetch_optional(conn)
        .await?)
}

/// A recorded Pix's new status (a Pix kept for review given back whole is `refunded`).
pub async fn set_received_status(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    status: ReceivedStatus,
) -> Result<()> {
    sqlx::query("UPDATE pix_received SET status = $1 WHERE organization_id = $2 AND id = $3")
        .bind(status.as_str())
        .bind(organization_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Newest first, optionally of one status.
pub async fn list_received(
    db: &Db,
    organization_id: &str,
    status: Option<ReceivedStatus>,
    page: PageRequest,
) -> Result<Page<Received>> {
    received_query(organization_id, status)
        .fetch_rows(db, page)
        .await
}

/// The query behind [`list_received`].
pub fn received_query(organization_id: &str, status: Option<ReceivedStatus>) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    if let Some(status) = status {
        c.push("status = {}", Bind::Text(status.as_str().to_string()));
    }
    ListQuery::new(
        c,
        RECEIVED_COLUMNS,
        "FROM pix_received",
        "received_at DESC, id DESC",
    )
}
