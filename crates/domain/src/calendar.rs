//! The one calendar of the service: which day an instant falls on, and which days are
//! business days.
//!
//! Instants are kept in UTC (`timestamp`); every *day* — today, the day a payment was made,
//! the day a charge turns overdue, a plan step's day, the days of interest, the dates in
//! exports, notices and PDFs — is the date in Brasília (`America/Sao_Paulo`), read through a
//! real time zone database (jiff's bundled copy of the IANA database: Brazil kept daylight
//! saving time until 2019 and may again, so a fixed −03:00 would be wrong one day).
//!
//! A business day is neither a Saturday, a Sunday, a national banking holiday (the settlement
//! calendar of the `bdays` crate: the fixed national holidays, Carnival Monday and Tuesday,
//! Good Friday and Corpus Christi — FEBRABAN's calendar; checked against ANBIMA's published
//! list for 2025–2030 in `tests/data/anbima-holidays-2025-2030.txt`) nor one of the
//! organization's own holidays (municipal ones, which matter for protests). A due date that
//! falls on a day that is not a business day moves to the next business day (Código Civil
//! art. 132 §1; Lei 7.089/83 for banks): [`Calendar::effective_due_date`].

use std::sync::OnceLock;

use bdays::HolidayCalendar;
use time::{Date, Duration, OffsetDateTime, UtcOffset, Weekday};

/// The time zone every day of the service is counted in.
pub const TIME_ZONE: &str = "America/Sao_Paulo";

/// The most holidays an organization may add (a few a year for ten years is plenty).
pub const MAX_ORGANIZATION_HOLIDAYS: usize = 500;

fn brasilia() -> &'static jiff::tz::TimeZone {
    static ZONE: OnceLock<jiff::tz::TimeZone> = OnceLock::new();
    ZONE.get_or_init(|| {
        // The database is compiled into the binary (jiff's `tzdb-bundle-always`): the zone is
        // there on any machine, whatever /usr/share/zoneinfo holds.
        jiff::tz::TimeZone::get(TIME_ZONE)
            .expect("the bundled time zone database has America/Sao_Paulo")
    })
}

/// The offset from UTC in Brasília at `instant`.
pub fn offset_at(instant: OffsetDateTime) -> UtcOffset {
    let seconds = instant.unix_timestamp();
    let offset = jiff::Timestamp::from_second(seconds)
        .map(|t| brasilia().to_offset(t).seconds())
        // Outside jiff's range (years beyond ±9999): Brasília's standard offset.
        .unwrap_or(-3 * 3600);
    UtcOffset::from_whole_seconds(offset).expect("a time zone offset is under a day")
}

/// The instant as the clock on a wall in Brasília shows it.
pub fn in_brasilia(instant: OffsetDateTime) -> OffsetDateTime {
    instant.to_offset(offset_at(instant))
}

/// The day `instant` falls on in Brasília: the day of a payment, of an event, of "now".
pub fn day_of(instant: OffsetDateTime) -> Date {
    in_brasilia(instant).date()
}

/// The instant day `date` begins in Brasília (its first instant, where summer time skipped
/// midnight): when work due "on a day" becomes due.
pub fn start_of(date: Date) -> OffsetDateTime {
    let civil = jiff::civil::Date::new(
        date.year() as i16,
        u8::from(date.month()) as i8,
        date.day() as i8,
    );
    let seconds = civil
        .ok()
        .and_then(|civil| civil.to_zoned_datetime(brasilia().clone()).ok())
        .and_then(|zoned| zoned.start_of_day().ok())
        .map(|start| start.timestamp().as_second());
    match seconds.and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok()) {
        Some(instant) => instant,
        // Outside jiff's years: the standard offset.
        None => date
            .midnight()
            .assume_offset(UtcOffset::from_hms(-3, 0, 0).expect("an offset")),
    }
}

/// Today in Brasília, by the service's one clock (`timestamp::now`).
pub fn today() -> Date {
    day_of(crate::timestamp::now())
}

/// Whether `date` is a national banking holiday (weekends aside).
pub fn is_national_holiday(date: Date) -> bool {
    // Looked up in a table of the years any charge of the service can have (built once from
    // bdays: a charge read asks for its effective due date, and bdays works Easter out on
    // every call); other years ask bdays directly.
    let table = HOLIDAY_TABLE.get_or_init(HolidayTable::build);
    table.lookup(date).unwrap_or_else(|| bdays_holiday(date))
}

fn bdays_holiday(date: Date) -> bool {
    // bdays computes Easter with an algorithm valid from 1583 on (it panics before); no date
    // of this service is that old, but an instant a third party sends could be.
    if date.year() < 1583 {
        return false;
    }
    chrono::NaiveDate::from_ymd_opt(
        date.year(),
        u32::from(u8::from(date.month())),
        u32::from(date.day()),
    )
    .is_some_and(|d| bdays::calendars::brazil::BRSettlement.is_holiday(d))
}

static HOLIDAY_TABLE: OnceLock<HolidayTable> = OnceLock::new();

/// One bit a day from 1 January [`HolidayTable::FIRST_YEAR`] to the end of
/// [`HolidayTable::LAST_YEAR`]: set for a national holiday.
struct HolidayTable {
    first: i32,
    bits: Vec<u64>,
}

impl HolidayTable {
    const FIRST_YEAR: i32 = 1990;
    const LAST_YEAR: i32 = 2110;

    fn build() -> HolidayTable {
        let start =
            Date::from_calendar_date(Self::FIRST_YEAR, time::Month::January, 1).expect("a date");
        let end =
            Date::from_calendar_date(Self::LAST_YEAR, time::Month::December, 31).expect("a date");
        let days = (end - start).whole_days() as usize + 1;
        let mut bits = vec![0u64; days.div_ceil(64)];
        let mut day = start;
        for i in 0..days {
            if bdays_holiday(day) {
                bits[i / 64] |= 1 << (i % 64);
            }
            day = day.next_day().unwrap_or(day);
        }
        HolidayTable {
            first: start.to_julian_day(),
            bits,
        }
    }

    fn lookup(&self, date: Date) -> Option<bool> {
        let i = usize::try_from(date.to_julian_day() - self.first).ok()?;
        let word = self.bits.get(i / 64)?;
        Some(word & (1 << (i % 64)) != 0)
    }
}

/// The national banking holidays of `year`, in order, each with its name (pt-BR): the days
/// [`is_national_holiday`] says are holidays, named.
pub fn national_holidays(year: i32) -> Vec<(Date, &'static str)> {
    let Ok(first) = Date::from_calendar_date(year, time::Month::January, 1) else {
        return Vec::new();
    };
    let easter = bdays::easter::easter_naive_date(year).ok().and_then(|e| {
        use chrono::Datelike;
        Date::from_ordinal_date(e.year(), u16::try_from(e.ordinal()).ok()?).ok()
    });
    let mut out = Vec::new();
    let mut day = first;
    while day.year() == year {
        if is_national_holiday(day) {
            out.push((day, holiday_name(day, easter)));
        }
        match day.next_day() {
            Some(next) => day = next,
            None => break,
        }
    }
    out
}

fn holiday_name(day: Date, easter: Option<Date>) -> &'static str {
    let from_easter = easter.map(|e| (day - e).whole_days());
    match (u8::from(day.month()), day.day(), from_easter) {
        (_, _, Some(-48)) => "Carnaval (segunda-feira)",
        (_, _, Some(-47)) => "Carnaval (terça-feira)",
        (_, _, Some(-2)) => "Sexta-feira Santa",
        (_, _, Some(60)) => "Corpus Christi",
        (1, 1, _) => "Confraternização Universal",
        (4, 21, _) => "Tiradentes",
        (5, 1, _) => "Dia do Trabalho",
        (9, 7, _) => "Independência do Brasil",
        (10, 12, _) => "Nossa Senhora Aparecida",
        (11, 2, _) => "Finados",
        (11, 15, _) => "Proclamação da República",
        (11, 20, _) => "Dia Nacional de Zumbi e da Consciência Negra",
        (12, 25, _) => "Natal",
        _ => "Feriado nacional",
    }
}

fn is_weekend(date: Date) -> bool {
    matches!(date.weekday(), Weekday::Saturday | Weekday::Sunday)
}

/// An organization's calendar: the national business days less its own holidays.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calendar {
    /// The organization's own holidays, sorted, without duplicates.
    extra: Vec<Date>,
}

impl Calendar {
    /// The national calendar alone.
    pub fn national() -> Calendar {
        Calendar::default()
    }

    /// The national calendar with an organization's own holidays.
    pub fn with_holidays(mut extra: Vec<Date>) -> Calendar {
        extra.sort_unstable();
        extra.dedup();
        Calendar { extra }
    }

    /// Whether `date` is a business day: a weekday that is no holiday, national or the
    /// organization's.
    pub fn is_business_day(&self, date: Date) -> bool {
        !is_weekend(date) && !is_national_holiday(date) && self.extra.binary_search(&date).is_err()
    }

    /// `date` itself when it is a business day, else the next one.
    pub fn next_business_day(&self, date: Date) -> Date {
        if self.is_business_day(date) {
            date
        } else {
            self.step_to_business_day(date, 1)
        }
    }

    /// The last business day before `date`.
    pub fn previous_business_day(&self, date: Date) -> Date {
        self.step_to_business_day(date, -1)
    }

    /// The first business day after `date` (`step` 1) or before it (−1). Never more than a
    /// handful of steps (a long weekend, Carnival); bounded all the same, so that a calendar
    /// full of holidays cannot loop for ever.
    fn step_to_business_day(&self, date: Date, step: i64) -> Date {
        let mut day = date;
        for _ in 0..=MAX_ORGANIZATION_HOLIDAYS + 10 {
            match day.checked_add(Duration::days(step)) {
                Some(next) => day = next,
                None => return day,
            }
            if self.is_business_day(day) {
                return day;
            }
        }
        day
    }

    /// The day a charge due on `due_date` is due in fact: the next business day when the due
    /// date is not one (Código Civil art. 132 §1). Paid by the end of it, nothing is added.
    pub fn effective_due_date(&self, due_date: Date) -> Date {
        self.next_business_day(due_date)
    }

    /// The earliest due date still not overdue on `today`: a charge is overdue on `today`
    /// exactly when its due date is before this one. (The business day before `today`,
    /// plus one: on a Monday, charges due on the Saturday and Sunday before are still payable
    /// without fine.) What a list's `overdue`/`pending` filter compares the stored due date
    /// with.
    pub fn first_due_date_not_overdue(&self, today: Date) -> Date {
        let previous = self.previous_business_day(today);
        previous.next_day().unwrap_or(previous)
    }

    /// `days` business days after `date` (before it when negative); zero days is `date`'s
    /// own next business day.
    pub fn add_business_days(&self, date: Date, days: i64) -> Date {
        let step = if days < 0 { -1 } else { 1 };
        (0..days.unsigned_abs()).fold(self.next_business_day(date), |day, _| {
            self.step_to_business_day(day, step)
        })
    }
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;

    #[test]
    fn the_day_of_an_instant_is_its_date_in_brasilia() {
        // 22:30 in Brasília on 5 December is 01:30 UTC on the 6th.
        assert_eq!(
            day_of(datetime!(2026-12-06 01:30 UTC)),
            date!(2026 - 12 - 05)
        );
        assert_eq!(
            day_of(datetime!(2026-12-06 02:59:59 UTC)),
            date!(2026 - 12 - 05)
        );
        assert_eq!(
            day_of(datetime!(2026-12-06 03:00 UTC)),
            date!(2026 - 12 - 06)
        );
        // Summer time (until 2019): −02:00 in January 2018, so midnight came at 02:00 UTC.
        assert_eq!(
            day_of(datetime!(2018-01-10 01:59 UTC)),
            date!(2018 - 01 - 09)
        );
        assert_eq!(
            day_of(datetime!(2018-01-10 02:00 UTC)),
            date!(2018 - 01 - 10)
        );
        assert_eq!(offset_at(datetime!(2018-01-10 12:00 UTC)).whole_hours(), -2);
        assert_eq!(offset_at(datetime!(2026-01-10 12:00 UTC)).whole_hours(), -3);
    }

    #[test]
    fn a_day_starts_at_midnight_in_brasilia() {
        assert_eq!(
            start_of(date!(2026 - 12 - 06)),
            datetime!(2026-12-06 03:00 UTC)
        );
        assert_eq!(
            start_of(date!(2018 - 01 - 10)),
            datetime!(2018-01-10 02:00 UTC)
        );
        // 4 November 2018: summer time began at midnight, so the day began at 01:00 (−02:00).
        assert_eq!(
            start_of(date!(2018 - 11 - 04)),
            datetime!(2018-11-04 03:00 UTC)
        );
        assert_eq!(
            day_of(start_of(date!(2018 - 11 - 04))),
            date!(2018 - 11 - 04)
        );
    }

    #[test]
    fn weekends_and_national_holidays_are_not_business_days() {
        let national = Calendar::national();
        for holiday in [
            date!(2026 - 01 - 01),
            date!(2026 - 02 - 16), // Carnival Monday
            date!(2026 - 02 - 17), // Carnival Tuesday
            date!(2026 - 04 - 03), // Good Friday
            date!(2026 - 06 - 04), // Corpus Christi
            date!(2026 - 11 - 20), // Consciência Negra, national since 2024
            date!(2026 - 12 - 25),
        ] {
            assert!(!national.is_business_day(holiday), "{holiday}");
        }
        // Before 2024, 20 November was a municipal holiday only (a Monday in 2023).
        assert!(national.is_business_day(date!(2023 - 11 - 20)));
        assert!(
            !national.is_business_day(date!(2026 - 12 - 05)),
            "a Saturday"
        );
        assert!(national.is_business_day(date!(2026 - 12 - 07)));
    }

    #[test]
    fn a_due_date_on_a_day_off_moves_to_the_next_business_day() {
        let national = Calendar::national();
        // Saturday 5 December 2026 → Monday the 7th.
        assert_eq!(
            national.effective_due_date(date!(2026 - 12 - 05)),
            date!(2026 - 12 - 07)
        );
        // Carnival Saturday 14 February 2026 → Ash Wednesday the 18th.
        assert_eq!(
            national.effective_due_date(date!(2026 - 02 - 14)),
            date!(2026 - 02 - 18)
        );
        assert_eq!(
            national.effective_due_date(date!(2026 - 12 - 08)),
            date!(2026 - 12 - 08)
        );
        // The organization's own holiday on the Monday moves it once more.
        let municipal = Calendar::with_holidays(vec![date!(2026 - 12 - 07)]);
        assert_eq!(
            municipal.effective_due_date(date!(2026 - 12 - 05)),
            date!(2026 - 12 - 08)
        );
    }

    #[test]
    fn a_charge_is_overdue_only_after_its_effective_due_date() {
        let national = Calendar::national();
        // On Monday 7 December, charges due on the 5th and 6th are still payable as they are.
        assert_eq!(
            national.first_due_date_not_overdue(date!(2026 - 12 - 07)),
            date!(2026 - 12 - 05)
        );
        // On Tuesday, everything due before Tuesday is overdue.
        assert_eq!(
            national.first_due_date_not_overdue(date!(2026 - 12 - 08)),
            date!(2026 - 12 - 08)
        );
        // On a Sunday, Saturday's charge is not overdue yet.
        assert_eq!(
            national.first_due_date_not_overdue(date!(2026 - 12 - 06)),
            date!(2026 - 12 - 05)
        );
    }

    #[test]
    fn business_days_are_counted_over_weekends_and_holidays() {
        let national = Calendar::national();
        // Friday 4 December 2026 + 3 business days = Wednesday the 9th.
        assert_eq!(
            national.add_business_days(date!(2026 - 12 - 04), 3),
            date!(2026 - 12 - 09)
        );
        // Before Christmas (Friday) and New Year (Friday): Thursday 24 + 1 = Monday 28.
        assert_eq!(
            national.add_business_days(date!(2026 - 12 - 24), 1),
            date!(2026 - 12 - 28)
        );
        assert_eq!(
            national.add_business_days(date!(2026 - 12 - 09), -3),
            date!(2026 - 12 - 04)
        );
        assert_eq!(
            national.add_business_days(date!(2026 - 12 - 05), 0),
            date!(2026 - 12 - 07)
        );
    }

    #[test]
    fn the_national_calendar_is_anbima_s_published_one_for_2025_to_2030() {
        let published = include_str!("../../../tests/data/anbima-holidays-2025-2030.txt");
        let listed: Vec<Date> = published
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| {
                Date::parse(
                    line,
                    time::macros::format_description!("[year]-[month]-[day]"),
                )
                .unwrap_or_else(|e| panic!("{line}: {e}"))
            })
            .collect();
        assert!(listed.len() >= 70, "the file lists {} dates", listed.len());
        let mut day = date!(2025 - 01 - 01);
        while day <= date!(2030 - 12 - 31) {
            assert_eq!(
                is_national_holiday(day),
                listed.contains(&day),
                "{day}: bdays and ANBIMA disagree"
            );
            day = day.next_day().unwrap();
        }
    }

    #[test]
    fn the_holiday_table_says_what_bdays_says() {
        let mut day = date!(1990 - 01 - 01);
        while day <= date!(2110 - 12 - 31) {
            assert_eq!(is_national_holiday(day), bdays_holiday(day), "{day}");
            day = day.next_day().unwrap();
        }
        // Past the table, bdays answers.
        assert!(is_national_holiday(date!(2200 - 12 - 25)));
        assert!(!is_national_holiday(date!(2200 - 12 - 26)));
    }

    #[test]
    fn every_national_holiday_has_its_name() {
        let holidays = national_holidays(2026);
        assert_eq!(holidays.len(), 13);
        assert!(
            holidays.iter().all(|(_, name)| *name != "Feriado nacional"),
            "{holidays:?}"
        );
        assert!(holidays.contains(&(date!(2026 - 02 - 16), "Carnaval (segunda-feira)")));
        assert!(holidays.contains(&(date!(2026 - 06 - 04), "Corpus Christi")));
        assert_eq!(
            national_holidays(2023).len(),
            12,
            "no 20 November before 2024"
        );
    }

    #[test]
    fn instants_of_any_year_have_a_day() {
        assert_eq!(day_of(datetime!(1500-06-01 12:00 UTC)).year(), 1500);
        assert!(!is_national_holiday(date!(1500 - 01 - 01)));
    }
}
