//! OAuth storage: people's password hashes and sign-in failures, registered clients,
//! authorization codes, grants (a person's consent to one application: the refresh-token
//! family and the "connected application" people see) and refresh tokens. Secrets (codes,
//! refresh tokens, access tokens) are stored only as SHA-256 hashes.
//!
//! Access tokens are rows of `tokens` (audience `mcp`) with an expiry and the grant they came
//! from, so that authentication reads one table whatever issued the token.

use sqlx::FromRow;
use sqlx::any::AnyRow;

use super::rows::Column;
use super::{Db, Result, ids, now_text};
use dunning_domain::timestamp::Timestamp;

crate::row! {
    /// An identity provider an organization trusts.
    #[derive(Debug, Clone)]
    pub struct ExternalIssuer {
        pub organization_id: String,
        pub issuer: String,
        pub jwks_uri: String,
        /// The `aud` a token must carry.
        pub audience: String,
        /// The claim naming the person: their e-mail or id in the organization.
        pub person_claim: String,
    }
}

/// Trust `issuer` for its organization (replacing the organization's earlier one).
pub async fn set_external_issuer(db: &Db, issuer: &ExternalIssuer) -> Result<()> {
    let mut tx = db.begin().await?;
    sqlx::query("DELETE FROM external_issuers WHERE organization_id = $1")
        .bind(&issuer.organization_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO external_issuers (organization_id, issuer, jwks_uri, audience, person_claim, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&issuer.organization_id)
    .bind(&issuer.issuer)
    .bind(&issuer.jwks_uri)
    .bind(&issuer.audience)
    .bind(&issuer.person_claim)
    .bind(now_text())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The organization trusting `issuer`, if one does.
pub async fn find_external_issuer(db: &Db, issuer: &str) -> Result<Option<ExternalIssuer>> {
    Ok(sqlx::query_as(
        "SELECT organization_id, issuer, jwks_uri, audience, person_claim FROM external_issuers WHERE issuer = $1",
    )
    .bind(issuer)
    .fetch_optional(&db.pool)
    .await?)
}

/// Seconds since the epoch, the unit of every expiry column.
pub fn now_epoch() -> i64 {
    dunning_domain::timestamp::now().unix_timestamp()
}

crate::row! {
    /// A person who may sign in with a password.
    #[derive(Debug, Clone)]
    pub struct SignInCandidate {
        pub person_id: String,
        pub organization_id: String,
        pub password_hash: Option<String>,
    }
}

/// Everyone with this e-mail address, in organization-id order (an address may belong to
/// people of several organizations).
pub async fn sign_in_candidates(db: &Db, email: &str) -> Result<Vec<SignInCandidate>> {
    Ok(sqlx::query_as(
        "SELECT id AS person_id, organization_id, password_hash
         FROM people WHERE email = $1 ORDER BY organization_id LIMIT 10",
    )
    .bind(email)
    .fetch_all(&db.pool)
    .await?)
}

/// Store a person's new password hash and end what the old password opened: every browser
/// session of the person and every grant (with its tokens), in one transaction.
pub async fn set_password(db: &Db, person_id: &str, password_hash: &str) -> Result<()> {
    let now = now_text();
    let mut tx = db.begin().await?;
    sqlx::query("UPDATE people SET password_hash = $1 WHERE id = $2")
        .bind(password_hash)
        .bind(person_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE oauth_sessions SET ended_at_epoch = $1 WHERE person_id = $2 AND ended_at_epoch IS NULL",
    )
    .bind(now_epoch())
    .bind(person_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE oauth_grants SET revoked_at = $1 WHERE person_id = $2 AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(person_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE tokens SET revoked_at = $1 WHERE person_id = $2 AND grant_id IS NOT NULL AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(person_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

crate::row! {
    /// A client application: registered (RFC 7591), pre-registered on the command line, or known
    /// by its metadata document URL.
    #[derive(Debug, Clone)]
    pub struct Client {
        pub id: String,
        pub name: String,
        pub redirect_uris: Vec<String>,
        /// `registered`, `preregistered` or `metadata`.
        pub kind: String,
        pub fetched_at_epoch: Option<i64>,
    }
}

pub async fn find_client(db: &Db, id: &str) -> Result<Option<Client>> {
    Ok(sqlx::query_as(
        "SELECT id, name, redirect_uris, kind, fetched_at_epoch FROM oauth_clients WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await?)
}

/// Insert a client, or replace a metadata-document client's cached copy.
pub async fn save_client(db: &Db, client: &Client) -> Result<()> {
    let uris = serde_json::to_string(&client.redirect_uris).unwrap_or_else(|_| "[]".into());
    sqlx::query("DELETE FROM oauth_clients WHERE id = $1 AND kind = 'metadata'")
        .bind(&client.id)
        .execute(&db.pool)
        .await?;
    sqlx::query(
        "INSERT INTO oauth_clients (id, name, redirect_uris, kind, fetched_at_epoch, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&client.id)
    .bind(&client.name)
    .bind(uris)
    .bind(&client.kind)
    .bind(client.fetched_at_epoch)
    .bind(now_text())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A person's consent to one client: the scopes granted and the resource they are for.
#[derive(Debug, Clone)]
pub struct Grant {
    pub id: String,
    pub organization_id: String,
    pub person_id: String,
    pub client_id: String,
    pub scopes: Vec<String>,
    pub resource: String,
    pub created_at: Timestamp,
    pub revoked: bool,
}

crate::row! {
    /// The columns of `oauth_grants`, as every grant query selects them.
    struct GrantRow {
        id: String,
        organization_id: String,
        person_id: String,
        client_id: String,
        scopes: String,
        resource: String,
        created_at: Timestamp,
        revoked_at: Option<Timestamp>,
    }
}

/// The grant the `oauth_grants` columns of `row` describe (scopes are stored space-separated).
fn grant_from(row: &AnyRow) -> sqlx::Result<Grant> {
    let g = GrantRow::from_row(row)?;
    Ok(Grant {
        id: g.id,
        organization_id: g.organization_id,
        person_id: g.person_id,
        client_id: g.client_id,
        scopes: g.scopes.split_whitespace().map(str::to_string).collect(),
        resource: g.resource,
        created_at: g.created_at,
        revoked: g.revoked_at.is_some(),
    })
}

crate::row! {
    /// The code's own columns, beside its grant's.
    struct CodeRow {
        redirect_uri: String,
        redirect_uri_given: bool,
        code_challenge: String,
        expires_at_epoch: i64,
        used_at: Option<Timestamp>,
    }
}

crate::row! {
    /// The refresh token's own columns, beside its grant's.
    struct RefreshRow {
        expires_at_epoch: i64,
        used_at: Option<Timestamp>,
    }
}

/// What the consent page stores: a new grant and its authorization code, together.
#[derive(Debug)]
pub struct NewAuthorization<'a> {
    pub organization_id: &'a str,
    pub person_id: &'a str,
    pub client_id: &'a str,
    pub scopes: &'a [String],
    /// The MCP toolsets the person let the application load (`None`: all its scopes allow).
    pub toolsets: Option<&'a [String]>,
    /// Discovery mode for the application's connections (`None`: as the operator says).
    pub discovery: Option<bool>,
    pub resource: &'a str,
    pub code_hash: &'a str,
    pub redirect_uri: &'a str,
    /// Whether the authorization request named the redirect URI (else it was the client's
    /// only one), which decides whether the token request must repeat it.
    pub redirect_uri_given: bool,
    pub code_challenge: &'a str,
    pub code_expires_at_epoch: i64,
}

/// Store a grant and its code in one transaction; returns the grant id.
pub async fn create_authorization(db: &Db, new: NewAuthorization<'_>) -> Result<String> {
    let id = ids::new_id("grt");
    let mut tx = db.begin().await?;
    sqlx::query(
        "INSERT INTO oauth_grants (id, organization_id, person_id, client_id, scopes, resource, created_at, last_used_epoch, toolsets, discovery)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&id)
    .bind(new.organization_id)
    .bind(new.person_id)
    .bind(new.client_id)
    .bind(new.scopes.join(" "))
    .bind(new.resource)
    .bind(now_text())
    .bind(now_epoch())
    .bind(new.toolsets.map(|t| t.join(",")))
    .bind(new.discovery.map(i64::from))
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, redirect_uri_given, code_challenge, expires_at_epoch)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(new.code_hash)
    .bind(&id)
    .bind(new.redirect_uri)
    .bind(i64::from(new.redirect_uri_given))
    .bind(new.code_challenge)
    .bind(new.code_expires_at_epoch)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// An authorization code as the token endpoint checks it.
#[derive(Debug, Clone)]
pub struct Code {
    pub grant: Grant,
    pub redirect_uri: String,
    pub redirect_uri_given: bool,
    pub code_challenge: String,
    pub expires_at_epoch: i64,
    pub used: bool,
}

pub async fn find_code(db: &Db, code_hash: &str) -> Result<Option<Code>> {
    let row = sqlx::query(
        "SELECT c.redirect_uri, c.redirect_uri_given, c.code_challenge, c.expires_at_epoch, c.used_at,
                g.id, g.organization_id, g.person_id, g.client_id, g.scopes, g.resource,
                g.created_at, g.revoked_at
         FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id
         WHERE c.code_hash = $1",
    )
    .bind(code_hash)
    .fetch_optional(&db.pool)
    .await?;
    let Some(r) = row else { return Ok(None) };
    let code = CodeRow::from_row(&r)?;
    Ok(Some(Code {
        grant: grant_from(&r)?,
        redirect_uri: code.redirect_uri,
        redirect_uri_given: code.redirect_uri_given,
        code_challenge: code.code_challenge,
        expires_at_epoch: code.expires_at_epoch,
        used: code.used_at.is_some(),
    }))
}

/// What a token answer spends: the code or the refresh token it was asked with.
#[derive(Debug, Clone, Copy)]
pub enum Spent<'a> {
    Code(&'a str),
    Refresh(&'a str),
}

/// What one token answer stores: an access token (a `tokens` row) and a refresh token.
#[derive(Debug)]
pub struct NewTokens<'a> {
    pub grant: &'a Grant,
    /// The code or refresh token (by hash) this answer uses up.
    pub spent: Spent<'a>,
    /// The access token's scopes: the grant's, or fewer when a refresh asked for fewer.
    pub scopes: &'a [String],
    pub label: &'a str,
    pub access_hash: &'a str,
    pub access_expires_at_epoch: i64,
    pub refresh_hash: &'a str,
    pub refresh_expires_at_epoch: i64,
    /// A grant not used since before this (seconds since the epoch) has expired.
    pub idle_cutoff_epoch: i64,
}

/// Whether [`issue_tokens`] stored the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issued {
    Stored,
    /// The code or refresh token was already used: someone else holds it.
    AlreadySpent,
    /// The grant was revoked, or expired unused, before these tokens could be stored.
    GrantEnded,
}

/// Spend the code or refresh token, check the grant is live and store the new tokens, in
/// one transaction. The grant's row is written before the tokens (its last use), which takes
/// its row lock on PostgreSQL, and [`revoke_grant`] writes that row first too: a revocation
/// either comes first, and nothing is stored, or waits for this commit and then sees (and
/// revokes) the tokens stored here. On SQLite the write lock orders them the same way.
pub async fn issue_tokens(db: &Db, new: NewTokens<'_>) -> Result<Issued> {
    let now = now_text();
    let mut tx = db.begin().await?;
    let spent = match new.spent {
        Spent::Code(hash) => sqlx::query(
            "UPDATE oauth_codes SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL",
        )
        .bind(&now)
        .bind(hash),
        Spent::Refresh(hash) => sqlx::query(
            "UPDATE oauth_refresh_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL",
        )
        .bind(&now)
        .bind(hash),
    }
    .execute(&mut *tx)
    .await?;
    if spent.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(Issued::AlreadySpent);
    }
    let live = sqlx::query(
        "UPDATE oauth_grants SET last_used_epoch = $1
         WHERE id = $2 AND revoked_at IS NULL AND last_used_epoch >= $3",
    )
    .bind(now_epoch())
    .bind(&new.grant.id)
    .bind(new.idle_cutoff_epoch)
    .execute(&mut *tx)
    .await?;
    if live.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(Issued::GrantEnded);
    }
    sqlx::query(
        "INSERT INTO tokens (id, organization_id, person_id, audience, scopes, token_hash, label, created_at, expires_at_epoch, grant_id, toolsets, discovery)
         VALUES ($1, $2, $3, 'mcp', $4, $5, $6, $7, $8, $9,
                 (SELECT toolsets FROM oauth_grants WHERE id = $9),
                 (SELECT discovery FROM oauth_grants WHERE id = $9))",
    )
    .bind(ids::new_id("tok"))
    .bind(&new.grant.organization_id)
    .bind(&new.grant.person_id)
    .bind(new.scopes.join(" "))
    .bind(new.access_hash)
    .bind(new.label)
    .bind(&now)
    .bind(new.access_expires_at_epoch)
    .bind(&new.grant.id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at_epoch, created_at)
         VALUES ($1, $2, $3, $4)",
    )
    .bind(new.refresh_hash)
    .bind(&new.grant.id)
    .bind(new.refresh_expires_at_epoch)
    .bind(&now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Issued::Stored)
}

/// A refresh token and the grant (family) it belongs to.
#[derive(Debug, Clone)]
pub struct Refresh {
    pub grant: Grant,
    pub expires_at_epoch: i64,
    pub used: bool,
}

pub async fn find_refresh(db: &Db, token_hash: &str) -> Result<Option<Refresh>> {
    let row = sqlx::query(
        "SELECT r.expires_at_epoch, r.used_at,
                g.id, g.organization_id, g.person_id, g.client_id, g.scopes, g.resource,
                g.created_at, g.revoked_at
         FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
         WHERE r.token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(&db.pool)
    .await?;
    let Some(r) = row else { return Ok(None) };
    let refresh = RefreshRow::from_row(&r)?;
    Ok(Some(Refresh {
        grant: grant_from(&r)?,
        expires_at_epoch: refresh.expires_at_epoch,
        used: refresh.used_at.is_some(),
    }))
}

/// Revoke a grant: the grant itself, so no refresh token of its family works, and every
/// access token issued from it. The grant's row is written first (see [`issue_tokens`]).
pub async fn revoke_grant(db: &Db, grant_id: &str) -> Result<()> {
    let now = now_text();
    let mut tx = db.begin().await?;
    sqlx::query("UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
        .bind(&now)
        .bind(grant_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL")
        .bind(&now)
        .bind(grant_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Revoke one access token issued by OAuth (RFC 7009); tokens made on the command line are
/// not revoked by this endpoint. Returns whether one was.
pub async fn revoke_access_token(db: &Db, token_hash: &str) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE tokens SET revoked_at = $1 WHERE token_hash = $2 AND grant_id IS NOT NULL AND revoked_at IS NULL",
    )
    .bind(now_text())
    .bind(token_hash)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A person's live grants (not revoked, used since `idle_cutoff_epoch`) with their clients'
/// names, newest first.
pub async fn live_grants(
    db: &Db,
    organization_id: &str,
    person_id: &str,
    idle_cutoff_epoch: i64,
) -> Result<Vec<(Grant, String)>> {
    let rows = sqlx::query(
        "SELECT g.id, g.organization_id, g.person_id, g.client_id, g.scopes, g.resource,
                g.created_at, g.revoked_at, c.name AS client_name
         FROM oauth_grants g LEFT JOIN oauth_clients c ON c.id = g.client_id
         WHERE g.organization_id = $1 AND g.person_id = $2 AND g.revoked_at IS NULL
           AND g.last_used_epoch >= $3
         ORDER BY g.created_at DESC LIMIT 200",
    )
    .bind(organization_id)
    .bind(person_id)
    .bind(idle_cutoff_epoch)
    .fetch_all(&db.pool)
    .await?;
    rows.iter()
        .map(|r| {
            let name: Option<String> = Column::read(r, "client_name")?;
            Ok((grant_from(r)?, name.unwrap_or_default()))
        })
        .collect()
}

/// One grant of this person, if it is theirs.
pub async fn find_grant(
    db: &Db,
    organization_id: &str,
    person_id: &str,
    grant_id: &str,
) -> Result<Option<Grant>> {
    let row = sqlx::query(
        "SELECT id, organization_id, person_id, client_id, scopes, resource, created_at, revoked_at
         FROM oauth_grants WHERE organization_id = $1 AND person_id = $2 AND id = $3",
    )
    .bind(organization_id)
    .bind(person_id)
    .bind(grant_id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.as_ref().map(grant_from).transpose()?)
}

/// The person and organization names the pages show.
pub async fn person_names(db: &Db, person_id: &str) -> Result<Option<(String, String, String)>> {
    Ok(sqlx::query_as(
        "SELECT p.name, p.role, o.name AS org_name FROM people p JOIN organizations o ON o.id = p.organization_id WHERE p.id = $1",
    )
    .bind(person_id)
    .fetch_optional(&db.pool)
    .await?)
}

/// A registered client that no grant used within this long is deleted by housekeeping.
pub const UNUSED_REGISTRATION_SECS: i64 = 86_400;

/// What one clean-up of the OAuth tables removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Expired {
    /// Grants unused since the cutoff, now revoked with their tokens.
    pub grants: u64,
    /// Registered clients that never got a grant, deleted.
    pub clients: u64,
}

/// Revoke, at `$1`, the grants unused since `$2` (epoch seconds); their ids come back, so that
/// their tokens end too. Read through `oauth_grants_live_last_used` (migration 22).
pub const EXPIRE_GRANTS_SQL: &str = "UPDATE oauth_grants SET revoked_at = $1
     WHERE revoked_at IS NULL AND last_used_epoch < $2 RETURNING id";
/// Revoke, at `$1`, the live tokens of grant `$2` (through `tokens_grant`).
pub const REVOKE_GRANT_TOKENS_SQL: &str =
    "UPDATE tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL";
/// Delete the registered clients made before `$1` that no grant ever used (through
/// `oauth_clients_registered` and `oauth_grants_client`).
pub const FORGET_UNUSED_CLIENTS_SQL: &str = "DELETE FROM oauth_clients
     WHERE kind = 'registered' AND created_at < $1
       AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.id)";
/// Forget the codes that expired before `$1` (through `oauth_codes_expiry`).
pub const FORGET_CODES_SQL: &str = "DELETE FROM oauth_codes WHERE expires_at_epoch < $1";
/// Forget the refresh tokens that expired before `$1` (through `oauth_refresh_tokens_expiry`).
pub const FORGET_REFRESH_TOKENS_SQL: &str =
    "DELETE FROM oauth_refresh_tokens WHERE expires_at_epoch < $1";

/// Revoke the grants unused since `idle_cutoff_epoch` (and their tokens), delete registered
/// clients made before `client_cutoff` that no grant ever used, and forget spent or expired
/// codes and refresh tokens that can no longer be presented (kept a day past their expiry,
/// so a late reuse is still recognised). Every statement reads only the rows it changes
/// through an index: housekeeping's minute costs what expired, not what was ever issued.
pub async fn expire(
    db: &Db,
    now: i64,
    idle_cutoff_epoch: i64,
    client_cutoff: &str,
) -> Result<Expired> {
    let revoked_at = now_text();
    let mut tx = db.begin().await?;
    // The grants first, as `revoke_grant` does, then their tokens.
    let revoked: Vec<String> = sqlx::query_scalar(EXPIRE_GRANTS_SQL)
        .bind(&revoked_at)
        .bind(idle_cutoff_epoch)
        .fetch_all(&mut *tx)
        .await?;
    for grant_id in &revoked {
        sqlx::query(REVOKE_GRANT_TOKENS_SQL)
            .bind(&revoked_at)
            .bind(grant_id)
            .execute(&mut *tx)
            .await?;
    }
    let clients = sqlx::query(FORGET_UNUSED_CLIENTS_SQL)
        .bind(client_cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    let forgotten = now - 86_400;
    for sql in [FORGET_CODES_SQL, FORGET_REFRESH_TOKENS_SQL] {
        sqlx::query(sql).bind(forgotten).execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(Expired {
        grants: revoked.len() as u64,
        clients,
    })
}
