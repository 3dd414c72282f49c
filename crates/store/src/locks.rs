//! Row locks taken at the start of a write transaction, so that a handler reads the row it
//! is about to change after every earlier writer of that row committed, and decides on what
//! is really stored.
//!
//! On PostgreSQL this is `SELECT ... FOR UPDATE`: the second writer of a row waits for the
//! first to commit, and its next statement sees the committed row (READ COMMITTED takes a
//! new snapshot per statement). On SQLite nothing is needed: `Db::begin` starts every write
//! transaction with `BEGIN IMMEDIATE`, which already holds the database's one write lock.
//!
//! Several rows of one table are locked in id order, and a handler locks parents before
//! children (an agreement or a dispute before its charges), so two transactions never wait
//! on each other in a cycle.

use sqlx::{AnyConnection, AssertSqlSafe};

use super::Result;

/// Tables whose rows handlers lock; each has `id` and `organization_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Agreements,
    Charges,
    Customers,
    Disputes,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Agreements => "agreements",
            Table::Charges => "charges",
            Table::Customers => "customers",
            Table::Disputes => "disputes",
        }
    }
}

/// Whether this connection needs explicit row locks (PostgreSQL) or already writes alone
/// (SQLite under `BEGIN IMMEDIATE`).
fn needs_row_locks(conn: &AnyConnection) -> bool {
    conn.backend_name() != "SQLite"
}

/// Lock one row of `table` until the transaction ends. A row that does not exist (or is
/// another organization's) locks nothing; the caller's read then finds nothing either.
pub async fn lock(
    conn: &mut AnyConnection,
    table: Table,
    organization_id: &str,
    id: &str,
) -> Result<()> {
    lock_all(conn, table, organization_id, &[id]).await
}

/// Lock rows of `table`, in id order whatever order they are given in.
pub async fn lock_all(
    conn: &mut AnyConnection,
    table: Table,
    organization_id: &str,
    ids: &[&str],
) -> Result<()> {
    if !needs_row_locks(conn) {
        return Ok(());
    }
    let mut ordered = ids.to_vec();
    ordered.sort_unstable();
    ordered.dedup();
    let sql = format!(
        "SELECT id FROM {} WHERE organization_id = $1 AND id = $2 FOR UPDATE",
        table.name()
    );
    // One statement per row: the order rows are locked in by one `IN (...)` statement is
    // the plan's, not ours.
    for id in ordered {
        sqlx::query(AssertSqlSafe(sql.as_str()))
            .bind(organization_id)
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    }
    Ok(())
}
