//! Lists built at run time: `WHERE` clauses from filters (`Conditions`, numbering `$n` as
//! they are added), pages (`PageRequest`, `Page`, counts capped at `COUNT_CAP`), list queries
//! (`ListQuery`) read a page at a time or, for a whole file, a keyset page after another
//! (`Sort`, `After`, `ListQuery::fetch_after`), `LIKE` escaping, and the first ids of a
//! completion.

use sqlx::Row;

use crate::db::{Reads, table_of};
use crate::rows::{CheckedColumns, FromSource, PgSource, SqliteRow};
use crate::sqlite_reads::{Reader, from_rusqlite};
use crate::{Backend, Db, Result, StoreError};

/// Escape `%`, `_` and `\` for a `LIKE ... ESCAPE '\'` pattern.
pub fn like_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A value bound to a dynamically built query.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Text(String),
    Int(i64),
}

/// `WHERE` clauses built from list filters, numbering `$n` placeholders as they are added.
#[derive(Debug, Default, Clone)]
pub struct Conditions {
    clauses: Vec<String>,
    binds: Vec<Bind>,
}

impl Conditions {
    /// Start with the tenant filter, which every list has.
    pub fn for_organization(organization_id: &str) -> Self {
        let mut c = Conditions::default();
        c.push(
            "organization_id = {}",
            Bind::Text(organization_id.to_string()),
        );
        c
    }

    /// Add a clause whose one `{}` becomes the next placeholder, bound to `value`.
    pub fn push(&mut self, clause: &str, value: Bind) {
        self.push_many(clause, vec![value]);
    }

    /// Add a clause with one `{}` per value, numbered in order.
    pub fn push_many(&mut self, clause: &str, values: Vec<Bind>) {
        let mut text = String::with_capacity(clause.len() + 8);
        let mut parts = clause.split("{}");
        text.push_str(parts.next().unwrap_or_default());
        for (part, value) in parts.zip(values) {
            self.binds.push(value);
            text.push_str(&format!("${}", self.binds.len()));
            text.push_str(part);
        }
        self.clauses.push(text);
    }

    /// The `WHERE ...` text.
    pub fn sql(&self) -> String {
        format!("WHERE {}", self.clauses.join(" AND "))
    }

    /// Bind every value to a query, in order (the `Any` driver's, or PostgreSQL's own).
    pub fn bind_all<'q, DB>(
        &'q self,
        mut query: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>,
    ) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>
    where
        DB: sqlx::Database,
        for<'t> &'t str: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
        for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    {
        for b in &self.binds {
            query = match b {
                Bind::Text(s) => query.bind(s.as_str()),
                Bind::Int(i) => query.bind(*i),
            };
        }
        query
    }

    /// Same as [`Conditions::bind_all`] for scalar queries (counts).
    pub fn bind_all_scalar<'q, DB, O>(
        &'q self,
        mut query: sqlx::query::QueryScalar<'q, DB, O, <DB as sqlx::Database>::Arguments>,
    ) -> sqlx::query::QueryScalar<'q, DB, O, <DB as sqlx::Database>::Arguments>
    where
        DB: sqlx::Database,
        for<'t> &'t str: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
        for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    {
        for b in &self.binds {
            query = match b {
                Bind::Text(s) => query.bind(s.as_str()),
                Bind::Int(i) => query.bind(*i),
            };
        }
        query
    }
}

/// A page request, already validated.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest {
    pub page: i64,
    pub per_page: i64,
}

impl PageRequest {
    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.per_page
    }

    /// The count when this page came back without a row (none carried it): on the first
    /// page no row matches; past it some may, before the page, so it is asked apart (`None`).
    fn count_of_no_rows(&self) -> Option<i64> {
        (self.page == 1).then_some(0)
    }

    /// How many matching rows a list counts at most before it stops: at least
    /// [`COUNT_CAP`], and always past the end of the page asked for, so that the page
    /// after it is known to exist.
    pub fn count_cap(&self) -> i64 {
        COUNT_CAP.max(self.offset() + self.per_page)
    }
}

/// Counting every matching row costs as much as reading them: a list counts up to this
/// many (more when the page asked for lies further) and then says the total is a lower
/// bound (`total_exact: false` in `meta`). At 10 000 the count was most of a list read on a
/// large organization (1.4 ms of SQLite time against 0.06 ms at 1 000, 1 000 000 charges).
pub const COUNT_CAP: i64 = 1_000;

/// The column of [`ListQuery::page_sql`] that carries the count of matching rows: last, and
/// named so that no table's column can take its place.
pub const MATCHING_ROWS: &str = "list_matching_rows";

/// One page of rows and how many match in all.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// The number of matching rows, or, when `total_exact` is false, a lower bound of it
    /// (counting stopped one past the cap).
    pub total: i64,
    pub total_exact: bool,
}

impl<T> Page<T> {
    /// A page of `items` among `counted` matching rows (counted up to `page.count_cap()` and
    /// one more).
    fn counted(items: Vec<T>, counted: i64, page: PageRequest) -> Page<T> {
        Page {
            items,
            total: counted,
            total_exact: counted <= page.count_cap(),
        }
    }

    /// The same page, each item seen through `f` (a borrowed view of it).
    pub fn view<'a, U>(&'a self, f: impl FnMut(&'a T) -> U) -> Page<U> {
        Page {
            items: self.items.iter().map(f).collect(),
            total: self.total,
            total_exact: self.total_exact,
        }
    }

    /// The same page with each item turned into `f(item)` (a row into its wire shape).
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            total_exact: self.total_exact,
        }
    }
}

/// A list query before it runs: `SELECT {columns} {from} WHERE ... ORDER BY {order}`, read
/// a page at a time. Every list of the API is one; building it apart from running it lets
/// the query-plan tests check the very SQL the server sends.
#[derive(Debug)]
pub struct ListQuery {
    pub conditions: Conditions,
    pub columns: String,
    pub from: String,
    pub order: String,
    /// The order as one column then `id`, when the list is built from a [`Sort`]: what lets
    /// [`ListQuery::fetch_after`] read it a keyset page after another.
    pub sort: Option<Sort>,
}

/// A list's order: one column, then `id` to break ties, both the same way. Every row has
/// one place in it, so the rows after a given (value, id) are the rest of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: &'static str,
    /// The column holds integers (`BIGINT`); otherwise text (dates and instants sort as
    /// their stored text).
    pub integer: bool,
    pub descending: bool,
}

/// Where a keyset page ended: the sort column's value and the `id` of its last row.
#[derive(Debug, Clone, PartialEq)]
pub struct After {
    pub key: Bind,
    pub id: String,
}

/// The two columns a keyset page adds after the row's own: the sort value and the id of
/// each row, named so that no table's column can take their place.
const AFTER_KEY: &str = "list_after_key";
const AFTER_ID: &str = "list_after_id";

impl ListQuery {
    pub fn new(conditions: Conditions, columns: &str, from: &str, order: &str) -> Self {
        ListQuery {
            conditions,
            columns: columns.to_string(),
            from: from.to_string(),
            order: order.to_string(),
            sort: None,
        }
    }

    /// A list in the order of `sort` (`{column} {direction}, id {direction}`), which can be
    /// read by pages or, whole, by keyset pages.
    pub fn sorted(conditions: Conditions, columns: &str, from: &str, sort: Sort) -> Self {
        let direction = if sort.descending { "DESC" } else { "ASC" };
        ListQuery {
            sort: Some(sort),
            ..ListQuery::new(
                conditions,
                columns,
                from,
                &format!("{} {direction}, id {direction}", sort.column),
            )
        }
    }

    /// The values of the `$n` placeholders, in order.
    pub fn binds(&self) -> &[Bind] {
        &self.conditions.binds
    }

    /// The count of matching rows, stopped one past `page.count_cap()`: the subquery reads
    /// at most that many index entries instead of every match.
    pub fn count_sql(&self, page: PageRequest) -> String {
        format!(
            "SELECT COUNT(*) FROM (SELECT 1 AS one {} {} LIMIT {}) AS counted",
            self.from,
            self.conditions.sql(),
            page.count_cap() + 1
        )
    }

    /// The rows of one page, each with the count of [`ListQuery::count_sql`] as its last
    /// column ([`MATCHING_ROWS`]). The count is a scalar subquery that names no column of the
    /// page, so both engines run it once per statement (SQLite's `SCALAR SUBQUERY`,
    /// PostgreSQL's `InitPlan`), not once per row: one statement, and on PostgreSQL one round
    /// trip, answers a list, and the count and the rows come from one snapshot. Only an empty
    /// page past the first, which has no row to carry it, needs the count apart.
    pub fn page_sql(&self, page: PageRequest) -> String {
        format!(
            "SELECT {}, ({}) AS {MATCHING_ROWS} {} {} ORDER BY {} LIMIT {} OFFSET {}",
            self.columns,
            self.count_sql(page),
            self.from,
            self.conditions.sql(),
            self.order,
            page.per_page,
            page.offset()
        )
    }

    /// One page of typed rows, and how many rows match (bounded, see
    /// [`ListQuery::count_sql`]): on SQLite read on this thread (`sqlite_reads`), on
    /// PostgreSQL on a typed connection (`pg_reads`), on an SQLite database in memory through
    /// the pool.
    pub async fn fetch_rows<T: FromSource>(&self, db: &Db, page: PageRequest) -> Result<Page<T>> {
        use tracing::Instrument;
        let span = db.span("SELECT", table_of(&self.from));
        let reads = match &db.reads {
            Some(Reads::Sqlite(reads)) => reads,
            Some(Reads::Postgres(reads)) => {
                let read = async {
                    let mut lease = db.lease(reads).await?;
                    let read = self
                        .read_page_sqlx::<sqlx::Postgres, T>(lease.connection(), page, |rows| {
                            let checked = CheckedColumns::default();
                            let read = |row| T::from_source(&PgSource::new(row, &checked));
                            rows.iter().map(read).collect()
                        })
                        .await;
                    lease.end(read)
                };
                return read.instrument(span).await;
            }
            None => {
                let read = async {
                    let mut connection = db.acquire().await?;
                    self.read_page_sqlx::<sqlx::Any, T>(&mut connection, page, |rows| {
                        rows.iter().map(T::from_source).collect()
                    })
                    .await
                };
                return read.instrument(span).await;
            }
        };
        let _span = span.entered();
        reads.run(|reader| self.read_page_sqlite(reader, page))
    }

    /// How many rows match, every one of them counted (an export's total, once per file;
    /// lists count up to [`COUNT_CAP`]).
    pub async fn count_all(&self, db: &Db) -> Result<i64> {
        let sql = format!("SELECT COUNT(*) {} {}", self.from, self.conditions.sql());
        let mut connection = db.acquire().await?;
        Ok(self
            .conditions
            .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)))
            .fetch_one(&mut *connection)
            .await?)
    }

    /// The statement of a keyset page: at most `limit` rows after `after` (from the first
    /// without it), each with its sort value and id as the last two columns. The row value
    /// comparison `(column, id) > (value, id)` continues where the last page ended through
    /// the list's own index, whatever the depth, where `OFFSET` reads and drops every row
    /// before the page. Also its binds.
    pub fn after_sql(&self, after: Option<&After>, limit: i64) -> Result<(String, Conditions)> {
        let sort = self.sort.ok_or_else(|| {
            StoreError::Corrupt(format!("the list {} has no keyset order", self.from))
        })?;
        let mut conditions = self.conditions.clone();
        if let Some(after) = after {
            let beyond = if sort.descending { "<" } else { ">" };
            conditions.push_many(
                &format!("({}, id) {beyond} ({{}}, {{}})", sort.column),
                vec![after.key.clone(), Bind::Text(after.id.clone())],
            );
        }
        let sql = format!(
            "SELECT {}, {} AS {AFTER_KEY}, id AS {AFTER_ID} {} {} ORDER BY {} LIMIT {limit}",
            self.columns,
            sort.column,
            self.from,
            conditions.sql(),
            self.order,
        );
        Ok((sql, conditions))
    }

    /// The next keyset page of the list (see [`ListQuery::after_sql`]), and where it ended
    /// (`None` once a page comes back empty). A whole list is read in pages that cost the
    /// same at its end as at its start, holding one page at a time.
    pub async fn fetch_after<T: FromSource>(
        &self,
        db: &Db,
        after: Option<&After>,
        limit: i64,
    ) -> Result<(Vec<T>, Option<After>)> {
        use tracing::Instrument;
        let (sql, conditions) = self.after_sql(after, limit)?;
        let integer = self.sort.is_some_and(|s| s.integer);
        let span = db.span("SELECT", table_of(&self.from));
        let reads = match &db.reads {
            Some(Reads::Sqlite(reads)) => reads,
            Some(Reads::Postgres(reads)) => {
                let read = async {
                    let mut lease = db.lease(reads).await?;
                    let rows = conditions
                        .bind_all(sqlx::query(sqlx::AssertSqlSafe(sql)))
                        .fetch_all(lease.connection())
                        .await;
                    let read = rows.map_err(StoreError::from).and_then(|rows| {
                        let checked = CheckedColumns::default();
                        let items = rows
                            .iter()
                            .map(|row| T::from_source(&PgSource::new(row, &checked)))
                            .collect::<sqlx::Result<Vec<T>>>()?;
                        let last = rows
                            .last()
                            .map(|row| after_sqlx(row, integer))
                            .transpose()?;
                        Ok((items, last))
                    });
                    lease.end(read)
                };
                return read.instrument(span).await;
            }
            None => {
                let read = async {
                    let mut connection = db.acquire().await?;
                    let rows = conditions
                        .bind_all(sqlx::query(sqlx::AssertSqlSafe(sql)))
                        .fetch_all(&mut *connection)
                        .await?;
                    let items = rows
                        .iter()
                        .map(T::from_source)
                        .collect::<sqlx::Result<Vec<T>>>()?;
                    let last = rows
                        .last()
                        .map(|row| after_sqlx(row, integer))
                        .transpose()?;
                    Ok((items, last))
                };
                return read.instrument(span).await;
            }
        };
        let _span = span.entered();
        reads.run(|reader| {
            let (mut statement, names) = reader.prepare(&sql)?;
            bind_all(&mut statement, &conditions.binds)?;
            let mut rows = statement.raw_query();
            // Room for a usual page at most: a caller may ask for more than it expects.
            let mut items = Vec::with_capacity(usize::try_from(limit.min(1_000)).unwrap_or(0));
            let mut last = None;
            while let Some(row) = rows.next().map_err(from_rusqlite)? {
                items.push(T::from_source(&SqliteRow::new(row, &names))?);
                let (key, id) = (names.len() - 2, names.len() - 1);
                last = Some(After {
                    key: if integer {
                        Bind::Int(row.get(key).map_err(from_rusqlite)?)
                    } else {
                        Bind::Text(row.get(key).map_err(from_rusqlite)?)
                    },
                    id: row.get(id).map_err(from_rusqlite)?,
                });
            }
            Ok((items, last))
        })
    }

    /// The page and its count on one connection of sqlx's (PostgreSQL's typed driver, or the
    /// `Any` pool's), the rows read by `read`.
    async fn read_page_sqlx<DB, T>(
        &self,
        connection: &mut DB::Connection,
        page: PageRequest,
        read: impl FnOnce(&[DB::Row]) -> sqlx::Result<Vec<T>>,
    ) -> Result<Page<T>>
    where
        DB: sqlx::Database,
        DB::Arguments: sqlx::IntoArguments<DB>,
        usize: sqlx::ColumnIndex<DB::Row>,
        for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
        for<'t> &'t str: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
        for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Decode<'t, DB> + sqlx::Type<DB>,
    {
        let rows = self
            .conditions
            .bind_all(sqlx::query(sqlx::AssertSqlSafe(self.page_sql(page))))
            .fetch_all(&mut *connection)
            .await?;
        let carried = match rows.first() {
            Some(row) => Some(row.try_get::<i64, _>(row.len() - 1)?),
            None => page.count_of_no_rows(),
        };
        let counted = match carried {
            Some(counted) => counted,
            None => {
                self.conditions
                    .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(
                        self.count_sql(page),
                    )))
                    .fetch_one(&mut *connection)
                    .await?
            }
        };
        let items = read(&rows)?;
        Ok(Page::counted(items, counted, page))
    }

    /// The page and its count, read on an SQLite connection of `sqlite_reads`.
    fn read_page_sqlite<T: FromSource>(
        &self,
        reader: &Reader,
        page: PageRequest,
    ) -> Result<Page<T>> {
        let (mut statement, names) = reader.prepare(&self.page_sql(page))?;
        bind_all(&mut statement, &self.conditions.binds)?;
        let mut rows = statement.raw_query();
        let mut items = Vec::with_capacity(usize::try_from(page.per_page).unwrap_or(0));
        let mut carried = None;
        while let Some(row) = rows.next().map_err(from_rusqlite)? {
            if carried.is_none() {
                carried = Some(row.get::<_, i64>(names.len() - 1).map_err(from_rusqlite)?);
            }
            items.push(T::from_source(&SqliteRow::new(row, &names))?);
        }
        drop(rows);
        let counted = match carried.or(page.count_of_no_rows()) {
            Some(counted) => counted,
            None => {
                let mut count = reader
                    .connection()
                    .prepare_cached(&self.count_sql(page))
                    .map_err(from_rusqlite)?;
                bind_all(&mut count, &self.conditions.binds)?;
                match count.raw_query().next().map_err(from_rusqlite)? {
                    Some(row) => row.get(0).map_err(from_rusqlite)?,
                    None => 0,
                }
            }
        };
        Ok(Page::counted(items, counted, page))
    }

    /// How the engine runs a list's statement ([`ListQuery::page_sql`]), as two texts: the
    /// count's part (its scalar subquery, the line that introduces it first) and the page's,
    /// each the lines of `EXPLAIN QUERY PLAN` (SQLite) or `EXPLAIN` (PostgreSQL) joined by
    /// newlines.
    pub async fn plans(&self, db: &Db, page: PageRequest) -> Result<[String; 2]> {
        let explain = match db.backend {
            Backend::Sqlite => "EXPLAIN QUERY PLAN",
            Backend::Postgres => "EXPLAIN",
        };
        let rows = self
            .conditions
            .bind_all(sqlx::query(sqlx::AssertSqlSafe(format!(
                "{explain} {}",
                self.page_sql(page)
            ))))
            .fetch_all(&db.pool)
            .await?;
        let (mut count, mut rest) = (Vec::new(), Vec::new());
        match db.backend {
            // A tree of (id, parent, detail): the subquery is the node that says it is one,
            // and every node below it.
            Backend::Sqlite => {
                let mut below = std::collections::HashSet::new();
                for row in &rows {
                    let id: i64 = row.try_get("id")?;
                    let parent: i64 = row.try_get("parent")?;
                    let detail: String = row.try_get("detail")?;
                    if detail.contains("SCALAR SUBQUERY") || below.contains(&parent) {
                        below.insert(id);
                        count.push(detail);
                    } else {
                        rest.push(detail);
                    }
                }
            }
            // Indented text: the subquery is the `InitPlan` (or `SubPlan`) line, and every
            // line indented further below it.
            Backend::Postgres => {
                let mut under: Option<usize> = None;
                for row in &rows {
                    let line: String = row.try_get("QUERY PLAN")?;
                    let indent = line.len() - line.trim_start().len();
                    if under.is_some_and(|at| indent <= at) {
                        under = None;
                    }
                    if under.is_none()
                        && (line.trim_start().starts_with("InitPlan")
                            || line.trim_start().starts_with("SubPlan"))
                    {
                        under = Some(indent);
                    }
                    if under.is_some() {
                        count.push(line);
                    } else {
                        rest.push(line);
                    }
                }
            }
        }
        Ok([count.join("\n"), rest.join("\n")])
    }
}

impl Conditions {
    /// The first `limit` values of `id_column` in `{from} WHERE ... ORDER BY {order}`, and how
    /// many match (counted up to [`COUNT_CAP`] and one more): what completions answer.
    pub async fn fetch_ids(
        &self,
        db: &Db,
        id_column: &str,
        from: &str,
        order: &str,
        limit: i64,
    ) -> Result<(Vec<String>, i64)> {
        use tracing::Instrument;
        let span = db.span("SELECT", table_of(from));
        async {
            let count = format!(
                "SELECT COUNT(*) FROM (SELECT 1 AS one {from} {} LIMIT {}) AS counted",
                self.sql(),
                COUNT_CAP + 1
            );
            let mut connection = db.acquire().await?;
            let total: i64 = self
                .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(count)))
                .fetch_one(&mut *connection)
                .await?;
            let sql = format!(
                "SELECT {id_column} {from} {} ORDER BY {order} LIMIT {limit}",
                self.sql()
            );
            let ids: Vec<String> = self
                .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)))
                .fetch_all(&mut *connection)
                .await?;
            Ok::<_, StoreError>((ids, total))
        }
        .instrument(span)
        .await
    }
}

/// Where a keyset page's last row stands, from its two last columns (sqlx's rows).
fn after_sqlx<R: Row>(row: &R, integer: bool) -> sqlx::Result<After>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let (key, id) = (row.len() - 2, row.len() - 1);
    Ok(After {
        key: if integer {
            Bind::Int(row.try_get(key)?)
        } else {
            Bind::Text(row.try_get(key)?)
        },
        id: row.try_get(id)?,
    })
}

/// Bind `binds` to the `$1`, `$2`, ... of `statement` by name: SQLite numbers parameters in
/// order of first appearance, which is not always the order of their numbers.
fn bind_all(statement: &mut rusqlite::Statement<'_>, binds: &[Bind]) -> Result<()> {
    for (n, bind) in binds.iter().enumerate() {
        let Some(index) = statement
            .parameter_index(&format!("${}", n + 1))
            .map_err(from_rusqlite)?
        else {
            continue;
        };
        match bind {
            Bind::Text(text) => statement.raw_bind_parameter(index, text.as_str()),
            Bind::Int(number) => statement.raw_bind_parameter(index, number),
        }
        .map_err(from_rusqlite)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DbSettings;

    crate::row! {
        #[derive(Debug)]
        struct Reading {
            id: String,
            n: i64,
        }
    }

    /// The pages of the readings of `org_1` with `n` at least 2 (each placeholder appears
    /// twice in the statement: in the page's `WHERE` and in its count's), three at a time.
    async fn pages(db: &Db) -> Vec<(Vec<String>, i64, bool)> {
        for sql in [
            "CREATE TABLE readings (organization_id TEXT, id TEXT, n BIGINT)",
            "INSERT INTO readings VALUES ('org_1', 'a', 1), ('org_1', 'b', 2), ('org_1', 'c', 3), \
             ('org_1', 'd', 4), ('org_1', 'e', 5), ('org_2', 'f', 6)",
        ] {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&db.pool)
                .await
                .expect(sql);
        }
        let mut conditions = Conditions::for_organization("org_1");
        conditions.push("n >= {}", Bind::Int(2));
        let query = ListQuery::new(conditions, "id, n", "FROM readings", "id");
        let mut out = Vec::new();
        for page in 1..=3 {
            let page = PageRequest { page, per_page: 3 };
            let read = query.fetch_rows::<Reading>(db, page).await.expect("reads");
            let ids = read
                .items
                .iter()
                .map(|r| format!("{}={}", r.id, r.n))
                .collect();
            out.push((ids, read.total, read.total_exact));
        }
        out
    }

    /// A full page, a last page and an empty page past the end: the count rides in the rows
    /// of the first two, and is asked apart for the third.
    fn expected() -> Vec<(Vec<String>, i64, bool)> {
        let ids = |ids: &[&str]| ids.iter().map(|id| id.to_string()).collect();
        vec![
            (ids(&["b=2", "c=3", "d=4"]), 4, true),
            (ids(&["e=5"]), 4, true),
            (ids(&[]), 4, true),
        ]
    }

    #[tokio::test]
    async fn a_list_on_a_file_reads_its_count_with_its_rows_and_apart_past_the_end() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}/pages.db?mode=rwc", dir.path().display());
        let (db, _) = Db::open(&url).await.expect("opens");
        assert!(matches!(db.reads, Some(Reads::Sqlite(_))));
        assert_eq!(pages(&db).await, expected());
    }

    #[tokio::test]
    async fn a_list_in_memory_reads_the_same_through_the_pool() {
        let settings = DbSettings {
            pool_size: Some(1),
            ..DbSettings::default()
        };
        let (db, _) = Db::open_with("sqlite::memory:", &settings)
            .await
            .expect("opens");
        assert!(db.reads.is_none());
        assert_eq!(pages(&db).await, expected());
    }

    #[test]
    fn placeholders_are_bound_by_their_number_wherever_they_stand() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        let mut statement = conn
            .prepare("SELECT $2 || '-' || $1 || '-' || $2")
            .expect("prepares");
        bind_all(&mut statement, &[Bind::Text("one".into()), Bind::Int(2)]).expect("binds");
        let text: String = statement
            .raw_query()
            .next()
            .expect("steps")
            .expect("a row")
            .get(0)
            .expect("text");
        assert_eq!(text, "2-one-2");
    }
}
