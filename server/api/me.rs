//! `GET /v1/me`: who this token is, and whether its organization's charges can be paid by Pix.

use super::answers::words::Word;
use http::StatusCode;

use super::answers::reply::{Reply, answer};
use super::steps::caller::Caller;
use crate::auth::roles;
use crate::generated::models::{MePersonRole, Scope, me, response};
use crate::http::problem::{ApiError, ApiResult};

pub async fn me(Caller(state, principal): Caller) -> ApiResult<Reply> {
    let role = MePersonRole::from_word(&principal.role)
        .ok_or_else(|| ApiError::internal(format!("unknown role '{}'", principal.role)))?;
    let token_scopes = scopes(principal.token_scopes.iter().map(String::as_str))?;
    let permissions = scopes(roles::permissions(&principal.role))?;
    let pix = dunning_app::pix::status(&state.db, &principal.organization_id).await?;
    let body = me::Response200 {
        data: response::Me {
            organization: response::MeOrganization {
                id: &principal.organization_id,
                name: &principal.organization_name,
            },
            person: response::MePerson {
                id: &principal.person_id,
                name: &principal.person_name,
                email: &principal.person_email,
                role,
            },
            token: response::MeToken {
                id: &principal.token_id,
                audience: principal.audience.word(),
                scopes: &token_scopes,
            },
            permissions: &permissions,
            pix: response::MePix {
                configured: pix.configured,
                key_type: pix.key_type.map(Word::word),
                dynamic: pix.dynamic,
            },
        },
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// Scope names as the document's: one it does not list is our own fault.
fn scopes<'a>(names: impl IntoIterator<Item = &'a str>) -> ApiResult<Vec<Scope>> {
    names
        .into_iter()
        .map(|name| {
            Scope::from_word(name)
                .ok_or_else(|| ApiError::internal(format!("unknown scope '{name}'")))
        })
        .collect()
}
