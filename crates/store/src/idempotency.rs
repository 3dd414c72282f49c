//! Idempotency records: the first response to a write with an `Idempotency-Key`, kept 24
//! hours and replayed for the same key and request.

use sqlx::AnyConnection;

use super::{Db, Result};

/// How long a response is replayed.
pub const RETENTION_SECS: i64 = 24 * 3600;

/// What a key already holds.
#[derive(Debug, Clone)]
pub enum Existing {
    /// Another request with this key is running now, holding the key until `lease_until`.
    InProgress {
        request_hash: String,
        lease_until: i64,
    },
    /// The stored response.
    Done {
        request_hash: String,
        status: u16,
        headers: String,
        body: String,
    },
}

/// Outcome of a claim.
#[derive(Debug, Clone)]
pub enum Claim {
    /// The caller holds the key (new, or taken over from a holder whose lease ran out) and
    /// runs the request.
    Owned,
    /// What the key already holds.
    Held(Existing),
    /// The key vanished between our insert and our read (its holder failed and released it):
    /// claim again.
    Vanished,
}

/// Claim `key` for a request as `owner`, leased until `lease_until`.
pub async fn claim(
    db: &Db,
    organization_id: &str,
    key: &str,
    request_hash: &str,
    owner: &str,
    (now_epoch, lease_until): (i64, i64),
) -> Result<Claim> {
    // Expired records do not count: a key can be used again after its retention.
    sqlx::query("DELETE FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2 AND created_at_epoch < $3")
        .bind(organization_id)
        .bind(key)
        .bind(now_epoch - RETENTION_SECS)
        .execute(&db.pool)
        .await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_records (organization_id, idempotency_key, request_hash, state, created_at_epoch, owner, lease_until_epoch)
         VALUES ($1, $2, $3, 'in_progress', $4, $5, $6) ON CONFLICT (organization_id, idempotency_key) DO NOTHING",
    )
    .bind(organization_id)
    .bind(key)
    .bind(request_hash)
    .bind(now_epoch)
    .bind(owner)
    .bind(lease_until)
    .execute(&db.pool)
    .await?;
    if inserted.rows_affected() == 1 {
        return Ok(Claim::Owned);
    }
    // The holder died (its lease ran out without being renewed): the request never
    // committed, since the effect and the response commit together, so it runs again here.
    let taken = sqlx::query(
        "UPDATE idempotency_records SET owner = $1, lease_until_epoch = $2
         WHERE organization_id = $3 AND idempotency_key = $4 AND state = 'in_progress'
           AND request_hash = $5 AND COALESCE(lease_until_epoch, 0) <= $6",
    )
    .bind(owner)
    .bind(lease_until)
    .bind(organization_id)
    .bind(key)
    .bind(request_hash)
    .bind(now_epoch)
    .execute(&db.pool)
    .await?;
    if taken.rows_affected() == 1 {
        tracing::info!(
            key,
            "took over an idempotency key whose holder's lease ran out"
        );
        return Ok(Claim::Owned);
    }
    Ok(match read(db, organization_id, key).await? {
        Some(existing) => Claim::Held(existing),
        None => Claim::Vanished,
    })
}

/// A stored record: hash, state, lease, and the response once there is one.
type RecordRow = (
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<String>,
);

/// What the key holds now (`None` if it vanished: released after a failure).
pub async fn read(db: &Db, organization_id: &str, key: &str) -> Result<Option<Existing>> {
    let row: Option<RecordRow> = sqlx::query_as(
        "SELECT request_hash, state, lease_until_epoch, response_status, response_headers, response_body
         FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2",
    )
    .bind(organization_id)
    .bind(key)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(
        |(request_hash, state, lease_until, status, headers, body)| match (state.as_str(), status) {
            ("done", Some(status)) => Existing::Done {
                request_hash,
                status: u16::try_from(status).unwrap_or(500),
                headers: headers.unwrap_or_default(),
                body: body.unwrap_or_default(),
            },
            _ => Existing::InProgress {
                request_hash,
                lease_until: lease_until.unwrap_or(0),
            },
        },
    ))
}

/// Extend the lease of a key `owner` holds; false when it no longer holds it.
pub async fn renew(
    db: &Db,
    organization_id: &str,
    key: &str,
    owner: &str,
    lease_until: i64,
) -> Result<bool> {
    let renewed = sqlx::query(
        "UPDATE idempotency_records SET lease_until_epoch = $1
         WHERE organization_id = $2 AND idempotency_key = $3 AND owner = $4 AND state = 'in_progress'",
    )
    .bind(lease_until)
    .bind(organization_id)
    .bind(key)
    .bind(owner)
    .execute(&db.pool)
    .await?;
    Ok(renewed.rows_affected() == 1)
}

/// The response of a request, to store with its key.
#[derive(Debug, Clone, Copy)]
pub struct StoredResponse<'a> {
    pub status: u16,
    pub headers: &'a str,
    pub body: &'a str,
    /// A secret in the body (its JSON pointer) and when to remove it from the replay.
    pub redact: Option<(&'a str, i64)>,
}

/// Store the response of a key `owner` holds, on `conn` — inside the transaction of the
/// request's effect, so that one never commits without the other. False when `owner` no
/// longer holds the key (then the caller must not commit).
pub async fn complete(
    conn: &mut AnyConnection,
    organization_id: &str,
    key: &str,
    owner: &str,
    response: StoredResponse<'_>,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE idempotency_records SET state = 'done', response_status = $1, response_headers = $2, response_body = $3, lease_until_epoch = NULL,
                redact_pointer = $7, redact_after_epoch = $8
         WHERE organization_id = $4 AND idempotency_key = $5 AND owner = $6 AND state = 'in_progress'",
    )
    .bind(i64::from(response.status))
    .bind(response.headers)
    .bind(response.body)
    .bind(organization_id)
    .bind(key)
    .bind(owner)
    .bind(response.redact.map(|(pointer, _)| pointer))
    .bind(response.redact.map(|(_, after)| after))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The records whose secret's time ended at `$1`, at most `$2` (through
/// `idempotency_records_redact`).
pub const REDACT_DUE_SQL: &str =
    "SELECT organization_id, idempotency_key, response_body, redact_pointer
     FROM idempotency_records WHERE redact_after_epoch <= $1 LIMIT $2";

/// Remove the secrets whose time in stored replays is over (a batch of at most `limit`);
/// returns how many responses were redacted.
pub async fn redact_due(db: &Db, now_epoch: i64, limit: i64) -> Result<usize> {
    let due: Vec<(String, String, Option<String>, Option<String>)> = sqlx::query_as(REDACT_DUE_SQL)
        .bind(now_epoch)
        .bind(limit)
        .fetch_all(&db.pool)
        .await?;
    for (organization_id, key, body, pointer) in &due {
        let redacted = redacted_body(body.as_deref().unwrap_or_default(), pointer.as_deref());
        sqlx::query(
            "UPDATE idempotency_records SET response_body = $1, redact_pointer = NULL, redact_after_epoch = NULL
             WHERE organization_id = $2 AND idempotency_key = $3",
        )
        .bind(redacted)
        .bind(organization_id)
        .bind(key)
        .execute(&db.pool)
        .await?;
    }
    Ok(due.len())
}

/// `body` without the member at `pointer` (e.g. `/data/secret`). A body that is not JSON
/// is dropped whole: a secret must not outlive its time because its container was odd.
fn redacted_body(body: &str, pointer: Option<&str>) -> String {
    let (Ok(mut value), Some(pointer)) = (serde_json::from_str::<serde_json::Value>(body), pointer)
    else {
        return String::new();
    };
    if let Some((parent, member)) = pointer.rsplit_once('/')
        && let Some(object) = value.pointer_mut(parent).and_then(|v| v.as_object_mut())
    {
        object.remove(member);
    }
    value.to_string()
}

/// Forget the records created before `$1` (through `idempotency_records_created`).
pub const DELETE_EXPIRED_SQL: &str = "DELETE FROM idempotency_records WHERE created_at_epoch < $1";

/// Forget the records past their retention; returns how many went.
pub async fn delete_expired(db: &Db, now_epoch: i64) -> Result<u64> {
    let deleted = sqlx::query(DELETE_EXPIRED_SQL)
        .bind(now_epoch - RETENTION_SECS)
        .execute(&db.pool)
        .await?;
    Ok(deleted.rows_affected())
}

/// Give a key back after a request that must not be replayed (a failure worth retrying).
pub async fn release(db: &Db, organization_id: &str, key: &str, owner: &str) -> Result<()> {
    sqlx::query("DELETE FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2 AND owner = $3 AND state = 'in_progress'")
        .bind(organization_id)
        .bind(key)
        .bind(owner)
        .execute(&db.pool)
        .await?;
    Ok(())
}
