//! The audit trail: one row per state change, written in the same transaction as the change.

use serde_json::Value;
use sqlx::AnyConnection;

use super::{Backend, Db, Result, ids, now_text};
use dunning_domain::timestamp::Timestamp;

/// Who caused an event.
#[derive(Debug, Clone)]
pub struct Actor {
    pub kind: &'static str,
    pub id: Option<String>,
    pub name: Option<String>,
}

/// An event as read back; `api::events` shows it.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: String,
    pub kind: String,
    pub subject_type: String,
    pub subject_id: String,
    pub actor: Actor,
    pub data: Value,
    pub created_at: Timestamp,
}

/// Record an event inside the caller's transaction.
pub async fn record(
    conn: &mut AnyConnection,
    organization_id: &str,
    kind: &str,
    subject: (&str, &str),
    actor: &Actor,
    data: &Value,
) -> Result<()> {
    record_returning_id(conn, organization_id, kind, subject, actor, data)
        .await
        .map(drop)
}

/// Same as [`record`], returning the new event's id (for rows that point at their event,
/// such as a webhook test delivery).
pub async fn record_returning_id(
    conn: &mut AnyConnection,
    organization_id: &str,
    kind: &str,
    subject: (&str, &str),
    actor: &Actor,
    data: &Value,
) -> Result<String> {
    let id = ids::new_ordered_id("evt");
    sqlx::query(
        "INSERT INTO events (id, organization_id, type, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&id)
    .bind(organization_id)
    .bind(kind)
    .bind(subject.0)
    .bind(subject.1)
    .bind(actor.kind)
    .bind(actor.id.as_deref())
    .bind(actor.name.as_deref())
    .bind(data.to_string())
    .bind(now_text())
    .execute(conn)
    .await?;
    Ok(id)
}

/// An event to record with others ([`record_many`]).
#[derive(Debug, Clone)]
pub struct NewEvent<'a> {
    pub organization_id: &'a str,
    pub kind: &'a str,
    /// The subject's type and id.
    pub subject: (&'a str, &'a str),
    pub actor: &'a Actor,
    pub data: Value,
}

/// Record several events inside the caller's transaction in one statement, in the order
/// given (their ids and instants are made in that order, as [`record`] would one by one): a
/// batch of the engine's (a burst's sent notices) costs one round trip, not one per event.
/// The rows go as one JSON array of arrays ([`Backend::json_strings`] says why not a
/// parameter per value).
pub async fn record_many(conn: &mut AnyConnection, events: &[NewEvent<'_>]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let rows: Vec<Value> = events
        .iter()
        .map(|e| {
            serde_json::json!([
                ids::new_ordered_id("evt"),
                e.organization_id,
                e.kind,
                e.subject.0,
                e.subject.1,
                e.actor.kind,
                e.actor.id,
                e.actor.name,
                e.data.to_string(),
                now_text(),
            ])
        })
        .collect();
    let (rows_of, row) = Backend::of(conn).json_rows(1);
    let columns: Vec<String> = (0..10).map(|i| format!("{row} ->> {i}")).collect();
    let sql = format!(
        "INSERT INTO events (id, organization_id, type, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at)
         SELECT {} FROM {rows_of}",
        columns.join(", ")
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(Value::Array(rows).to_string())
        .execute(conn)
        .await?;
    Ok(())
}

/// Events of one subject, oldest first.
pub async fn for_subject(db: &Db, organization_id: &str, subject_id: &str) -> Result<Vec<Event>> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE organization_id = $1 AND subject_id = $2 ORDER BY created_at, id"
    );
    let rows: Vec<EventRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(subject_id)
        .fetch_all(&db.pool)
        .await?;
    Ok(rows.into_iter().map(EventRow::into_event).collect())
}

crate::row! {
    /// An `events` row as stored.
    struct EventRow {
        id: String,
        kind: String,
        subject_type: String,
        subject_id: String,
        actor_type: String,
        actor_id: Option<String>,
        actor_name: Option<String>,
        data: Value,
        created_at: Timestamp,
    }
}

impl EventRow {
    fn into_event(self) -> Event {
        Event {
            id: self.id,
            kind: self.kind,
            subject_type: self.subject_type,
            subject_id: self.subject_id,
            actor: Actor {
                kind: match self.actor_type.as_str() {
                    "person" => "person",
                    "token" => "token",
                    _ => "system",
                },
                id: self.actor_id,
                name: self.actor_name,
            },
            data: self.data,
            created_at: self.created_at,
        }
    }

    /// An event as the lists show it: the API promises a name, and rows written without one
    /// read as the system's.
    fn into_listed_event(self) -> Event {
        let mut event = self.into_event();
        event.actor.name.get_or_insert_with(|| "system".to_string());
        event
    }
}

const EVENT_COLUMNS: &str = "id, type AS kind, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at";

/// Filters of the audit trail (validated; instants as stored timestamps).
#[derive(Debug, Default)]
pub struct EventFilter {
    pub kind: Option<String>,
    pub subject_id: Option<String>,
    pub created_from: Option<String>,
    pub created_to: Option<String>,
}

/// The organization's audit trail, newest first.
pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &EventFilter,
    page: super::PageRequest,
) -> Result<super::Page<Event>> {
    let page = list_query(organization_id, filter)
        .fetch_rows::<EventRow>(db, page)
        .await?;
    Ok(page.map(EventRow::into_listed_event))
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str, filter: &EventFilter) -> super::ListQuery {
    use super::{Bind, Conditions};
    let mut c = Conditions::for_organization(organization_id);
    if let Some(kind) = &filter.kind {
        c.push("type = {}", Bind::Text(kind.clone()));
    }
    if let Some(subject) = &filter.subject_id {
        c.push("subject_id = {}", Bind::Text(subject.clone()));
    }
    if let Some(from) = &filter.created_from {
        c.push("created_at >= {}", Bind::Text(from.clone()));
    }
    if let Some(to) = &filter.created_to {
        c.push("created_at <= {}", Bind::Text(to.clone()));
    }
    super::ListQuery::new(c, EVENT_COLUMNS, "FROM events", "created_at DESC, id DESC")
}

/// The timeline of one charge, oldest first: events about it, and events about other objects
/// (deliveries, disputes, agreements) whose data names it.
pub async fn charge_timeline(
    db: &Db,
    organization_id: &str,
    charge_id: &str,
    page: super::PageRequest,
) -> Result<super::Page<Event>> {
    let page = timeline_query(organization_id, charge_id)
        .fetch_rows::<EventRow>(db, page)
        .await?;
    Ok(page.map(EventRow::into_listed_event))
}

/// The query behind [`charge_timeline`].
pub fn timeline_query(organization_id: &str, charge_id: &str) -> super::ListQuery {
    let mention = format!("%\"{}\"%", super::like_escape(charge_id));
    let mut c = super::Conditions::for_organization(organization_id);
    c.push_many(
        "(subject_id = {} OR data LIKE {} ESCAPE '\\')",
        vec![
            super::Bind::Text(charge_id.to_string()),
            super::Bind::Text(mention),
        ],
    );
    super::ListQuery::new(c, EVENT_COLUMNS, "FROM events", "created_at, id")
}
