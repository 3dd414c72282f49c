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

use crate::Engine;
use dunning_store::{Result, Statistics, idempotency, oauth, sign_in, timestamp_text};

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
pub async fn run(engine: Engine) {
    super::run_worker(&engine, "housekeeping", INTERVAL, || async {
        tick(&engine, dunning_domain::timestamp::now())
            .await
            .map(drop)
    })
    .await
}

/// One step at time `now`.
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<TickReport> {
    let now = now.unix_timestamp();
    let mut report = TickReport::default();
    loop {
        let redacted = idempotency::redact_due(&engine.db, now, 200).await?;
        report.secrets_redacted += redacted;
        if redacted < 200 {
            break;
        }
    }
    report.records_deleted = idempotency::delete_expired(&engine.db, now).await?;
    let idle =
        i64::try_from(engine.settings.oauth_grant_idle_ttl.as_secs()).unwrap_or(i64::MAX / 2);
    let client_cutoff = OffsetDateTime::from_unix_timestamp(now - oauth::UNUSED_REGISTRATION_SECS)
        .map_or_else(|_| String::new(), timestamp_text);
    report.oauth = oauth::expire(&engine.db, now, now - idle, &client_cutoff).await?;
    report.sessions_deleted = sign_in::delete_dead_sessions(&engine.db, now).await?;
    sign_in::delete_forgotten_attempts(&engine.db, now - sign_in::FORGET_AFTER_SECS, now).await?;
    engine.observer.expired("grants", report.oauth.grants);
    engine.observer.expired("clients", report.oauth.clients);
    engine.observer.expired("sessions", report.sessions_deleted);
    if report.oauth.grants > 0 {
        engine.observer.revoked();
    }
    engine.db.refresh_statistics(Statistics::Periodic).await?;
    Ok(report)
}
