//! The audit trail: one row per state change, written in the same transaction as the change.

use serde::Serialize;
use serde_json::Value;
use sqlx::{AnyConnection, Row};

use super::{Db, Result, ids, json_column, now_text};

/// Who caused an event.
#[derive(Debug, Clone, Serialize)]
pub struct Actor {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: Option<String>,
    pub name: Option<String>,
}

/// An event as the API returns it.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub subject_type: String,
    pub subject_id: String,
    pub actor: Actor,
    pub data: Value,
    pub created_at: String,
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
    sqlx::query(
        "INSERT INTO events (id, organization_id, type, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(ids::new_id("evt"))
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
    Ok(())
}

/// Events of one subject, oldest first.
pub async fn for_subject(db: &Db, organization_id: &str, subject_id: &str) -> Result<Vec<Event>> {
    let rows = sqlx::query(
        "SELECT id, type, subject_type, subject_id, actor_type, actor_id, actor_name, data, created_at
         FROM events WHERE organization_id = $1 AND subject_id = $2 ORDER BY created_at, id",
    )
    .bind(organization_id)
    .bind(subject_id)
    .fetch_all(&db.pool)
    .await?;
    rows.iter()
        .map(|row| {
            let actor_type: String = row.try_get("actor_type")?;
            let data: String = row.try_get("data")?;
            Ok(Event {
                id: row.try_get("id")?,
                kind: row.try_get("type")?,
                subject_type: row.try_get("subject_type")?,
                subject_id: row.try_get("subject_id")?,
                actor: Actor {
                    kind: match actor_type.as_str() {
                        "person" => "person",
                        "token" => "token",
                        _ => "system",
                    },
                    id: row.try_get("actor_id")?,
                    name: row.try_get("actor_name")?,
                },
                data: json_column(&data, "events.data")?,
                created_at: row.try_get("created_at")?,
            })
        })
        .collect()
}
