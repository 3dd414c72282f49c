//! When each charge's next plan step is due: `charges.steps_due_on`, and the partial index
//! `charges_steps_due` the collection worker reads it through (migration 20).
//!
//! The day is a lower bound, never later than the truth, so the worker may look at a charge
//! too early (it then finds nothing to run and writes the real day) but never too late. Every
//! change that can bring a step earlier calls one of the `recheck_*` functions in its own
//! transaction: attaching a plan or changing a due date (`charges::insert`, `charges::update`
//! write it themselves), adding or editing a plan's step ([`recheck_plan`]), changing the
//! organization's holidays ([`recheck_organization`]). What only delays steps (deleting a step,
//! reordering, detaching the plan) leaves the bound as it is. Leaving the collectable states
//! (paid, canceled, in an agreement, in a dispute) needs nothing: the index holds only
//! collectable charges, so such a charge stops being read, and comes back with its day.
//!
//! The worker writes the day it computed with [`settle`], only while `steps_revision` is the
//! one it read: a `recheck_*` bumps it, so a change committed after the worker's read is never
//! overwritten by a day computed without it. On PostgreSQL a `recheck_*` in flight holds the
//! row, and `settle`'s compare then reads the committed revision.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::{Backend, Db, Result};
use dunning_domain::timestamp::Timestamp;

/// The day that means "look again at the next tick": before any real day.
pub const RECHECK: &str = "0000-01-01";

/// Charges read per statement by [`due`].
pub const BATCH: i64 = 500;

/// Look at this charge again at the next tick.
pub async fn recheck_charge(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE charges SET steps_due_on = $1, steps_revision = steps_revision + 1
         WHERE organization_id = $2 AND id = $3 AND collection_plan_id IS NOT NULL",
    )
    .bind(RECHECK)
    .bind(organization_id)
    .bind(charge_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Look again at every charge of this plan (a step was added or changed), whatever its
/// state: one that is not collectable now keeps the mark for when it is again.
pub async fn recheck_plan(
    conn: &mut AnyConnection,
    organization_id: &str,
    plan_id: &str,
) -> Result<()> {
    let sql = recheck_many(conn, "collection_plan_id = $3");
    sqlx::query(AssertSqlSafe(sql))
        .bind(RECHECK)
        .bind(organization_id)
        .bind(plan_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Look again at every charge of the organization that has a plan (its holidays changed,
/// which moves effective due dates and business days).
pub async fn recheck_organization(conn: &mut AnyConnection, organization_id: &str) -> Result<()> {
    let sql = recheck_many(conn, "collection_plan_id IS NOT NULL");
    sqlx::query(AssertSqlSafe(sql))
        .bind(RECHECK)
        .bind(organization_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The statement marking the organization's (`$2`) charges that match `which` (a constant
/// condition): on PostgreSQL their rows are locked in id order first, the order every other
/// transaction that writes several charges takes (`locks`), so that two never wait on each
/// other in a cycle. SQLite writes alone.
fn recheck_many(conn: &AnyConnection, which: &str) -> String {
    let in_id_order = if conn.backend_name() == "SQLite" {
        ""
    } else {
        " ORDER BY id FOR UPDATE"
    };
    format!(
        "UPDATE charges SET steps_due_on = $1, steps_revision = steps_revision + 1
         WHERE id IN (SELECT id FROM charges WHERE organization_id = $2 AND {which}{in_id_order})"
    )
}

crate::row! {
    /// A charge whose next step may be due, with one step of its plan not yet run (none:
    /// every step ran, and the row only says so).
    #[derive(Debug, Clone)]
    pub struct DueRow {
        pub organization_id: String,
        pub charge_id: String,
        /// The day the charge was read for (where the next batch starts).
        pub steps_due_on: String,
        /// The revision read with the steps, for [`settle`].
        pub steps_revision: i64,
        pub due_date: time::Date,
        /// When the charge got its plan (or was created).
        pub attached_at: Timestamp,
        pub step_id: Option<String>,
        pub step_created_at: Option<Timestamp>,
        pub offset_days: Option<i64>,
        pub day_count: Option<dunning_domain::collection::DayCount>,
        pub position: Option<i64>,
        pub action: Option<String>,
        pub channel: Option<String>,
        pub template: Option<String>,
        pub bureau: Option<String>,
    }
}

/// The statement of [`due`] (`$1` today, `$2` and `$3` the day and id to read after, `$4`
/// [`BATCH`]): public so that a test can ask each engine for its plan. The batch is taken in
/// the index's own order (day, then id): ordered by id alone, SQLite walked the primary key
/// instead, which reads the whole table when few charges are due.
pub const DUE_SQL: &str = "SELECT c.organization_id, c.id AS charge_id, c.steps_due_on, c.steps_revision, c.due_date,
                COALESCE(c.plan_attached_at, c.created_at) AS attached_at,
                s.id AS step_id, s.created_at AS step_created_at, s.offset_days, s.day_count, s.position,
                s.action, s.channel, s.template, s.bureau
         FROM (SELECT id FROM charges
               WHERE state = 'open' AND open_dispute_id IS NULL AND collection_plan_id IS NOT NULL
                 AND steps_due_on <= $1 AND (steps_due_on, id) > ($2, $3)
               ORDER BY steps_due_on, id LIMIT $4) due
         JOIN charges c ON c.id = due.id
         LEFT JOIN collection_plan_steps s
           ON s.collection_plan_id = c.collection_plan_id AND s.organization_id = c.organization_id
          AND NOT EXISTS (SELECT 1 FROM collection_step_runs r WHERE r.charge_id = c.id AND r.step_id = s.id)
         ORDER BY c.steps_due_on, c.id, s.position, s.id";

/// The charges, across organizations, whose next step may be due by `today` (a Brasília
/// day), at most [`BATCH`] of them after `after` (a day and an id) in that order, each with every step of
/// its plan not yet run (one row per step; one row with no step when none is left). Read
/// through `charges_steps_due`: an idle tick reads nothing, whatever the table's size.
pub async fn due(db: &Db, today: &str, after: (&str, &str)) -> Result<Vec<DueRow>> {
    Ok(sqlx::query_as(DUE_SQL)
        .bind(today)
        .bind(after.0)
        .bind(after.1)
        .bind(BATCH)
        .fetch_all(&db.pool)
        .await?)
}

/// A charge's next day as the worker computed it from what it read at `revision`.
#[derive(Debug, Clone)]
pub struct Settled {
    pub charge_id: String,
    pub revision: i64,
    /// `None`: no step left to run.
    pub next: Option<String>,
}

/// Write each charge's next day if nothing changed it since its revision was read. A charge
/// something did change keeps the mark it left, and the next tick looks again. Returns how
/// many were written.
///
/// One statement for the batch: one commit instead of hundreds (on PostgreSQL a statement per
/// row was a WAL flush per row, the most waited-on statement of a due-day burst). On
/// PostgreSQL the rows are locked in id order first, the order `recheck_plan` and every other
/// transaction writing several charges take (`locks`), so that none waits on another in a
/// cycle; SQLite writes alone.
pub async fn settle(db: &Db, settled: &[Settled]) -> Result<usize> {
    if settled.is_empty() {
        return Ok(0);
    }
    let rows: Vec<serde_json::Value> = settled
        .iter()
        .map(|c| serde_json::json!([c.charge_id, c.next, c.revision]))
        .collect();
    let (rows_of, row) = db.backend.json_rows(1);
    let batch = format!(
        "SELECT {row} ->> 0 AS id, {row} ->> 1 AS next_day, CAST({row} ->> 2 AS BIGINT) AS revision
         FROM {rows_of}"
    );
    // SQLite walks the batch and finds each charge by id. PostgreSQL first locks, in id order,
    // the batch's charges whose revision held (a materialized CTE: the lock read once, each row
    // rechecked once locked), then writes those: both steps walk the batch once.
    let sql = match db.backend {
        Backend::Sqlite => format!(
            "UPDATE charges SET steps_due_on = s.next_day FROM ({batch}) AS s
             WHERE charges.id = s.id AND charges.steps_revision = s.revision"
        ),
        Backend::Postgres => format!(
            "WITH held AS MATERIALIZED (
                 SELECT charges.id, s.next_day FROM charges JOIN ({batch}) AS s
                   ON charges.id = s.id AND charges.steps_revision = s.revision
                 ORDER BY charges.id FOR UPDATE OF charges)
             UPDATE charges SET steps_due_on = held.next_day FROM held WHERE charges.id = held.id"
        ),
    };
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(serde_json::Value::Array(rows).to_string())
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected() as usize)
}
