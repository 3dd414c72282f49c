//! Organizations, the people in them, and their access tokens (stored only as hashes).

use sqlx::Row;

use super::{Db, Result, ids, now_text};

/// An organization (tenant). Every other row belongs to exactly one.
#[derive(Debug, Clone)]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub legal_document: String,
}

/// A person of an organization and their role.
#[derive(Debug, Clone)]
pub struct Person {
    pub id: String,
    pub organization_id: String,
    pub name: String,
    pub email: String,
    pub role: String,
}

/// A token row joined with its person and organization, as authentication needs it.
#[derive(Debug, Clone)]
pub struct TokenRecord {
    pub id: String,
    pub audience: String,
    pub scopes: Vec<String>,
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
        "INSERT INTO tokens (id, organization_id, person_id, audience, scopes, token_hash, label, rate_limit, rate_period_secs, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
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
    .execute(&db.pool)
    .await?;
    Ok(id)
}

/// Look a live token up by the hash of its secret.
pub async fn find_token(db: &Db, token_hash: &str) -> Result<Option<TokenRecord>> {
    let row = sqlx::query(
        "SELECT t.id, t.audience, t.scopes, t.rate_limit, t.rate_period_secs, t.expires_at_epoch,
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
    let Some(row) = row else { return Ok(None) };
    let scopes: String = row.try_get("scopes")?;
    let limit: Option<i64> = row.try_get("rate_limit")?;
    let period: Option<i64> = row.try_get("rate_period_secs")?;
    let org_limit: Option<i64> = row.try_get("org_rate_limit")?;
    let org_period: Option<i64> = row.try_get("org_rate_period_secs")?;
    let org_id: String = row.try_get("org_id")?;
    Ok(Some(TokenRecord {
        id: row.try_get("id")?,
        audience: row.try_get("audience")?,
        scopes: scopes.split_whitespace().map(str::to_string).collect(),
        // The token's own limit wins over its organization's.
        rate_limit: limit.zip(period).or(org_limit.zip(org_period)),
        person: Person {
            id: row.try_get("person_id")?,
            organization_id: org_id.clone(),
            name: row.try_get("person_name")?,
            email: row.try_get("email")?,
            role: row.try_get("role")?,
        },
        organization: Organization {
            id: org_id,
            name: row.try_get("org_name")?,
            legal_document: row.try_get("legal_document")?,
        },
        expires_at_epoch: row.try_get("expires_at_epoch")?,
    }))
}

/// Find an organization by id or exact name (for the `token create` command).
pub async fn find_organization(db: &Db, id_or_name: &str) -> Result<Option<Organization>> {
    let row = sqlx::query("SELECT id, name, legal_document FROM organizations WHERE id = $1 OR name = $1 ORDER BY id LIMIT 1")
        .bind(id_or_name)
        .fetch_optional(&db.pool)
        .await?;
    row.map(|r| {
        Ok(Organization {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            legal_document: r.try_get("legal_document")?,
        })
    })
    .transpose()
}

/// Find a person of an organization by id or email.
pub async fn find_person(
    db: &Db,
    organization_id: &str,
    id_or_email: &str,
) -> Result<Option<Person>> {
    let row = sqlx::query(
        "SELECT id, organization_id, name, email, role FROM people WHERE organization_id = $1 AND (id = $2 OR email = $2)",
    )
    .bind(organization_id)
    .bind(id_or_email)
    .fetch_optional(&db.pool)
    .await?;
    row.map(|r| {
        Ok(Person {
            id: r.try_get("id")?,
            organization_id: r.try_get("organization_id")?,
            name: r.try_get("name")?,
            email: r.try_get("email")?,
            role: r.try_get("role")?,
        })
    })
    .transpose()
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
