//! Instants as the service stores and shows them: UTC to the millisecond, written
//! `YYYY-MM-DDTHH:MM:SS.mmmZ`. The width is fixed so that text order is time order on both
//! databases (timestamp columns are `TEXT`), and the API shows the very text stored. Dates
//! (`YYYY-MM-DD`) are read from their stored form (`stored_date`) and written in answers
//! (`Day`) field by field too.

use std::fmt;

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// An instant (`created_at`, `paid_at`, ...). Its text is always the fixed-width form, so a
/// value the server wrote reads back and shows as the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

/// The clock: the one place the service reads the time of day (every "now" of the server,
/// the store and the engine comes from here; `tests/integration/tidy.rs` checks it).
pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

impl Timestamp {
    pub fn new(instant: OffsetDateTime) -> Timestamp {
        Timestamp(instant.to_offset(UtcOffset::UTC))
    }

    /// This instant, by [`now`].
    pub fn now() -> Timestamp {
        Timestamp::new(now())
    }

    /// Read an RFC 3339 instant. The server writes only the fixed-width form; any other
    /// RFC 3339 text (a row edited by hand) is read too, and shown in the fixed-width form.
    pub fn parse(text: &str) -> Result<Timestamp, time::error::Parse> {
        if let Some(stored) = Timestamp::from_stored(text.as_bytes()) {
            return Ok(stored);
        }
        OffsetDateTime::parse(text, &Rfc3339).map(Timestamp::new)
    }

    /// The fixed-width form read field by field: every stored instant of every row a list
    /// reads comes this way, and `time`'s RFC 3339 parser is general (offsets, fractions of
    /// any length). `None` for any other text, which [`Timestamp::parse`] reads the general way.
    pub fn from_stored(text: &[u8]) -> Option<Timestamp> {
        if !fits(text, b"dddd-dd-ddTdd:dd:dd.dddZ") {
            return None;
        }
        let number = |at| digits(text, at);
        let small = |at| u8::try_from(number(at)).ok();
        let date = date_fields(text)?;
        let clock = time::Time::from_hms_milli(
            small(11..13)?,
            small(14..16)?,
            small(17..19)?,
            number(20..23),
        )
        .ok()?;
        Some(Timestamp(date.with_time(clock).assume_utc()))
    }

    /// The fixed-width text, for the years it has room for (0 to 9999: every instant the
    /// service makes); `None` for the others, which [`fmt::Display`] writes with `write!`.
    fn text(self) -> Option<[u8; 24]> {
        let t = self.0;
        let (year, month, day) = t.to_calendar_date();
        let year = u16::try_from(year).ok().filter(|y| *y <= 9999)?;
        let (hour, minute, second, milli) = t.to_hms_milli();
        let mut out = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, width: usize, mut value: u16| {
            for i in (at..at + width).rev() {
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, u16::from(u8::from(month)));
        put(8, 2, u16::from(day));
        put(11, 2, u16::from(hour));
        put(14, 2, u16::from(minute));
        put(17, 2, u16::from(second));
        put(20, 3, milli);
        Some(out)
    }

    pub fn instant(self) -> OffsetDateTime {
        self.0
    }
}

/// A calendar day in an answer (a charge's due date): a `time::Date` written `YYYY-MM-DD`
/// from its fields, as `time`'s own `Serialize` writes it (through a format description, it
/// cost ~400 instructions a date, a list row holding one or two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub time::Date);

impl From<time::Date> for Day {
    fn from(date: time::Date) -> Day {
        Day(date)
    }
}

impl serde::Serialize for Day {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (year, month, day) = self.0.to_calendar_date();
        // Years 0 to 9999 (every date the service accepts); `time` writes the others.
        let Some(year) = u16::try_from(year).ok().filter(|y| *y <= 9999) else {
            return self.0.serialize(serializer);
        };
        let mut text = *b"0000-00-00";
        for (at, width, mut value) in [
            (0, 4, year),
            (5, 2, u16::from(u8::from(month))),
            (8, 2, u16::from(day)),
        ] {
            for i in (at..at + width).rev() {
                text[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

/// A date in its stored form, `YYYY-MM-DD`, read field by field (`time`'s format-description
/// parser cost ~1 100 instructions a date, and a list row holds two); `None` for any other
/// text, which the caller reads the general way.
pub fn stored_date(text: &[u8]) -> Option<time::Date> {
    if fits(text, b"dddd-dd-dd") {
        date_fields(text)
    } else {
        None
    }
}

/// Whether `text` has the stored form `shape` describes: `d` stands for a digit, and every
/// other byte must be itself.
fn fits(text: &[u8], shape: &[u8]) -> bool {
    text.len() == shape.len()
        && text.iter().zip(shape).all(|(&byte, &shape)| {
            if shape == b'd' {
                byte.is_ascii_digit()
            } else {
                byte == shape
            }
        })
}

/// The date in the first ten bytes of `text`, whose digits and dashes are checked already.
fn date_fields(text: &[u8]) -> Option<time::Date> {
    let small = |at| u8::try_from(digits(text, at)).ok();
    let month = time::Month::try_from(small(5..7)?).ok()?;
    time::Date::from_calendar_date(i32::from(digits(text, 0..4)), month, small(8..10)?).ok()
}

/// The number the ASCII digits of `text[at]` write.
fn digits(text: &[u8], at: std::ops::Range<usize>) -> u16 {
    text[at]
        .iter()
        .fold(0u16, |n, &digit| n * 10 + u16::from(digit - b'0'))
}

impl fmt::Display for Timestamp {
    // Written into 24 bytes, not through `time`'s formatter (which builds a `String` first)
    // or `write!` (seven formatted fields): a list page shows four instants per row.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.text() {
            Some(text) => f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?),
            None => self.write_fields(f),
        }
    }
}

impl Timestamp {
    /// The text written field by field with `write!`: the years [`Timestamp::text`] has no
    /// room for, and the oracle its tests compare it with.
    fn write_fields(self, f: &mut impl fmt::Write) -> fmt::Result {
        let t = self.0;
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }
}

/// The API shows an instant as its text.
impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.text() {
            Some(text) => {
                s.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
            }
            None => s.collect_str(self),
        }
    }
}

/// An RFC 3339 instant (`2025-03-15T13:45:00-03:00`), kept in UTC.
impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Timestamp::parse(&text).map_err(|_| {
            serde::de::Error::custom(
                "must be a date-time as RFC 3339, e.g. 2025-03-15T13:45:00-03:00",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn the_stored_text_reads_back_and_shows_as_the_same_bytes() {
        for text in [
            "2026-12-01T06:49:38.123Z",
            "2026-01-01T00:00:00.000Z",
            "1999-12-31T23:59:59.999Z",
        ] {
            let t = Timestamp::parse(text).expect("a stored timestamp");
            assert_eq!(t.to_string(), text);
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{text}\""));
        }
    }

    #[test]
    fn an_instant_shows_in_utc_to_the_millisecond() {
        let t = Timestamp::new(datetime!(2026-03-15 10:45:00.123_456 -3));
        assert_eq!(t.to_string(), "2026-03-15T13:45:00.123Z");
        assert_eq!(
            Timestamp::parse("2026-01-01T00:00:00Z")
                .unwrap()
                .to_string(),
            "2026-01-01T00:00:00.000Z"
        );
        assert!(Timestamp::parse("2026-01-01").is_err());
    }

    /// The text as `write!` gives it, field by field: the oracle.
    fn written(t: Timestamp) -> String {
        let mut text = String::new();
        t.write_fields(&mut text).expect("a String takes any text");
        text
    }

    #[test]
    fn the_fixed_width_writer_and_reader_agree_with_the_general_ones() {
        // Instants spread over years 0 to 9999 (a multiplicative walk), each to the
        // millisecond, plus the edges of the fields.
        let mut millis: i64 = 7;
        let mut instants: Vec<OffsetDateTime> = vec![
            datetime!(0000-01-01 00:00:00.000 UTC),
            datetime!(9999-12-31 23:59:59.999 UTC),
            datetime!(2024-02-29 12:00:00.500 UTC),
            datetime!(1970-01-01 00:00:00.000 UTC),
        ];
        let span = datetime!(9999-12-31 23:59:59.999 UTC) - datetime!(0000-01-01 00:00:00.000 UTC);
        for _ in 0..20_000 {
            millis = millis
                .wrapping_mul(6_364_136_223_846_793)
                .wrapping_add(1_442_695_040_888_963)
                .rem_euclid(span.whole_milliseconds() as i64);
            instants.push(
                datetime!(0000-01-01 00:00:00.000 UTC) + time::Duration::milliseconds(millis),
            );
        }
        for instant in instants {
            let t = Timestamp::new(
                instant
                    .replace_nanosecond(instant.millisecond() as u32 * 1_000_000)
                    .unwrap(),
            );
            let text = t.to_string();
            assert_eq!(text, written(t));
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{text}\""));
            let general = OffsetDateTime::parse(&text, &Rfc3339)
                .map(Timestamp::new)
                .unwrap();
            assert_eq!(
                Timestamp::from_stored(text.as_bytes()),
                Some(general),
                "{text}"
            );
        }
        // Outside 0 to 9999 the general writer answers, as before.
        let far = Timestamp::new(datetime!(-0005-03-01 00:00:00 UTC));
        assert_eq!(far.to_string(), written(far));
    }

    #[test]
    fn a_stored_date_reads_and_a_day_writes_as_time_does_and_nothing_else_reads() {
        let format = time::macros::format_description!("[year]-[month]-[day]");
        let mut day = time::Date::MIN.max(time::macros::date!(0000 - 01 - 01));
        let last = time::macros::date!(9999 - 12 - 31);
        let mut step = 1;
        while day <= last {
            let text = day.format(&format).unwrap();
            assert_eq!(stored_date(text.as_bytes()), Some(day), "{text}");
            assert_eq!(time::Date::parse(&text, &format).ok(), Some(day));
            assert_eq!(
                serde_json::to_string(&Day(day)).unwrap(),
                serde_json::to_string(&day).unwrap()
            );
            // Every day of the first years and of 2024-2028, then longer strides.
            step = if (2024..=2028).contains(&day.year()) {
                1
            } else {
                step % 97 + 1
            };
            day = day.saturating_add(time::Duration::days(step));
            if day == last {
                break;
            }
        }
        for text in [
            "2026-02-29",
            "2026-02-30",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "2026-1-01",
            "+026-01-01",
            "2026-01-01T00:00:00.000Z",
            "2026/01/01",
            "",
        ] {
            assert_eq!(stored_date(text.as_bytes()), None, "{text}");
        }
        assert_eq!(
            stored_date(b"2024-02-29"),
            Some(time::macros::date!(2024 - 02 - 29))
        );
        // Years the fixed form has no room for are written by `time`, as before.
        for far in [time::Date::MIN, time::macros::date!(-0001 - 12 - 31)] {
            assert_eq!(
                serde_json::to_string(&Day(far)).unwrap(),
                serde_json::to_string(&far).unwrap()
            );
        }
    }

    #[test]
    fn text_that_is_not_the_fixed_width_form_is_read_the_general_way_or_refused() {
        for (text, read) in [
            ("2026-01-01T00:00:00Z", Some("2026-01-01T00:00:00.000Z")),
            (
                "2026-01-01T00:00:00.1234Z",
                Some("2026-01-01T00:00:00.123Z"),
            ),
            (
                "2026-01-01T03:00:00.000+03:00",
                Some("2026-01-01T00:00:00.000Z"),
            ),
            ("2026-02-30T00:00:00.000Z", None),
            ("2026-13-01T00:00:00.000Z", None),
            ("2026-01-01T24:00:00.000Z", None),
            ("2026-01-01T00:60:00.000Z", None),
            ("2026-01-01T00:00:00.00xZ", None),
            ("+026-01-01T00:00:00.000Z", None),
        ] {
            assert_eq!(
                Timestamp::parse(text)
                    .ok()
                    .map(|t| t.to_string())
                    .as_deref(),
                read,
                "{text}"
            );
        }
        assert_eq!(Timestamp::from_stored(b"2026-01-01T00:00:00.000z"), None);
    }

    #[test]
    fn text_order_is_time_order() {
        let a = Timestamp::parse("2026-01-01T00:00:00.999Z").unwrap();
        let b = Timestamp::parse("2026-01-01T00:00:01.000Z").unwrap();
        assert!(a < b && a.to_string() < b.to_string());
    }
}
