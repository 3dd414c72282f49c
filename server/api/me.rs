//! `GET /v1/me`: who this token is.

use serde_json::json;

use super::caller::Caller;
use super::reply::{Reply, data};
use crate::auth::roles;

pub async fn me(Caller(_, principal): Caller) -> Reply {
    data(json!({
        "organization": { "id": principal.organization_id, "name": principal.organization_name },
        "person": {
            "id": principal.person_id,
            "name": principal.person_name,
            "email": principal.person_email,
            "role": principal.role,
        },
        "token": {
            "id": principal.token_id,
            "audience": principal.audience.as_str(),
            "scopes": principal.token_scopes,
        },
        "permissions": roles::permissions(&principal.role),
    }))
}
