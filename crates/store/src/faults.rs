//! Faults of the storage itself, told apart from faults of a request: a full disk, a
//! read-only file or mount, an I/O error, a database that does not answer. The API answers
//! them with 503 and `Retry-After` (the client did nothing wrong and may retry), and the
//! server recovers by itself once the fault clears.

use std::time::Duration;

/// What is wrong with the storage; each has a stable problem `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFault {
    /// No space left (SQLite `SQLITE_FULL`, PostgreSQL `53100`).
    Full,
    /// The database refuses writes (a read-only file or mount, `SQLITE_READONLY`,
    /// PostgreSQL `25006`, a standby).
    ReadOnly,
    /// The database cannot be reached or failed to read or write (I/O errors, a closed
    /// connection, a pool that timed out, a server shutting down).
    Unavailable,
}

impl StorageFault {
    /// The problem `code` clients can match on.
    pub fn code(self) -> &'static str {
        match self {
            StorageFault::Full => "storage_full",
            StorageFault::ReadOnly => "storage_read_only",
            StorageFault::Unavailable => "storage_unavailable",
        }
    }

    /// What the client is told.
    pub fn message(self) -> &'static str {
        match self {
            StorageFault::Full => "The server's storage is full; nothing was changed. Retry later",
            StorageFault::ReadOnly => {
                "The server's storage is read-only for now; reads work, writes do not. Retry later"
            }
            StorageFault::Unavailable => {
                "The server's database is unavailable; nothing was changed. Retry later"
            }
        }
    }

    /// How long a client should wait before it retries.
    pub fn retry_after(self) -> Duration {
        match self {
            StorageFault::Full | StorageFault::ReadOnly => Duration::from_secs(30),
            StorageFault::Unavailable => Duration::from_secs(5),
        }
    }
}

/// The storage fault behind `error`, if it is one (`None`: a fault of the query or the data).
pub fn classify(error: &sqlx::Error) -> Option<StorageFault> {
    match error {
        sqlx::Error::Database(db) => classify_code(db.code().as_deref()?),
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Some(StorageFault::Unavailable),
        _ => None,
    }
}

/// SQLite gives its (extended) result code as a number of at most four digits, PostgreSQL a
/// five-character SQLSTATE (which may be all digits, as `53100`).
/// The storage fault an SQLite extended result code means, if any (both drivers' errors).
pub(crate) fn classify_sqlite(extended: i32) -> Option<StorageFault> {
    // The primary SQLite result code is the low byte of the extended one.
    match extended & 0xff {
        13 => Some(StorageFault::Full),             // SQLITE_FULL
        8 => Some(StorageFault::ReadOnly),          // SQLITE_READONLY
        10 | 14 => Some(StorageFault::Unavailable), // SQLITE_IOERR, SQLITE_CANTOPEN
        _ => None,
    }
}

fn classify_code(code: &str) -> Option<StorageFault> {
    if let Some(extended) = code.parse::<i32>().ok().filter(|_| code.len() < 5) {
        return classify_sqlite(extended);
    }
    match code {
        "53100" => Some(StorageFault::Full),     // disk_full
        "25006" => Some(StorageFault::ReadOnly), // read_only_sql_transaction
        // insufficient resources, connection exceptions, operator intervention (shutdown,
        // cannot connect now), system errors (I/O).
        c if c.starts_with("53")
            || c.starts_with("08")
            || c.starts_with("57P")
            || c.starts_with("58") =>
        {
            Some(StorageFault::Unavailable)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_and_postgres_codes_map_to_faults() {
        let cases = [
            ("13", Some(StorageFault::Full)),
            ("8", Some(StorageFault::ReadOnly)),
            ("1032", Some(StorageFault::ReadOnly)), // SQLITE_READONLY_DBMOVED
            ("778", Some(StorageFault::Unavailable)), // SQLITE_IOERR_WRITE
            ("2067", None),                         // SQLITE_CONSTRAINT_UNIQUE
            ("19", None),                           // SQLITE_CONSTRAINT
            ("53100", Some(StorageFault::Full)),
            ("25006", Some(StorageFault::ReadOnly)),
            ("57P01", Some(StorageFault::Unavailable)),
            ("08006", Some(StorageFault::Unavailable)),
            ("23505", None), // unique_violation
            ("40001", None), // serialization_failure: retried, not a storage fault
        ];
        for (code, expected) in cases {
            assert_eq!(classify_code(code), expected, "code {code}");
        }
    }
}
