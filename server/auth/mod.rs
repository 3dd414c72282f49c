//! Who is calling and what they may do: tokens, audiences, roles, scopes.
//!
//! A call needs both the token's scope and the role's permission for it, so the effective
//! grants of a caller are the intersection of the two ([`Principal::scopes`]).

pub mod external;
pub mod roles;
mod token_cache;
pub mod tokens;

use std::collections::BTreeSet;
use std::ops::Deref;
use std::sync::Arc;

pub use token_cache::{FoundToken, TokenCache};

use dunning_store::events::Actor;
use dunning_store::orgs::TokenRecord;

/// Which endpoint a token was issued for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Api,
    Mcp,
}

impl Audience {
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Api => "api",
            Audience::Mcp => "mcp",
        }
    }

    pub fn parse(text: &str) -> Option<Audience> {
        match text {
            "api" => Some(Audience::Api),
            "mcp" => Some(Audience::Mcp),
            _ => None,
        }
    }
}

/// An authenticated caller, attached to every `/v1` request as an extension: one `Arc`, since
/// a request copies it several times (the MCP caller's extensions, each in-process request,
/// the extractors), and a copy of its two dozen strings was most of the strings a read
/// cloned.
#[derive(Debug, Clone)]
pub struct Principal(Arc<Identity>);

impl Deref for Principal {
    type Target = Identity;
    fn deref(&self) -> &Identity {
        &self.0
    }
}

/// What a [`Principal`] is: the token, its person and organization, what it may do.
#[derive(Debug)]
pub struct Identity {
    pub organization_id: String,
    pub organization_name: String,
    /// The organization's CNPJ, normalised (for the documents it issues).
    pub organization_document: String,
    pub person_id: String,
    pub person_name: String,
    pub person_email: String,
    pub role: String,
    pub token_id: String,
    pub audience: Audience,
    /// Scopes written on the token.
    pub token_scopes: Vec<String>,
    /// Token scopes that the role also permits: what this caller can actually do (shared
    /// with the MCP caller made of it).
    pub scopes: Arc<BTreeSet<String>>,
    /// The MCP toolsets the token is limited to (`None`: none beyond its scopes).
    pub toolsets: Option<Vec<String>>,
    /// Discovery mode when a request does not say (`None`: as the operator's setting says).
    pub discovery: Option<bool>,
    pub rate_limit: Option<(i64, i64)>,
}

/// Whether a token's expiry (OAuth access tokens have one) has passed. Checked on every
/// request, cached lookups included, so the token cache never stretches a lifetime.
pub fn expired(record: &TokenRecord) -> bool {
    record
        .expires_at_epoch
        .is_some_and(|at| at <= dunning_store::oauth::now_epoch())
}

impl Principal {
    pub fn from_record(record: TokenRecord, audience: Audience) -> Principal {
        let permitted = roles::permissions(&record.person.role);
        let scopes = record
            .scopes
            .iter()
            .filter(|s| permitted.contains(&s.as_str()))
            .cloned()
            .collect::<BTreeSet<String>>();
        Principal(Arc::new(Identity {
            organization_id: record.organization.id,
            organization_name: record.organization.name,
            organization_document: record.organization.legal_document,
            person_id: record.person.id,
            person_name: record.person.name,
            person_email: record.person.email,
            role: record.person.role,
            token_id: record.id,
            audience,
            token_scopes: record.scopes,
            scopes: Arc::new(scopes),
            toolsets: record.toolsets,
            discovery: record.discovery,
            rate_limit: record.rate_limit,
        }))
    }

    /// The first of `required` this caller lacks, if any.
    pub fn missing_scope<'a>(&self, required: &[&'a str]) -> Option<&'a str> {
        required.iter().copied().find(|s| !self.scopes.contains(*s))
    }

    /// The audit-trail actor for changes made by this caller.
    pub fn actor(&self) -> Actor {
        Actor {
            kind: "person",
            id: Some(self.person_id.clone()),
            name: Some(self.person_name.clone()),
        }
    }
}
