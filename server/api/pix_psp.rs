//! `/v1/pix/psp` and `/v1/pix/received`: the organization's connection to its PSP's API Pix
//! (set, read without secrets, test, remove), the Pix the PSP reported with their devoluções,
//! and a devolução asked for (`dunning_app::pix_refunds::request`). The engine's Pix worker
//! (`dunning_engine::pix`) does the rest: cobvs, the webhook, the sweep, the devoluções at the
//! PSP; the callback endpoint is `crate::pix_webhook`.
//!
//! The secrets are checked and sealed by `dunning_engine::pix::connect` (the CLI's `pix
//! connect` does the same) and no answer carries them, sealed or not: the view is built from
//! `store::pix_psp::Connection`, which has none.

use super::answers::words::Word;
use axum::response::IntoResponse;
use http::StatusCode;
use serde::Deserialize;

use super::answers::reply::{Reply, answer, page_meta, page_request};
use super::steps::caller::Caller;
use super::steps::idempotency::{commit, commit_read};
use super::steps::typed_input::{Body, NoBody, Query};
use crate::generated::models::{
    PixPspConnectionAutomaticPixAccountType as PixPspAccountType,
    PixPspConnectionLastTestWebhookState as WebhookState, PixReceivedReason, PixReceivedSource,
    PixRefundNature, PixRefundRequestedBy, pix_psp_get, pix_psp_set, pix_psp_test,
    pix_received_list, pix_received_refund, response,
};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_app::pix_refunds::{self as refunds_app, is_med};
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;
use dunning_engine::pix::connect::{self, ConnectionInput};
use dunning_engine::pix::{self, TestOutcome, WebhookAtPsp};
use dunning_store::now_text;
use dunning_store::pix_psp::{self as store, Connection, Received, ReceivedStatus};
use dunning_store::pix_refunds::{self as refunds, Refund, RefundStatus};

/// 404 when the organization has no connection.
fn none() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "This organization has no PSP connection; set one with pix_psp_set (PUT /v1/pix/psp)",
    )
}

/// A test as kept with the connection (the answer of `pix_psp_test`, read back).
#[derive(Debug, Deserialize)]
struct KeptTest {
    ok: bool,
    tested_at: Timestamp,
    token: KeptStep,
    webhook: KeptWebhook,
}

#[derive(Debug, Deserialize)]
struct KeptStep {
    ok: bool,
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct KeptWebhook {
    state: String,
    error: Option<String>,
}

fn test_view(t: &KeptTest) -> ApiResult<response::PixPspConnectionLastTest<'_>> {
    let state = WebhookState::from_word(&t.webhook.state).ok_or_else(|| {
        ApiError::internal(format!(
            "a kept PSP test has webhook state '{}'",
            t.webhook.state
        ))
    })?;
    Ok(response::PixPspConnectionLastTest {
        ok: t.ok,
        tested_at: t.tested_at,
        token: response::PixPspConnectionLastTestToken {
            ok: t.token.ok,
            error: t.token.error.as_deref(),
        },
        webhook: response::PixPspConnectionLastTestWebhook {
            state,
            error: t.webhook.error.as_deref(),
        },
    })
}

/// The connection as the API shows it: no secret.
fn view<'a>(
    c: &'a Connection,
    test: Option<&'a KeptTest>,
) -> ApiResult<response::PixPspConnection<'a>> {
    Ok(response::PixPspConnection {
        api_url: &c.api_url,
        token_url: &c.token_url,
        client_id: &c.client_id,
        webhook: response::PixPspConnectionWebhook {
            registered: c.webhook_key.is_some(),
            key: c.webhook_key.as_deref(),
            registered_at: c.webhook_registered_at,
            error: c.webhook_error.as_deref(),
        },
        sweep: response::PixPspConnectionSweep {
            swept_at: c.swept_at,
            error: c.sweep_error.as_deref(),
        },
        last_test: test.map(test_view).transpose()?,
        automatic_pix: response::PixPspConnectionAutomaticPix {
            account: account_view(c)?,
            webhooks_registered_at: c.automatic_webhooks_at,
            webhooks_error: c.automatic_webhooks_error.as_deref(),
        },
        configured_at: c.configured_at,
        updated_at: c.updated_at,
    })
}

/// The account Pix Automático debits into, when one is set.
fn account_view(
    c: &Connection,
) -> ApiResult<Option<response::PixPspConnectionAutomaticPixAccount<'_>>> {
    let (Some(number), Some(kind)) = (&c.account_number, &c.account_type) else {
        return Ok(None);
    };
    let kind = PixPspAccountType::from_word(kind)
        .ok_or_else(|| ApiError::internal(format!("a stored account type '{kind}'")))?;
    Ok(Some(response::PixPspConnectionAutomaticPixAccount {
        branch: c.account_branch.as_deref(),
        number,
        r#type: kind,
    }))
}

/// The kept test of a connection, read back.
fn kept_test(c: &Connection) -> ApiResult<Option<KeptTest>> {
    c.last_test_result
        .clone()
        .map(|value| {
            serde_json::from_value(value)
                .map_err(|e| ApiError::internal(format!("a kept PSP test does not read: {e}")))
        })
        .transpose()
}

/// The 200 answer with the connection.
fn connection_answer(c: Connection) -> Reply {
    let test = match kept_test(&c) {
        Ok(test) => test,
        Err(e) => return e.into_response(),
    };
    match view(&c, test.as_ref()) {
        Ok(data) => answer(
            StatusCode::OK,
            &pix_psp_get::Response200 { data },
            Some(c.version),
        ),
        Err(e) => e.into_response(),
    }
}

/// `GET /v1/pix/psp`.
pub async fn get(Caller(state, p): Caller) -> ApiResult<Reply> {
    let c = store::get(&state.db, &p.organization_id)
        .await?
        .ok_or_else(none)?;
    Ok(connection_answer(c))
}

/// `PUT /v1/pix/psp`: check, seal, store; the worker registers the webhook and makes the
/// cobvs.
pub async fn set(
    Caller(state, p): Caller,
    Body(body): Body<pix_psp_set::Body>,
) -> ApiResult<Reply> {
    let org = &p.organization_id;
    let existing = store::get(&state.db, org).await?;
    let prepared = connect::prepare(
        &state.engine.settings.pix,
        org,
        existing.as_ref().map(|c| c.id.as_str()),
        &ConnectionInput {
            api_url: &body.api_url,
            token_url: body.token_url.as_deref(),
            client_id: &body.client_id,
            client_secret: &body.client_secret,
            certificate_pem: &body.certificate,
            private_key_pem: &body.private_key,
        },
    )
    .map_err(|faults| {
        let errors: Vec<FieldError> = faults
            .iter()
            .map(|f| FieldError::new(f.field, f.code, f.message.clone()))
            .collect();
        match faults.iter().find(|f| f.forbidden) {
            Some(forbidden) => ApiError {
                errors,
                ..ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "psp_target_forbidden",
                    format!("{}: {}", forbidden.field, forbidden.message),
                )
            },
            None => ApiError::validation(errors),
        }
    })?;
    let mut tx = state.db.begin().await?;
    dunning_app::pix_received::connect(&mut tx, org, &prepared.row(), &p.actor()).await?;
    // A connection set again without an account has none: what was sent is what is set.
    let account = body.automatic_pix_account.as_ref().map(|a| store::Account {
        branch: a.branch.as_deref(),
        number: &a.number,
        kind: a.r#type.as_str(),
    });
    dunning_app::automatic_pix::set_account(&mut tx, org, account, &now_text()).await?;
    let written = store::get_in(&mut tx, org).await?;
    commit_read(written, "PSP connection", tx, connection_answer).await
}

/// `DELETE /v1/pix/psp`.
pub async fn delete(Caller(state, p): Caller) -> ApiResult<Reply> {
    let mut tx = state.db.begin().await?;
    if !dunning_app::pix_received::disconnect(&mut tx, &p.organization_id, &p.actor()).await? {
        return Err(none());
    }
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}

/// `POST /v1/pix/psp/test`: a token over mTLS, then the webhook of the organization's key;
/// the answer is kept with the connection.
pub async fn test(Caller(state, p): Caller, _: NoBody) -> ApiResult<Reply> {
    let org = &p.organization_id;
    store::get(&state.db, org).await?.ok_or_else(none)?;
    let outcome = pix::test(&state.engine, org).await?.ok_or_else(none)?;
    let tested_at = Timestamp::now();
    let TestOutcome { token, webhook } = &outcome;
    let (webhook_state, webhook_error) = match webhook {
        Some(Ok(WebhookAtPsp::Ours)) => (WebhookState::Ours, None),
        Some(Ok(WebhookAtPsp::Other)) => (WebhookState::Other, None),
        Some(Ok(WebhookAtPsp::Missing)) => (WebhookState::Missing, None),
        Some(Err(e)) => (WebhookState::Unknown, Some(e.as_str())),
        None if token.is_ok() => (
            WebhookState::Unknown,
            Some("the organization has no Pix key (PUT /v1/pix/settings)"),
        ),
        None => (WebhookState::Unknown, None),
    };
    let data = response::PixPspConnectionLastTest {
        ok: token.is_ok() && webhook_state == WebhookState::Ours,
        tested_at,
        token: response::PixPspConnectionLastTestToken {
            ok: token.is_ok(),
            error: token.as_ref().err().map(String::as_str),
        },
        webhook: response::PixPspConnectionLastTestWebhook {
            state: webhook_state,
            error: webhook_error,
        },
    };
    let kept = serde_json::to_value(&data)
        .map_err(|e| ApiError::internal(format!("a PSP test does not serialize: {e}")))?;
    let mut tx = state.db.begin().await?;
    if !dunning_app::pix_received::record_test(&mut tx, org, &kept, &p.actor(), &now_text()).await?
    {
        return Err(none());
    }
    let body = pix_psp_test::Response200 { data };
    commit(tx, answer(StatusCode::OK, &body, None)).await
}

/// A devolução as the API shows it. Its nature and who asked are stored as text: a word the
/// document does not list is our own fault.
fn refund_view(r: &Refund) -> ApiResult<response::PixRefund<'_>> {
    let unlisted =
        |what: &str, word: &str| ApiError::internal(format!("refund {} has {what} '{word}'", r.id));
    Ok(response::PixRefund {
        id: &r.id,
        refund_id: &r.refund_id,
        amount: r.amount_cents,
        nature: PixRefundNature::from_word(&r.nature)
            .ok_or_else(|| unlisted("nature", &r.nature))?,
        med: is_med(&r.nature),
        status: r.status.word(),
        reason: r.reason.as_deref(),
        requested_by: PixRefundRequestedBy::from_word(&r.requested_by)
            .ok_or_else(|| unlisted("requested_by", &r.requested_by))?,
        reversed_payment_id: r.reversed_payment_id.as_deref(),
        reversed_amount: r.reversed_cents,
        created_at: r.created_at,
        updated_at: r.updated_at,
    })
}

/// A Pix received as the API shows it, with `refunds` (its devoluções, of any Pix). Reasons
/// and sources are stored as text: a word the document does not list is our own fault.
fn received_view<'a>(
    r: &'a Received,
    refunds: &'a [Refund],
) -> ApiResult<response::PixReceived<'a>> {
    let mine: Vec<&Refund> = refunds.iter().filter(|f| f.received_id == r.id).collect();
    let refunded = mine
        .iter()
        .filter(|f| f.status == RefundStatus::Returned)
        .map(|f| f.amount_cents.0)
        .sum();
    let reason = r
        .reason
        .as_deref()
        .map(|reason| {
            PixReceivedReason::from_word(reason).ok_or_else(|| {
                ApiError::internal(format!("pix received {} has reason '{reason}'", r.id))
            })
        })
        .transpose()?;
    let source = PixReceivedSource::from_word(&r.source).ok_or_else(|| {
        ApiError::internal(format!("pix received {} has source '{}'", r.id, r.source))
    })?;
    Ok(response::PixReceived {
        id: &r.id,
        end_to_end_id: &r.end_to_end_id,
        txid: r.txid.as_deref(),
        amount: r.amount_cents,
        paid_at: r.paid_at,
        payer_info: r.payer_info.as_deref(),
        payer_name: r.payer_name.as_deref(),
        payer_document: r.payer_document.as_deref(),
        status: r.status.word(),
        reason,
        detail: r.detail.as_deref(),
        charge_id: r.charge_id.as_deref(),
        payment_id: r.payment_id.as_deref(),
        source,
        received_at: r.received_at,
        refunded_amount: Cents(refunded),
        refunds: mine
            .into_iter()
            .map(refund_view)
            .collect::<ApiResult<_>>()?,
    })
}

/// `GET /v1/pix/received`.
pub async fn received(
    Caller(state, p): Caller,
    Query(query): Query<pix_received_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let status = query.status.map(|s| match s {
        pix_received_list::Status::Applied => ReceivedStatus::Applied,
        pix_received_list::Status::Review => ReceivedStatus::Review,
        pix_received_list::Status::Refunded => ReceivedStatus::Refunded,
    });
    let rows = store::list_received(&state.db, &p.organization_id, status, page).await?;
    let ids: Vec<&str> = rows.items.iter().map(|r| r.id.as_str()).collect();
    let found = refunds::of_received(&state.db, &p.organization_id, &ids).await?;
    let body = pix_received_list::Response200 {
        data: rows
            .items
            .iter()
            .map(|r| received_view(r, &found))
            .collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// `POST /v1/pix/received/{id}/refund`: the devolução recorded as `requested` (the Pix worker
/// asks the PSP), 202 with it.
pub async fn refund(
    Caller(state, p): Caller,
    axum::extract::Path(pix_received_refund::Path { id }): axum::extract::Path<
        pix_received_refund::Path,
    >,
    Body(body): Body<pix_received_refund::Body>,
) -> ApiResult<Reply> {
    let org = p.organization_id.as_str();
    let mut tx = state.db.begin().await?;
    let requested = refunds_app::request(
        &mut tx,
        org,
        &id,
        body.amount,
        body.description.as_deref(),
        &p.actor(),
        &now_text(),
    )
    .await
    .map_err(|failure| match failure {
        dunning_store::retry::Failure::Refused(refused) => ApiError::from(refused),
        dunning_store::retry::Failure::Store(e) => ApiError::from(e),
    })?;
    // Asked after the Pix was found (404 first): without a connection nobody can return it.
    if store::get(&state.db, org).await?.is_none() {
        return Err(ApiError::conflict(
            "pix_psp_not_connected",
            "A devolução goes through the organization's PSP; set a connection with pix_psp_set first",
        ));
    }
    let body = response::PixRefundResponse {
        data: refund_view(&requested)?,
    };
    commit(tx, answer(StatusCode::ACCEPTED, &body, None)).await
}
