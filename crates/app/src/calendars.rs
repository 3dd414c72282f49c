//! An organization's own holidays set, with their event: the one write of its calendar.
//! Charges read their effective due dates through it from then on (`store::charges`), so
//! nothing else is written: amounts due, statuses and plan step days follow by themselves.

use dunning_models::response::CalendarUpdatedData;
use dunning_store::calendars::{self as store, Holiday, StoredHolidays};
use dunning_store::events::Actor;

use crate::events;
use dunning_store::{Connection, Result, now_text};

/// Replace the organization's own holidays (dates unique, in order: the caller checked them)
/// and record `calendar.updated` with the dates added and removed.
pub async fn set_holidays(
    conn: &mut Connection,
    organization_id: &str,
    holidays: &[Holiday],
    actor: &Actor,
) -> Result<StoredHolidays> {
    let before = store::holidays_in(conn, organization_id).await?;
    let was: Vec<_> = before.holidays.iter().map(|h| h.date).collect();
    let is: Vec<_> = holidays.iter().map(|h| h.date).collect();
    let added: Vec<String> = is
        .iter()
        .filter(|d| !was.contains(d))
        .map(|d| d.to_string())
        .collect();
    let removed: Vec<String> = was
        .iter()
        .filter(|d| !is.contains(d))
        .map(|d| d.to_string())
        .collect();
    store::put(conn, organization_id, holidays, &now_text()).await?;
    events::record(
        conn,
        organization_id,
        "calendar.updated",
        ("calendar", organization_id),
        actor,
        &CalendarUpdatedData {
            holidays: i64::try_from(holidays.len()).unwrap_or(i64::MAX),
            added: &added,
            removed: &removed,
        },
    )
    .await?;
    store::holidays_in(conn, organization_id).await
}
