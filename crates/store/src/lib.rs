//! Database access for SQLite (embedded default) and PostgreSQL through one code path.
//!
//! Every query is written once, in the SQL both engines accept, with `$n` placeholders (the
//! SQLite driver reads them as positional too). Values are kept to the types both share:
//! `TEXT` (ids, timestamps, JSON), `BIGINT` (money in centavos, versions, flags).
//! Every query that touches tenant data filters on `organization_id`.
//!
//! # Which read path a new read takes
//!
//! | the read | path | how |
//! |---|---|---|
//! | inside a transaction (a write's own reads, a lock, a recheck) | `sqlx::Any` on the transaction | a function taking `&mut Connection`, called with `&mut *tx` |
//! | an object by id, outside a transaction (a `/v1` detail read) | the engine's typed driver | `Db::by_id`: SQLite on the calling thread through `rusqlite` (`sqlite_reads`), PostgreSQL on `PgConnection`s kept apart from the pool (`pg_reads`) |
//! | a list page outside a transaction (a `/v1` list, an export's page) | the typed driver, as above | `ListQuery::fetch_rows` / `fetch_after` |
//! | anything else outside a transaction (the workers' batches, counts, reports) | `sqlx::Any` on the pool | a function taking `&Db`, querying `&db.pool` |
//!
//! The typed paths exist for speed (a `/v1` read is most of the traffic); they take the same
//! SQL and give the same typed rows (`rows::Source`), so a read moves between paths without
//! changing its text. When unsure, write it on `sqlx::Any`.

pub mod agreements;
pub mod automatic_pix;
pub mod calendars;
pub mod charges;
pub mod collection;
pub mod customers;
mod db;
pub mod deliveries;
pub mod disputes;
pub mod erasure;
mod error;
pub mod events;
pub mod exports;
pub mod faults;
pub mod idempotency;
pub mod ids;
pub mod locks;
mod migrations;
pub mod oauth;
pub mod orgs;
mod pg_reads;
pub mod pix;
pub mod pix_psp;
pub mod pix_refunds;
pub mod plan_schedule;
pub mod plans;
mod query;
pub mod queues;
pub mod rate_windows;
pub mod retry;
pub mod rows;
pub mod search;
pub mod secrets;
pub mod sign_in;
mod sqlite_reads;
mod text;
pub mod webhooks;

pub use db::{Backend, Db, DbSettings, Statistics};
pub use error::{Result, StoreError};
pub use faults::StorageFault;
pub use query::{
    After, Bind, COUNT_CAP, Conditions, ListQuery, Page, PageRequest, Sort, like_escape,
};
pub use text::{json_column, now_text, timestamp_text, today};

/// A connection (or the inside of a transaction, through `&mut *tx`) that the layers above
/// hand to the store's functions; they need no database driver of their own.
pub type Connection = sqlx::AnyConnection;
/// A transaction begun by [`Db::begin`].
pub type Transaction = sqlx::Transaction<'static, sqlx::Any>;
