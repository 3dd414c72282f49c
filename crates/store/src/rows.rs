//! Typed rows: a result row read into a struct of domain types, declared once per struct
//! instead of one `try_get` per column per reader.
//!
//! Both engines are read through `sqlx::Any`, whose values are only the types both share
//! (`TEXT`, `BIGINT`). A [`Column`] turns one column into a field type (money as [`Cents`],
//! dates, instants as [`Timestamp`], status enums by their stored words, JSON text),
//! starting from a `String` or an `i64`, so no `Decode` impl for `Any` is needed;
//! [`row!`](crate::row) declares a struct whose `sqlx::FromRow` reads each field from the
//! column of the same name (the `SELECT` renames a column with `AS` where the names
//! differ), so `sqlx::query_as` returns it.

use serde::de::DeserializeOwned;
use sqlx::any::{Any, AnyRow};
use sqlx::{Executor, FromRow, Row, ValueRef};
use time::Date;

use super::Result;
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

/// A field read from the column of its name.
pub trait Column: Sized {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self>;
}

impl Column for String {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        row.try_get(column)
    }
}

impl Column for i64 {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        row.try_get(column)
    }
}

/// Flags are `BIGINT` 0 or 1 on both engines.
impl Column for bool {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        Ok(row.try_get::<i64, _>(column)? != 0)
    }
}

impl Column for Cents {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        Ok(Cents(row.try_get(column)?))
    }
}

/// Dates are stored as `YYYY-MM-DD`.
impl Column for Date {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        let text: String = row.try_get(column)?;
        let format = time::macros::format_description!("[year]-[month]-[day]");
        Date::parse(&text, &format).map_err(|e| corrupt(column, &text, e))
    }
}

/// Instants are stored as fixed-width RFC 3339 text (`store::timestamp_text`).
impl Column for Timestamp {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        let text: String = row.try_get(column)?;
        Timestamp::parse(&text).map_err(|e| corrupt(column, &text, e))
    }
}

/// `NULL` is `None`; anything else is read as `T`.
impl<T: Column> Column for Option<T> {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        if row.try_get_raw(column)?.is_null() {
            Ok(None)
        } else {
            T::read(row, column).map(Some)
        }
    }
}

/// Lists (tags, opt-outs) are stored as JSON arrays.
impl Column for Vec<String> {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        json(row, column)
    }
}

/// Event data and other free-form JSON.
impl Column for serde_json::Value {
    fn read(row: &AnyRow, column: &str) -> sqlx::Result<Self> {
        json(row, column)
    }
}

/// A value stored as JSON text: what a [`Column`] impl of a stored JSON type calls.
pub fn json<T: DeserializeOwned>(row: &AnyRow, column: &str) -> sqlx::Result<T> {
    let text: String = row.try_get(column)?;
    serde_json::from_str(&text).map_err(|e| corrupt(column, &text, e))
}

/// A stored value the column's type cannot hold: the data is corrupt, not the request.
pub fn corrupt(column: &str, text: &str, error: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: column.to_string(),
        source: format!("stored value {text:?}: {error}").into(),
    }
}

/// A row type the store reads by id: its table and the columns its `FromRow` reads.
pub trait Stored: for<'r> FromRow<'r, AnyRow> + Send + Unpin {
    /// `FROM` this table.
    const TABLE: &'static str;
    /// What the `SELECT` lists, renamed to the field names.
    const COLUMNS: &'static str;
}

/// The row of `T`'s table with this id in the organization: what every `get` reads.
pub async fn by_id<'c, T: Stored>(
    conn: impl Executor<'c, Database = Any>,
    organization_id: &str,
    id: &str,
) -> Result<Option<T>> {
    let sql = format!(
        "SELECT {} FROM {} WHERE organization_id = $1 AND id = $2",
        T::COLUMNS,
        T::TABLE
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// Declare a struct read from a row: each field from the column of its name, through
/// [`Column`], except a field written `name: Type = value`, which no column holds (it is
/// filled in afterwards, like a plan's steps). Attributes (derives, docs, `#[serde(...)]`)
/// pass through.
#[macro_export]
macro_rules! row {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $($(#[$field_attr:meta])* $field_vis:vis $field:ident: $ty:ty $(= $default:expr)?),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $($(#[$field_attr])* $field_vis $field: $ty),*
        }

        impl<'r> ::sqlx::FromRow<'r, ::sqlx::any::AnyRow> for $name {
            fn from_row(row: &'r ::sqlx::any::AnyRow) -> ::sqlx::Result<Self> {
                Ok($name {
                    $($field: $crate::row!(@field row, $field $(, $default)?)),*
                })
            }
        }
    };
    (@field $row:ident, $field:ident) => {
        $crate::rows::Column::read($row, stringify!($field))?
    };
    (@field $row:ident, $field:ident, $default:expr) => {
        $default
    };
}

/// Declare an enum stored as one of a fixed set of words ([`dunning_domain::words!`]: the
/// word is both the stored text and the API's), readable as a [`Column`].
#[macro_export]
macro_rules! stored_words {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        ::dunning_domain::words! {
            $(#[$attr])*
            $vis enum $name { $($body)* }
        }
        $crate::word_columns!($name);
    };
}

/// Make word enums (declared with [`dunning_domain::words!`], here or in the domain) readable
/// as [`Column`]s: the stored word, parsed.
#[macro_export]
macro_rules! word_columns {
    ($($name:ty),+ $(,)?) => {
        $(
            impl $crate::rows::Column for $name {
                fn read(row: &::sqlx::any::AnyRow, column: &str) -> ::sqlx::Result<Self> {
                    let text: String = ::sqlx::Row::try_get(row, column)?;
                    <$name as ::dunning_domain::words::Words>::parse(&text)
                        .ok_or_else(|| $crate::rows::corrupt(column, &text, "not a known value"))
                }
            }
        )+
    };
}

// The domain's own word enums.
crate::word_columns!(
    dunning_domain::charge_math::ChargeState,
    dunning_domain::collection::NegativationStatus,
    dunning_domain::collection::ProtestStatus,
    dunning_domain::pix::KeyType,
);

#[cfg(test)]
mod tests {
    use sqlx::Connection;

    use super::*;

    crate::stored_words! {
        enum Light {
            Red = "red",
            Green = "green",
        }
    }

    crate::row! {
        #[derive(Debug)]
        struct Sample {
            name: String,
            amount: Cents,
            due: Date,
            paid_on: Option<Date>,
            at: Timestamp,
            light: Light,
            tags: Vec<String>,
            flag: bool,
            notes: Vec<String> = vec!["not a column".into()],
        }
    }

    async fn read<T>(sql: &str) -> sqlx::Result<T>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect("sqlite::memory:").await?;
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut conn)
            .await
    }

    #[tokio::test]
    async fn a_row_reads_each_field_from_the_column_of_its_name_in_its_type() {
        let sample: Sample = read(
            "SELECT 'Ana' AS name, 34990 AS amount, '2026-01-31' AS due, NULL AS paid_on,
                    '2026-01-31T13:45:00.120Z' AS at, 'green' AS light, '[\"vip\",\"sp\"]' AS tags,
                    1 AS flag",
        )
        .await
        .expect("the row reads");
        assert_eq!(sample.name, "Ana");
        assert_eq!(sample.amount, Cents(349_90));
        assert_eq!(sample.due.to_string(), "2026-01-31");
        assert_eq!(sample.paid_on, None);
        assert_eq!(sample.at.to_string(), "2026-01-31T13:45:00.120Z");
        assert_eq!(sample.light, Light::Green);
        assert_eq!(sample.light.as_str(), "green");
        assert_eq!(Light::ALL, ["red", "green"]);
        assert_eq!(Light::parse("red"), Some(Light::Red));
        assert_eq!(sample.tags, ["vip", "sp"]);
        assert!(sample.flag);
        assert_eq!(sample.notes, ["not a column"]);
    }

    #[tokio::test]
    async fn a_stored_value_the_field_cannot_hold_is_an_error_naming_the_column() {
        for (sql, column) in [
            (
                "SELECT 'Ana' AS name, 1 AS amount, '2026-02-30' AS due, NULL AS paid_on,
                        '2026-01-31T13:45:00.120Z' AS at, 'red' AS light, '[]' AS tags, 0 AS flag",
                "due",
            ),
            (
                "SELECT 'Ana' AS name, 1 AS amount, '2026-01-31' AS due, NULL AS paid_on,
                        '2026-01-31' AS at, 'red' AS light, '[]' AS tags, 0 AS flag",
                "at",
            ),
            (
                "SELECT 'Ana' AS name, 1 AS amount, '2026-01-31' AS due, NULL AS paid_on,
                        '2026-01-31T13:45:00.120Z' AS at, 'blue' AS light, '[]' AS tags, 0 AS flag",
                "light",
            ),
        ] {
            let error = read::<Sample>(sql).await.expect_err("corrupt data");
            assert!(
                matches!(&error, sqlx::Error::ColumnDecode { index, .. } if index == column),
                "{error}"
            );
        }
    }
}
