//! Exports: CSV files built in the background from a list and its filters, stored whole in
//! the database (TEXT) so that any replica can serve the download.
//!
//! Status goes `pending` → `running` (claimed by a worker until a lease runs out, so a worker
//! that died mid-build is replaced) → `completed` or `failed`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{AnyConnection, AssertSqlSafe, Row};

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
        pub error: Option<String>,
        pub created_at: Timestamp,
        pub completed_at: Option<Timestamp>,
        pub version: i64,
    }
}

impl Stored for Export {
    const TABLE: &'static str = "exports";
    const COLUMNS: &'static str =
        "id, kind, filters, status, row_count, byte_size, error, created_at, completed_at, version";
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
        "INSERT INTO exports (id, organization_id, kind, filters, filter, status, row_count, byte_size, error, content,
             claim_token, claimed_until, version, created_at, started_at, completed_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', NULL, NULL, NULL, NULL, NULL, NULL, 1, $6, NULL, NULL, $6)",
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

/// The CSV of a completed export.
pub async fn content(db: &Db, organization_id: &str, id: &str) -> Result<Option<String>> {
    let content: Option<Option<String>> = sqlx::query_scalar(
        "SELECT content FROM exports WHERE organization_id = $1 AND id = $2 AND status = 'completed'",
    )
    .bind(organization_id)
    .bind(id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(content.flatten())
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
             version = version + 1, updated_at = $3
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

/// Store the file of a claimed export. False when the claim was lost.
pub async fn complete(
    conn: &mut AnyConnection,
    claimed: &Claimed,
    content: &str,
    row_count: i64,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE exports SET status = 'completed', content = $1, row_count = $2, byte_size = $3, error = NULL,
             claim_token = NULL, claimed_until = NULL, completed_at = $4, version = version + 1, updated_at = $4
         WHERE organization_id = $5 AND id = $6 AND claim_token = $7",
    )
    .bind(content)
    .bind(row_count)
    .bind(i64::try_from(content.len()).unwrap_or(i64::MAX))
    .bind(now)
    .bind(&claimed.organization_id)
    .bind(&claimed.id)
    .bind(&claimed.claim_token)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Mark a claimed export as failed with a message for the client. False when the claim was
/// lost.
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
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
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

/// Name and document of every customer of an organization, by id (to label rows).
pub async fn customer_labels(
    db: &Db,
    organization_id: &str,
) -> Result<std::collections::HashMap<String, (String, String)>> {
    let rows = sqlx::query("SELECT id, name, document FROM customers WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_all(&db.pool)
        .await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("id")?,
                (row.try_get("name")?, row.try_get("document")?),
            ))
        })
        .collect()
}
