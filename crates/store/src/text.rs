//! The stored text of instants and dates (fixed-width UTC, so text order is time order on both
//! engines), and JSON text columns read back.

use crate::{Result, StoreError};

/// Current time as the fixed-width UTC text stored in every timestamp column, so that text
/// order is time order on both engines.
pub fn now_text() -> String {
    timestamp_text(dunning_domain::timestamp::now())
}

/// Format a time the way timestamps are stored and returned ([`Timestamp`]'s text).
///
/// [`Timestamp`]: dunning_domain::timestamp::Timestamp
pub fn timestamp_text(t: time::OffsetDateTime) -> String {
    dunning_domain::timestamp::Timestamp::new(t).to_string()
}

/// Today in Brasília (`dunning_domain::calendar::today`): the day every balance, status and
/// plan step of the store is computed for.
pub fn today() -> time::Date {
    dunning_domain::calendar::today()
}

/// Parse a stored JSON text column.
pub fn json_column<T: serde::de::DeserializeOwned>(text: &str, column: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")))
}
