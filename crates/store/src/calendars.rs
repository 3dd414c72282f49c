//! An organization's calendar (`organization_calendars`, one row per organization): its own
//! holidays beside the national ones the domain knows. Every charge read turns its due date
//! into its effective due date through it, so it is read with each — in the charge's own
//! statement (`charges::ChargeRow`'s columns), or by its key here — never cached: a holiday set
//! on one replica counts on every replica at once.

use std::sync::Arc;

use sqlx::AnyConnection;
use time::Date;

use super::rows::{Stored, of_organization};
use super::{Db, Result, StoreError};
use dunning_domain::calendar::Calendar;
use dunning_domain::timestamp::Timestamp;

/// One holiday of the organization's own.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Holiday {
    pub date: Date,
    pub name: String,
}

crate::row! {
    struct CalendarRow {
        holidays: String,
        updated_at: Timestamp,
    }
}

impl Stored for CalendarRow {
    const TABLE: &'static str = "organization_calendars";
    const COLUMNS: &'static str = "holidays, updated_at";
}

/// The organization's own holidays as stored, and when they last changed (`None`: never set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredHolidays {
    pub holidays: Vec<Holiday>,
    pub updated_at: Option<Timestamp>,
}

fn read(organization_id: &str, row: Option<CalendarRow>) -> Result<StoredHolidays> {
    let Some(row) = row else {
        return Ok(StoredHolidays::default());
    };
    let holidays: Vec<Holiday> = serde_json::from_str(&row.holidays).map_err(|e| {
        StoreError::Corrupt(format!("organization_calendars of {organization_id}: {e}"))
    })?;
    Ok(StoredHolidays {
        holidays,
        updated_at: Some(row.updated_at),
    })
}

/// The organization's own holidays, read outside a transaction.
pub async fn holidays(db: &Db, organization_id: &str) -> Result<StoredHolidays> {
    let row = db.of_organization(organization_id).await?;
    read(organization_id, row)
}

/// Same as [`holidays`] inside a transaction.
pub async fn holidays_in(
    conn: &mut AnyConnection,
    organization_id: &str,
) -> Result<StoredHolidays> {
    let row = of_organization(conn, organization_id).await?;
    read(organization_id, row)
}

/// The organization's calendar (national holidays and its own), read outside a transaction.
pub async fn of(db: &Db, organization_id: &str) -> Result<Arc<Calendar>> {
    Ok(calendar(holidays(db, organization_id).await?))
}

/// The calendar of holidays stored as `text` (the `holidays` column).
pub fn parse(organization_id: &str, text: &str) -> Result<Arc<Calendar>> {
    let holidays: Vec<Holiday> = serde_json::from_str(text).map_err(|e| {
        StoreError::Corrupt(format!("organization_calendars of {organization_id}: {e}"))
    })?;
    Ok(Arc::new(Calendar::with_holidays(
        holidays.into_iter().map(|h| h.date).collect(),
    )))
}

fn calendar(stored: StoredHolidays) -> Arc<Calendar> {
    Arc::new(Calendar::with_holidays(
        stored.holidays.into_iter().map(|h| h.date).collect(),
    ))
}

/// Replace the organization's own holidays (checked by the caller: dates unique and sorted).
pub async fn put(
    conn: &mut AnyConnection,
    organization_id: &str,
    holidays: &[Holiday],
    now: &str,
) -> Result<()> {
    let text = serde_json::to_string(holidays).expect("holidays serialise");
    let updated = sqlx::query(
        "UPDATE organization_calendars SET holidays = $1, version = version + 1, updated_at = $2
         WHERE organization_id = $3",
    )
    .bind(&text)
    .bind(now)
    .bind(organization_id)
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() == 0 {
        sqlx::query(
            "INSERT INTO organization_calendars (organization_id, holidays, version, updated_at)
             VALUES ($1, $2, 1, $3)",
        )
        .bind(organization_id)
        .bind(&text)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    // Holidays move effective due dates and business days, so plan steps' days.
    super::plan_schedule::recheck_organization(conn, organization_id).await?;
    Ok(())
}
