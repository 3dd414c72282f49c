//! Idempotency records: the first response to a write with an `Idempotency-Key`, kept 24
//! hours and replayed for the same key and request.

use super::{Db, Result};

/// How long a response is replayed.
pub const RETENTION_SECS: i64 = 24 * 3600;

/// What a key already holds.
#[derive(Debug, Clone)]
pub enum Existing {
    /// Another request with this key is running now.
    InProgress { request_hash: String },
    /// The stored response.
    Done {
        request_hash: String,
        status: u16,
        headers: String,
        body: String,
    },
}

/// Claim `key` for a request; `None` when the claim succeeded (the caller runs the request),
/// else what the key already holds.
pub async fn claim(
    db: &Db,
    organization_id: &str,
    key: &str,
    request_hash: &str,
    now_epoch: i64,
) -> Result<Option<Existing>> {
    // Expired records do not count: a key can be used again after its retention.
    sqlx::query("DELETE FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2 AND created_at_epoch < $3")
        .bind(organization_id)
        .bind(key)
        .bind(now_epoch - RETENTION_SECS)
        .execute(&db.pool)
        .await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_records (organization_id, idempotency_key, request_hash, state, created_at_epoch)
         VALUES ($1, $2, $3, 'in_progress', $4) ON CONFLICT (organization_id, idempotency_key) DO NOTHING",
    )
    .bind(organization_id)
    .bind(key)
    .bind(request_hash)
    .bind(now_epoch)
    .execute(&db.pool)
    .await?;
    if inserted.rows_affected() == 1 {
        return Ok(None);
    }
    read(db, organization_id, key).await
}

/// A stored record: hash, state, and the response once there is one.
type RecordRow = (String, String, Option<i64>, Option<String>, Option<String>);

/// What the key holds now (`None` if it vanished: released after a failure).
pub async fn read(db: &Db, organization_id: &str, key: &str) -> Result<Option<Existing>> {
    let row: Option<RecordRow> = sqlx::query_as(
        "SELECT request_hash, state, response_status, response_headers, response_body
         FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2",
    )
    .bind(organization_id)
    .bind(key)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(
        |(request_hash, state, status, headers, body)| match (state.as_str(), status) {
            ("done", Some(status)) => Existing::Done {
                request_hash,
                status: u16::try_from(status).unwrap_or(500),
                headers: headers.unwrap_or_default(),
                body: body.unwrap_or_default(),
            },
            _ => Existing::InProgress { request_hash },
        },
    ))
}

/// Store the response of a claimed key.
pub async fn complete(
    db: &Db,
    organization_id: &str,
    key: &str,
    status: u16,
    headers: &str,
    body: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE idempotency_records SET state = 'done', response_status = $1, response_headers = $2, response_body = $3
         WHERE organization_id = $4 AND idempotency_key = $5",
    )
    .bind(i64::from(status))
    .bind(headers)
    .bind(body)
    .bind(organization_id)
    .bind(key)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Give a key back after a request that must not be replayed (a failure worth retrying).
pub async fn release(db: &Db, organization_id: &str, key: &str) -> Result<()> {
    sqlx::query("DELETE FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2 AND state = 'in_progress'")
        .bind(organization_id)
        .bind(key)
        .execute(&db.pool)
        .await?;
    Ok(())
}
