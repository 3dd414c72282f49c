//! Organizations, the people in them, and their access tokens (stored only as hashes).

use super::{Db, Result, ids, now_text};

crate::row! {
    /// An organization (tenant). Every other row belongs to exactly one.
    #[derive(Debug, Clone)]
    pub struct Organization {
        pub id: String,
        pub name: String,
        pub legal_document: String,
    }
}

crate::row! {
    /// A person of an organization and their role.
    #[derive(Debug, Clone)]
    pub struct Person {
        pub id: String,
        pub organization_id: String,
        pub name: String,
        pub email: String,
        pub role: String,
    }
}

crate::row! {
    /// A token joined with its person and organization, as `find_token` selects it.
    struct TokenRow {
        id: String,
        audience: String,
        scopes: String,
        toolsets: Option<String>,
        discovery: Option<i64>,
        rate_limit: Option<i64>,
        rate_period_secs: Option<i64>,
        expires_at_epoch: Option<i64>,
        person_id: String,
        person_name: String,
        email: String,
        role: String,
        org_id: String,
        org_name: String,
        legal_document: String,
        org_rate_limit: Option<i64>,
        org_rate_period_secs: Option<i64>,
    }
}

/// A token row joined with its person and organization, as authentication needs it.
#[derive(Debug, Clone)]
pub struct TokenRecord {
    pub id: String,
    pub audience: String,
    pub scopes: Vec<String>,
    /// The MCP toolsets the token is limited to (`None`: no limit beyond its scopes).
    pub toolsets: Option<Vec<String>>,
    /// How MCP connections with it are offered the tools when a request does not say: through
    /// discovery mode (`Some(true)`), as the catalog (`Some(false)`), or as the operator's
    /// setting says (`None`).
    pub discovery: Option<bool>,
    /// Requests per period in seconds: the token's limit, else its organization's.
    pub rate_limit: Option<(i64, i64)>,
    pub person: Person,
    pub organization: Organization,
    /// When an OAuth access token stops working (seconds since the epoch); command-line
    /// tokens do not expire.
    pub expires_at_epoch: Option<i64>,
}

/// What `token create` and the demo seeding ask for.
#[derive(Debug, Clone)]
pub struct NewToken<'a> {
    pub organization_id: &'a str,
    pub person_id: &'a str,
    pub audience: &'a str,
    pub scopes: &'a [String],
    /// The MCP toolsets it is limited to, each checked by the caller (`None`: no limit).
    pub toolsets: Option<&'a [String]>,
    /// Discovery mode by default (see [`TokenRecord::discovery`]).
    pub discovery: Option<bool>,
    pub token_hash: &'a str,
    pub label: Option<&'a str>,
    pub rate_limit: Option<(i64, i64)>,
}

pub async fn create_organization(
    db: &Db,
    name: &str,
    legal_document: &str,
) -> Result<Organization> {
    let org = Organization {
        id: ids::new_id("org"),
        name: name.to_string(),
        legal_document: legal_document.to_string(),
    };
    sqlx::query(
        "INSERT INTO organizations (id, name, legal_document, created_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(&org.id)
    .bind(&org.name)
    .bind(&org.legal_document)
    .bind(now_text())
    .execute(&db.pool)
    .await?;
    Ok(org)
}

pub async fn create_person(
    db: &Db,
    organization_id: &str,
    name: &str,
    email: &str,
    role: &str,
) -> Result<Person> {
    let person = Person {
        id: ids::new_id("per"),
        organization_id: organization_id.to_string(),
        name: name.to_string(),
        email: email.to_string(),
        role: role.to_string(),
    };
    sqlx::query("INSERT INTO people (id, organization_id, name, email, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(&person.id)
        .bind(&person.organization_id)
        .bind(&person.name)
        .bind(&person.email)
        .bind(&person.role)
        .bind(now_text())
        .execute(&db.pool)
        .await?;
    Ok(person)
}

/// Store a token's hash; returns the token id.
pub async fn create_token(db: &Db, new: NewToken<'_>) -> Result<String> {
    let id = ids::new_id("tok");
    sqlx::query(
        "INSERT INTO tokens (id, organization_id, person_id, audience, scopes, token_hash, label, rate_limit, rate_period_secs, created_at, toolsets, discovery)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(&id)
    .bind(new.organization_id)
    .bind(new.person_id)
    .bind(new.audience)
    .bind(new.scopes.join(" "))
    .bind(new.token_hash)
    .bind(new.label)
    .bind(new.rate_limit.map(|r| r.0))
    .bind(new.rate_limit.map(|r| r.1))
    .bind(now_text())
    .bind(new.toolsets.map(|t| t.join(",")))
    .bind(new.discovery.map(i64::from))
    .execute(&db.pool)
    .await?;
    Ok(id)
}

/// Look a live token up by the hash of its secret.
pub async fn find_token(db: &Db, token_hash: &str) -> Result<Option<TokenRecord>> {
    let row: Option<TokenRow> = sqlx::query_as(
        "SELECT t.id, t.audience, t.scopes, t.toolsets, t.discovery, t.rate_limit, t.rate_period_secs, t.expires_at_epoch,
                p.id AS person_id, p.name AS person_name, p.email, p.role,
                o.id AS org_id, o.name AS org_name, o.legal_document,
                o.rate_limit AS org_rate_limit, o.rate_period_secs AS org_rate_period_secs
         FROM tokens t
         JOIN people p ON p.id = t.person_id
         JOIN organizations o ON o.id = t.organization_id
         WHERE t.token_hash = $1 AND t.revoked_at IS NULL",
    )
    .bind(token_hash)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(|row| TokenRecord {
        id: row.id,
        audience: row.audience,
        scopes: row.scopes.split_whitespace().map(str::to_string).collect(),
        toolsets: row
            .toolsets
            .map(|t| t.split(',').map(str::to_string).collect()),
        discovery: row.discovery.map(|d| d != 0),
        // The token's own limit wins over its organization's.
        rate_limit: (row.rate_limit.zip(row.rate_period_secs))
            .or(row.org_rate_limit.zip(row.org_rate_period_secs)),
        person: Person {
            id: row.person_id,
            organization_id: row.org_id.clone(),
            name: row.person_name,
            email: row.email,
            role: row.role,
        },
        organization: Organization {
            id: row.org_id,
            name: row.org_name,
            legal_document: row.legal_document,
        },
        expires_at_epoch: row.expires_at_epoch,
    }))
}

/// Find an organization by id or exact name (for the `token create` command).
pub async fn find_organization(db: &Db, id_or_name: &str) -> Result<Option<Organization>> {
    Ok(sqlx::query_as("SELECT id, name, legal_document FROM organizations WHERE id = $1 OR name = $1 ORDER BY id LIMIT 1")
        .bind(id_or_name)
        .fetch_optional(&db.pool)
        .await?)
}

/// Find a person of an organization by id or email.
pub async fn find_person(
    db: &Db,
    organization_id: &str,
    id_or_email: &str,
) -> Result<Option<Person>> {
    Ok(sqlx::query_as(
        "SELECT id, organization_id, name, email, role FROM people WHERE organization_id = $1 AND (id = $2 OR email = $2)",
    )
    .bind(organization_id)
    .bind(id_or_email)
    .fetch_optional(&db.pool)
    .await?)
}

/// Set an organization's rate limit (requests per period in seconds), or clear it.
pub async fn set_organization_rate_limit(
    db: &Db,
    organization_id: &str,
    limit: Option<(i64, i64)>,
) -> Result<()> {
    sqlx::query("UPDATE organizations SET rate_limit = $1, rate_period_secs = $2 WHERE id = $3")
        .bind(limit.map(|l| l.0))
        .bind(limit.map(|l| l.1))
        .bind(organization_id)
        .execute(&db.pool)
        .await?;
    Ok(())
}
