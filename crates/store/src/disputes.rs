//! Disputes (contestações): a debtor contests a charge. While one is open the charge's
//! `open_dispute_id` names it, which is what collection (plans, notices, negativation,
//! protest) checks to pause itself. The table is created by migration 5
//! (`migrations/0005_*.sql`).

use sqlx::AnyConnection;

use super::rows::{Stored, by_id};
use super::{Bind, Conditions, Db, ListQuery, Page, PageRequest, Result, StoreError};
use dunning_domain::timestamp::Timestamp;

/// Reasons a debtor gives, as the API names them.
pub const REASONS: &[&str] = &[
    "not_recognized",
    "already_paid",
    "wrong_amount",
    "service_not_provided",
    "other",
];

crate::stored_words! {
    /// Where a dispute stands; the stored `state` is the API's `status`.
    pub enum DisputeStatus {
        Open = "open",
        Upheld = "upheld",
        Rejected = "rejected",
    }
}

/// Statuses as the API names them.
pub const STATUSES: &[&str] = DisputeStatus::ALL;

crate::row! {
    /// A dispute as stored.
    #[derive(Debug, Clone)]
    pub struct Dispute {
        pub id: String,
        pub charge_id: String,
        pub customer_id: String,
        pub reason: String,
        pub description: Option<String>,
        pub status: DisputeStatus,
        pub resolution_note: Option<String>,
        pub resolved_at: Option<Timestamp>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
    }
}

impl Stored for Dispute {
    const TABLE: &'static str = "disputes";
    const COLUMNS: &'static str = "id, charge_id, customer_id, reason, description, state AS status, resolution_note, resolved_at, version, created_at, updated_at";
}

/// List filters (validated).
#[derive(Debug, Default)]
pub struct DisputeFilter {
    pub charge_id: Option<String>,
    pub customer_id: Option<String>,
    pub status: Option<String>,
}

pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &DisputeFilter,
    page: PageRequest,
) -> Result<Page<Dispute>> {
    list_query(organization_id, filter)
        .fetch_rows(db, page)
        .await
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str, filter: &DisputeFilter) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    if let Some(charge) = &filter.charge_id {
        c.push("charge_id = {}", Bind::Text(charge.clone()));
    }
    if let Some(customer) = &filter.customer_id {
        c.push("customer_id = {}", Bind::Text(customer.clone()));
    }
    if let Some(status) = &filter.status {
        c.push("state = {}", Bind::Text(status.clone()));
    }
    ListQuery::new(
        c,
        Dispute::COLUMNS,
        "FROM disputes",
        "created_at DESC, id DESC",
    )
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Dispute>> {
    db.by_id(organization_id, id).await
}

/// Same as [`get`] on the caller's connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Dispute>> {
    by_id(conn, organization_id, id).await
}

/// A dispute to open.
#[derive(Debug, Clone)]
pub struct NewDispute<'a> {
    pub charge_id: &'a str,
    pub customer_id: &'a str,
    pub reason: &'a str,
    pub description: Option<&'a str>,
}

/// What opening a dispute did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    Opened,
    /// The charge is no longer open at the version read, or its `open_dispute_id` is set.
    ChargeMovedOn,
    /// The charge already has an open dispute (the unique index said so): nothing usable was
    /// written, the caller rolls back.
    AlreadyOpen,
}

/// Open a dispute on a charge at `charge_version` and pause the charge's collection (its
/// `open_dispute_id`). Nothing is written unless the charge is still open at that version
/// and has no open dispute; `disputes_one_open_per_charge` holds even for a writer that
/// skipped the charge.
pub async fn open(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    new: &NewDispute<'_>,
    charge_version: i64,
    now: &str,
) -> Result<Opening> {
    let paused = sqlx::query(
        "UPDATE charges SET open_dispute_id = $1, version = version + 1, updated_at = $2
         WHERE organization_id = $3 AND id = $4 AND version = $5 AND state = 'open' AND open_dispute_id IS NULL",
    )
    .bind(id)
    .bind(now)
    .bind(organization_id)
    .bind(new.charge_id)
    .bind(charge_version)
    .execute(&mut *conn)
    .await?;
    if paused.rows_affected() != 1 {
        return Ok(Opening::ChargeMovedOn);
    }
    let inserted = sqlx::query(
        "INSERT INTO disputes (id, organization_id, charge_id, customer_id, reason, description, state, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'open', 1, $7, $7)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(new.charge_id)
    .bind(new.customer_id)
    .bind(new.reason)
    .bind(new.description)
    .bind(now)
    .execute(&mut *conn)
    .await
    .map_err(StoreError::from);
    match inserted {
        // The id is new, so the one unique key this insert can break is one open per charge.
        Err(e) if super::retry::is_unique_violation(&e) => Ok(Opening::AlreadyOpen),
        Err(e) => Err(e),
        Ok(_) => Ok(Opening::Opened),
    }
}

/// Decide an open dispute at `version` (`upheld` or `rejected`) and resume its charge's
/// collection (clear `open_dispute_id`); false when the dispute moved on.
pub async fn resolve(
    conn: &mut AnyConnection,
    organization_id: &str,
    dispute: &Dispute,
    outcome: &str,
    note: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE disputes SET state = $1, resolution_note = $2, resolved_at = $3, version = version + 1, updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND version = $6 AND state = 'open'",
    )
    .bind(outcome)
    .bind(note)
    .bind(now)
    .bind(organization_id)
    .bind(&dispute.id)
    .bind(dispute.version)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(
        "UPDATE charges SET open_dispute_id = NULL, version = version + 1, updated_at = $1
         WHERE organization_id = $2 AND id = $3 AND open_dispute_id = $4",
    )
    .bind(now)
    .bind(organization_id)
    .bind(&dispute.charge_id)
    .bind(&dispute.id)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

/// Remove every dispute of a customer (the customer is being deleted; none is open on an
/// open charge).
pub async fn delete_for_customer(
    conn: &mut AnyConnection,
    organization_id: &str,
    customer_id: &str,
) -> Result<()> {
    sqlx::query("DELETE FROM disputes WHERE organization_id = $1 AND customer_id = $2")
        .bind(organization_id)
        .bind(customer_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Dispute ids whose id starts with `prefix`, or whose customer's name or document does,
/// newest first, at most `limit`, and how many match in all.
pub async fn complete(
    db: &Db,
    organization_id: &str,
    prefix: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let order = "disputes.created_at DESC, disputes.id";
    super::search::complete_by_customer(db, "disputes", organization_id, prefix, order, limit).await
}
