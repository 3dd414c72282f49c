//! The agreements worker: ends accepted agreements whose fate is decided.
//!
//! - **Broken**: an instalment charge still open more than
//!   [`BREAK_AFTER_DAYS`](dunning_domain::installments::BREAK_AFTER_DAYS) days after its due
//!   date (and not paused by an open dispute) breaks the agreement: its open instalments are
//!   canceled and the balance is reinstated on the original charges, as a cancellation does
//!   (`dunning_app::agreements::break_overdue`, the operation a cancellation shares).
//! - **Fulfilled**: no instalment charge is open any more (each was paid, or canceled by
//!   someone) — the agreement is done (`dunning_app::agreements::fulfill_if_settled`).
//!
//! All the state is in the database, so a tick is idempotent and any replica may run it.

use std::time::Duration;

use time::OffsetDateTime;

use dunning_app::agreements;
use dunning_domain::installments::BREAK_AFTER_DAYS;
use dunning_store::agreements as store;
use dunning_store::events::Actor;
use dunning_store::{Result, timestamp_text};

use crate::Engine;

/// How often the loop wakes up. Days are the unit of the rules, so a minute is plenty.
const INTERVAL: Duration = Duration::from_secs(60);

/// Agreements handled per kind and tick, so that one tick stays short.
const BATCH: i64 = 100;

/// What one tick did: the agreements it ended.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TickReport {
    pub broken: Vec<String>,
    pub fulfilled: Vec<String>,
}

fn system() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("agreements worker".to_string()),
    }
}

/// Run [`tick`] every [`INTERVAL`] until the process stops.
pub async fn run(engine: Engine) {
    super::run_worker(&engine, "agreements", INTERVAL, || async {
        tick(&engine, dunning_domain::timestamp::now())
            .await
            .map(drop)
    })
    .await
}

/// One step at `now`: break the overdue agreements, then mark the settled ones fulfilled.
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<TickReport> {
    let mut report = TickReport::default();
    let today = dunning_domain::calendar::day_of(now);
    let cutoff = (today - time::Duration::days(BREAK_AFTER_DAYS)).to_string();
    let stamp = timestamp_text(now);
    for (org, id) in store::overdue_accepted(&engine.db, &cutoff, BATCH).await? {
        let mut tx = engine.db.begin().await?;
        let Some(agreement) = store::get_in(&mut tx, &org, &id).await? else {
            continue;
        };
        // Settled or changed meanwhile: the next tick sees it as it is now.
        if agreements::break_overdue(&mut tx, &org, &system(), &agreement, today, &stamp).await? {
            tx.commit().await?;
            report.broken.push(id);
        }
    }
    for (org, id) in store::settled_accepted(&engine.db, BATCH).await? {
        let mut tx = engine.db.begin().await?;
        let Some(agreement) = store::get_in(&mut tx, &org, &id).await? else {
            continue;
        };
        if agreements::fulfill_if_settled(&mut tx, &org, &system(), &agreement, &stamp).await? {
            tx.commit().await?;
            report.fulfilled.push(id);
        }
    }
    Ok(report)
}
