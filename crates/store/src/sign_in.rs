//! Sign-in storage: browser sessions of the OAuth pages, and the sign-in throttle.
//!
//! A session is a row keyed by the SHA-256 hash of the secret the browser holds in its cookie,
//! so sign-out, a password change or the end of a person end it at once on every replica. The
//! throttle counts failed sign-ins per key (an e-mail address typed by a browser without a
//! device cookie, or one device cookie: `oauth::throttle` decides which): attempts are counted
//! before the password is checked, in one compare-and-set, so concurrent guesses cannot go past
//! the budget.

use super::{Db, Result};

crate::row! {
    /// Who a live session belongs to.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct SessionOwner {
        pub organization_id: String,
        pub person_id: String,
    }
}

/// Store a new session.
pub async fn create_session(
    db: &Db,
    id_hash: &str,
    owner: &SessionOwner,
    now: i64,
    expires_at_epoch: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO oauth_sessions (id_hash, organization_id, person_id, created_at_epoch, expires_at_epoch)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id_hash)
    .bind(&owner.organization_id)
    .bind(&owner.person_id)
    .bind(now)
    .bind(expires_at_epoch)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// The owner of the session with this hash, if it is live: not ended, not expired.
pub async fn find_session(db: &Db, id_hash: &str, now: i64) -> Result<Option<SessionOwner>> {
    Ok(sqlx::query_as(
        "SELECT organization_id, person_id FROM oauth_sessions
         WHERE id_hash = $1 AND ended_at_epoch IS NULL AND expires_at_epoch > $2",
    )
    .bind(id_hash)
    .bind(now)
    .fetch_optional(&db.pool)
    .await?)
}

/// End one session (sign-out).
pub async fn end_session(db: &Db, id_hash: &str, now: i64) -> Result<()> {
    sqlx::query(
        "UPDATE oauth_sessions SET ended_at_epoch = $1 WHERE id_hash = $2 AND ended_at_epoch IS NULL",
    )
    .bind(now)
    .bind(id_hash)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Forget the sessions that ended or expired before `$1` (through `oauth_sessions_expiry` and
/// `oauth_sessions_ended`, one for each side of the `OR`).
pub const DELETE_DEAD_SESSIONS_SQL: &str =
    "DELETE FROM oauth_sessions WHERE expires_at_epoch < $1 OR ended_at_epoch < $1";

/// Forget sessions that ended or expired before `cutoff`; returns how many.
pub async fn delete_dead_sessions(db: &Db, cutoff: i64) -> Result<u64> {
    let done = sqlx::query(DELETE_DEAD_SESSIONS_SQL)
        .bind(cutoff)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected())
}

crate::row! {
    /// A throttle key's count.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct ThrottleRow {
        failures: i64,
        last_failure_epoch: i64,
        locked_until_epoch: Option<i64>,
    }
}

/// Failures this long after a key's last one no longer count (and housekeeping forgets them).
pub const FORGET_AFTER_SECS: i64 = 86_400;

/// What the throttle says of one more attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// Counted (as a failure until a success clears it): the password may be checked.
    Counted,
    /// Refused unchecked: the key is locked until then (seconds since the epoch).
    Locked(i64),
}

/// How a key's failures turn into locks: `lock_after(failures, now)` is when the key stays
/// locked until after its `failures`-th failure, and failures older than `forget_after`
/// seconds no longer count.
#[derive(Debug, Clone, Copy)]
pub struct ThrottlePolicy {
    pub lock_after: fn(i64, i64) -> Option<i64>,
    pub forget_after: i64,
}

/// Count one attempt under `key`, or say it is locked. The count goes up before the password
/// is checked (the caller clears it on success), in a compare-and-set on the row, so
/// attempts made at the same time cannot all see the same count: the `n`-th one sets the lock
/// the policy gives `n`, and those after it are refused.
pub async fn count_attempt(
    db: &Db,
    key: &str,
    now: i64,
    policy: ThrottlePolicy,
) -> Result<Attempt> {
    loop {
        let row: Option<ThrottleRow> = sqlx::query_as(
            "SELECT failures, last_failure_epoch, locked_until_epoch FROM sign_in_throttle WHERE throttle_key = $1",
        )
        .bind(key)
        .fetch_optional(&db.pool)
        .await?;
        let Some(row) = row else {
            let inserted = sqlx::query(
                "INSERT INTO sign_in_throttle (throttle_key, failures, last_failure_epoch, locked_until_epoch)
                 VALUES ($1, 1, $2, $3) ON CONFLICT (throttle_key) DO NOTHING",
            )
            .bind(key)
            .bind(now)
            .bind((policy.lock_after)(1, now))
            .execute(&db.pool)
            .await?;
            if inserted.rows_affected() == 1 {
                return Ok(Attempt::Counted);
            }
            continue;
        };
        if let Some(until) = row.locked_until_epoch.filter(|until| *until > now) {
            return Ok(Attempt::Locked(until));
        }
        let earlier = if now - row.last_failure_epoch > policy.forget_after {
            0
        } else {
            row.failures
        };
        let updated = sqlx::query(
            "UPDATE sign_in_throttle SET failures = $1, last_failure_epoch = $2, locked_until_epoch = $3
             WHERE throttle_key = $4 AND failures = $5 AND last_failure_epoch = $6",
        )
        .bind(earlier + 1)
        .bind(now)
        .bind((policy.lock_after)(earlier + 1, now))
        .bind(key)
        .bind(row.failures)
        .bind(row.last_failure_epoch)
        .execute(&db.pool)
        .await?;
        if updated.rows_affected() == 1 {
            return Ok(Attempt::Counted);
        }
    }
}

/// A successful sign-in forgets the key's failures (and its lock).
pub async fn clear_attempts(db: &Db, key: &str) -> Result<()> {
    sqlx::query("DELETE FROM sign_in_throttle WHERE throttle_key = $1")
        .bind(key)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Forget the throttle counts whose last failure is before `$1` and that lock nothing at
/// `$2` (through `sign_in_throttle_last`).
pub const DELETE_FORGOTTEN_ATTEMPTS_SQL: &str =
    "DELETE FROM sign_in_throttle WHERE last_failure_epoch < $1
     AND (locked_until_epoch IS NULL OR locked_until_epoch <= $2)";

/// Forget keys whose last failure is older than `cutoff` and that are not locked now.
pub async fn delete_forgotten_attempts(db: &Db, cutoff: i64, now: i64) -> Result<u64> {
    let done = sqlx::query(DELETE_FORGOTTEN_ATTEMPTS_SQL)
        .bind(cutoff)
        .bind(now)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected())
}
