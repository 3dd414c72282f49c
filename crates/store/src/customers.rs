//! Customers (debtors): rows, filters and writes, always inside one organization.

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use super::rows::{self, Column, Stored, by_id};
use super::{Bind, Conditions, Db, ListQuery, Page, PageRequest, Result, Sort};
use dunning_domain::timestamp::Timestamp;

/// A postal address, stored as JSON (its `Serialize` is the stored form; `api::customers`
/// writes its own).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Address {
    pub street: String,
    pub number: String,
    pub complement: Option<String>,
    pub district: String,
    pub city: String,
    pub state: String,
    pub zip_code: String,
}

crate::row! {
    /// A customer as stored; `api::customers` shows it.
    #[derive(Debug, Clone)]
    pub struct Customer {
        pub id: String,
        pub name: String,
        pub document: String,
        pub document_type: String,
        pub email: Option<String>,
        pub phone: Option<String>,
        pub address: Option<Address>,
        pub channel_opt_outs: Vec<String>,
        pub tags: Vec<String>,
        pub notes: Option<String>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
    }
}

impl Column for Address {
    fn read<R: rows::Source + ?Sized>(row: &R, column: &str) -> sqlx::Result<Self> {
        rows::json(row, column)
    }
}

impl Stored for Customer {
    const TABLE: &'static str = "customers";
    const COLUMNS: &'static str = "id, name, document, document_type, email, phone, address, channel_opt_outs, tags, notes, version, created_at, updated_at";
}

/// Fields of a customer that can be written (all validated by the API layer).
#[derive(Debug, Clone)]
pub struct CustomerFields {
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
    pub channel_opt_outs: Vec<String>,
    pub tags: Vec<String>,
    pub notes: Option<String>,
}

/// List filters (validated); stored with an export (`store::exports::ExportFilter`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct CustomerFilter {
    pub q: Option<String>,
    pub document: Option<String>,
    pub email: Option<String>,
    pub tag: Option<String>,
    pub sort_by_name: bool,
    pub descending: bool,
}

pub use dunning_domain::text::search_key;

pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &CustomerFilter,
    page: PageRequest,
) -> Result<Page<Customer>> {
    list_query(organization_id, filter)
        .fetch_rows(db, page)
        .await
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str, filter: &CustomerFilter) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    if let Some(q) = &filter.q {
        let pattern = format!("{}%", super::like_escape(&search_key(q)));
        let document_pattern = format!("{}%", super::like_escape(&q.to_uppercase()));
        c.push_many(
            "(search_name LIKE {} ESCAPE '\\' OR document LIKE {} ESCAPE '\\')",
            vec![Bind::Text(pattern), Bind::Text(document_pattern)],
        );
    }
    if let Some(document) = &filter.document {
        c.push("document = {}", Bind::Text(document.clone()));
    }
    if let Some(email) = &filter.email {
        c.push("LOWER(email) = {}", Bind::Text(email.to_lowercase()));
    }
    if let Some(tag) = &filter.tag {
        let pattern = format!(
            "%{}%",
            super::like_escape(&serde_json::to_string(tag).unwrap_or_default())
        );
        c.push("tags LIKE {} ESCAPE '\\'", Bind::Text(pattern));
    }
    let sort = Sort {
        column: if filter.sort_by_name {
            "search_name"
        } else {
            "created_at"
        },
        integer: false,
        descending: filter.descending,
    };
    ListQuery::sorted(c, Customer::COLUMNS, "FROM customers", sort)
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Customer>> {
    db.by_id(organization_id, id).await
}

/// Same as [`get`] on the caller's connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Customer>> {
    by_id(conn, organization_id, id).await
}

pub async fn find_by_document(
    conn: &mut AnyConnection,
    organization_id: &str,
    document: &str,
) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT id FROM customers WHERE organization_id = $1 AND document = $2")
            .bind(organization_id)
            .bind(document)
            .fetch_optional(conn)
            .await?,
    )
}

/// Insert a customer; the caller checked that the document is free.
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    document: (&str, &str),
    fields: &CustomerFields,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO customers (id, organization_id, name, search_name, document, document_type, email, phone, address,
             channel_opt_outs, tags, notes, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1, $13, $13)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(&fields.name)
    .bind(search_key(&fields.name))
    .bind(document.0)
    .bind(document.1)
    .bind(fields.email.as_deref())
    .bind(fields.phone.as_deref())
    .bind(fields.address.as_ref().map(|a| serde_json::to_string(a).expect("address serialises")))
    .bind(serde_json::to_string(&fields.channel_opt_outs).expect("strings serialise"))
    .bind(serde_json::to_string(&fields.tags).expect("strings serialise"))
    .bind(fields.notes.as_deref())
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Overwrite the writable fields if the row is still at `version`; false when it moved on.
pub async fn update(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    fields: &CustomerFields,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE customers SET name = $1, search_name = $2, email = $3, phone = $4, address = $5, channel_opt_outs = $6,
             tags = $7, notes = $8, version = version + 1, updated_at = $9
         WHERE organization_id = $10 AND id = $11 AND version = $12",
    )
    .bind(&fields.name)
    .bind(search_key(&fields.name))
    .bind(fields.email.as_deref())
    .bind(fields.phone.as_deref())
    .bind(fields.address.as_ref().map(|a| serde_json::to_string(a).expect("address serialises")))
    .bind(serde_json::to_string(&fields.channel_opt_outs).expect("strings serialise"))
    .bind(serde_json::to_string(&fields.tags).expect("strings serialise"))
    .bind(fields.notes.as_deref())
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Customer ids whose id, name (accents and case ignored) or document starts with `prefix`,
/// best first (by name), at most `limit`, and how many match in all.
pub async fn complete(
    db: &Db,
    organization_id: &str,
    prefix: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let mut c = Conditions::for_organization(organization_id);
    super::search::push_customer_prefix(&mut c, prefix, "id", "search_name", "document");
    c.fetch_ids(db, "id", "FROM customers", "search_name, id", limit)
        .await
}

/// How many charges of a customer are still being collected: pending, overdue (stored
/// `open`) or in an agreement. A customer with any cannot be deleted.
pub async fn open_charge_count(
    conn: &mut AnyConnection,
    organization_id: &str,
    customer_id: &str,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT COUNT(*) FROM charges WHERE organization_id = $1 AND customer_id = $2 AND state IN ('open', 'in_agreement')",
    )
    .bind(organization_id)
    .bind(customer_id)
    .fetch_one(conn)
    .await?)
}

crate::row! {
    /// A customer's id and name: what a report names a debtor by.
    #[derive(Debug, Clone)]
    pub struct CustomerName {
        pub id: String,
        pub name: String,
    }
}

/// The names of the customers `ids` names in the organization (those it has), in no order.
/// Meant for a handful of ids (a report's top debtors): one statement by the primary key.
pub async fn names(db: &Db, organization_id: &str, ids: &[&str]) -> Result<Vec<CustomerName>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let places: Vec<String> = (2..ids.len() + 2).map(|n| format!("${n}")).collect();
    let sql = format!(
        "SELECT id, name FROM customers WHERE organization_id = $1 AND id IN ({})",
        places.join(", ")
    );
    let mut query =
        sqlx::query_as::<_, CustomerName>(sqlx::AssertSqlSafe(sql)).bind(organization_id);
    for id in ids {
        query = query.bind(*id);
    }
    Ok(query.fetch_all(&db.pool).await?)
}
