//! Secrets the server makes for itself when the operator gave none (the unsubscribe links'
//! key): made once, by whichever replica needs one first, and kept in `server_secrets`, so
//! that every replica and every restart signs and checks with the same key.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::{Db, Result, StoreError, now_text};

/// The secret stored under `name`, made now (32 random bytes) when there is none. Of
/// replicas racing to make it, the first insert wins and every one reads that row.
pub async fn get_or_create(db: &Db, name: &str) -> Result<Vec<u8>> {
    if let Some(secret) = stored(db, name).await? {
        return Ok(secret);
    }
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).expect("the OS random source is available");
    sqlx::query(
        "INSERT INTO server_secrets (name, secret, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(STANDARD.encode(fresh))
    .bind(now_text())
    .execute(&db.pool)
    .await?;
    stored(db, name)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("the server secret {name} was not kept")))
}

async fn stored(db: &Db, name: &str) -> Result<Option<Vec<u8>>> {
    let text: Option<String> =
        sqlx::query_scalar("SELECT secret FROM server_secrets WHERE name = $1")
            .bind(name)
            .fetch_optional(&db.pool)
            .await?;
    text.map(|t| {
        STANDARD
            .decode(t.trim())
            .map_err(|_| StoreError::Corrupt(format!("the server secret {name} is not base64")))
    })
    .transpose()
}
