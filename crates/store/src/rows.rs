//! Typed rows: a result row read into a struct of domain types, declared once per struct
//! instead of one `try_get` per column per reader.
//!
//! Rows come from three drivers: `sqlx::Any` (inside transactions, on either engine), whose
//! values are only the types both engines share (`TEXT`, `BIGINT`), `rusqlite` (SQLite reads
//! outside a transaction, `crate::sqlite_reads`) and sqlx's typed PostgreSQL driver
//! (PostgreSQL reads outside a transaction, `crate::pg_reads`). A [`Source`] is any of these
//! rows, asked for a column as text, as an integer, or whether it is `NULL`. A [`Column`] turns
//! one column into a field type (money as [`Cents`], dates, instants as [`Timestamp`], status
//! enums by their stored words, JSON text) from those, so no driver's `Decode` impl is needed;
//! [`row!`](crate::row) declares a struct read from any of them, each field from the column of
//! the same name (the `SELECT` renames a column with `AS` where the names differ).

use serde::de::DeserializeOwned;
use sqlx::any::{Any, AnyRow};
use sqlx::postgres::PgRow;
use sqlx::{Executor, FromRow, Row, TypeInfo, ValueRef};
use time::Date;

use super::Result;
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

/// A row of any of the drivers, read a column at a time by name.
pub trait Source {
    /// The column as text.
    fn text(&self, column: &str) -> sqlx::Result<String>;
    /// The column as text borrowed from the row: for a field parsed from its text (a date,
    /// an instant, a word, JSON), which then needs no copy of it.
    fn str(&self, column: &str) -> sqlx::Result<&str>;
    /// The column's text as bytes, not yet checked to be UTF-8: for a field whose reader
    /// accepts only ASCII (an instant or a date in its stored form), which then needs no
    /// UTF-8 check of its own. By default the checked text's bytes.
    fn bytes(&self, column: &str) -> sqlx::Result<&[u8]> {
        self.str(column).map(str::as_bytes)
    }
    /// The column as a 64-bit integer.
    fn integer(&self, column: &str) -> sqlx::Result<i64>;
    /// Whether the column is `NULL`.
    fn is_null(&self, column: &str) -> sqlx::Result<bool>;
}

impl Source for AnyRow {
    fn text(&self, column: &str) -> sqlx::Result<String> {
        self.try_get(column)
    }
    fn str(&self, column: &str) -> sqlx::Result<&str> {
        self.try_get(column)
    }
    fn integer(&self, column: &str) -> sqlx::Result<i64> {
        self.try_get(column)
    }
    fn is_null(&self, column: &str) -> sqlx::Result<bool> {
        Ok(self.try_get_raw(column)?.is_null())
    }
}

/// A row of sqlx's PostgreSQL driver (the PostgreSQL reads outside a transaction): the value
/// read from the server's answer as it is, without the `Any` layer's copy of it. Columns are
/// found as [`SqliteRow`] finds them, from the one after the column read last (sqlx's lookup by
/// name hashes the name each time: 9 % of a 25-row list's instructions); and each column's
/// type is checked against its field's once per answer, at its first value that is not `NULL`
/// (sqlx checks only such values), since every row of one statement has the same column types
/// (the check on every value was another 9 %).
pub struct PgSource<'r> {
    row: &'r PgRow,
    next: std::cell::Cell<usize>,
    checked: &'r CheckedColumns,
}

/// Which columns of one answer have had their type checked, shared by its rows' [`PgSource`]s.
/// A column past the 128th is checked at every value.
#[derive(Debug, Default)]
pub struct CheckedColumns(std::cell::Cell<u128>);

impl<'r> PgSource<'r> {
    /// A row of an answer whose rows share `checked`.
    pub fn new(row: &'r PgRow, checked: &'r CheckedColumns) -> Self {
        PgSource {
            row,
            next: std::cell::Cell::new(0),
            checked,
        }
    }

    fn index(&self, column: &str) -> sqlx::Result<usize> {
        let columns = self.row.columns();
        find_column(columns.len(), &self.next, column, |i| {
            sqlx::Column::name(&columns[i])
        })
    }

    fn get<'a, T>(&'a self, column: &str) -> sqlx::Result<T>
    where
        T: sqlx::Decode<'a, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
    {
        self.get_at(self.index(column)?, column)
    }

    /// The value at `index`, which is `column`'s; an error names the column.
    fn get_at<'a, T>(&'a self, index: usize, column: &str) -> sqlx::Result<T>
    where
        T: sqlx::Decode<'a, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
    {
        let bit = u32::try_from(index)
            .ok()
            .and_then(|index| 1u128.checked_shl(index));
        let read = match bit {
            Some(bit) if self.checked.0.get() & bit != 0 => self.row.try_get_unchecked(index),
            _ => {
                // The fields read here are never `Option`s (`is_null` comes first for those):
                // a value read is not `NULL`, and sqlx checked its column's type.
                let read = self.row.try_get(index);
                if let (Ok(_), Some(bit)) = (&read, bit) {
                    self.checked.0.set(self.checked.0.get() | bit);
                }
                read
            }
        };
        read.map_err(|error| match error {
            sqlx::Error::ColumnDecode { source, .. } => sqlx::Error::ColumnDecode {
                index: column.to_string(),
                source,
            },
            other => other,
        })
    }
}

impl Source for PgSource<'_> {
    fn text(&self, column: &str) -> sqlx::Result<String> {
        self.get(column)
    }
    fn str(&self, column: &str) -> sqlx::Result<&str> {
        self.get(column)
    }
    /// Stored integers are `BIGINT`; a computed one may be `integer` or `smallint`, which the
    /// `Any` driver widened too.
    fn integer(&self, column: &str) -> sqlx::Result<i64> {
        let index = self.index(column)?;
        match self.row.try_get_raw(index)?.type_info().name() {
            "INT4" => self.get_at::<i32>(index, column).map(i64::from),
            "INT2" => self.get_at::<i16>(index, column).map(i64::from),
            _ => self.get_at(index, column),
        }
    }
    fn is_null(&self, column: &str) -> sqlx::Result<bool> {
        // The field reads the same column next.
        let index = self.index(column)?;
        self.next.set(index);
        Ok(self.row.try_get_raw(index)?.is_null())
    }
}

/// The index of `column` among `count` columns named by `name_at`, looked for from `next` on
/// and round; `next` is left at the column after it. A `SELECT` lists its columns in the order
/// of the row's fields, so the first one looked at is nearly always it.
fn find_column<'n>(
    count: usize,
    next: &std::cell::Cell<usize>,
    column: &str,
    name_at: impl Fn(usize) -> &'n str,
) -> sqlx::Result<usize> {
    let start = next.get();
    let found = (0..count)
        .map(|offset| (start + offset) % count)
        .find(|&i| name_at(i) == column)
        .ok_or_else(|| sqlx::Error::ColumnNotFound(column.to_string()))?;
    next.set(found + 1);
    Ok(found)
}

/// A row `rusqlite` read (the SQLite reads outside a transaction), with its statement's
/// column names. A field finds its column by name, scanning from the column after the one
/// read last: a `SELECT` lists its columns in the order of the struct's fields, so that is
/// nearly always the first one looked at (`rusqlite`'s own lookup by name asks SQLite for
/// every column's name each time: 13 % of a list's CPU in a profile).
pub struct SqliteRow<'a, 'stmt> {
    row: &'a rusqlite::Row<'stmt>,
    names: &'a [String],
    next: std::cell::Cell<usize>,
}

impl<'a, 'stmt> SqliteRow<'a, 'stmt> {
    /// `row` of a statement whose columns are `names` (`Statement::column_names`, once per
    /// statement).
    pub fn new(row: &'a rusqlite::Row<'stmt>, names: &'a [String]) -> Self {
        SqliteRow {
            row,
            names,
            next: std::cell::Cell::new(0),
        }
    }

    fn index(&self, column: &str) -> sqlx::Result<usize> {
        find_column(self.names.len(), &self.next, column, |i| &self.names[i])
    }
}

impl Source for SqliteRow<'_, '_> {
    fn text(&self, column: &str) -> sqlx::Result<String> {
        self.row
            .get(self.index(column)?)
            .map_err(|e| undecodable(column, e))
    }
    fn str(&self, column: &str) -> sqlx::Result<&str> {
        let index = self.index(column)?;
        let value = self
            .row
            .get_ref(index)
            .map_err(|e| undecodable(column, e))?;
        // What `get::<String>` accepts: text, in UTF-8.
        value.as_str().map_err(|e| {
            undecodable(
                column,
                rusqlite::Error::FromSqlConversionFailure(index, value.data_type(), Box::new(e)),
            )
        })
    }
    fn bytes(&self, column: &str) -> sqlx::Result<&[u8]> {
        let index = self.index(column)?;
        let value = self
            .row
            .get_ref(index)
            .map_err(|e| undecodable(column, e))?;
        value.as_bytes().map_err(|e| undecodable(column, e.into()))
    }
    fn integer(&self, column: &str) -> sqlx::Result<i64> {
        self.row
            .get(self.index(column)?)
            .map_err(|e| undecodable(column, e))
    }
    fn is_null(&self, column: &str) -> sqlx::Result<bool> {
        // The field reads the same column next.
        let index = self.index(column)?;
        self.next.set(index);
        let value = self
            .row
            .get_ref(index)
            .map_err(|e| undecodable(column, e))?;
        Ok(value == rusqlite::types::ValueRef::Null)
    }
}

/// What `rusqlite` could not read, as the same error `sqlx` gives for it.
fn undecodable(column: &str, error: rusqlite::Error) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: column.to_string(),
        source: Box::new(error),
    }
}

/// A field read from the column of its name.
pub trait Column: Sized {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self>;
}

impl Column for String {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        row.text(column)
    }
}

impl Column for i64 {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        row.integer(column)
    }
}

/// Flags are `BIGINT` 0 or 1 on both engines.
impl Column for bool {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        Ok(row.integer(column)? != 0)
    }
}

impl Column for Cents {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        Ok(Cents(row.integer(column)?))
    }
}

/// Dates are stored as `YYYY-MM-DD`: read field by field, and any other text by `time`'s
/// parser, which says what is wrong with it.
impl Column for Date {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        if let Some(date) = dunning_domain::timestamp::stored_date(row.bytes(column)?) {
            return Ok(date);
        }
        let text = row.str(column)?;
        let format = time::macros::format_description!("[year]-[month]-[day]");
        Date::parse(text, &format).map_err(|e| corrupt(column, text, e))
    }
}

/// Instants are stored as fixed-width RFC 3339 text (`store::timestamp_text`): read from
/// its bytes (the form is ASCII), and any other text by `Timestamp::parse`.
impl Column for Timestamp {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        if let Some(stored) = Timestamp::from_stored(row.bytes(column)?) {
            return Ok(stored);
        }
        let text = row.str(column)?;
        Timestamp::parse(text).map_err(|e| corrupt(column, text, e))
    }
}

/// `NULL` is `None`; anything else is read as `T`.
impl<T: Column> Column for Option<T> {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        if row.is_null(column)? {
            Ok(None)
        } else {
            T::read(row, column).map(Some)
        }
    }
}

/// Lists (tags, opt-outs) are stored as JSON arrays of strings, which `serde_json` writes
/// `["a","b"]`: such a text whose strings hold no escape is split where its quotes are
/// (`serde_json` cost ~1 100 instructions a row for a one-tag list); any other is read by
/// `serde_json`.
impl Column for Vec<String> {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        let text = row.str(column)?;
        match plain_strings(text) {
            Some(list) => Ok(list),
            None => serde_json::from_str(text).map_err(|e| corrupt(column, text, e)),
        }
    }
}

/// The strings of `["a","b"]` (or `[]`) as `serde_json` writes a list of strings with no
/// character to escape; `None` for any other text.
fn plain_strings(text: &str) -> Option<Vec<String>> {
    if text == "[]" {
        return Some(Vec::new());
    }
    let inner = text.strip_prefix("[\"")?.strip_suffix("\"]")?;
    // No escape and no control character: a quote is then only ever a string's edge.
    if inner.bytes().any(|b| b == b'\\' || b < 0x20) {
        return None;
    }
    // Each string ends at the next quote, and `","` must follow it (a `&str` pattern's
    // searcher cost more to set up than these few bytes take to read).
    let mut list = Vec::with_capacity(1);
    let mut rest = inner;
    while let Some(end) = rest.find('"') {
        list.push(rest[..end].to_string());
        rest = rest[end..].strip_prefix("\",\"")?;
    }
    list.push(rest.to_string());
    Some(list)
}

/// Event data and other free-form JSON.
impl Column for dunning_domain::charge_math::PaymentDays {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        let text = row.str(column)?;
        dunning_domain::charge_math::PaymentDays::parse(text)
            .ok_or_else(|| corrupt(column, text, "not a list of day:centavos"))
    }
}

impl Column for serde_json::Value {
    fn read<R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        json(row, column)
    }
}

/// A value stored as JSON text: what a [`Column`] impl of a stored JSON type calls.
pub fn json<T: DeserializeOwned, R: Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<T> {
    let text = row.str(column)?;
    serde_json::from_str(text).map_err(|e| corrupt(column, text, e))
}

/// A stored value the column's type cannot hold: the data is corrupt, not the request.
pub fn corrupt(column: &str, text: &str, error: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: column.to_string(),
        source: format!("stored value {text:?}: {error}").into(),
    }
}

/// A struct read from any driver's row ([`row!`](crate::row) implements it, and
/// `sqlx::FromRow` for the `Any` driver's rows through it).
pub trait FromSource: Sized {
    fn from_source<R: Source + ?Sized>(row: &R) -> sqlx::Result<Self>;
}

/// A row type the store reads by id (or, for a table keyed by the organization, by
/// organization): its table and the columns its `FromRow` reads.
pub trait Stored: for<'r> FromRow<'r, AnyRow> + FromSource + Send + Unpin {
    /// `FROM` this table.
    const TABLE: &'static str;
    /// What the `SELECT` lists, renamed to the field names.
    const COLUMNS: &'static str;
}

/// The `SELECT` of the row of `T`'s table with id `$2` in organization `$1`, for either driver:
/// written once per table and kept (writing it on every read was 1.5 % of a detail read).
pub fn by_id_sql<T: Stored>() -> &'static str {
    kept_sql::<T>(Selecting::ById)
}

/// The `SELECT` of the one row of `T`'s table that belongs to organization `$1`, for a table
/// keyed by the organization (its Pix setup, its PSP connection); kept as [`by_id_sql`]'s is.
pub fn of_organization_sql<T: Stored>() -> &'static str {
    kept_sql::<T>(Selecting::OfOrganization)
}

/// Which row a kept statement of a table selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Selecting {
    ById,
    OfOrganization,
}

fn kept_sql<T: Stored>(selecting: Selecting) -> &'static str {
    // One entry per `Stored` type and statement, found by where its `TABLE` and `COLUMNS` are
    // (`'static` text: two types whose texts the linker merged would write the same statement).
    type Key = (Selecting, [(usize, usize); 2]);
    static WRITTEN: std::sync::RwLock<Vec<(Key, &'static str)>> =
        std::sync::RwLock::new(Vec::new());
    let at = |text: &'static str| (text.as_ptr() as usize, text.len());
    let key = (selecting, [at(T::TABLE), at(T::COLUMNS)]);
    let found = |written: &[(Key, &'static str)]| {
        written.iter().find(|(k, _)| *k == key).map(|(_, sql)| *sql)
    };
    if let Some(sql) = found(&WRITTEN.read().unwrap_or_else(|e| e.into_inner())) {
        return sql;
    }
    let mut written = WRITTEN.write().unwrap_or_else(|e| e.into_inner());
    if let Some(sql) = found(&written) {
        return sql;
    }
    let condition = match selecting {
        Selecting::ById => "organization_id = $1 AND id = $2",
        Selecting::OfOrganization => "organization_id = $1",
    };
    // Leaked once per type and statement: there are a dozen or so.
    let sql: &'static str = Box::leak(
        format!("SELECT {} FROM {} WHERE {condition}", T::COLUMNS, T::TABLE).into_boxed_str(),
    );
    written.push((key, sql));
    sql
}

/// The one row of `T`'s table that belongs to the organization, for a table keyed by it,
/// through `conn` (inside a transaction).
pub async fn of_organization<'c, T: Stored>(
    conn: impl Executor<'c, Database = Any>,
    organization_id: &str,
) -> Result<Option<T>> {
    Ok(
        sqlx::query_as(sqlx::AssertSqlSafe(of_organization_sql::<T>()))
            .bind(organization_id)
            .fetch_optional(conn)
            .await?,
    )
}

/// The row of `T`'s table with this id in the organization: what every `get` reads.
pub async fn by_id<'c, T: Stored>(
    conn: impl Executor<'c, Database = Any>,
    organization_id: &str,
    id: &str,
) -> Result<Option<T>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(by_id_sql::<T>()))
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

        impl $crate::rows::FromSource for $name {
            fn from_source<R: $crate::rows::Source + ?Sized>(row: &R) -> ::sqlx::Result<Self> {
                Ok($name {
                    $($field: $crate::row!(@field row, $field $(, $default)?)),*
                })
            }
        }

        impl<'r> ::sqlx::FromRow<'r, ::sqlx::any::AnyRow> for $name {
            fn from_row(row: &'r ::sqlx::any::AnyRow) -> ::sqlx::Result<Self> {
                <$name as $crate::rows::FromSource>::from_source(row)
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
                fn read<R: $crate::rows::Source + ?Sized>(row: &R, column: &str) -> ::sqlx::Result<Self> {
                    let text = row.str(column)?;
                    <$name as ::dunning_domain::words::Words>::parse(text)
                        .ok_or_else(|| $crate::rows::corrupt(column, text, "not a known value"))
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
    dunning_domain::collection::DayCount,
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

    #[test]
    fn a_list_of_plain_strings_reads_as_serde_json_reads_it_and_any_other_text_goes_to_it() {
        for list in [
            vec![],
            vec!["vip"],
            vec!["vip", "sp", "atraso 30 dias"],
            vec!["", "a"],
            vec![
                "açaí",
                "💸",
                "a,b",
                "[x]",
                "a]",
                "[\"",
                "x\"y",
                "tab\t",
                "back\\slash",
            ],
        ] {
            let text = serde_json::to_string(&list).expect("strings serialise");
            let expected: Vec<String> = serde_json::from_str(&text).expect("reads back");
            match plain_strings(&text) {
                Some(read) => assert_eq!(read, expected, "{text}"),
                None => assert!(
                    text.contains('\\'),
                    "only escapes go the general way: {text}"
                ),
            }
        }
        for other in [
            "[ \"a\" ]",
            "[\"a\", \"b\"]",
            "[\"a\"\"b\"]",
            "[\"a\"",
            "\"a\"",
            "[1]",
            "",
            "[\"a\",\"b\"\"]",
        ] {
            assert_eq!(plain_strings(other), None, "{other}");
        }
    }

    crate::row! {
        #[derive(Debug, PartialEq)]
        struct Optional {
            note: Option<String>,
            count: Option<i64>,
            paid_on: Option<Date>,
            name: String,
        }
    }

    /// The first row of `sql` read through `rusqlite`, as the SQLite reads outside a
    /// transaction read it.
    fn read_sqlite<T: FromSource>(sql: &str) -> sqlx::Result<T> {
        let conn = rusqlite::Connection::open_in_memory().expect("SQLite opens");
        let mut statement = conn.prepare(sql).expect("the statement prepares");
        let names: Vec<String> = statement
            .column_names()
            .iter()
            .map(|n| n.to_string())
            .collect();
        let mut rows = statement.query([]).expect("the statement runs");
        let row = rows.next().expect("a row").expect("one row");
        T::from_source(&SqliteRow::new(row, &names))
    }

    #[tokio::test]
    async fn a_row_read_through_rusqlite_is_the_row_sqlx_reads() {
        let sql = "SELECT 'Ana' AS name, 34990 AS amount, '2026-01-31' AS due,
                          '2026-02-03' AS paid_on, '2026-01-31T13:45:00.120Z' AS at,
                          'green' AS light, '[\"vip\"]' AS tags, 1 AS flag";
        let through_sqlx: Sample = read(sql).await.expect("sqlx reads it");
        let through_rusqlite: Sample = read_sqlite(sql).expect("rusqlite reads it");
        assert_eq!(format!("{through_rusqlite:?}"), format!("{through_sqlx:?}"));
    }

    #[test]
    fn an_optional_field_reads_its_own_column_whether_it_or_its_neighbour_is_null() {
        for (sql, expected) in [
            (
                "SELECT NULL AS note, 5 AS count, NULL AS paid_on, 'Ana' AS name",
                (None, Some(5), None),
            ),
            (
                "SELECT 'x' AS note, NULL AS count, '2026-02-03' AS paid_on, 'Ana' AS name",
                (Some("x".to_string()), None, Some("2026-02-03".to_string())),
            ),
            (
                "SELECT '' AS note, 0 AS count, NULL AS paid_on, 'Ana' AS name",
                (Some(String::new()), Some(0), None),
            ),
        ] {
            let read: Optional = read_sqlite(sql).expect("the row reads");
            let paid_on = read.paid_on.map(|d| d.to_string());
            assert_eq!((read.note, read.count, paid_on), expected, "{sql}");
            assert_eq!(read.name, "Ana");
        }
    }

    #[test]
    fn an_optional_field_whose_value_is_of_another_type_is_an_error_naming_its_column() {
        for (sql, column) in [
            (
                "SELECT 'x' AS note, 'five' AS count, NULL AS paid_on, 'Ana' AS name",
                "count",
            ),
            (
                "SELECT 7 AS note, 5 AS count, NULL AS paid_on, 'Ana' AS name",
                "note",
            ),
            (
                "SELECT NULL AS note, 5 AS count, 'soon' AS paid_on, 'Ana' AS name",
                "paid_on",
            ),
            (
                "SELECT NULL AS note, 5 AS count, NULL AS paid_on, 3 AS name",
                "name",
            ),
        ] {
            let error = read_sqlite::<Optional>(sql).expect_err("a value of another type");
            assert!(
                matches!(&error, sqlx::Error::ColumnDecode { index, .. } if index == column),
                "{sql}: {error}"
            );
        }
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
