//! Write transactions that are run again, a bounded number of times, when the database
//! aborted them for a reason that says nothing about the request: a deadlock or a
//! serialization failure on PostgreSQL (SQLSTATE `40P01`, `40001`), a lost snapshot on
//! SQLite. The client then sees the outcome of its request, not a 500 or a 409 for a
//! conflict it did not have.
//!
//! Each attempt begins its own transaction and must read what it decides on inside it
//! (after its row locks, see `store::locks`): a retried attempt decides again on fresh data.
//! A refusal the attempt decides on (`Failure::Refused`) rolls back and is returned at once.

use std::time::Duration;

use super::StoreError;

/// How many times a body runs at most.
pub const ATTEMPTS: u32 = 3;

/// Why a transaction body stopped.
#[derive(Debug)]
pub enum Failure<R> {
    /// The body refused the request (a rule, a missing row, a stale `If-Match`).
    Refused(R),
    /// The database failed; retried first when [`is_transient`].
    Store(StoreError),
}

impl<R> From<StoreError> for Failure<R> {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

impl<R> From<sqlx::Error> for Failure<R> {
    fn from(e: sqlx::Error) -> Self {
        Failure::Store(e.into())
    }
}

/// Whether the database aborted the transaction only because of other transactions running
/// at the same time, so that running it again can succeed.
pub fn is_transient(e: &StoreError) -> bool {
    let StoreError::Sql(sqlx::Error::Database(db)) = e else {
        return false;
    };
    matches!(
        db.code().as_deref(),
        // PostgreSQL: serialization_failure, deadlock_detected.
        Some("40001") | Some("40P01")
        // SQLite: SQLITE_BUSY_SNAPSHOT, a read snapshot that can no longer become a write.
        | Some("517")
    )
}

/// Whether `e` is a unique-constraint violation: a row another transaction committed first
/// took the key (an "at most one" index).
pub fn is_unique_violation(e: &StoreError) -> bool {
    matches!(e, StoreError::Sql(sqlx::Error::Database(db)) if db.is_unique_violation())
}

/// Run `attempt` (which begins, writes and commits one transaction) and run it again, after
/// a short random pause, when it failed transiently, at most [`ATTEMPTS`] times in all. A
/// refusal comes back as is, a database error as `R` (for a handler, the 500 problem).
///
/// `attempt` is a closure returning `async move { ... }` over references to what it reads,
/// rather than an async closure handed the transaction: the future of a handler must be
/// `Send`, which rustc cannot yet prove through a higher-ranked async closure bound.
pub async fn run<T, R, Fut>(mut attempt: impl FnMut() -> Fut) -> Result<T, R>
where
    Fut: Future<Output = Result<T, Failure<R>>>,
    R: From<StoreError>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(Failure::Store(e)) if tries < ATTEMPTS && is_transient(&e) => {
                tracing::info!(tries, error = %e, "transaction aborted transiently; retrying");
                tokio::time::sleep(backoff(tries)).await;
                tries += 1;
            }
            Ok(value) => return Ok(value),
            Err(Failure::Refused(refusal)) => return Err(refusal),
            Err(Failure::Store(e)) => return Err(R::from(e)),
        }
    }
}

/// 10 ms, then 20 ms, ... plus up to as much again at random, so that the transactions that
/// collided do not collide again in step.
fn backoff(attempt: u32) -> Duration {
    let base = 10u64 << (attempt - 1).min(6);
    let mut byte = [0u8; 1];
    let jitter = match getrandom::fill(&mut byte) {
        Ok(()) => base * u64::from(byte[0]) / 255,
        Err(_) => base / 2,
    };
    Duration::from_millis(base + jitter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_stays_within_twice_its_base() {
        for attempt in 1..=ATTEMPTS {
            let base = 10u64 << (attempt - 1);
            let pause = backoff(attempt).as_millis() as u64;
            assert!((base..=2 * base).contains(&pause), "{attempt}: {pause}");
        }
    }

    #[test]
    fn only_database_aborts_are_transient() {
        assert!(!is_transient(&StoreError::Corrupt("x".into())));
        assert!(!is_transient(&StoreError::Sql(sqlx::Error::RowNotFound)));
    }
}
