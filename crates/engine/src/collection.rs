//! The collection worker: runs the plans' steps when their day comes, sends the queued
//! deliveries through their channels, and carries negativations and protests through the
//! bureau's and the notary's answers.
//!
//! Everything pending lives in the database, so a restart loses nothing and replicas share
//! the work: a step runs for a charge once because `collection_step_runs` refuses a second
//! row for the pair; a delivery or a bureau request is claimed with a conditional update (a
//! lease) before any outside call, so only one worker holds it.
//!
//! When a step's day comes (`domain::collection::step_day`: `offset_days` calendar or
//! business days from the due date, counted after the effective due date when the step
//! comes after it; days are Brasília's), for open charges without an open dispute, on or after the day the charge got its plan and the step was created (a step
//! added today does not fire for days already gone). When several notices of a charge are
//! due at once (after downtime or a dispute), only the latest goes out; the others are
//! recorded as superseded. The worker finds those charges by their schedule
//! (`dunning_store::plan_schedule`: each charge's next day, kept by every change that can
//! bring a step earlier), so an idle tick reads nothing however many charges there are.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use time::{Date, OffsetDateTime};
use tokio::task::{JoinError, JoinSet};

use super::providers::{PartyAnswer, PartyRequest, Providers, Receipt, SANDBOX_DELAY};
use super::sending::{RETRY_SCHEDULE, engine_actor, plus, send_due_while};
use crate::Engine;
use dunning_app::collection::{self as actions, ActionContext, CollectionRequest, NoticeText};
use dunning_app::events;
use dunning_app::refusals;
use dunning_domain::calendar::{Calendar, day_of};
use dunning_domain::collection::{NegativationStatus, ProtestStatus, step_day};
use dunning_models::response::{ChargePartyAnswerData, ChargeStepSkippedData, DeliveryOutcomeData};
use dunning_store::collection::{self as store, PendingStep, StatusMove, StepRun};
use dunning_store::deliveries::{self, Delivery};
use dunning_store::events::Actor;
use dunning_store::{Backend, Result, StoreError, ids, plan_schedule, timestamp_text};

/// How often the worker wakes up.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// How long a claim holds a bureau's or notary's request: far longer than one attempt takes.
const LEASE: Duration = Duration::from_secs(5 * 60);

/// Charges whose due steps run at once on PostgreSQL: each run is a transaction of a dozen
/// statements, and one at a time a due-day burst queued its notices at ~200 charges a second,
/// a round trip at a time. On SQLite, whose writers take turns, they run one at a time.
const PLAN_CHARGES_AT_ONCE: usize = 8;

/// Work taken per tick, per kind.
const BATCH: i64 = 100;

/// What a tick did (for logs and tests).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TickReport {
    /// Plan steps that acted (a notice queued, a negativation or protest requested).
    pub steps_run: usize,
    /// Plan steps recorded without acting (a rule refused, or superseded).
    pub steps_skipped: usize,
    /// Delivery attempts made (sent or not).
    pub attempts: usize,
    /// Receipts applied (delivered or bounced).
    pub receipts: usize,
    /// Bureau and notary answers applied.
    pub answers: usize,
}

/// The worker's loop; errors are logged and the next tick tries again.
pub async fn run(engine: Engine) {
    let interval = engine.settings.collection_interval.unwrap_or(INTERVAL);
    super::run_worker(&engine, "collection", interval, || async {
        let report = tick(&engine, dunning_domain::timestamp::now()).await?;
        if report != TickReport::default() {
            tracing::info!(?report, "collection tick");
        }
        Ok::<(), StoreError>(())
    })
    .await
}

/// One pass over all due work as of `now`: plan steps, deliveries, receipts, bureau and
/// notary answers.
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<TickReport> {
    let providers = engine.providers.as_ref();
    let mut report = TickReport::default();
    let ((), attempts) = send_due_while(engine, now, run_plans(engine, now, &mut report)).await?;
    report.attempts += attempts;
    apply_receipts(engine, providers, now, &mut report).await?;
    answer_requests(engine, providers, now, &mut report).await?;
    Ok(report)
}

/// A step due for a charge, and whether a later notice supersedes it.
struct DueStep {
    step: PendingStep,
    day: Date,
    superseded: bool,
}

/// A charge whose next step may be due, with the steps of its plan not yet run.
struct DueCharge {
    charge_id: String,
    organization_id: String,
    /// The revision its schedule was read at (`plan_schedule::settle`).
    revision: i64,
    steps: Vec<PendingStep>,
}

/// Run the plan steps whose day has come, for the charges whose schedule says one may have
/// (`dunning_store::plan_schedule`), a batch at a time, and write each charge's next day: an
/// idle tick reads nothing, whatever the number of charges.
async fn run_plans(engine: &Engine, now: OffsetDateTime, report: &mut TickReport) -> Result<()> {
    let today = day_of(now);
    let today_text = today.to_string();
    let mut calendars: HashMap<String, Arc<Calendar>> = HashMap::new();
    let mut after = (String::new(), String::new());
    let at_once = match engine.db.backend {
        Backend::Postgres => PLAN_CHARGES_AT_ONCE,
        Backend::Sqlite => 1,
    };
    loop {
        let rows = plan_schedule::due(&engine.db, &today_text, (&after.0, &after.1)).await?;
        let Some(last) = rows.last() else {
            break;
        };
        after = (last.steps_due_on.clone(), last.charge_id.clone());
        let charges = due_charges(rows);
        let read = charges.len();
        let mut settled = Vec::with_capacity(read);
        let mut running = JoinSet::new();
        for charge in charges {
            let calendar = match calendars.get(&charge.organization_id) {
                Some(calendar) => calendar.clone(),
                None => {
                    let calendar =
                        dunning_store::calendars::of(&engine.db, &charge.organization_id).await?;
                    calendars.insert(charge.organization_id.clone(), calendar.clone());
                    calendar
                }
            };
            if running.len() >= at_once {
                settled.push(finished(running.join_next().await, report)?);
            }
            let engine = engine.clone();
            running.spawn(async move {
                let mut report = TickReport::default();
                let settled = run_charge(&engine, &calendar, charge, now, &mut report).await?;
                Ok((settled, report))
            });
        }
        while !running.is_empty() {
            settled.push(finished(running.join_next().await, report)?);
        }
        plan_schedule::settle(&engine.db, &settled).await?;
        if (read as i64) < plan_schedule::BATCH {
            break;
        }
    }
    Ok(())
}

/// A charge's run of its steps, finished: its settled schedule, its counts added to `report`.
/// A run that panicked panics here, as it did before the runs went side by side.
fn finished(
    done: Option<std::result::Result<Result<(plan_schedule::Settled, TickReport)>, JoinError>>,
    report: &mut TickReport,
) -> Result<plan_schedule::Settled> {
    let (settled, counts) = match done.expect("a run was waited for only while one was running") {
        Ok(result) => result?,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    };
    report.steps_run += counts.steps_run;
    report.steps_skipped += counts.steps_skipped;
    Ok(settled)
}

/// The rows of `plan_schedule::due` (one per unrun step, charge by charge) as charges.
fn due_charges(rows: Vec<plan_schedule::DueRow>) -> Vec<DueCharge> {
    let mut charges: Vec<DueCharge> = Vec::new();
    for row in rows {
        if charges.last().is_none_or(|c| c.charge_id != row.charge_id) {
            charges.push(DueCharge {
                charge_id: row.charge_id.clone(),
                organization_id: row.organization_id.clone(),
                revision: row.steps_revision,
                steps: Vec::new(),
            });
        }
        if let Some(step) = pending_step(row) {
            charges.last_mut().expect("pushed above").steps.push(step);
        }
    }
    charges
}

/// The step a row carries, if it carries one.
fn pending_step(row: plan_schedule::DueRow) -> Option<PendingStep> {
    Some(PendingStep {
        organization_id: row.organization_id,
        charge_id: row.charge_id,
        due_date: row.due_date,
        attached_at: row.attached_at,
        step_id: row.step_id?,
        step_created_at: row.step_created_at?,
        offset_days: row.offset_days?,
        day_count: row.day_count?,
        position: row.position?,
        action: row.action?,
        channel: row.channel,
        template: row.template,
        bureau: row.bureau,
    })
}

/// Run `charge`'s steps whose day has come; its next day is the first day of a step still to
/// come, or of a due step that could not run now (it is tried again next tick).
async fn run_charge(
    engine: &Engine,
    calendar: &Calendar,
    charge: DueCharge,
    now: OffsetDateTime,
    report: &mut TickReport,
) -> Result<plan_schedule::Settled> {
    let today = day_of(now);
    let mut due = Vec::new();
    let mut next: Option<Date> = None;
    for step in charge.steps {
        let day = step_day(calendar, step.due_date, step.offset_days, step.day_count);
        // The (Brasília) days the charge got its plan and the step was added: a step whose
        // day was before both never runs.
        let anchor = day_of(step.attached_at.instant()).max(day_of(step.step_created_at.instant()));
        if day < anchor {
            continue;
        }
        if day <= today {
            due.push(DueStep {
                step,
                day,
                superseded: false,
            });
        } else {
            next = Some(next.map_or(day, |n| n.min(day)));
        }
    }
    due.sort_by_key(|s| (s.day, s.step.position));
    let last_notice = due.iter().rposition(|s| s.step.action == "notify");
    for (i, s) in due.iter_mut().enumerate() {
        s.superseded = s.step.action == "notify" && Some(i) != last_notice;
    }
    for s in &due {
        match run_step(engine, s, now).await? {
            StepResult::Acted => report.steps_run += 1,
            StepResult::Skipped => report.steps_skipped += 1,
            StepResult::NotNow => next = Some(next.map_or(s.day, |n| n.min(s.day))),
        }
    }
    Ok(plan_schedule::Settled {
        charge_id: charge.charge_id,
        revision: charge.revision,
        next: next.map(|day| day.to_string()),
    })
}

enum StepResult {
    Acted,
    Skipped,
    /// Nothing recorded: the step may run later (the charge is paused or changed).
    NotNow,
}

/// Refusals that describe a passing state of the charge rather than the step's day: the
/// step is left to run once the charge is collectable again.
fn transient(code: &str) -> bool {
    matches!(
        code,
        refusals::CHARGE_IN_DISPUTE | refusals::CHARGE_NOT_OPEN | refusals::CONCURRENT_UPDATE
    )
}

async fn run_step(engine: &Engine, due: &DueStep, now: OffsetDateTime) -> Result<StepResult> {
    let s = &due.step;
    let org = s.organization_id.as_str();
    let actor = engine_actor();
    let now_text = timestamp_text(now);
    let mut tx = engine.db.begin().await?;
    let outcome = if due.superseded {
        Err(dunning_domain::collection::Refusal {
            code: refusals::SUPERSEDED,
            detail: "A later notice of the plan was due at the same time; only that one was sent"
                .into(),
        })
    } else {
        let cx = ActionContext {
            organization_id: org,
            charge_id: &s.charge_id,
            version: None,
            actor: &actor,
            now,
        };
        match s.action.as_str() {
            "notify" => actions::notify(
                &mut tx,
                &cx,
                s.channel.as_deref().unwrap_or("email"),
                NoticeText::Compose {
                    template: s.template.as_deref(),
                },
                Some(&s.step_id),
            )
            .await?
            .map(Some),
            "negativate" => {
                let bureau = s.bureau.as_deref().unwrap_or("serasa");
                actions::request(&mut tx, &cx, CollectionRequest::Negativate { bureau })
                    .await?
                    .map(|()| None)
            }
            "protest" => actions::request(&mut tx, &cx, CollectionRequest::Protest)
                .await?
                .map(|()| None),
            other => {
                return Err(StoreError::Corrupt(format!(
                    "step {} has the unknown action {other}",
                    s.step_id
                )));
            }
        }
    };
    let (result, recorded) = match &outcome {
        Ok(delivery_id) => (
            StepResult::Acted,
            store::record_step_run(
                &mut tx,
                org,
                &StepRun {
                    charge_id: &s.charge_id,
                    step_id: &s.step_id,
                    outcome: "done",
                    reason: None,
                    delivery_id: delivery_id.as_deref(),
                },
                &now_text,
            )
            .await?,
        ),
        Err(refusal) if transient(refusal.code) => return Ok(StepResult::NotNow),
        Err(refusal) => {
            let recorded = store::record_step_run(
                &mut tx,
                org,
                &StepRun {
                    charge_id: &s.charge_id,
                    step_id: &s.step_id,
                    outcome: "skipped",
                    reason: Some(refusal.code),
                    delivery_id: None,
                },
                &now_text,
            )
            .await?;
            if recorded {
                events::record(
                    &mut tx,
                    org,
                    "charge.step_skipped",
                    ("charge", &s.charge_id),
                    &actor,
                    &ChargeStepSkippedData {
                        step_id: &s.step_id,
                        action: s.action.as_str(),
                        reason: refusal.code,
                        detail: &refusal.detail,
                    },
                )
                .await?;
            }
            (StepResult::Skipped, recorded)
        }
    };
    if recorded {
        tx.commit().await?;
        Ok(result)
    } else {
        // Another worker ran this (charge, step) first: undo what was prepared.
        tx.rollback().await?;
        Ok(StepResult::NotNow)
    }
}

async fn apply_receipts(
    engine: &Engine,
    providers: &Providers,
    now: OffsetDateTime,
    report: &mut TickReport,
) -> Result<()> {
    let sent_before =
        timestamp_text(now - time::Duration::try_from(SANDBOX_DELAY).unwrap_or_default());
    let mut seen = Vec::new();
    for name in ["sandbox", "smtp"] {
        let Some(channel) = providers.by_provider(name) else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        for delivery in deliveries::awaiting_receipt(&engine.db, name, &sent_before, BATCH).await? {
            let Some(receipt) = channel.receipt(&delivery) else {
                continue;
            };
            if record_receipt(&engine.db, &delivery, &receipt, &engine_actor(), now).await? {
                report.receipts += 1;
            }
        }
    }
    Ok(())
}

/// Apply a receipt to a `sent` delivery, with its event, in one transaction: the sandbox's
/// (from [`tick`]) or a provider's status callback (the server's `/callbacks`). False when
/// the delivery is no longer `sent` (delivered or bounced already, by a repeat or another
/// replica): a receipt never moves a delivery backwards, and a repeat writes nothing.
pub async fn record_receipt(
    db: &dunning_store::Db,
    delivery: &Delivery,
    receipt: &Receipt,
    actor: &Actor,
    now: OffsetDateTime,
) -> Result<bool> {
    let now_text = timestamp_text(now);
    let (status, error) = match receipt {
        Receipt::Delivered => ("delivered", None),
        Receipt::Bounced(e) => ("bounced", Some(e.as_str())),
    };
    let mut tx = db.begin().await?;
    if !deliveries::apply_receipt(&mut tx, &delivery.id, status, error, &now_text).await? {
        tx.rollback().await?;
        return Ok(false);
    }
    events::record(
        &mut tx,
        &delivery.organization_id,
        &format!("delivery.{status}"),
        ("delivery", &delivery.id),
        actor,
        &DeliveryOutcomeData {
            charge_id: &delivery.charge_id,
            channel: &delivery.channel,
            attempts: delivery.attempts,
            error,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The transition an answer makes: from this status to that one, with its event.
struct Transition {
    change: StatusMove<'static>,
    event: &'static str,
}

fn transition(kind: &str) -> Option<Transition> {
    let negativation = |from, to, event| Transition {
        change: StatusMove::Negativation {
            from,
            to,
            bureau: None,
        },
        event,
    };
    let protest = |from, to, event| Transition {
        change: StatusMove::Protest { from, to },
        event,
    };
    Some(match kind {
        "negativation" => negativation(
            &[NegativationStatus::Requested],
            NegativationStatus::Active,
            "charge.negativated",
        ),
        "negativation_removal" => negativation(
            &[NegativationStatus::RemovalRequested],
            NegativationStatus::Removed,
            "charge.negativation_removed",
        ),
        "protest" => protest(
            &[ProtestStatus::Requested],
            ProtestStatus::Protested,
            "charge.protested",
        ),
        "protest_cancel" => protest(
            &[ProtestStatus::CancelRequested],
            ProtestStatus::Canceled,
            "charge.protest_canceled",
        ),
        _ => return None,
    })
}

async fn answer_requests(
    engine: &Engine,
    providers: &Providers,
    now: OffsetDateTime,
    report: &mut TickReport,
) -> Result<()> {
    let now_text = timestamp_text(now);
    let delay = time::Duration::try_from(SANDBOX_DELAY).unwrap_or_default();
    // Every negativation or protest awaiting an answer has a pending request: whoever set
    // the status (a person, a plan, a payment, a cancellation), the engine follows it up.
    for a in store::awaiting_answers(&engine.db).await? {
        let asked_at = timestamp_text(a.updated_at.instant() + delay);
        let bureau = a.negativation_bureau.as_deref().unwrap_or("serasa");
        let mut wanted = Vec::new();
        match a.negativation_status {
            NegativationStatus::Requested => wanted.push(("negativation", bureau)),
            NegativationStatus::RemovalRequested => {
                wanted.push(("negativation_removal", bureau));
            }
            NegativationStatus::None | NegativationStatus::Active | NegativationStatus::Removed => {
            }
        }
        match a.protest_status {
            ProtestStatus::Requested => wanted.push(("protest", "notary")),
            ProtestStatus::CancelRequested => wanted.push(("protest_cancel", "notary")),
            ProtestStatus::None | ProtestStatus::Protested | ProtestStatus::Canceled => {}
        }
        for (kind, party) in wanted {
            store::ensure_request(
                &engine.db,
                &a.organization_id,
                &a.charge_id,
                kind,
                party,
                &asked_at,
                &now_text,
            )
            .await?;
        }
    }
    let until = timestamp_text(plus(now, super::lease(engine, LEASE)));
    for r in store::due_requests(&engine.db, &now_text, BATCH).await? {
        let token = ids::new_id("clm");
        if !store::claim_request(&engine.db, &r.charge_id, &r.kind, &token, &now_text, &until)
            .await?
        {
            continue;
        }
        let request = PartyRequest {
            organization_id: &r.organization_id,
            charge_id: &r.charge_id,
            kind: &r.kind,
            party: &r.party,
        };
        let party = if r.kind.starts_with("protest") {
            providers.notary.as_ref()
        } else {
            providers.bureau.as_ref()
        };
        let answer = party.submit(&request).await;
        let mut tx = engine.db.begin().await?;
        match answer {
            PartyAnswer::Done => {
                if !store::finish_request(&mut tx, &r.charge_id, &r.kind, &token, None, &now_text)
                    .await?
                {
                    tx.rollback().await?;
                    continue;
                }
                // The charge may have moved on meanwhile (paid while the negativation was
                // being filed): then the answer changes nothing, and the newer request
                // carries on.
                if let Some(t) = transition(&r.kind)
                    && store::set_collection_status(
                        &mut tx,
                        &r.organization_id,
                        &r.charge_id,
                        None,
                        &t.change,
                        &now_text,
                    )
                    .await?
                {
                    events::record(
                        &mut tx,
                        &r.organization_id,
                        t.event,
                        ("charge", &r.charge_id),
                        &Actor {
                            kind: "system",
                            id: None,
                            name: Some(party.actor_name(&r.party)),
                        },
                        &ChargePartyAnswerData {
                            party: &r.party,
                            status: t.change.to_word(),
                        },
                    )
                    .await?;
                    report.answers += 1;
                }
            }
            PartyAnswer::Retry(error) => {
                let wait = RETRY_SCHEDULE
                    .get(usize::try_from(r.attempts).unwrap_or(usize::MAX))
                    .copied()
                    .unwrap_or(RETRY_SCHEDULE[RETRY_SCHEDULE.len() - 1]);
                let next = timestamp_text(plus(now, wait));
                store::finish_request(
                    &mut tx,
                    &r.charge_id,
                    &r.kind,
                    &token,
                    Some((&error, &next)),
                    &now_text,
                )
                .await?;
            }
        }
        tx.commit().await?;
    }
    Ok(())
}
