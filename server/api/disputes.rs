//! `/v1/disputes`: debtors' contestations of charges. Opening one pauses the charge's
//! collection (its `open_dispute_id`); resolving it cancels the charge (upheld) or resumes
//! collection (rejected).

use super::answers::words::Word;
use axum::extract::Path;
use axum::response::IntoResponse;
use http::{HeaderMap, StatusCode};

use super::answers::refused::answered;
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::commit_written;
use super::steps::server_rules::Rules;
use super::steps::typed_input::{Body, Query};
use crate::generated::models::{
    DisputeReason, disputes_create, disputes_get, disputes_list, disputes_resolve, response,
};
use crate::http::problem::{ApiError, ApiResult};
use dunning_app::disputes::{self as app, Contest};
use dunning_store::disputes::{self as store, Dispute, DisputeFilter};
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{charges, now_text};

pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<disputes_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let filter = DisputeFilter {
        charge_id: query.charge_id,
        customer_id: query.customer_id,
        status: query.status.map(|s| s.as_str().to_string()),
    };
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    let body = disputes_list::Response200 {
        data: rows.items.iter().map(view).collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

pub async fn get(
    Caller(state, p): Caller,
    Path(disputes_get::Path { id }): Path<disputes_get::Path>,
) -> ApiResult<Reply> {
    let dispute = find::<Dispute>(&state, &p, &id).await?;
    Ok(dispute_answer(StatusCode::OK, &dispute))
}

/// A dispute as the API shows it.
fn view(d: &Dispute) -> ApiResult<response::Dispute<'_>> {
    Ok(response::Dispute {
        id: &d.id,
        charge_id: &d.charge_id,
        customer_id: &d.customer_id,
        reason: DisputeReason::from_word(&d.reason)
            .ok_or_else(|| ApiError::internal(format!("stored dispute reason '{}'", d.reason)))?,
        description: d.description.as_deref(),
        status: d.status.word(),
        resolution_note: d.resolution_note.as_deref(),
        resolved_at: d.resolved_at,
        created_at: d.created_at,
        updated_at: d.updated_at,
    })
}

/// A dispute with its ETag, answered with `status` (a stored word the document does not
/// list is our own fault: a 500, logged).
fn dispute_answer(status: StatusCode, dispute: &Dispute) -> Reply {
    match view(dispute) {
        Ok(data) => answer(
            status,
            &response::DisputeResponse { data },
            Some(dispute.version),
        ),
        Err(problem) => problem.into_response(),
    }
}

/// `POST /v1/disputes`: the debtor contests an open charge; its collection pauses.
pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<disputes_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let charge = charges::get(&state.db, &p.organization_id, &body.charge_id).await?;
    if charge.is_none() {
        rules.error(
            "charge_id",
            "not_found",
            format!(
                "No charge with id '{}' in this organization",
                body.charge_id
            ),
        );
    }
    rules.finish()?;
    let Some(charge) = charge else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let description = body.description.filter(|d| !d.is_empty());
    let (db, p, org, description) = (&state.db, &p, p.organization_id.as_str(), &description);
    let contest = Contest {
        charge_id: &charge.id,
        reason: body.reason.as_str(),
        description: description.as_deref(),
    };
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let id = app::open(&mut transaction, org, &p.actor(), contest, &now_text())
            .await
            .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, &id).await?,
            "dispute",
            transaction,
            |dispute| dispute_answer(StatusCode::CREATED, &dispute),
        )
        .await
    })
    .await
}

/// `POST /v1/disputes/{id}/resolve`: upheld cancels the charge (withdrawing negativation and
/// protest as a cancellation does); rejected resumes its collection.
pub async fn resolve(
    Caller(state, p): Caller,
    Path(disputes_resolve::Path { id }): Path<disputes_resolve::Path>,
    headers: HeaderMap,
    Body(body): Body<disputes_resolve::Body>,
) -> ApiResult<Reply> {
    let upheld = body.outcome == crate::generated::models::DisputeResolveOutcome::Upheld;
    let note = body.resolution_note.filter(|n| !n.is_empty());
    let (db, p, org, id, headers, note) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &note,
    );
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        locks::lock(tx, Table::Disputes, org, id).await?;
        let current = store::get_in(tx, org, id)
            .await?
            .ok_or_else(|| Failure::Refused(ApiError::not_found("dispute", id)))?;
        check_if_match(headers, current.version).map_err(Failure::Refused)?;
        app::resolve(
            tx,
            org,
            &p.actor(),
            &current,
            upheld,
            note.as_deref(),
            &now_text(),
        )
        .await
        .map_err(answered)?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "dispute",
            transaction,
            |dispute| dispute_answer(StatusCode::OK, &dispute),
        )
        .await
    })
    .await
}
