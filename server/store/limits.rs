//! Rate-limit counters: fixed windows per token, kept in the database so that every replica
//! counts the same hits.

use super::{Db, Result};

/// The state of a token's window after counting one more hit.
#[derive(Debug, Clone, Copy)]
pub struct WindowState {
    pub limit: i64,
    pub hits: i64,
    /// Seconds until the window closes.
    pub reset: i64,
}

impl WindowState {
    pub fn remaining(&self) -> i64 {
        (self.limit - self.hits).max(0)
    }

    pub fn exceeded(&self) -> bool {
        self.hits > self.limit
    }
}

/// Count one hit for `token_id` in the current window of `period` seconds.
pub async fn hit(
    db: &Db,
    token_id: &str,
    limit: i64,
    period: i64,
    now_epoch: i64,
) -> Result<WindowState> {
    let window_start = now_epoch - now_epoch.rem_euclid(period);
    let hits: i64 = sqlx::query_scalar(
        "INSERT INTO rate_limit_windows (token_id, window_start, hits) VALUES ($1, $2, 1)
         ON CONFLICT (token_id, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
         RETURNING hits",
    )
    .bind(token_id)
    .bind(window_start)
    .fetch_one(&db.pool)
    .await?;
    if hits == 1 {
        // A new window: forget the ones that closed more than a day ago.
        sqlx::query("DELETE FROM rate_limit_windows WHERE window_start < $1")
            .bind(now_epoch - 86_400)
            .execute(&db.pool)
            .await?;
    }
    Ok(WindowState {
        limit,
        hits,
        reset: window_start + period - now_epoch,
    })
}
