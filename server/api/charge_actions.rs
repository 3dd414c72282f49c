//! What the actions on a charge share, from the handlers of `collection` (pay, notify,
//! negativate, protest) and of `deliveries` (resend): the charge locked for the action, the
//! action's context, a rule's refusal as a 409, and a queued delivery as the answer.

use axum::http::HeaderMap;

use super::answers::reply::{Reply, check_if_match};
use super::answers::wire;
use super::steps::idempotency::commit_read;
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use dunning_app::collection::{ActionContext, Outcome};
use dunning_domain::collection::Refusal;
use dunning_store::charges::{self, Charge};
use dunning_store::deliveries;
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::retry::Failure;
use dunning_store::{Connection, Transaction};

/// A rule's refusal as a 409 problem.
pub(super) fn refused(refusal: Refusal) -> ApiError {
    ApiError::conflict(refusal.code, refusal.detail)
}

/// Lock charge `id` and read it inside the transaction; 404 when there is none, 412 when
/// `If-Match` names another version than the one stored.
pub(super) async fn locked_charge(
    tx: &mut Connection,
    org: &str,
    id: &str,
    headers: &HeaderMap,
) -> Result<Charge, Failure<ApiError>> {
    locks::lock(tx, Table::Charges, org, id).await?;
    let charge = charges::get_in(tx, org, id)
        .await?
        .ok_or_else(|| Failure::Refused(ApiError::not_found("charge", id)))?;
    check_if_match(headers, charge.version).map_err(Failure::Refused)?;
    Ok(charge)
}

/// The transaction and the action's result when it was done (the caller replies and commits),
/// or its refusal with nothing written.
pub(super) async fn settle<T>(tx: Transaction, outcome: Outcome<T>) -> ApiResult<(Transaction, T)> {
    match outcome {
        Ok(value) => Ok((tx, value)),
        Err(refusal) => {
            tx.rollback().await?;
            Err(refused(refusal))
        }
    }
}

/// End an action that queued delivery `id`: 202 with the delivery (read back inside `tx`),
/// committed with that answer.
pub(super) async fn commit_delivery(mut tx: Transaction, org: &str, id: &str) -> ApiResult<Reply> {
    let delivery = deliveries::get_in(&mut tx, org, id).await?;
    commit_read(delivery, "delivery", tx, wire::delivery_accepted).await
}

/// The context of an action the caller asks for on charge `id`, now.
pub(super) fn action_context<'a>(
    p: &'a Principal,
    id: &'a str,
    version: Option<i64>,
    actor: &'a Actor,
) -> ActionContext<'a> {
    ActionContext {
        organization_id: &p.organization_id,
        charge_id: id,
        version,
        actor,
        now: dunning_domain::timestamp::now(),
    }
}
