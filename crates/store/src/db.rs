//! The pool and what engine it talks to: opening (SQLite file or PostgreSQL, migrations, a
//! read-only SQLite file served as such), the readiness check, planner statistics, `begin`,
//! `acquire` (the pool wait, timed) and the database span of a query.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool, Connection as _, Executor, SqlSafeStr};

use crate::pg_reads::{Lease, PgReads, STALE_AFTER};
use crate::rows::{CheckedColumns, PgSource, SqliteRow, Stored, by_id_sql, of_organization_sql};
use crate::sqlite_reads::{SqliteReads, from_rusqlite};
use crate::{Result, StorageFault, StoreError, migrations};

/// Which engine a pool talks to; only the connection set-up differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The engine behind a connection (inside a transaction, where no `Db` is at hand).
    pub fn of(conn: &sqlx::AnyConnection) -> Backend {
        if conn.backend_name() == "SQLite" {
            Backend::Sqlite
        } else {
            Backend::Postgres
        }
    }

    /// A subquery giving, one row each, the strings of the JSON array bound as parameter
    /// `$n`: a batch's keys go as one value. SQLite's driver looks each `$n` up by name among
    /// all of a statement's parameters (a parameter per key cost a quarter of a burst's CPU),
    /// and one text keeps one prepared statement whatever the batch's size.
    pub fn json_strings(self, n: usize) -> String {
        match self {
            Backend::Sqlite => format!("SELECT value FROM json_each(${n})"),
            Backend::Postgres => format!("SELECT json_array_elements_text(${n}::json)"),
        }
    }

    /// A `FROM` source giving one row per element of the JSON array bound as `$n`, and the
    /// name of the element in it (`elem ->> 0` is its first member as text, on both engines):
    /// a batch of rows goes as one value, for [`Backend::json_strings`]' reasons.
    pub fn json_rows(self, n: usize) -> (String, &'static str) {
        match self {
            Backend::Sqlite => (format!("json_each(${n})"), "value"),
            Backend::Postgres => (format!("json_array_elements(${n}::json) AS elem"), "elem"),
        }
    }
}

/// A connection pool plus what engine it is.
#[derive(Clone, Debug)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    /// Opened read-only (the file or its mount refuses writes): `begin` refuses at once.
    pub read_only: bool,
    /// Seconds each [`Db::acquire`] waited for a connection (sqlx does not measure it);
    /// `metrics` registers it, and clones of the `Db` share it.
    pub acquire_wait: prometheus::Histogram,
    /// The reads outside a transaction, on the engine's own typed connections (all but an
    /// SQLite database in memory, which is one per connection: its reads stay on the pool).
    pub(crate) reads: Option<Reads>,
}

/// Where the reads outside a transaction run (`Db::by_id`, `ListQuery::fetch_rows`).
#[derive(Clone, Debug)]
pub(crate) enum Reads {
    /// SQLite on a file: on the calling thread, through `rusqlite`.
    Sqlite(Arc<SqliteReads>),
    /// PostgreSQL: on `PgConnection`s, without the `Any` layer or the pool's release ping.
    Postgres(Arc<PgReads>),
}

/// Bounds of [`Db::acquire_wait`] in seconds: from a free connection at once to the whole
/// connect timeout.
const ACQUIRE_WAIT_BUCKETS: &[f64] = &[
    0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0,
];

impl Backend {
    /// The engine's `db.system.name` (OpenTelemetry database semantic conventions).
    pub fn system_name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgresql",
        }
    }
}

/// How the pool connects; `Default` is what the server runs with.
#[derive(Debug, Clone)]
pub struct DbSettings {
    /// How long to wait for a connection (a new one, or a free one from the pool) before
    /// answering "unavailable": a dead database fails fast instead of hanging requests.
    pub connect_timeout: Duration,
    /// Connections in the pool; `None` sizes it for the engine and the machine (see
    /// [`DbSettings::pool_size`]).
    pub pool_size: Option<u32>,
    /// SQLite: how long a statement waits for another connection's lock before failing with
    /// "database is locked". Writers queue on SQLite's one write lock; this is their queue.
    pub busy_timeout: Duration,
}

impl Default for DbSettings {
    fn default() -> Self {
        DbSettings {
            connect_timeout: Duration::from_secs(5),
            pool_size: None,
            busy_timeout: Duration::from_secs(10),
        }
    }
}

impl DbSettings {
    /// The pool size for `backend`: the configured one, or else, for SQLite (in WAL mode
    /// readers never wait for each other and one writer at a time is SQLite's own rule),
    /// two connections per core and at least 4, so that reads are not queued behind the
    /// pool at a few dozen clients; for PostgreSQL, 16 (the server's own
    /// `max_connections`, shared by every replica, is the real limit).
    pub fn pool_size(&self, backend: Backend) -> u32 {
        self.pool_size.unwrap_or_else(|| match backend {
            Backend::Sqlite => {
                let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
                u32::try_from(cores * 2).unwrap_or(u32::MAX).max(4)
            }
            Backend::Postgres => 16,
        })
    }

    /// The pool's connections and the reads' (`pg_reads`) out of [`DbSettings::pool_size`]:
    /// on PostgreSQL half each (at least one each), so that a process holds no more than the
    /// configured number (two when it is one), which the server's `max_connections` is
    /// planned by. On SQLite the pool has them all; its reads (`sqlite_reads`) open as many
    /// connections as threads read at once, and are not counted here.
    fn split(&self, backend: Backend) -> (u32, u32) {
        let size = self.pool_size(backend);
        match backend {
            Backend::Sqlite => (size, 0),
            Backend::Postgres => ((size - size / 2).max(1), (size / 2).max(1)),
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
        let (pool_size, read_size) = settings.split(backend);
        let options = AnyPoolOptions::new()
            .max_connections(pool_size)
            .acquire_timeout(settings.connect_timeout)
            // A pooled PostgreSQL connection can die with its server (a restart, a failover):
            // one that sat idle is pinged before use. One that was just released was pinged
            // then (sqlx pings every connection it takes back), so under load a read costs
            // the query's round trip and that one, not a third. A SQLite connection is a
            // thread over a local file that does not go away: never pinged on acquire (the
            // round trip to that thread was 5 % of the server's samples in a profile).
            .test_before_acquire(false)
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    if backend == Backend::Postgres && meta.idle_for >= STALE_AFTER {
                        conn.ping().await?;
                    }
                    Ok(true)
                })
            })
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
        let busy_timeout = format!(
            "PRAGMA busy_timeout = {}",
            settings.busy_timeout.as_millis().min(i32::MAX as u128)
        );
        let options = options.after_connect(move |conn, _meta| {
            let busy_timeout = busy_timeout.clone();
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    conn.execute(sqlx::AssertSqlSafe(busy_timeout)).await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    if !read_only {
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                    }
                }
                Ok(())
            })
        });
        let pool = options.connect(&url).await?;
        let acquire_wait = prometheus::Histogram::with_opts(
            prometheus::HistogramOpts::new(
                "dunning_db_pool_acquire_wait_seconds",
                "Time spent waiting for a database pool connection before a transaction or a list query.",
            )
            .buckets(ACQUIRE_WAIT_BUCKETS.to_vec()),
        )
        .expect("valid histogram");
        let reads = match backend {
            // A memory database is one per connection: its reads stay on sqlx's.
            Backend::Sqlite if url.contains("mode=memory") => None,
            Backend::Sqlite => sqlite_path(&url).map(|path| {
                let uri = read_only.then(|| sqlite_uri(&url));
                Reads::Sqlite(Arc::new(SqliteReads::new(
                    &path.to_string_lossy(),
                    uri,
                    settings.busy_timeout,
                )))
            }),
            Backend::Postgres => Some(Reads::Postgres(Arc::new(PgReads::new(
                &url,
                read_size,
                settings.connect_timeout,
            )?))),
        };
        let db = Db {
            pool,
            backend,
            read_only,
            acquire_wait,
            reads,
        };
        if read_only {
            return Ok((db, false));
        }
        if backend == Backend::Sqlite {
            // WAL lets readers proceed while one request writes; it is stored in the file.
            db.pool.execute("PRAGMA journal_mode = WAL").await?;
        }
        let fresh = migrations::run(&db).await?;
        // Statistics only speed reads up: a disk too full to store them must not stop a
        // server that can still serve.
        if let Err(e) = db.refresh_statistics(Statistics::AtStart).await {
            tracing::warn!("cannot refresh the planner statistics: {e}");
        }
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

    /// Keep the planner's statistics current, so that a list picks the index of its filter
    /// rather than the first one that matches `organization_id` (without them SQLite cannot
    /// tell a customer's 20 charges from the organization's 20 000).
    ///
    /// SQLite: `PRAGMA optimize`, which analyses only the tables whose size changed a lot
    /// since their last analysis, each on a bounded sample (`analysis_limit`): cheap enough
    /// for every minute. At start it also looks at tables never analysed (`0x10002`).
    /// PostgreSQL: `ANALYZE` at start; afterwards its autovacuum daemon keeps them current.
    pub async fn refresh_statistics(&self, when: Statistics) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        match (self.backend, when) {
            (Backend::Sqlite, _) => {
                let mut conn = self.pool.acquire().await?;
                // A sample of 1 000 rows per index is enough to tell a selective filter from
                // the whole organization, and keeps a periodic run short at any size.
                let limit = if when == Statistics::Full { 0 } else { 1000 };
                conn.execute(sqlx::AssertSqlSafe(format!(
                    "PRAGMA analysis_limit = {limit}"
                )))
                .await?;
                let pragma = match when {
                    Statistics::AtStart => "PRAGMA optimize = 0x10002",
                    Statistics::Periodic => "PRAGMA optimize",
                    Statistics::Full => "ANALYZE",
                };
                conn.execute(pragma).await?;
            }
            (Backend::Postgres, Statistics::AtStart | Statistics::Full) => {
                // Our tables by name: a bare ANALYZE also visits the system catalogs, and warns
                // about each one a non-superuser may not analyse.
                self.pool.execute(LISTED_TABLES).await?;
            }
            (Backend::Postgres, Statistics::Periodic) => {}
        }
        Ok(())
    }

    /// Start a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads and then writes fails with
    /// "database is locked", without waiting, when another connection wrote in between.
    ///
    /// Traced as a `BEGIN` span (the wait for a connection included) when a request is.
    pub async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>> {
        use tracing::Instrument;
        if self.read_only {
            return Err(StoreError::Fault(StorageFault::ReadOnly));
        }
        let begin = async {
            let connection = self.acquire().await?;
            // What `Pool::begin_with` does, with the acquire timed apart from the BEGIN (which
            // on SQLite may wait for the write lock: that is not the pool's wait).
            let statement = match self.backend {
                Backend::Sqlite => Some("BEGIN IMMEDIATE".into_sql_str()),
                Backend::Postgres => None,
            };
            Ok::<_, StoreError>(sqlx::Transaction::begin(connection, statement).await?)
        };
        begin.instrument(self.span("BEGIN", None)).await
    }

    /// The row of `T`'s table with this id in the organization, outside a transaction: on
    /// SQLite read on this thread (`sqlite_reads`), on PostgreSQL on a typed connection
    /// (`pg_reads`).
    pub async fn by_id<T: Stored>(&self, organization_id: &str, id: &str) -> Result<Option<T>> {
        self.one_row(by_id_sql::<T>(), &[organization_id, id]).await
    }

    /// The one row of `T`'s table that belongs to the organization, for a table keyed by it
    /// (its Pix setup, its PSP connection), read as [`Db::by_id`] reads.
    pub async fn of_organization<T: Stored>(&self, organization_id: &str) -> Result<Option<T>> {
        self.one_row(of_organization_sql::<T>(), &[organization_id])
            .await
    }

    /// The first row that `sql`, one of `T`'s kept statements, selects with `params` bound in
    /// order, outside a transaction.
    async fn one_row<T: Stored>(&self, sql: &'static str, params: &[&str]) -> Result<Option<T>> {
        use tracing::Instrument;
        match &self.reads {
            None => {
                let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
                for param in params {
                    query = query.bind(*param);
                }
                Ok(query.fetch_optional(&self.pool).await?)
            }
            Some(Reads::Sqlite(reads)) => {
                let _span = self.span("SELECT", Some(T::TABLE)).entered();
                reads.run(|reader| {
                    let (mut statement, names) = reader.prepare(sql)?;
                    let mut rows = statement
                        .query(rusqlite::params_from_iter(params))
                        .map_err(from_rusqlite)?;
                    match rows.next().map_err(from_rusqlite)? {
                        Some(row) => Ok(Some(T::from_source(&SqliteRow::new(row, &names))?)),
                        None => Ok(None),
                    }
                })
            }
            Some(Reads::Postgres(reads)) => {
                let read = async {
                    let mut lease = self.lease(reads).await?;
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for param in params {
                        query = query.bind(*param);
                    }
                    let found = query
                        .fetch_optional(lease.connection())
                        .await
                        .and_then(|row| {
                            let checked = CheckedColumns::default();
                            let found = row.as_ref().map(|row| PgSource::new(row, &checked));
                            found.as_ref().map(T::from_source).transpose()
                        });
                    lease.end(found.map_err(StoreError::from))
                };
                read.instrument(self.span("SELECT", Some(T::TABLE))).await
            }
        }
    }

    /// A typed PostgreSQL connection for one read, the time waited for it observed in
    /// [`Db::acquire_wait`] as the pool's is.
    pub(crate) async fn lease<'a>(&self, reads: &'a PgReads) -> Result<Lease<'a>> {
        let started = Instant::now();
        let lease = reads.lease().await;
        self.acquire_wait.observe(started.elapsed().as_secs_f64());
        lease
    }

    /// A connection from the pool, the time waited for it observed in [`Db::acquire_wait`].
    pub async fn acquire(&self) -> Result<PoolConnection<Any>> {
        let started = Instant::now();
        let connection = self.pool.acquire().await;
        self.acquire_wait.observe(started.elapsed().as_secs_f64());
        Ok(connection?)
    }

    /// The span of one database call (OpenTelemetry database semantic conventions): the
    /// engine, an operation and a table the code names — never SQL parameters or tenant data.
    /// Only inside a span already (a request being traced): background work polling the
    /// database does not start traces of its own.
    pub fn span(&self, operation: &'static str, table: Option<&str>) -> tracing::Span {
        if tracing::Span::current().is_none() {
            return tracing::Span::none();
        }
        tracing::info_span!(
            "database",
            otel.name = match table {
                Some(table) => format!("{operation} {table}"),
                None => operation.to_string(),
            },
            otel.kind = "client",
            db.system.name = self.backend.system_name(),
            db.operation.name = operation,
            db.collection.name = table,
        )
    }
}

/// The table a `FROM table ...` clause written in the code reads first.
pub(crate) fn table_of(from: &str) -> Option<&str> {
    from.split_whitespace()
        .skip_while(|word| !word.eq_ignore_ascii_case("FROM"))
        .nth(1)
}

/// The tables the API lists, whose statistics decide which index a list uses.
const LISTED_TABLES: &str = "ANALYZE customers, charges, deliveries, agreements, disputes, \
     collection_plans, collection_plan_steps, webhooks, webhook_deliveries, events, pix_received";

/// When [`Db::refresh_statistics`] runs, which decides how much it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistics {
    /// After migrations, when the server starts.
    AtStart,
    /// From housekeeping, every minute.
    Periodic,
    /// Every table, now (after loading data in bulk, and in tests).
    Full,
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

/// The `file:` URI `rusqlite` opens for the sqlx URL `url` (its query kept: `mode=ro`,
/// `immutable=true`), with the characters a URI path cannot hold escaped.
fn sqlite_uri(url: &str) -> String {
    let path = sqlite_path(url).unwrap_or_default();
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    if let Some((_, query)) = url.split_once('?') {
        uri.push('?');
        uri.push_str(&query.replace("immutable=true", "immutable=1"));
    }
    uri
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
