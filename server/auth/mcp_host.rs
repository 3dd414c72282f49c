//! How the generic MCP layer learns who is calling: MCP tokens become a [`Principal`] that
//! travels into every in-process `/v1` dispatch.

use std::future::Future;
use std::pin::Pin;

use super::{Audience, Principal, tokens};
use crate::mcp::{AuthFailure, Caller, Host};
use crate::state::AppState;
use crate::store::orgs;

/// The [`Host`] for Kobana Dunning: checks tokens against the database.
pub struct McpAuthenticator {
    state: AppState,
}

impl McpAuthenticator {
    pub fn new(state: AppState) -> Self {
        McpAuthenticator { state }
    }
}

impl Host for McpAuthenticator {
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Caller, AuthFailure>> + Send + 'a>> {
        Box::pin(async move {
            let record = orgs::find_token(&self.state.db, &tokens::hash(token))
                .await
                .map_err(|e| AuthFailure::Internal(e.to_string()))?
                .ok_or(AuthFailure::InvalidToken("The token is unknown or revoked"))?;
            if Audience::parse(&record.audience) != Some(Audience::Mcp) {
                return Err(AuthFailure::InvalidToken(
                    "This token was issued for the REST API; the MCP endpoint needs a token with audience 'mcp'",
                ));
            }
            let principal = Principal::from_record(record, Audience::Mcp);
            let mut extensions = http::Extensions::new();
            let caller = Caller {
                subject: principal.token_id.clone(),
                scopes: principal.scopes.clone(),
                extensions: {
                    extensions.insert(principal);
                    extensions
                },
            };
            Ok(caller)
        })
    }

    fn all_scopes(&self) -> Vec<String> {
        super::roles::ALL_SCOPES
            .iter()
            .map(|s| s.to_string())
            .collect()
    }
}
