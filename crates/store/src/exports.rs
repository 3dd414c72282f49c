//! Exports: CSV files built in the background from a list and its filters, stored in the
//! database so that any replica can serve the download: in pieces (`export_chunks`, about
//! `--export-piece-kib` of whole records each, numbered from 0, each knowing where it starts
//! in the file), written as the file is built, so neither the builder nor a download holds more than one
//! piece whatever the size of the file.
//!
//! Status goes `pending` → `running` (claimed by a worker until a lease runs out, so a worker
//! that died mid-build is replaced) → `completed` or `failed`. While it runs, `rows_done` and
//! `rows_total` say how far it is. A builder writes only under its claim token: it deletes
//! the pieces of an earlier builder when it begins, and each piece goes in with a check that
//! the claim is still its own (which also extends the lease), so a file is never a mix of
//! two builders' pieces.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{AnyConnection, AssertSqlSafe};

use super::charges::ChargeFilter;
use super::customers::CustomerFilter;
use super::deliveries::DeliveryFilter;
use super::rows::{self, Column, Stored, by_id};
use super::{Db, Result, StoreError};
use dunning_domain::timestamp::Timestamp;

/// What an export lists: the filter of the list of its kind, checked by the API when the
/// export is created and stored beside the client's own `filters` (column `filter`, JSON), so
/// the worker building the file reads it back as it was checked.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", content = "filter", rename_all = "snake_case")]
pub enum ExportFilter {
    Charges(ChargeFilter),
    Customers(CustomerFilter),
    Deliveries(DeliveryFilter),
}

/// Kinds of export, as the API names them.
pub const KINDS: &[&str] = &["charges", "customers", "deliveries"];

crate::stored_words! {
    /// Where an export stands: waiting for a worker, being built, or done one way or the other.
    pub enum ExportStatus {
        Pending = "pending",
        Running = "running",
        Completed = "completed",
        Failed = "failed",
    }
}

crate::row! {
    /// An export as stored (without its content); `api::exports` shows it.
    #[derive(Debug, Clone)]
    pub struct Export {
        pub id: String,
        pub kind: String,
        pub filters: Value,
        pub status: ExportStatus,
        pub row_count: Option<i64>,
        pub byte_size: Option<i64>,
        /// Records written so far, and records that matched when the build began (`None`
        /// before a builder counted them).
        pub rows_done: Option<i64>,
        pub rows_total: Option<i64>,
        pub error: Option<String>,
        pub created_at: Timestamp,
        pub completed_at: Option<Timestamp>,
        pub version: i64,
    }
}

impl Stored for Export {
    const TABLE: &'static str = "exports";
    const COLUMNS: &'static str = "id, kind, filters, status, row_count, byte_size, rows_done, rows_total, error, created_at, completed_at, version";
}

/// The checked filter is stored as JSON.
impl Column for ExportFilter {
    fn read<R: rows::Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        rows::json(row, column)
    }
}

pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    kind: &str,
    filters: &Value,
    filter: &ExportFilter,
    now: &str,
) -> Result<()> {
    let filter = serde_json::to_string(filter)
        .map_err(|e| StoreError::Corrupt(format!("exports.filter: {e}")))?;
    sqlx::query(
        "INSERT INTO exports (id, organization_id, kind, filters, filter, status, row_count, byte_size, error,
             claim_token, claimed_until, version, created_at, started_at, completed_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', NULL, NULL, NULL, NULL, NULL, 1, $6, NULL, NULL, $6)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(kind)
    .bind(filters.to_string())
    .bind(filter)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Export>> {
    let mut conn = db.pool.acquire().await?;
    get_in(&mut conn, organization_id, id).await
}

/// Same as [`get`] on a given connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Export>> {
    by_id(conn, organization_id, id).await
}

/// A piece of an export's file: where it starts in the file (bytes) and its text.
#[derive(Debug)]
pub struct Chunk {
    pub byte_offset: i64,
    pub content: String,
}

/// The number of the piece of export `id`'s file that holds byte `byte` (its last piece
/// starting at or before it); `None` when the file has no piece there.
pub async fn chunk_holding(
    db: &Db,
    organization_id: &str,
    id: &str,
    byte: i64,
) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT seq FROM export_chunks WHERE organization_id = $1 AND export_id = $2 AND byte_offset <= $3
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(organization_id)
    .bind(id)
    .bind(byte)
    .fetch_optional(&db.pool)
    .await?)
}

/// Piece `seq` of export `id`'s file, if there is one.
pub async fn chunk(db: &Db, organization_id: &str, id: &str, seq: i64) -> Result<Option<Chunk>> {
    let row: Option<(i64, String)> = sqlx::query_as(
        "SELECT byte_offset, content FROM export_chunks WHERE organization_id = $1 AND export_id = $2 AND seq = $3",
    )
    .bind(organization_id)
    .bind(id)
    .bind(seq)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(|(byte_offset, content)| Chunk {
        byte_offset,
        content,
    }))
}

/// Worker query (all organizations): exports to build, oldest first.
pub async fn due(db: &Db, now: &str, limit: i64) -> Result<Vec<String>> {
    let sql = format!(
        "SELECT id FROM exports
         WHERE status = 'pending' OR (status = 'running' AND claimed_until < $1)
         ORDER BY created_at, id LIMIT {limit}"
    );
    Ok(sqlx::query_scalar(AssertSqlSafe(sql))
        .bind(now)
        .fetch_all(&db.pool)
        .await?)
}

crate::row! {
    /// An export this process builds.
    #[derive(Debug)]
    pub struct Claimed {
        pub id: String,
        pub organization_id: String,
        pub kind: String,
        /// `None` for an export created before the checked filter was stored (migration 11).
        pub filter: Option<ExportFilter>,
        pub claim_token: String,
    }
}

/// Take an export to build until `lease_until`; `None` when another process has it.
pub async fn claim(
    db: &Db,
    id: &str,
    now: &str,
    lease_until: &str,
    token: &str,
) -> Result<Option<Claimed>> {
    let done = sqlx::query(
        "UPDATE exports SET status = 'running', claim_token = $1, claimed_until = $2, started_at = $3,
             rows_done = NULL, rows_total = NULL, version = version + 1, updated_at = $3
         WHERE id = $4 AND (status = 'pending' OR (status = 'running' AND claimed_until < $3))",
    )
    .bind(token)
    .bind(lease_until)
    .bind(now)
    .bind(id)
    .execute(&db.pool)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    Ok(sqlx::query_as(
        "SELECT id, organization_id, kind, filter, claim_token FROM exports WHERE id = $1 AND claim_token = $2",
    )
    .bind(id)
    .bind(token)
    .fetch_optional(&db.pool)
    .await?)
}

/// Begin (or begin again) the file of a claimed export: the pieces an earlier builder wrote
/// are deleted, and the progress is 0 of `rows_total`, the lease extended to `lease_until`.
/// False when the claim was lost. The claim is checked (and the export's row locked) before
/// the delete, in one transaction: a builder that lost its claim can no longer add a piece.
pub async fn begin_file(
    db: &Db,
    claimed: &Claimed,
    rows_total: i64,
    lease_until: &str,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    if !hold(&mut tx, claimed, 0, Some(rows_total), lease_until).await? {
        return Ok(false);
    }
    delete_pieces(&mut tx, claimed).await?;
    tx.commit().await?;
    Ok(true)
}

/// Whether the claim still holds, checked by writing the progress (`rows_total` when given)
/// and the lease under the claim token: the export's row stays locked by the transaction
/// until it ends, so no other builder's claim can come between the check and what follows.
async fn hold(
    tx: &mut AnyConnection,
    claimed: &Claimed,
    rows_done: i64,
    rows_total: Option<i64>,
    lease_until: &str,
) -> Result<bool> {
    let held = sqlx::query(
        "UPDATE exports SET rows_done = $1, rows_total = COALESCE($2, rows_total), claimed_until = $3
         WHERE organization_id = $4 AND id = $5 AND claim_token = $6",
    )
    .bind(rows_done)
    .bind(rows_total)
    .bind(lease_until)
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.claim_token)
    .execute(tx)
    .await?;
    Ok(held.rows_affected() == 1)
}

/// A piece of the file a builder has written, to be stored.
#[derive(Debug)]
pub struct NewChunk {
    pub seq: i64,
    pub byte_offset: i64,
    /// Owned: bound as it is, where a borrowed text would be copied by the driver.
    pub content: String,
    /// Records in the file once this piece is in (the progress shown).
    pub rows_done: i64,
}

/// Store a piece of a claimed export's file, its progress and a lease extended to
/// `lease_until`, in one transaction that first checks the claim (locking the export's row):
/// false, and nothing stored, when the claim was lost.
pub async fn write_chunk(
    db: &Db,
    claimed: &Claimed,
    chunk: NewChunk,
    lease_until: &str,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    if !hold(&mut tx, claimed, chunk.rows_done, None, lease_until).await? {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO export_chunks (organization_id, export_id, seq, byte_offset, byte_size, content)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(chunk.seq)
    .bind(chunk.byte_offset)
    .bind(i64::try_from(chunk.content.len()).unwrap_or(i64::MAX))
    .bind(chunk.content)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// Mark the file of a claimed export, all of whose pieces are stored, as completed. False
/// when the claim was lost.
pub async fn complete(
    conn: &mut AnyConnection,
    claimed: &Claimed,
    row_count: i64,
    byte_size: i64,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE exports SET status = 'completed', row_count = $1, byte_size = $2, rows_done = $1, rows_total = $1,
             error = NULL, claim_token = NULL, claimed_until = NULL, completed_at = $3, version = version + 1,
             updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND claim_token = $6",
    )
    .bind(row_count)
    .bind(byte_size)
    .bind(now)
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.claim_token)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Put a claimed export back in the queue, pending, its progress cleared (its pieces are
/// deleted by the builder that begins it next). False when the claim was lost.
pub async fn give_back(db: &Db, claimed: &Claimed) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE exports SET status = 'pending', claim_token = NULL, claimed_until = NULL,
             rows_done = NULL, rows_total = NULL, version = version + 1
         WHERE organization_id = $1 AND id = $2 AND claim_token = $3",
    )
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.claim_token)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Mark a claimed export as failed with a message for the client, its pieces deleted. False
/// when the claim was lost.
pub async fn fail(
    conn: &mut AnyConnection,
    claimed: &Claimed,
    error: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE exports SET status = 'failed', error = $1, claim_token = NULL, claimed_until = NULL,
             completed_at = $2, version = version + 1, updated_at = $2
         WHERE organization_id = $3 AND id = $4 AND claim_token = $5",
    )
    .bind(error)
    .bind(now)
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.claim_token)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    // The pieces of a file that will never be whole are of no use to anyone.
    delete_pieces(conn, claimed).await?;
    Ok(true)
}

/// Delete every stored piece of a claimed export's file.
async fn delete_pieces(conn: &mut AnyConnection, claimed: &Claimed) -> Result<()> {
    sqlx::query("DELETE FROM export_chunks WHERE organization_id = $1 AND export_id = $2")
        .bind(&claimed.organization_id)
        .bind(&claimed.id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Export ids starting with `prefix`, newest first, at most `limit`, and how many match.
pub async fn complete_ids(
    db: &Db,
    organization_id: &str,
    prefix: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let pattern = format!("{}%", super::like_escape(prefix));
    let total: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM exports WHERE organization_id = $1 AND id LIKE $2 ESCAPE '\\'",
    )
    .bind(organization_id)
    .bind(&pattern)
    .fetch_one(&db.pool)
    .await?;
    let sql = format!(
        "SELECT id FROM exports WHERE organization_id = $1 AND id LIKE $2 ESCAPE '\\'
         ORDER BY created_at DESC, id LIMIT {limit}"
    );
    let ids: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(&pattern)
        .fetch_all(&db.pool)
        .await?;
    Ok((ids, total))
}

/// Name and document of the customers `ids` of an organization, by id (to label one page
/// of rows: an organization's every customer would be held for the whole build).
pub async fn customer_labels(
    db: &Db,
    organization_id: &str,
    ids: &[&str],
) -> Result<std::collections::HashMap<String, (String, String)>> {
    let mut labels = std::collections::HashMap::with_capacity(ids.len());
    // At most this many ids per statement: far below either engine's limit of parameters.
    for some in ids.chunks(500) {
        let placeholders = (2..some.len() + 2)
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT id, name, document FROM customers WHERE organization_id = $1 AND id IN ({placeholders})"
        );
        // Not kept prepared: the text changes with the number of ids, and each text kept would
        // stay in every connection's statement cache (up to 100 each): a million-row export
        // grew the server by ~20 MiB that way.
        let mut query = sqlx::query_as(AssertSqlSafe(sql))
            .persistent(false)
            .bind(organization_id);
        for id in some {
            query = query.bind(*id);
        }
        let rows: Vec<(String, String, String)> = query.fetch_all(&db.pool).await?;
        labels.extend(
            rows.into_iter()
                .map(|(id, name, document)| (id, (name, document))),
        );
    }
    Ok(labels)
}
