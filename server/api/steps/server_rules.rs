//! What a handler checks on its typed input that no schema can say (check digits, dates
//! relative to today, objects that must exist, state and cross-field rules), each an
//! `x-server-rule` of the document: [`Rules`] collects every fault and reports them in one
//! 400. Dates lie in [`FIRST_DATE`]..=[`LAST_DATE`] (the document's patterns say it); due
//! dates also within [`DUE_DATE_YEARS`] years of today (see [`Rules::due_date`]). A list the
//! input gives keeps each repeated item once ([`distinct`]).

use time::Date;
use time::macros::date;

use crate::http::problem::{ApiError, ApiResult, FieldError};

/// The first date the API accepts anywhere (due dates, filters, timestamps).
pub const FIRST_DATE: Date = date!(2000 - 01 - 01);
/// The last date the API accepts anywhere.
pub const LAST_DATE: Date = date!(2099 - 12 - 31);
/// A due date lies at most this many years before or after today: older debts are past every
/// Brazilian limitation period (Código Civil art. 205: ten years at most), and a boleto due
/// further ahead is a typo.
pub const DUE_DATE_YEARS: i32 = 10;

/// `date` moved by whole years; 29 February becomes 28 February in a common year.
fn add_years(date: Date, years: i32) -> Date {
    let year = date.year() + years;
    date.replace_year(year)
        .or_else(|_| date.replace_day(28).and_then(|d| d.replace_year(year)))
        .unwrap_or(date)
}

/// `items` with each repeated one kept once, in their order (tags, event names, ids).
pub fn distinct(items: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The rules of a request that no schema can say (check digits, dates relative to today,
/// objects that must exist, cross-field rules), each an `x-server-rule` of the document,
/// checked on the typed input: every fault is collected, and [`finish`](Rules::finish)
/// reports them all in one 400.
#[derive(Debug, Default)]
pub struct Rules {
    errors: Vec<FieldError>,
}

impl Rules {
    /// Record a complaint about a field; the same fault found twice is reported once.
    pub fn error(&mut self, field: &str, code: &str, message: impl Into<String>) {
        if !self
            .errors
            .iter()
            .any(|e| e.field == field && e.code == code)
        {
            self.errors.push(FieldError::new(field, code, message));
        }
    }

    /// A due date within [`DUE_DATE_YEARS`] years of today (the document's pattern has kept
    /// it within [`FIRST_DATE`]..=[`LAST_DATE`]), so that fine and interest stay those of a
    /// real debt: a due date in 1900 made R$ 100 owe R$ 1 647. `None` when it is not.
    pub fn due_date(&mut self, name: &str, date: Date) -> Option<Date> {
        let today = dunning_store::today();
        let first = add_years(today, -DUE_DATE_YEARS).max(FIRST_DATE);
        let last = add_years(today, DUE_DATE_YEARS).min(LAST_DATE);
        if (first..=last).contains(&date) {
            Some(date)
        } else {
            self.error(
                name,
                "range",
                format!("Must be a date from {first} to {last}"),
            );
            None
        }
    }

    /// One 400 naming every fault, or nothing.
    pub fn finish(self) -> ApiResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_are_added_on_the_calendar() {
        assert_eq!(add_years(date!(2026 - 03 - 10), 10), date!(2036 - 03 - 10));
        assert_eq!(add_years(date!(2026 - 03 - 10), -10), date!(2016 - 03 - 10));
        assert_eq!(add_years(date!(2024 - 02 - 29), 1), date!(2025 - 02 - 28));
        assert_eq!(add_years(date!(2024 - 02 - 29), 4), date!(2028 - 02 - 29));
    }
}
