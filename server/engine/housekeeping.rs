//! Housekeeping: what the database must forget. Secrets shown once are removed from stored
//! idempotent replays after their short time, and idempotency records past their 24-hour
//! retention are deleted (until now they went only when their key was used again). And the
//! planner's statistics are refreshed (`Db::refresh_statistics`), so that lists keep using the
//! index of their filter as tables grow. OAuth forgets too: grants unused for
//! `--oauth-grant-idle-ttl` end with their tokens, registrations no grant used within a day
//! are deleted, and so are dead sessions, old throttle counts, and spent codes and refresh
//! tokens a day past their expiry.

use std::time::Duration;

use time::OffsetDateTime;

use crate::state::AppState;
use crate::store::{Result, Statistics, idempotency, oauth, sign_in, timestamp_text};

const INTERVAL: Duration = Duration::from_secs(60);

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    pub secrets_redacted: usize,
    pub records_deleted: u64,
    pub oauth: oauth::Expired,
    pub sessions_deleted: u64,
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
    let idle = i64::try_from(state.config.oauth_grant_idle_ttl.as_secs()).unwrap_or(i64::MAX / 2);
    let client_cutoff = OffsetDateTime::from_unix_timestamp(now - oauth::UNUSED_REGISTRATION_SECS)
        .map_or_else(|_| String::new(), timestamp_text);
    report.oauth = oauth::expire(&state.db, now, now - idle, &client_cutoff).await?;
    report.sessions_deleted = sign_in::delete_dead_sessions(&state.db, now).await?;
    sign_in::delete_forgotten_attempts(&state.db, now - sign_in::FORGET_AFTER_SECS, now).await?;
    state.metrics.oauth_expired("grants", report.oauth.grants);
    state.metrics.oauth_expired("clients", report.oauth.clients);
    state
        .metrics
        .oauth_expired("sessions", report.sessions_deleted);
    if report.oauth.grants > 0 {
        state.tokens.forget_all();
    }
    state.db.refresh_statistics(Statistics::Periodic).await?;
    Ok(report)
}
