//! Housekeeping: what the database must forget. Secrets shown once are removed from stored
//! idempotent replays after their short time, and idempotency records past their 24-hour
//! retention are deleted (until now they went only when their key was used again). And the
//! planner's statistics are refreshed (`Db::refresh_statistics`), so that lists keep using the
//! index of their filter as tables grow.

use std::time::Duration;

use time::OffsetDateTime;

use crate::state::AppState;
use crate::store::{Result, Statistics, idempotency};

const INTERVAL: Duration = Duration::from_secs(60);

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    pub secrets_redacted: usize,
    pub records_deleted: u64,
}

/// Run [`tick`] every minute.
pub async fn run(state: AppState) {
    super::run_worker(&state, "housekeeping", INTERVAL, || async {
        tick(&state, OffsetDateTime::now_utc()).await.map(drop)
    })
    .await
}

/// One step at time `now`.
pub async fn tick(state: &AppState, now: OffsetDateTime) -> Result<TickReport> {
    let now = now.unix_timestamp();
    let mut report = TickReport::default();
    loop {
        let redacted = idempotency::redact_due(&state.db, now, 200).await?;
        report.secrets_redacted += redacted;
        if redacted < 200 {
            break;
        }
    }
    report.records_deleted = idempotency::delete_expired(&state.db, now).await?;
    state.db.refresh_statistics(Statistics::Periodic).await?;
    Ok(report)
}
