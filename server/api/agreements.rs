//! `/v1/agreements`: renegotiation agreements (acordos) of a customer's open charges into a
//! down payment and monthly instalments. The handlers read the request and answer; proposing,
//! accepting and canceling are `dunning_app::agreements`, shared with the engine.

use super::answers::words::Word;
use axum::extract::Path;
use http::{HeaderMap, StatusCode};
use sqlx::AnyConnection;

use super::answers::refused::answered;
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::commit_written;
use super::steps::server_rules::{Rules, distinct};
use super::steps::typed_input::{Body, NoBody, Query};
use crate::generated::models::{
    AgreementAutomaticPixEndedBy as EndedBy, agreements_accept, agreements_automatic_pix,
    agreements_automatic_pix_cancel, agreements_cancel, agreements_create, agreements_get,
    agreements_list, response,
};
use crate::http::problem::{ApiError, ApiResult};
use dunning_app::agreements::{self as app, Terms};
use dunning_app::automatic_pix as automatic_app;
use dunning_domain::money::Cents;
use dunning_store::agreements::{self as store, Agreement, AgreementFilter};
use dunning_store::automatic_pix::{AutomaticPixDetails, Journey, RetryPolicy};
use dunning_store::charges::{self};
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{customers, now_text, today};

pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<agreements_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let filter = AgreementFilter {
        customer_id: query.customer_id,
        status: query.status.map(|s| s.as_str().to_string()),
    };
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    let body = agreements_list::Response200 {
        data: rows.items.iter().map(view).collect(),
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

pub async fn get(
    Caller(state, p): Caller,
    Path(agreements_get::Path { id }): Path<agreements_get::Path>,
) -> ApiResult<Reply> {
    let agreement = find::<Agreement>(&state, &p, &id).await?;
    Ok(agreement_answer(StatusCode::OK, &agreement))
}

/// An agreement as the API shows it: money in reais, rates in percent.
fn view(a: &Agreement) -> response::Agreement<'_> {
    response::Agreement {
        id: &a.id,
        customer_id: &a.customer_id,
        charge_ids: &a.charge_ids,
        status: a.status.word(),
        total_amount: a.total_cents,
        down_payment: a.down_payment_cents,
        installments: a.installments,
        first_due_date: a.first_due_date.into(),
        discount_percent: a.discount_bp as f64 / 100.0,
        installments_schedule: a
            .installments_schedule
            .iter()
            .map(|i| response::AgreementInstallment {
                number: i.number,
                amount: i.amount_cents,
                due_date: i.due_date.into(),
                charge_id: i.charge_id.as_deref(),
            })
            .collect(),
        note: a.note.as_deref(),
        cancel_reason: a.cancel_reason.as_deref(),
        accepted_at: a.accepted_at,
        canceled_at: a.canceled_at,
        automatic_pix: a.automatic_pix.as_ref().map(automatic_view),
        created_at: a.created_at,
        updated_at: a.updated_at,
    }
}

/// An agreement's Pix Automático and its debits as the API shows them.
fn automatic_view(details: &AutomaticPixDetails) -> response::AgreementAutomaticPix<'_> {
    let r = &details.request;
    response::AgreementAutomaticPix {
        id: &r.id,
        status: r.status.word(),
        journey: r.journey.word(),
        retry_policy: r.retry_policy.word(),
        qr_code: r.qr_code.as_deref(),
        rec_id: r.rec_id.as_deref(),
        authorized_at: r.authorized_at,
        ended_at: r.ended_at,
        ended_by: r.ended_by.as_deref().and_then(EndedBy::from_word),
        end_code: r.end_code.as_deref(),
        end_reason: r.end_reason.as_deref(),
        error: r.last_error.as_deref(),
        debits: details
            .debits
            .iter()
            .map(|d| response::AgreementAutomaticPixDebit {
                charge_id: &d.charge_id,
                due_date: d.due_date.into(),
                amount: d.amount_cents,
                status: d.status.word(),
                end_code: d.end_code.as_deref(),
                end_reason: d.end_reason.as_deref(),
            })
            .collect(),
        created_at: r.created_at,
    }
}

/// An agreement with its ETag, answered with `status`.
fn agreement_answer(status: StatusCode, agreement: &Agreement) -> Reply {
    let body = response::AgreementResponse {
        data: view(agreement),
    };
    answer(status, &body, Some(agreement.version))
}

/// `POST /v1/agreements`: a proposal. Nothing changes on the charges until it is accepted.
pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<agreements_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let first_due_date = rules.due_date("first_due_date", body.first_due_date);
    if first_due_date.is_some_and(|date| date < today()) {
        rules.error(
            "first_due_date",
            "range",
            "Must be today or later (YYYY-MM-DD)",
        );
    }
    let discount_bp = match body.discount_percent {
        Some(value) => match Cents::from_reais(value) {
            Some(bp) => bp.0,
            None => {
                rules.error(
                    "discount_percent",
                    "multiple_of",
                    "Must have at most two decimals",
                );
                0
            }
        },
        None => 0,
    };
    let note = body.note.filter(|n| !n.is_empty());
    let (customer_id, charge_ids) = (body.customer_id, distinct(body.charge_ids));

    // Which charges exist and whose they are is an input problem (400); what state they are
    // in is a conflict (409), checked below inside the transaction.
    let customer_known = customers::get(&state.db, &p.organization_id, &customer_id)
        .await?
        .is_some();
    if !customer_known {
        rules.error(
            "customer_id",
            "not_found",
            format!("No customer with id '{customer_id}' in this organization"),
        );
    }
    for (i, charge_id) in charge_ids.iter().enumerate() {
        match charges::get(&state.db, &p.organization_id, charge_id).await? {
            None => rules.error(
                &format!("charge_ids[{i}]"),
                "not_found",
                format!("No charge with id '{charge_id}' in this organization"),
            ),
            Some(charge) => {
                if customer_known && charge.customer_id != customer_id {
                    rules.error(
                        &format!("charge_ids[{i}]"),
                        "customer_mismatch",
                        format!("Charge {charge_id} belongs to another customer"),
                    );
                }
            }
        }
    }
    rules.finish()?;
    let Some(first_due_date) = first_due_date else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let (down_payment, installments) = (body.down_payment.unwrap_or(Cents(0)), body.installments);

    let terms = Terms {
        customer_id,
        charge_ids,
        down_payment,
        installments,
        first_due_date,
        discount_bp,
        note,
    };
    let (db, p, org, terms) = (&state.db, &p, p.organization_id.as_str(), &terms);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let id = app::propose(&mut transaction, org, &p.actor(), terms, &now_text())
            .await
            .map_err(answered)?;
        let agreement = store::get_in(&mut transaction, org, &id).await?;
        commit_written(agreement, "agreement", transaction, |a| {
            agreement_answer(StatusCode::CREATED, &a)
        })
        .await
    })
    .await
}

/// `POST /v1/agreements/{id}/accept`: the originals go `in_agreement` and one charge is
/// created per schedule entry, all in one transaction.
pub async fn accept(
    Caller(state, p): Caller,
    Path(agreements_accept::Path { id }): Path<agreements_accept::Path>,
    headers: HeaderMap,
    NoBody: NoBody,
) -> ApiResult<Reply> {
    let (db, p, org, id, headers) = (&state.db, &p, p.organization_id.as_str(), &id, &headers);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        app::accept(&mut transaction, org, &p.actor(), &agreement, &now_text())
            .await
            .map_err(answered)?;
        let agreement = store::get_in(&mut transaction, org, id).await?;
        commit_written(agreement, "agreement", transaction, |a| {
            agreement_answer(StatusCode::OK, &a)
        })
        .await
    })
    .await
}

/// Lock agreement `id` and read it; 404 when there is none, 412 when `If-Match` names
/// another version than the one stored.
async fn locked(
    tx: &mut AnyConnection,
    org: &str,
    id: &str,
    headers: &HeaderMap,
) -> Result<Agreement, Failure<ApiError>> {
    locks::lock(tx, Table::Agreements, org, id).await?;
    let agreement = store::get_in(tx, org, id)
        .await?
        .ok_or_else(|| Failure::Refused(ApiError::not_found("agreement", id)))?;
    check_if_match(headers, agreement.version).map_err(Failure::Refused)?;
    Ok(agreement)
}

/// `POST /v1/agreements/{id}/cancel`: a proposal just closes; an accepted agreement is
/// unwound (see `store::agreements::unwind`).
pub async fn cancel(
    Caller(state, p): Caller,
    Path(agreements_cancel::Path { id }): Path<agreements_cancel::Path>,
    headers: HeaderMap,
    Body(body): Body<agreements_cancel::Body>,
) -> ApiResult<Reply> {
    let reason = body.reason.filter(|r| !r.is_empty());
    let (db, p, org, id, headers, reason) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &reason,
    );
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        let (actor, today) = (p.actor(), today());
        app::cancel(
            &mut transaction,
            org,
            &actor,
            &agreement,
            reason.as_deref(),
            today,
            &now_text(),
        )
        .await
        .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, id).await?,
            "agreement",
            transaction,
            |agreement| agreement_answer(StatusCode::OK, &agreement),
        )
        .await
    })
    .await
}

/// `POST /v1/agreements/{id}/automatic_pix`: Pix Automático asked for (the engine takes it to
/// the PSP once the agreement is accepted).
pub async fn automatic_pix(
    Caller(state, p): Caller,
    Path(agreements_automatic_pix::Path { id }): Path<agreements_automatic_pix::Path>,
    headers: HeaderMap,
    Body(body): Body<agreements_automatic_pix::Body>,
) -> ApiResult<Reply> {
    let journey = body.journey.map_or(Journey::Qr, Word::word);
    let retry_policy = body.retry_policy.map_or(RetryPolicy::None, Word::word);
    let (db, p, org, id, headers) = (&state.db, &p, p.organization_id.as_str(), &id, &headers);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        let (actor, now) = (p.actor(), now_text());
        automatic_app::request(
            &mut transaction,
            org,
            &actor,
            &agreement,
            journey,
            retry_policy,
            &now,
        )
        .await
        .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, id).await?,
            "agreement",
            transaction,
            |agreement| agreement_answer(StatusCode::OK, &agreement),
        )
        .await
    })
    .await
}

/// `POST /v1/agreements/{id}/automatic_pix/cancel`: the live Pix Automático canceled (at the
/// PSP by the engine, when it got there).
pub async fn automatic_pix_cancel(
    Caller(state, p): Caller,
    Path(agreements_automatic_pix_cancel::Path { id }): Path<agreements_automatic_pix_cancel::Path>,
    headers: HeaderMap,
    NoBody: NoBody,
) -> ApiResult<Reply> {
    let (db, p, org, id, headers) = (&state.db, &p, p.organization_id.as_str(), &id, &headers);
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let agreement = locked(&mut transaction, org, id, headers).await?;
        automatic_app::cancel(&mut transaction, org, &p.actor(), &agreement, &now_text())
            .await
            .map_err(answered)?;
        commit_written(
            store::get_in(&mut transaction, org, id).await?,
            "agreement",
            transaction,
            |agreement| agreement_answer(StatusCode::OK, &agreement),
        )
        .await
    })
    .await
}
