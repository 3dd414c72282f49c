//! Database access for SQLite (embedded default) and PostgreSQL through one code path.
//!
//! Every query is written once, in the SQL both engines accept, with `$n` placeholders (the
//! SQLite driver reads them as positional too). Values are kept to the types both share:
//! `TEXT` (ids, timestamps, JSON), `BIGINT` (money in centavos, versions, flags).
//! Every query that touches tenant data filters on `organization_id`.

pub mod agreements;
pub mod charges;
pub mod collection;
pub mod customers;
pub mod deliveries;
pub mod disputes;
pub mod events;
pub mod exports;
pub mod faults;
pub mod idempotency;
pub mod ids;
pub mod limits;
pub mod locks;
mod migrations;
pub mod orgs;
pub mod plans;
pub mod retry;
pub mod webhooks;

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Connection, Executor};

pub use faults::StorageFault;

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The storage itself is at fault (full, read-only, unreachable).
    #[error("storage fault: {}", .0.code())]
    Fault(StorageFault),
    /// The database could not be reached at start-up; the text says where and why.
    #[error("{0}")]
    Connect(String),
    /// The database's schema is not the one this build expects.
    #[error("{0}")]
    Schema(String),
}

impl StoreError {
    /// The storage fault behind this error, if it is one.
    pub fn storage_fault(&self) -> Option<StorageFault> {
        match self {
            StoreError::Sql(e) => faults::classify(e),
            StoreError::Fault(fault) => Some(*fault),
            StoreError::Connect(_) => Some(StorageFault::Unavailable),
            StoreError::Corrupt(_) | StoreError::Schema(_) => None,
        }
    }
}

/// Result type of the storage layer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which engine a pool talks to; only the connection set-up differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool plus what engine it is.
#[derive(Clone, Debug)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    /// Opened read-only (the file or its mount refuses writes): `begin` refuses at once.
    pub read_only: bool,
}

/// How the pool connects; `Default` is what the server runs with.
#[derive(Debug, Clone)]
pub struct DbSettings {
    /// How long to wait for a connection (a new one, or a free one from the pool) before
    /// answering "unavailable": a dead database fails fast instead of hanging requests.
    pub connect_timeout: Duration,
}

impl Default for DbSettings {
    fn default() -> Self {
        DbSettings {
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl Db {
    /// Connect with the default settings; see [`Db::open_with`].
    pub async fn open(url: &str) -> Result<(Db, bool)> {
        Db::open_with(url, &DbSettings::default()).await
    }

    /// Connect, create the SQLite file's folder if needed, and apply pending migrations.
    /// Returns whether the database was new (no migration had run before).
    ///
    /// An existing SQLite file that cannot be written (a read-only file or mount) is opened
    /// read-only: reads are served and writes answer `storage_read_only`. A PostgreSQL server
    /// that does not answer fails within `connect_timeout`, naming host, port and the OS error.
    pub async fn open_with(url: &str, settings: &DbSettings) -> Result<(Db, bool)> {
        install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        };
        let mut url = url.to_string();
        let mut read_only = false;
        match backend {
            Backend::Sqlite => {
                create_sqlite_parent_dir(&url);
                if let Some(reason) = sqlite_unwritable(&url) {
                    tracing::warn!("database is read-only ({reason}): serving reads only");
                    url = sqlite_read_only_url(&url);
                    read_only = true;
                }
            }
            Backend::Postgres => check_postgres_reachable(&url, settings.connect_timeout).await?,
        }
        let options = AnyPoolOptions::new()
            .max_connections(match backend {
                // One writer at a time is what SQLite does anyway; a few readers help.
                Backend::Sqlite => 4,
                Backend::Postgres => 16,
            })
            .acquire_timeout(settings.connect_timeout)
            .after_release(|conn, _meta| {
                Box::pin(async move {
                    // A BEGIN, COMMIT or ROLLBACK that failed (a full disk, an I/O error) can
                    // leave the driver believing a transaction is still open, and every later
                    // BEGIN on that connection then fails. Such a connection is closed, never
                    // reused. The ping orders the check after a rollback still queued.
                    if conn.is_in_transaction() {
                        conn.ping().await?;
                    }
                    Ok(!conn.is_in_transaction())
                })
            });
        let options = options.after_connect(move |conn, _meta| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    if !read_only {
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                    }
                }
                Ok(())
            })
        });
        let pool = options.connect(&url).await?;
        let db = Db {
            pool,
            backend,
            read_only,
        };
        if read_only {
            return Ok((db, false));
        }
        if backend == Backend::Sqlite {
            // WAL lets readers proceed while one request writes; it is stored in the file.
            db.pool.execute("PRAGMA journal_mode = WAL").await?;
        }
        let fresh = migrations::run(&db).await?;
        Ok((db, fresh))
    }

    /// Whether the database answers and has every migration this build knows.
    pub async fn check(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        if !migrations::current(self).await? {
            return Err(StoreError::Schema(
                "migrations pending: the database is older than this build".into(),
            ));
        }
        Ok(())
    }

    /// Start a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads and then writes fails with
    /// "database is locked", without waiting, when another connection wrote in between.
    pub async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>> {
        if self.read_only {
            return Err(StoreError::Fault(StorageFault::ReadOnly));
        }
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }
}

/// Why an existing SQLite database cannot be written, if it cannot: the file or its folder
/// (where SQLite keeps its journal) refuses writes. A new database is left to `connect`.
fn sqlite_unwritable(url: &str) -> Option<String> {
    let path = sqlite_path(url)?;
    if !path.exists() {
        return None;
    }
    if let Err(e) = std::fs::OpenOptions::new().append(true).open(&path) {
        return Some(format!("{}: {e}", path.display()));
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    let probe = folder
        .unwrap_or(std::path::Path::new("."))
        .join(format!(".write-check-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            None
        }
        Err(e) => Some(format!("{}: {e}", probe.parent()?.display())),
    }
}

/// The same database opened read-only. Without its `-wal` file SQLite cannot create the
/// shared-memory file on a read-only mount, so the file is opened as immutable then; with
/// one, the WAL is read as it is.
fn sqlite_read_only_url(url: &str) -> String {
    let base = url.split('?').next().unwrap_or(url);
    let wal_exists = sqlite_path(url).is_some_and(|p| {
        let mut wal = p.into_os_string();
        wal.push("-wal");
        std::path::Path::new(&wal).exists()
    });
    if wal_exists {
        format!("{base}?mode=ro")
    } else {
        format!("{base}?mode=ro&immutable=true")
    }
}

fn sqlite_path(url: &str) -> Option<std::path::PathBuf> {
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    (!path.is_empty() && path != ":memory:").then(|| std::path::PathBuf::from(path))
}

/// One connection attempt, bounded by `timeout`, so that a PostgreSQL server that is down
/// is reported at once with its address and the OS error (the pool would retry in silence).
async fn check_postgres_reachable(url: &str, timeout: Duration) -> Result<()> {
    let target = postgres_host_port(url);
    match tokio::time::timeout(timeout, sqlx::AnyConnection::connect(url)).await {
        Ok(Ok(conn)) => {
            let _ = conn.close().await;
            Ok(())
        }
        Ok(Err(e)) => Err(StoreError::Connect(format!(
            "cannot connect to PostgreSQL at {target}: {}",
            os_error_text(&e)
        ))),
        Err(_) => Err(StoreError::Connect(format!(
            "cannot connect to PostgreSQL at {target}: no answer within {} ms",
            timeout.as_millis()
        ))),
    }
}

fn os_error_text(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}

/// `host:port` of a `postgres://user:pass@host:port/db?...` URL, for messages.
fn postgres_host_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() {
        "localhost:5432".to_string()
    } else if host_port.contains(':') && !host_port.ends_with(']') {
        host_port.to_string()
    } else {
        format!("{host_port}:5432")
    }
}

fn create_sqlite_parent_dir(url: &str) {
    let Some(path) = sqlite_path(url) else {
        return;
    };
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        let _ = std::fs::create_dir_all(parent);
    }
}

/// Current time as the fixed-width UTC text stored in every timestamp column, so that text
/// order is time order on both engines.
pub fn now_text() -> String {
    timestamp_text(time::OffsetDateTime::now_utc())
}

/// Format a time the way timestamps are stored and returned.
pub fn timestamp_text(t: time::OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    t.to_offset(time::UtcOffset::UTC)
        .format(&format)
        .expect("a UTC timestamp always formats")
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> time::Date {
    time::OffsetDateTime::now_utc().date()
}

/// Parse a stored JSON text column.
pub fn json_column<T: serde::de::DeserializeOwned>(text: &str, column: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")))
}

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
#[derive(Debug, Clone)]
pub enum Bind {
    Text(String),
    Int(i64),
}

/// `WHERE` clauses built from list filters, numbering `$n` placeholders as they are added.
#[derive(Debug, Default)]
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

    /// Bind every value to a query, in order.
    pub fn bind_all<'q>(
        &'q self,
        mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    ) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
        for b in &self.binds {
            query = match b {
                Bind::Text(s) => query.bind(s.as_str()),
                Bind::Int(i) => query.bind(*i),
            };
        }
        query
    }

    /// Same as [`Conditions::bind_all`] for scalar queries (counts).
    pub fn bind_all_scalar<'q, O>(
        &'q self,
        mut query: sqlx::query::QueryScalar<'q, sqlx::Any, O, sqlx::any::AnyArguments>,
    ) -> sqlx::query::QueryScalar<'q, sqlx::Any, O, sqlx::any::AnyArguments> {
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
}

/// One page of rows and the total count.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: i64,
}

impl Conditions {
    /// One page of `SELECT {columns} {from} WHERE ... ORDER BY {order}`, read row by row with
    /// `read`, and how many rows match in all: every list of the API is this query.
    pub async fn fetch_page<T>(
        &self,
        db: &Db,
        columns: &str,
        from: &str,
        order: &str,
        page: PageRequest,
        read: impl Fn(&sqlx::any::AnyRow) -> Result<T>,
    ) -> Result<Page<T>> {
        let count = format!("SELECT COUNT(*) {from} {}", self.sql());
        let total: i64 = self
            .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(count)))
            .fetch_one(&db.pool)
            .await?;
        let sql = format!(
            "SELECT {columns} {from} {} ORDER BY {order} LIMIT {} OFFSET {}",
            self.sql(),
            page.per_page,
            page.offset()
        );
        let rows = self
            .bind_all(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(&db.pool)
            .await?;
        let items = rows.iter().map(read).collect::<Result<Vec<_>>>()?;
        Ok(Page { items, total })
    }

    /// The first `limit` values of `id_column` in `{from} WHERE ... ORDER BY {order}`, and how
    /// many match in all: what completions answer.
    pub async fn fetch_ids(
        &self,
        db: &Db,
        id_column: &str,
        from: &str,
        order: &str,
        limit: i64,
    ) -> Result<(Vec<String>, i64)> {
        let count = format!("SELECT COUNT(*) {from} {}", self.sql());
        let total: i64 = self
            .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(count)))
            .fetch_one(&db.pool)
            .await?;
        let sql = format!(
            "SELECT {id_column} {from} {} ORDER BY {order} LIMIT {limit}",
            self.sql()
        );
        let ids: Vec<String> = self
            .bind_all_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)))
            .fetch_all(&db.pool)
            .await?;
        Ok((ids, total))
    }
}
