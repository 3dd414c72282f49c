//! `/v1/calendar`: the business-day calendar (Brasília days, national banking holidays, the
//! organization's own holidays) and the organization's holidays set, over
//! `dunning_app::calendars`.

use http::StatusCode;

use super::answers::reply::{Reply, answer};
use super::steps::caller::Caller;
use super::steps::idempotency::commit_read;
use super::steps::typed_input::Body;
use crate::generated::models::{calendar_update, response};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_app::calendars as app;
use dunning_domain::calendar::{self, Calendar, TIME_ZONE};
use dunning_store::calendars::{self as store, Holiday, StoredHolidays};

/// `GET /v1/calendar`.
pub async fn get(Caller(state, p): Caller) -> ApiResult<Reply> {
    let stored = store::holidays(&state.db, &p.organization_id).await?;
    Ok(calendar_answer(&stored))
}

/// `PUT /v1/calendar`: each date once; the list replaces the organization's holidays.
pub async fn update(
    Caller(state, p): Caller,
    Body(body): Body<calendar_update::Body>,
) -> ApiResult<Reply> {
    let mut holidays: Vec<Holiday> = body
        .holidays
        .iter()
        .map(|h| Holiday {
            date: h.date,
            name: h.name.clone(),
        })
        .collect();
    holidays.sort_by_key(|h| h.date);
    let repeated: Vec<FieldError> = holidays
        .windows(2)
        .filter(|pair| pair[0].date == pair[1].date)
        .map(|pair| {
            FieldError::new(
                "holidays",
                "duplicate",
                format!("{} is listed more than once", pair[0].date),
            )
        })
        .collect();
    if !repeated.is_empty() {
        return Err(ApiError::validation(repeated));
    }
    let mut tx = state.db.begin().await?;
    let stored = app::set_holidays(&mut tx, &p.organization_id, &holidays, &p.actor()).await?;
    commit_read(Some(stored), "calendar", tx, |stored| {
        calendar_answer(&stored)
    })
    .await
}

fn calendar_answer(stored: &StoredHolidays) -> Reply {
    let calendar = Calendar::with_holidays(stored.holidays.iter().map(|h| h.date).collect());
    let today = calendar::today();
    let national: Vec<(time::Date, &str)> = [today.year(), today.year() + 1]
        .into_iter()
        .flat_map(calendar::national_holidays)
        .collect();
    let body = response::CalendarResponse {
        data: response::Calendar {
            time_zone: TIME_ZONE,
            today: today.into(),
            today_is_business_day: calendar.is_business_day(today),
            next_business_day: calendar
                .next_business_day(today.next_day().unwrap_or(today))
                .into(),
            national_holidays: national
                .iter()
                .map(|(date, name)| response::Holiday {
                    date: (*date).into(),
                    name,
                })
                .collect(),
            holidays: stored
                .holidays
                .iter()
                .map(|h| response::Holiday {
                    date: h.date.into(),
                    name: &h.name,
                })
                .collect(),
            updated_at: stored.updated_at,
        },
    };
    answer(StatusCode::OK, &body, None)
}
