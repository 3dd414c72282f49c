//! How the generic MCP layer learns who is calling: MCP tokens become a [`Principal`] that
//! travels into every in-process `/v1` dispatch. Counts every MCP request against the token's
//! rate limit, and answers completions from the caller's own customers, charges, agreements,
//! disputes and exports.

use std::future::Future;
use std::pin::Pin;

use mcpgen_axum::{Admission, AuthFailure, Caller, Completion, CompletionRequest, Host};

use crate::api::steps::rate_limit::{self, Counted};
use crate::auth::{self, Audience, Principal, roles, tokens};
use crate::state::AppState;
use dunning_store::{agreements, charges, customers, disputes, exports};

/// The [`Host`] for Kobana Dunning: checks tokens against the database.
pub struct McpAuthenticator {
    state: AppState,
}

impl McpAuthenticator {
    pub fn new(state: AppState) -> Self {
        McpAuthenticator { state }
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Host for McpAuthenticator {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, AuthFailure>> {
        Box::pin(async move {
            if auth::external::looks_like_jwt(token) {
                let policy =
                    dunning_engine::outbound::Policy::for_webhooks(&self.state.engine.settings);
                let record = auth::external::authenticate(&self.state.db, policy, token)
                    .await
                    .map_err(AuthFailure::InvalidToken)?;
                return Ok(caller(Principal::from_record(record, Audience::Mcp)));
            }
            let found = self
                .state
                .tokens
                .find(&self.state.db, &tokens::hash(token))
                .await
                .map_err(|e| AuthFailure::Internal(e.to_string()))?
                .ok_or(AuthFailure::InvalidToken("The token is unknown or revoked"))?;
            let record = &found.record;
            if auth::expired(record) {
                return Err(AuthFailure::InvalidToken(
                    "The token has expired; use the refresh token for a new one",
                ));
            }
            if Audience::parse(&record.audience) != Some(Audience::Mcp) {
                return Err(AuthFailure::InvalidToken(
                    "This token was issued for the REST API; the MCP endpoint needs a token with audience 'mcp'",
                ));
            }
            Ok(caller(found.principal(Audience::Mcp)))
        })
    }

    fn all_scopes(&self) -> Vec<String> {
        auth::roles::ALL_SCOPES
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// Every MCP request counts once against the token's window (the same window as the
    /// API's): here, and — marked [`Counted`] — not again when a tool reaches `/v1`.
    fn admit<'a>(&'a self, caller: &'a mut Caller) -> BoxFuture<'a, Result<Admission, String>> {
        Box::pin(async move {
            let Some(principal) = caller.extensions.get::<Principal>() else {
                return Ok(Admission::Admitted);
            };
            let window = rate_limit::count(&self.state, principal)
                .await
                .map_err(|e| e.to_string())?;
            caller.extensions.insert(Counted(window));
            Ok(if window.exceeded() {
                Admission::Limited {
                    retry_after: u64::try_from(window.reset).unwrap_or(0).max(1),
                }
            } else {
                Admission::Admitted
            })
        })
    }

    fn complete<'a>(
        &'a self,
        caller: &'a Caller,
        request: CompletionRequest<'a>,
    ) -> BoxFuture<'a, Result<Completion, String>> {
        Box::pin(async move {
            let Some(principal) = caller.extensions.get::<Principal>() else {
                return Ok(Completion::default());
            };
            let source = request
                .source
                .or_else(|| request.template.and_then(template_source));
            let (db, org) = (&self.state.db, &principal.organization_id);
            let found = match source {
                Some("customers") if principal.scopes.contains("customers:read") => {
                    customers::complete(db, org, request.value, 100).await
                }
                Some("charges") if principal.scopes.contains("charges:read") => {
                    charges::complete(db, org, request.value, 100).await
                }
                Some("agreements") if principal.scopes.contains("agreements:read") => {
                    agreements::complete(db, org, request.value, 100).await
                }
                Some("disputes") if principal.scopes.contains("disputes:read") => {
                    disputes::complete(db, org, request.value, 100).await
                }
                Some("exports") if principal.scopes.contains("exports:read") => {
                    exports::complete_ids(db, org, request.value, 100).await
                }
                _ => return Ok(Completion::default()),
            };
            let (values, total) = found.map_err(|e| e.to_string())?;
            Ok(Completion {
                values,
                total: usize::try_from(total).unwrap_or(0),
            })
        })
    }
}

/// Toolset names given on the command line (`--mcp-toolsets`, `token create --toolsets`),
/// each one of the catalog's; `all`, or none, is no limit.
pub fn checked_toolsets(names: &[String], flag: &str) -> Result<Option<Vec<String>>, String> {
    let names: Vec<String> = names
        .iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() || names.iter().any(|n| n == mcpgen_axum::toolsets::ALL) {
        return Ok(None);
    }
    let known: Vec<&str> = crate::generated::CATALOG
        .toolsets
        .iter()
        .map(|t| t.name)
        .collect();
    match names.iter().find(|n| !known.contains(&n.as_str())) {
        Some(unknown) => Err(format!(
            "{flag} names `{unknown}`, which is no toolset: the toolsets are {}",
            known.join(", ")
        )),
        None => Ok(Some(names)),
    }
}

/// The MCP layer's caller for a principal, which travels in its extensions.
fn caller(principal: Principal) -> Caller {
    // The MCP layer answers with its own response, so the organization reaches the access
    // line this way rather than as a response extension (as on `/v1`).
    crate::ops::access_log::note_organization(&principal.organization_id);
    let mut extensions = http::Extensions::new();
    let subject = principal.token_id.clone();
    let scopes = principal.scopes.clone();
    let toolsets = mcpgen_axum::toolsets::Toolsets {
        bound: principal
            .toolsets
            .as_ref()
            .map(|names| names.iter().cloned().collect()),
        default: roles::default_toolsets(&principal.role)
            .map(|names| names.iter().map(|n| n.to_string()).collect()),
        discovery: principal.discovery,
    };
    extensions.insert(principal);
    Caller {
        subject,
        scopes,
        toolsets,
        extensions,
    }
}

/// Which records complete the `{id}` of a resource template.
fn template_source(template: &str) -> Option<&'static str> {
    if template.contains("/customers/{") {
        Some("customers")
    } else if template.contains("/charges/{") {
        Some("charges")
    } else if template.contains("/agreements/{") {
        Some("agreements")
    } else if template.contains("/disputes/{") {
        Some("disputes")
    } else if template.contains("/exports/{") {
        Some("exports")
    } else {
        None
    }
}
