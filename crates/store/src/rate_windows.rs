//! Rate-limit budgets shared by replicas: one row per token and fixed window, holding how
//! many requests of the window the replicas have *claimed* between them. A replica counts its
//! requests in memory against what it claimed (the server's rate limiter); the row only changes when a
//! replica claims more or gives back what it did not use, so no replica can admit more than
//! the window's limit and a read does not write.

use sqlx::Row;

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

/// What a claim obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    /// Requests this replica may now admit on top of what it held (0: the window is spent).
    pub granted: i64,
    /// Everything claimed in the window by every replica, this claim included.
    pub claimed: i64,
}

/// Who claims: a request waiting for the answer, or the background top-up of a busy window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claimant {
    /// At most half of what is left (rounded up, so the last request can be claimed).
    Request,
    /// At most a quarter of what is left (rounded down): budget claimed ahead of need must
    /// not leave another replica refusing while this one holds it.
    Flush,
}

impl Claimant {
    fn most(self, left: i64) -> i64 {
        match self {
            Claimant::Request => (left + 1) / 2,
            Claimant::Flush => left / 4,
        }
    }
}

/// Claim up to `want` more requests of `token_id`'s window starting at `window_start`, never
/// taking the window's total past `limit`, and never more than `claimant` may take of what
/// is left.
///
/// A compare-and-set on the total: two replicas claiming at once both read it, one wins, the
/// other reads again. Claims are rare (a replica claims in growing blocks), so retries are too.
pub async fn claim(
    db: &Db,
    token_id: &str,
    window_start: i64,
    limit: i64,
    want: i64,
    claimant: Claimant,
) -> Result<Claim> {
    loop {
        let current: Option<i64> = sqlx::query(
            "SELECT hits FROM rate_limit_windows WHERE token_id = $1 AND window_start = $2",
        )
        .bind(token_id)
        .bind(window_start)
        .fetch_optional(&db.pool)
        .await?
        .map(|row| row.try_get("hits"))
        .transpose()?;
        let Some(current) = current else {
            sqlx::query(
                "INSERT INTO rate_limit_windows (token_id, window_start, hits) VALUES ($1, $2, 0)
                 ON CONFLICT (token_id, window_start) DO NOTHING",
            )
            .bind(token_id)
            .bind(window_start)
            .execute(&db.pool)
            .await?;
            continue;
        };
        let granted = want.min(claimant.most(limit - current)).max(0);
        if granted == 0 {
            return Ok(Claim {
                granted: 0,
                claimed: current,
            });
        }
        let updated = sqlx::query(
            "UPDATE rate_limit_windows SET hits = hits + $3
             WHERE token_id = $1 AND window_start = $2 AND hits = $4",
        )
        .bind(token_id)
        .bind(window_start)
        .bind(granted)
        .bind(current)
        .execute(&db.pool)
        .await?;
        if updated.rows_affected() == 1 {
            return Ok(Claim {
                granted,
                claimed: current + granted,
            });
        }
    }
}

/// Give back `unused` requests this replica claimed in a window and did not admit, so that
/// other replicas can claim them.
pub async fn give_back(db: &Db, token_id: &str, window_start: i64, unused: i64) -> Result<()> {
    sqlx::query(
        "UPDATE rate_limit_windows SET hits = hits - $3 WHERE token_id = $1 AND window_start = $2",
    )
    .bind(token_id)
    .bind(window_start)
    .bind(unused)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Forget windows that started before `before` (epoch seconds).
pub async fn forget_before(db: &Db, before: i64) -> Result<()> {
    sqlx::query("DELETE FROM rate_limit_windows WHERE window_start < $1")
        .bind(before)
        .execute(&db.pool)
        .await?;
    Ok(())
}
