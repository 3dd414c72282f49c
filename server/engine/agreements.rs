//! The agreements worker: ends accepted agreements whose fate is decided.
//!
//! - **Broken**: an instalment charge still open more than
//!   [`BREAK_AFTER_DAYS`](crate::domain::installments::BREAK_AFTER_DAYS) days after its due
//!   date (and not paused by an open dispute) breaks the agreement: its open instalments are
//!   canceled and the balance is reinstated on the original charges, as a cancellation does
//!   (`store::agreements::unwind`).
//! - **Fulfilled**: no instalment charge is open any more (each was paid, or canceled by
//!   someone) — the agreement is done.
//!
//! All the state is in the database, so a tick is idempotent and any replica may run it.

use std::time::Duration;

use serde_json::json;
use time::OffsetDateTime;

use crate::domain::charge_math::ChargeStatus;
use crate::domain::installments::BREAK_AFTER_DAYS;
use crate::state::AppState;
use crate::store::agreements::{self as store, AgreementStatus, Ending, UnwindError, Unwinding};
use crate::store::events::{self, Actor};
use crate::store::{Result, charges, timestamp_text};

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
pub async fn run(state: AppState) {
    super::run_worker(&state, "agreements", INTERVAL, || async {
        tick(&state, OffsetDateTime::now_utc()).await.map(drop)
    })
    .await
}

/// One step at `now`: break the overdue agreements, then mark the settled ones fulfilled.
pub async fn tick(state: &AppState, now: OffsetDateTime) -> Result<TickReport> {
    let mut report = TickReport::default();
    let today = now.date();
    let cutoff = (today - time::Duration::days(BREAK_AFTER_DAYS)).to_string();
    let stamp = timestamp_text(now);
    for (org, id) in store::overdue_accepted(&state.db, &cutoff, BATCH).await? {
        let mut tx = state.db.begin().await?;
        let Some(agreement) = store::get_in(&mut tx, &org, &id)
            .await?
            .filter(|a| a.status == AgreementStatus::Accepted)
        else {
            continue;
        };
        let actor = system();
        let how = Unwinding {
            ending: Ending::Broken,
            reason: None,
            actor: &actor,
            today,
            now: &stamp,
        };
        match store::unwind(&mut tx, &org, &agreement, &how).await {
            Ok(_) => {
                tx.commit().await?;
                report.broken.push(id);
            }
            // Settled or changed meanwhile: the next tick sees it as it is now.
            Err(UnwindError::NothingOpen | UnwindError::Concurrent(_)) => {}
            Err(UnwindError::Store(e)) => return Err(e),
        }
    }
    for (org, id) in store::settled_accepted(&state.db, BATCH).await? {
        let mut tx = state.db.begin().await?;
        let Some(agreement) = store::get_in(&mut tx, &org, &id)
            .await?
            .filter(|a| a.status == AgreementStatus::Accepted)
        else {
            continue;
        };
        let installments = store::installment_charges(&mut tx, &org, &agreement).await?;
        if installments.iter().any(charges::Charge::is_open) {
            continue;
        }
        if !store::mark_ended(&mut tx, &org, &agreement, Ending::Fulfilled, None, &stamp).await? {
            continue;
        }
        let paid: Vec<&str> = installments
            .iter()
            .filter(|c| c.status == ChargeStatus::Paid)
            .map(|c| c.id.as_str())
            .collect();
        let canceled: Vec<&str> = installments
            .iter()
            .filter(|c| c.status == ChargeStatus::Canceled)
            .map(|c| c.id.as_str())
            .collect();
        let collected: i64 = installments.iter().map(|c| c.paid_cents.0).sum();
        events::record(
            &mut tx,
            &org,
            Ending::Fulfilled.event(),
            ("agreement", &id),
            &system(),
            &json!({
                "paid_charge_ids": paid,
                "canceled_charge_ids": canceled,
                "collected": crate::domain::money::Cents(collected).to_reais(),
            }),
        )
        .await?;
        tx.commit().await?;
        report.fulfilled.push(id);
    }
    Ok(report)
}
