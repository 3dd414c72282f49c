//! The request context every `/v1` handler starts from: the application state and the
//! authenticated caller, whose organization scopes every query the handler runs.
//!
//! One extractor instead of `State` + `Extension<Principal>` in each handler: the
//! authentication middleware puts the `Principal` on the request before any handler runs.

use axum::extract::FromRequestParts;
use http::request::Parts;

use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_store::{self as store, Db};

/// Who calls, and with what: the application state and the authenticated principal, taken
/// apart as handlers take axum's extractors apart (`Caller(state, p): Caller`).
#[derive(Clone)]
pub struct Caller(pub AppState, pub Principal);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        // Missing only if a route escaped `authenticate_v1`: our own fault, never the caller's.
        let principal = parts
            .extensions
            .get::<Principal>()
            .cloned()
            .ok_or_else(|| {
                ApiError::internal("a /v1 handler ran without an authenticated caller")
            })?;
        Ok(Caller(state.clone(), principal))
    }
}

/// An object a `/v1` path names by id, read in the caller's organization.
pub trait Resource: Sized {
    /// How a 404 names it ("No {NAME} with id ...").
    const NAME: &'static str;

    /// The object, or `None` when the organization has none with this id.
    fn get(
        db: &Db,
        organization_id: &str,
        id: &str,
    ) -> impl Future<Output = store::Result<Option<Self>>> + Send;
}

/// `impl Resource` for each object: its name in problems and its store reader.
macro_rules! resources {
    ($($ty:ty => $name:literal, $get:path;)*) => {$(
        impl Resource for $ty {
            const NAME: &'static str = $name;

            fn get(
                db: &Db,
                organization_id: &str,
                id: &str,
            ) -> impl Future<Output = store::Result<Option<Self>>> + Send {
                $get(db, organization_id, id)
            }
        }
    )*};
}

resources! {
    store::agreements::Agreement => "agreement", store::agreements::get;
    store::charges::Charge => "charge", store::charges::get;
    store::customers::Customer => "customer", store::customers::get;
    store::deliveries::Delivery => "delivery", store::deliveries::get;
    store::disputes::Dispute => "dispute", store::disputes::get;
    store::exports::Export => "export", store::exports::get;
    store::plans::Plan => "collection plan", store::plans::get;
    store::webhooks::Webhook => "webhook", store::webhooks::get;
}

/// The object `id` names in the caller's organization, or the 404 problem naming it.
pub async fn find<T: Resource>(state: &AppState, p: &Principal, id: &str) -> ApiResult<T> {
    T::get(&state.db, &p.organization_id, id)
        .await?
        .ok_or_else(|| ApiError::not_found(T::NAME, id))
}
