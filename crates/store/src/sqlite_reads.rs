//! SQLite reads outside a transaction, run on the calling thread through `rusqlite`.
//!
//! sqlx's SQLite driver runs every connection on a worker thread of its own: each statement is
//! a message to that thread and back, and each row of a result another message (4–5 futex
//! calls and context switches for a detail read, ~78 for a 25-row list; a quarter of a
//! list's CPU in `perf` profiles of the server under load, bench/RESULTS.md). The reads the
//! API serves most — an object by id (`rows::by_id` through [`crate::Db::by_id`]), an
//! organization's one row of a table keyed by it ([`crate::Db::of_organization`]: its Pix setup
//! and PSP connection, which `GET /v1/me` reads on every call) and a list page with its count
//! (`ListQuery::fetch_rows`) — run here instead: a connection taken from
//! [`SqliteReads`], the statements run and the rows read straight into the typed rows, and
//! the connection put back, all without leaving the thread.
//!
//! Such a read holds a connection only while it runs and never across an `.await`, so no
//! task waits for one: at most as many are open as threads are reading at once, and an idle
//! one is reused. A read takes microseconds on a local file in WAL mode, where readers never
//! wait for the writer, so it runs on the async worker like any other short computation
//! (`spawn_blocking` would bring a hand-off back). Writes, and reads inside a transaction,
//! stay on sqlx: one write lock, the busy timeout, the fault handling of `Db::begin`.
//!
//! Faults read as sqlx's do (`faults::classify_sqlite`): an I/O error is 503
//! `storage_unavailable`, and the connection that met it is closed, not put back.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{CachedStatement, Connection, OpenFlags};

use crate::faults;
use crate::{Result, StoreError};

/// Connections for reads outside a transaction, opened on first use.
pub struct SqliteReads {
    /// What `Connection::open_with_flags` opens.
    target: String,
    flags: OpenFlags,
    busy_timeout: Duration,
    idle: Mutex<Vec<Reader>>,
}

/// Most statements whose column names a [`Reader`] keeps (as many as list shapes and filters
/// give; beyond it they are forgotten and asked again).
const MOST_NAMED_STATEMENTS: usize = 256;

/// A connection, and the column names of each statement it has prepared: asked of SQLite once
/// per statement, not on every read (copying them was 5 % of a detail read's instructions).
pub struct Reader {
    conn: Connection,
    /// Keyed by our own SQL text, never a client's, so the hash need not resist flooding:
    /// std's SipHash of a detail read's ~300-byte `SELECT` was 1k instructions a read.
    names: RefCell<HashMap<String, Arc<[String]>, foldhash::fast::RandomState>>,
}

impl Reader {
    /// The connection, for statements whose columns are not read by name.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// `sql` prepared (from the connection's statement cache), with its column names for
    /// [`crate::rows::SqliteRow`].
    pub fn prepare(&self, sql: &str) -> Result<(CachedStatement<'_>, Arc<[String]>)> {
        let statement = self.conn.prepare_cached(sql).map_err(from_rusqlite)?;
        if let Some(names) = self.names.borrow().get(sql) {
            return Ok((statement, names.clone()));
        }
        let names: Arc<[String]> = column_names(&statement).into();
        let mut kept = self.names.borrow_mut();
        if kept.len() >= MOST_NAMED_STATEMENTS {
            kept.clear();
        }
        kept.insert(sql.to_string(), names.clone());
        Ok((statement, names))
    }
}

impl std::fmt::Debug for SqliteReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteReads")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl SqliteReads {
    /// Reads of the database file at `path`. `read_only_uri` is the URI the whole database
    /// was opened with when its file or mount refuses writes (`mode=ro`, perhaps
    /// `immutable=1`); otherwise the file is opened for reading and writing, as the writer's
    /// connections open it (a read-only connection cannot always open the `-shm` file), and
    /// `query_only` forbids it to write.
    pub fn new(path: &str, read_only_uri: Option<String>, busy_timeout: Duration) -> SqliteReads {
        let base = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let (target, flags) = match read_only_uri {
            Some(uri) => (
                uri,
                base | OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
            ),
            None => (path.to_string(), base | OpenFlags::SQLITE_OPEN_READ_WRITE),
        };
        SqliteReads {
            target,
            flags,
            busy_timeout,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn open(&self) -> rusqlite::Result<Reader> {
        let conn = Connection::open_with_flags(&self.target, self.flags)?;
        conn.busy_timeout(self.busy_timeout)?;
        conn.pragma_update(None, "query_only", true)?;
        // Statements of every list shape and filter are prepared once per connection.
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Reader {
            conn,
            names: RefCell::default(),
        })
    }

    /// Run `read` on a connection of this pool, on this thread.
    pub fn run<T>(&self, read: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match taken {
            Some(conn) => conn,
            None => self.open().map_err(from_rusqlite)?,
        };
        let result = read(&conn);
        // A connection that met a storage fault is closed; the next read opens a new one.
        let faulted = matches!(&result, Err(e) if e.storage_fault().is_some());
        if !faulted {
            self.idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(conn);
        }
        result
    }
}

/// The names of `statement`'s columns, for [`crate::rows::SqliteRow`].
fn column_names(statement: &rusqlite::Statement<'_>) -> Vec<String> {
    statement
        .column_names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A `rusqlite` error as the store's: a storage fault where sqlx would see one.
pub fn from_rusqlite(error: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(failure, _) = &error
        && let Some(fault) = faults::classify_sqlite(failure.extended_code)
    {
        return StoreError::Fault(fault);
    }
    StoreError::Sql(sqlx::Error::Protocol(format!("sqlite: {error}")))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use dunning_domain::pix::PixSettings;

    use crate::rows::Stored;
    use crate::{Conditions, Db, DbSettings, ListQuery, PageRequest};

    crate::row! {
        #[derive(Debug, PartialEq)]
        struct Note {
            id: String,
            body: Option<String>,
            n: i64,
        }
    }

    impl Stored for Note {
        const TABLE: &'static str = "notes";
        const COLUMNS: &'static str = "id, body, n";
    }

    /// A database with one pooled connection, and a table of notes in two organizations.
    async fn one_connection_db(dir: &tempfile::TempDir) -> Db {
        let url = format!("sqlite://{}/reads.db?mode=rwc", dir.path().display());
        let settings = DbSettings {
            pool_size: Some(1),
            connect_timeout: Duration::from_millis(500),
            ..DbSettings::default()
        };
        let (db, _) = Db::open_with(&url, &settings).await.expect("opens");
        for sql in [
            "CREATE TABLE notes (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, body TEXT, n BIGINT NOT NULL)",
            "INSERT INTO notes VALUES ('a', 'org_1', 'first', 1), ('b', 'org_1', NULL, 2), ('c', 'org_2', 'other', 3)",
        ] {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&db.pool)
                .await
                .expect("set up");
        }
        db
    }

    #[tokio::test]
    async fn reads_outside_a_transaction_take_no_pool_connection_and_see_what_was_committed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = one_connection_db(&dir).await;
        // The pool's only connection is held by a writing transaction: a read through the pool
        // would wait for it and time out; a read on this thread goes on.
        let mut tx = db.begin().await.expect("begins");
        sqlx::query("UPDATE notes SET body = 'uncommitted' WHERE id = 'a'")
            .execute(&mut *tx)
            .await
            .expect("writes");
        let note: Option<Note> = db.by_id("org_1", "a").await.expect("reads");
        assert_eq!(
            note.expect("found").body.as_deref(),
            Some("first"),
            "WAL: the committed row"
        );
        assert_eq!(db.by_id::<Note>("org_2", "a").await.expect("reads"), None);
        let page = ListQuery::new(
            Conditions::for_organization("org_1"),
            "id, body, n",
            "FROM notes",
            "n DESC",
        )
        .fetch_rows::<Note>(
            &db,
            PageRequest {
                page: 1,
                per_page: 1,
            },
        )
        .await
        .expect("lists");
        assert_eq!((page.total, page.total_exact), (2, true));
        assert_eq!(
            page.items,
            [Note {
                id: "b".into(),
                body: None,
                n: 2
            }]
        );
        tx.commit().await.expect("commits");
        let note: Option<Note> = db.by_id("org_1", "a").await.expect("reads");
        assert_eq!(note.expect("found").body.as_deref(), Some("uncommitted"));
    }

    #[tokio::test]
    async fn a_stored_value_the_field_cannot_hold_names_its_column_on_this_path_too() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = one_connection_db(&dir).await;
        sqlx::query("UPDATE notes SET n = 'not a number' WHERE id = 'a'")
            .execute(&db.pool)
            .await
            .expect("writes");
        let error = db.by_id::<Note>("org_1", "a").await.expect_err("corrupt");
        assert!(
            matches!(&error, crate::StoreError::Sql(sqlx::Error::ColumnDecode { index, .. }) if index == "n"),
            "{error}"
        );
        // The connection was not at fault: the next read is served.
        assert!(
            db.by_id::<Note>("org_1", "b")
                .await
                .expect("reads")
                .is_some()
        );
    }

    #[tokio::test]
    async fn an_organizations_pix_setup_and_psp_connection_are_read_without_a_pool_connection() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = one_connection_db(&dir).await;
        let now = "2026-01-01T00:00:00.000Z";
        let mut tx = db.begin().await.expect("begins");
        sqlx::query(
            "INSERT INTO organizations (id, name, legal_document, created_at)
             VALUES ('org_1', 'Loja', '11222333000181', '2026-01-01T00:00:00.000Z')",
        )
        .execute(&mut *tx)
        .await
        .expect("an organization");
        let settings = PixSettings::new("pix@loja.com.br", "LOJA", "SAO PAULO").expect("valid");
        crate::pix::put(&mut tx, "org_1", &settings, now)
            .await
            .expect("a Pix setup");
        let connection = crate::pix_psp::NewConnection {
            id: "psp_1",
            api_url: "https://psp.example/api/v2",
            token_url: "https://psp.example/oauth/token",
            client_id: "client",
            client_secret_sealed: "sealed",
            certificate_sealed: "sealed",
            private_key_sealed: "sealed",
            webhook_secret_sealed: "sealed",
            sealed_with: "key",
            webhook_secret_hash: "hash",
        };
        crate::pix_psp::upsert(&mut tx, "org_1", &connection, now)
            .await
            .expect("a PSP connection");
        tx.commit().await.expect("commits");
        // `GET /v1/me` asks for both on every call. The pool's only connection is held by a
        // transaction: a read through the pool would wait for it and fail; these go on.
        let _held = db.begin().await.expect("begins");
        let found = crate::pix::get(&db, "org_1").await.expect("reads");
        assert_eq!(found.expect("set up").settings, settings);
        assert_eq!(crate::pix::get(&db, "org_2").await.expect("reads"), None);
        let found = crate::pix_psp::get(&db, "org_1").await.expect("reads");
        assert_eq!(found.expect("connected").client_id, "client");
        assert!(
            crate::pix_psp::get(&db, "org_2")
                .await
                .expect("reads")
                .is_none()
        );
    }

    /// `.cargo/config.toml` compiles the bundled SQLite without the process-wide page cache
    /// and memory statistics, whose two mutexes every reading thread met (a build that lost
    /// the setting would pass every other test, only slower).
    #[test]
    fn sqlite_is_built_with_a_page_cache_per_connection_and_no_memory_statistics() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        let mut statement = conn.prepare("PRAGMA compile_options").expect("prepares");
        let options: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .expect("runs")
            .collect::<rusqlite::Result<_>>()
            .expect("reads");
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
    }
}
