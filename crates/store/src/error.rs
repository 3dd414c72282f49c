//! The storage layer's errors: a driver error, corrupt stored data, a storage fault (full,
//! read-only, unreachable), a failed connection at start-up, a schema this build does not
//! expect.

use crate::faults::{self, StorageFault};

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The storage itself is at fault (full, read-only, unreachable).
    #[error("storage fault: {}", .0.code())]
    Fault(StorageFault),
    /// The database could not be reached at start-up; the text says where and why.
    #[error("{0}")]
    Connect(String),
    /// The database's schema is not the one this build expects.
    #[error("{0}")]
    Schema(String),
}

impl StoreError {
    /// The storage fault behind this error, if it is one.
    pub fn storage_fault(&self) -> Option<StorageFault> {
        match self {
            StoreError::Sql(e) => faults::classify(e),
            StoreError::Fault(fault) => Some(*fault),
            StoreError::Connect(_) => Some(StorageFault::Unavailable),
            StoreError::Corrupt(_) | StoreError::Schema(_) => None,
        }
    }
}

/// Result type of the storage layer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
