//! Collection plans (réguas de cobrança) and their steps, always inside one organization.
//!
//! Steps keep a contiguous 1-based `position` inside their plan: inserting, moving and
//! deleting shift the neighbours. Any change to a step bumps its plan's version, since the
//! plan's representation (and ETag) includes its steps.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::rows::{Stored, by_id};
use super::{Bind, Conditions, Db, ListQuery, Page, PageRequest, Result};
use dunning_domain::collection::DayCount;
use dunning_domain::text::search_key;
use dunning_domain::timestamp::Timestamp;

crate::row! {
    /// A plan as stored, steps in order; `api::plans` shows it.
    #[derive(Debug, Clone)]
    pub struct Plan {
        pub id: String,
        pub name: String,
        pub description: Option<String>,
        pub steps: Vec<Step> = Vec::new(),
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
    }
}

impl Stored for Plan {
    const TABLE: &'static str = "collection_plans";
    const COLUMNS: &'static str = PLAN_COLUMNS;
}

crate::row! {
    /// A step as stored.
    #[derive(Debug, Clone)]
    pub struct Step {
        pub id: String,
        pub collection_plan_id: String,
        pub offset_days: i64,
        pub day_count: DayCount,
        pub channel: Option<String>,
        pub action: String,
        pub template: Option<String>,
        pub bureau: Option<String>,
        pub position: i64,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
    }
}

impl Stored for Step {
    const TABLE: &'static str = "collection_plan_steps";
    const COLUMNS: &'static str = STEP_COLUMNS;
}

/// Writable fields of a step (validated by the API layer).
#[derive(Debug, Clone)]
pub struct StepFields {
    pub offset_days: i64,
    pub day_count: DayCount,
    pub action: String,
    pub channel: Option<String>,
    pub template: Option<String>,
    pub bureau: Option<String>,
}

const PLAN_COLUMNS: &str = "id, name, description, version, created_at, updated_at";
const STEP_COLUMNS: &str = "id, collection_plan_id, offset_days, day_count, channel, action, template, bureau, position, version, created_at, updated_at";

/// Plans, oldest first, optionally those whose name starts with `q` (accents and case
/// ignored), each with its steps.
pub async fn list(
    db: &Db,
    organization_id: &str,
    q: Option<&str>,
    page: PageRequest,
) -> Result<Page<Plan>> {
    let found = list_query(organization_id, q)
        .fetch_rows::<Plan>(db, page)
        .await?;
    let mut items = found.items;
    if !items.is_empty() {
        let placeholders = (0..items.len())
            .map(|i| format!("${}", i + 2))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT {STEP_COLUMNS} FROM collection_plan_steps
             WHERE organization_id = $1 AND collection_plan_id IN ({placeholders}) ORDER BY position, id"
        );
        let mut query = sqlx::query_as::<_, Step>(AssertSqlSafe(sql)).bind(organization_id);
        for plan in &items {
            query = query.bind(plan.id.clone());
        }
        for step in query.fetch_all(&db.pool).await? {
            if let Some(plan) = items.iter_mut().find(|p| p.id == step.collection_plan_id) {
                plan.steps.push(step);
            }
        }
    }
    Ok(Page { items, ..found })
}

/// The query behind [`list`] (the steps are read after it, by plan id).
pub fn list_query(organization_id: &str, q: Option<&str>) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    if let Some(q) = q {
        let pattern = format!("{}%", super::like_escape(&search_key(q)));
        c.push("search_name LIKE {} ESCAPE '\\'", Bind::Text(pattern));
    }
    ListQuery::new(c, PLAN_COLUMNS, "FROM collection_plans", "created_at, id")
}

/// One plan with its steps.
pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Plan>> {
    let mut conn = db.pool.acquire().await?;
    get_in(&mut conn, organization_id, id).await
}

/// Same as [`get`] on a given connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Plan>> {
    let Some(mut plan) = by_id::<Plan>(&mut *conn, organization_id, id).await? else {
        return Ok(None);
    };
    plan.steps = all_steps(conn, organization_id, id).await?;
    Ok(Some(plan))
}

/// Whether the plan exists in the organization.
pub async fn exists(db: &Db, organization_id: &str, id: &str) -> Result<bool> {
    let found: Option<String> = sqlx::query_scalar(
        "SELECT id FROM collection_plans WHERE organization_id = $1 AND id = $2",
    )
    .bind(organization_id)
    .bind(id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(found.is_some())
}

async fn all_steps(
    conn: &mut AnyConnection,
    organization_id: &str,
    plan_id: &str,
) -> Result<Vec<Step>> {
    let sql = format!(
        "SELECT {STEP_COLUMNS} FROM collection_plan_steps
         WHERE organization_id = $1 AND collection_plan_id = $2 ORDER BY position, id"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(plan_id)
        .fetch_all(conn)
        .await?)
}

pub async fn insert_plan(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    name: &str,
    description: Option<&str>,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO collection_plans (id, organization_id, name, search_name, description, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 1, $6, $6)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(name)
    .bind(search_key(name))
    .bind(description)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Rename or re-describe a plan at `version`; false when it moved on.
pub async fn update_plan(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    name: &str,
    description: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE collection_plans SET name = $1, search_name = $2, description = $3, version = version + 1, updated_at = $4
         WHERE organization_id = $5 AND id = $6 AND version = $7",
    )
    .bind(name)
    .bind(search_key(name))
    .bind(description)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Mark the plan changed (its steps changed).
pub async fn touch_plan(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE collection_plans SET version = version + 1, updated_at = $1 WHERE organization_id = $2 AND id = $3",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many open charges are attached to the plan.
pub async fn open_charges_using(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT COUNT(*) FROM charges WHERE organization_id = $1 AND collection_plan_id = $2 AND state = 'open'",
    )
    .bind(organization_id)
    .bind(id)
    .fetch_one(conn)
    .await?)
}

/// Delete a plan and its steps. Closed charges that still name it forget it (a new version
/// of each); the caller checked that no open charge uses it.
pub async fn delete_plan(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE charges SET collection_plan_id = NULL, version = version + 1, updated_at = $1
         WHERE organization_id = $2 AND collection_plan_id = $3",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "DELETE FROM collection_plan_steps WHERE organization_id = $1 AND collection_plan_id = $2",
    )
    .bind(organization_id)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM collection_plans WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// A page of a plan's steps, in order.
pub async fn list_steps(
    db: &Db,
    organization_id: &str,
    plan_id: &str,
    page: PageRequest,
) -> Result<Page<Step>> {
    steps_query(organization_id, plan_id)
        .fetch_rows(db, page)
        .await
}

/// The query behind [`list_steps`].
pub fn steps_query(organization_id: &str, plan_id: &str) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    c.push("collection_plan_id = {}", Bind::Text(plan_id.to_string()));
    ListQuery::new(
        c,
        STEP_COLUMNS,
        "FROM collection_plan_steps",
        "position, id",
    )
}

/// One step of a plan.
pub async fn get_step(
    conn: &mut AnyConnection,
    organization_id: &str,
    plan_id: &str,
    step_id: &str,
) -> Result<Option<Step>> {
    let sql = format!(
        "SELECT {STEP_COLUMNS} FROM collection_plan_steps
         WHERE organization_id = $1 AND collection_plan_id = $2 AND id = $3"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(plan_id)
        .bind(step_id)
        .fetch_optional(conn)
        .await?)
}

async fn step_count(conn: &mut AnyConnection, organization_id: &str, plan_id: &str) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT COUNT(*) FROM collection_plan_steps WHERE organization_id = $1 AND collection_plan_id = $2",
    )
    .bind(organization_id)
    .bind(plan_id)
    .fetch_one(conn)
    .await?)
}

/// Insert a step at `position` (clamped to the end; default the end), shifting the steps
/// from there on. Returns the position it took.
pub async fn insert_step(
    conn: &mut AnyConnection,
    organization_id: &str,
    plan_id: &str,
    id: &str,
    fields: &StepFields,
    position: Option<i64>,
    now: &str,
) -> Result<i64> {
    let count = step_count(conn, organization_id, plan_id).await?;
    let position = position.unwrap_or(count + 1).clamp(1, count + 1);
    sqlx::query(
        "UPDATE collection_plan_steps SET position = position + 1
         WHERE organization_id = $1 AND collection_plan_id = $2 AND position >= $3",
    )
    .bind(organization_id)
    .bind(plan_id)
    .bind(position)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO collection_plan_steps (id, organization_id, collection_plan_id, position, offset_days, action, channel,
             template, bureau, version, created_at, updated_at, day_count)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10, $11)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(plan_id)
    .bind(position)
    .bind(fields.offset_days)
    .bind(&fields.action)
    .bind(fields.channel.as_deref())
    .bind(fields.template.as_deref())
    .bind(fields.bureau.as_deref())
    .bind(now)
    .bind(fields.day_count.as_str())
    .execute(&mut *conn)
    .await?;
    // The new step may be due before any the plan's charges were waiting for.
    super::plan_schedule::recheck_plan(conn, organization_id, plan_id).await?;
    Ok(position)
}

/// Overwrite a step at `version` and move it to `position` (clamped) when given; false when
/// it moved on.
pub async fn update_step(
    conn: &mut AnyConnection,
    organization_id: &str,
    current: &Step,
    fields: &StepFields,
    position: Option<i64>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE collection_plan_steps SET offset_days = $1, action = $2, channel = $3, template = $4, bureau = $5,
             version = version + 1, updated_at = $6, day_count = $10
         WHERE organization_id = $7 AND id = $8 AND version = $9",
    )
    .bind(fields.offset_days)
    .bind(&fields.action)
    .bind(fields.channel.as_deref())
    .bind(fields.template.as_deref())
    .bind(fields.bureau.as_deref())
    .bind(now)
    .bind(organization_id)
    .bind(&current.id)
    .bind(current.version)
    .bind(fields.day_count.as_str())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    // A new offset or day count may bring the step earlier. (A move changes no day.)
    super::plan_schedule::recheck_plan(conn, organization_id, &current.collection_plan_id).await?;
    if let Some(wanted) = position {
        let count = step_count(conn, organization_id, &current.collection_plan_id).await?;
        let to = wanted.clamp(1, count.max(1));
        let from = current.position;
        let shift = if to < from {
            Some(("position + 1", to, from - 1))
        } else if to > from {
            Some(("position - 1", from + 1, to))
        } else {
            None
        };
        if let Some((expression, low, high)) = shift {
            let sql = format!(
                "UPDATE collection_plan_steps SET position = {expression}
                 WHERE organization_id = $1 AND collection_plan_id = $2 AND position >= $3 AND position <= $4 AND id <> $5"
            );
            sqlx::query(AssertSqlSafe(sql))
                .bind(organization_id)
                .bind(&current.collection_plan_id)
                .bind(low)
                .bind(high)
                .bind(&current.id)
                .execute(&mut *conn)
                .await?;
            sqlx::query(
                "UPDATE collection_plan_steps SET position = $1 WHERE organization_id = $2 AND id = $3",
            )
            .bind(to)
            .bind(organization_id)
            .bind(&current.id)
            .execute(conn)
            .await?;
        }
    }
    Ok(true)
}

/// Remove a step and close the gap it leaves.
pub async fn delete_step(
    conn: &mut AnyConnection,
    organization_id: &str,
    step: &Step,
) -> Result<()> {
    sqlx::query("DELETE FROM collection_plan_steps WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(&step.id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE collection_plan_steps SET position = position - 1
         WHERE organization_id = $1 AND collection_plan_id = $2 AND position > $3",
    )
    .bind(organization_id)
    .bind(&step.collection_plan_id)
    .bind(step.position)
    .execute(conn)
    .await?;
    Ok(())
}
