//! PostgreSQL reads outside a transaction, on typed connections this module keeps.
//!
//! The reads the API serves most — an object by id (`Db::by_id`), an organization's one row
//! of a table keyed by it (`Db::of_organization`) and a list page with its count
//! (`ListQuery::fetch_rows`) — went through the `sqlx::Any` pool, which cost twice:
//! every value of every row was copied into the `Any` layer's own types before the typed row
//! read it, and every connection was pinged as it went back to the pool (sqlx 0.9 does that
//! on each release, with no setting to turn it off), so a detail read took two round trips to
//! the server instead of one. Here they run on `PgConnection`s: the typed row reads straight
//! from PostgreSQL's answer (`rows::PgSource`), and a connection goes back to the
//! idle list without a word to the server. Writes, and reads inside a transaction, stay on
//! the pool.
//!
//! The pool's rules, kept: a connection idle for `STALE_AFTER` is pinged before use (a server
//! that restarted closed it), one idle for ten minutes is closed, one thirty minutes old is
//! replaced; at most `limit` are in use at once, and a read that finds them
//! all busy waits up to the connect timeout, then fails as the pool does (`PoolTimedOut`:
//! 503 `storage_unavailable`). A connection is put back only after a read that succeeded:
//! one whose read failed is closed, and after a storage fault (the server gone) the idle ones
//! are closed too, since they were connected to the same server. A read dropped midway (its
//! client went away) drops its connection with it, so none is ever put back in the middle of
//! an exchange.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions as _, Connection as _};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::{Result, StoreError};

/// How long a PostgreSQL connection may sit idle before it is pinged on its next use (the
/// pool's connections too, `Db::open_with`).
pub(crate) const STALE_AFTER: Duration = Duration::from_secs(1);

/// sqlx's pool defaults, kept for these connections: one idle this long is closed (the oldest
/// idle one is looked at each time one is put back), and one this old is replaced when next
/// taken (a server's memory for a connection grows with its life).
const IDLE_TIMEOUT: Duration = Duration::from_secs(10 * 60);
const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// Typed connections for the reads outside a transaction, opened on first use.
pub struct PgReads {
    options: PgConnectOptions,
    /// How long a read waits for a connection (a free one, or a new one) before failing.
    connect_timeout: Duration,
    /// One permit per connection that may be in use at once.
    permits: Semaphore,
    idle: Mutex<Vec<IdleConnection>>,
}

struct IdleConnection {
    connection: PgConnection,
    opened: Instant,
    since: Instant,
}

/// A connection taken for one read; see [`Lease::end`].
pub struct Lease<'a> {
    reads: &'a PgReads,
    connection: PgConnection,
    opened: Instant,
    _permit: SemaphorePermit<'a>,
}

impl std::fmt::Debug for PgReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgReads")
            .field("available", &self.permits.available_permits())
            .finish_non_exhaustive()
    }
}

impl PgReads {
    /// Reads of the database at `url` (a `postgres://` URL, as the pool was given), at most
    /// `limit` at once.
    pub fn new(url: &str, limit: u32, connect_timeout: Duration) -> Result<PgReads> {
        let options: PgConnectOptions = url.parse()?;
        Ok(PgReads {
            options,
            connect_timeout,
            permits: Semaphore::new(usize::try_from(limit).unwrap_or(1).max(1)),
            idle: Mutex::new(Vec::new()),
        })
    }

    /// A connection for one read: an idle one (pinged first when it sat idle for
    /// `STALE_AFTER`), else a new one; within the connect timeout, else `PoolTimedOut`.
    pub async fn lease(&self) -> Result<Lease<'_>> {
        let taken = async {
            let permit = self
                .permits
                .acquire()
                .await
                .map_err(|_| sqlx::Error::PoolClosed)?;
            let (connection, opened) = self.connection().await?;
            Ok::<_, sqlx::Error>(Lease {
                reads: self,
                connection,
                opened,
                _permit: permit,
            })
        };
        match tokio::time::timeout(self.connect_timeout, taken).await {
            Ok(lease) => Ok(lease?),
            Err(_) => Err(StoreError::Sql(sqlx::Error::PoolTimedOut)),
        }
    }

    /// An idle connection that is still good, else a new one, with when it was opened.
    async fn connection(&self) -> sqlx::Result<(PgConnection, Instant)> {
        loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some(IdleConnection {
                mut connection,
                opened,
                since,
            }) = idle
            else {
                return Ok((self.options.connect().await?, Instant::now()));
            };
            if opened.elapsed() >= MAX_LIFETIME {
                let _ = connection.close().await;
                continue;
            }
            if since.elapsed() < STALE_AFTER || connection.ping().await.is_ok() {
                return Ok((connection, opened));
            }
            // The server closed it while it sat idle: it is dropped, the next one tried.
        }
    }

    fn close_idle(&self) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl Lease<'_> {
    /// The connection, for the read's statements.
    pub fn connection(&mut self) -> &mut PgConnection {
        &mut self.connection
    }

    /// The read is over with `result`: the connection goes back to the idle list after a
    /// success; after a failure it is closed, and after a storage fault the idle ones too.
    pub fn end<T>(self, result: Result<T>) -> Result<T> {
        match &result {
            Ok(_) => {
                let now = Instant::now();
                let mut idle = self.reads.idle.lock().unwrap_or_else(|e| e.into_inner());
                // The list is used from its end: the oldest idle one is first.
                if idle
                    .first()
                    .is_some_and(|oldest| now - oldest.since >= IDLE_TIMEOUT)
                {
                    idle.remove(0);
                }
                idle.push(IdleConnection {
                    connection: self.connection,
                    opened: self.opened,
                    since: now,
                });
            }
            Err(e) if e.storage_fault().is_some() => self.reads.close_idle(),
            Err(_) => {}
        }
        result
    }
}
