//! Instants as the service stores and shows them: UTC to the millisecond, written
//! `YYYY-MM-DDTHH:MM:SS.mmmZ`. The width is fixed so that text order is time order on both
//! databases (timestamp columns are `TEXT`), and the API shows the very text stored.

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
        OffsetDateTime::parse(text, &Rfc3339).map(Timestamp::new)
    }

    pub fn instant(self) -> OffsetDateTime {
        self.0
    }
}

impl fmt::Display for Timestamp {
    // Written field by field, not through `time`'s formatter, which builds a `String` first:
    // a list page shows four instants per row.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        s.collect_str(self)
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

    #[test]
    fn text_order_is_time_order() {
        let a = Timestamp::parse("2026-01-01T00:00:00.999Z").unwrap();
        let b = Timestamp::parse("2026-01-01T00:00:01.000Z").unwrap();
        assert!(a < b && a.to_string() < b.to_string());
    }
}
