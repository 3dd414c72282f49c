//! `/v1/pix/settings` (the organization's Pix key, set by admins) and
//! `/v1/charges/{id}/pix` (the code that pays a charge now, with its QR code as SVG), over
//! `dunning_app::pix`.

use super::answers::words::Word;
use axum::extract::Path;
use http::StatusCode;

use super::answers::reply::{Reply, answer};
use super::charge_actions::refused;
use super::steps::caller::{Caller, find};
use super::steps::idempotency::commit_read;
use super::steps::typed_input::Body;
use crate::generated::models::{charges_pix, pix_settings_update, response};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_app::pix as app;
use dunning_app::refusals;
use dunning_domain::pix::qr::QrCode;
use dunning_domain::pix::{Fault, PixSettings};
use dunning_store::charges::Charge;
use dunning_store::pix::{self as store, StoredSettings};
use dunning_store::today;

/// `GET /v1/charges/{id}/pix`: the charge's code, 409 when it has none.
pub async fn charge_pix(
    Caller(state, p): Caller,
    Path(charges_pix::Path { id }): Path<charges_pix::Path>,
) -> ApiResult<Reply> {
    let charge = find::<Charge>(&state, &p, &id).await?;
    let stored = store::get(&state.db, &p.organization_id).await?;
    let settings = stored.as_ref().map(|s| &s.settings);
    let code = app::code_for(&charge, settings, today())?.map_err(refused)?;
    let qr = QrCode::encode(&code.payload)
        .ok_or_else(|| ApiError::internal(format!("the Pix code of {id} fits no QR code")))?;
    let body = charges_pix::Response200 {
        data: response::ChargePix {
            charge_id: &charge.id,
            source: code.source.word(),
            payload: &code.payload,
            txid: code.txid.as_deref(),
            amount: code.amount,
            qr_svg: &qr.svg(),
        },
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// `GET /v1/pix/settings`: 404 `pix_not_configured` before a key was set.
pub async fn settings_get(Caller(state, p): Caller) -> ApiResult<Reply> {
    let stored = store::get(&state.db, &p.organization_id)
        .await?
        .ok_or_else(not_configured)?;
    Ok(settings_answer(&stored))
}

/// `PUT /v1/pix/settings`: the key checked (check digits, e-mail, +55 mobile, UUID), name and
/// city made what a BR Code carries; every refused field named in one 400.
pub async fn settings_update(
    Caller(state, p): Caller,
    Body(body): Body<pix_settings_update::Body>,
) -> ApiResult<Reply> {
    let settings = PixSettings::new(&body.key, &body.merchant_name, &body.merchant_city)
        .map_err(|faults| ApiError::validation(faults.iter().map(field_error).collect()))?;
    let mut tx = state.db.begin().await?;
    let stored = app::set_settings(&mut tx, &p.organization_id, &settings, &p.actor()).await?;
    commit_read(Some(stored), "pix settings", tx, |stored| {
        settings_answer(&stored)
    })
    .await
}

/// A refused field of the setup as the document names its code.
fn field_error(fault: &Fault) -> FieldError {
    let code = match fault.field {
        "key" => "invalid_pix_key",
        _ => "unsupported_characters",
    };
    FieldError::new(fault.field, code, &fault.message)
}

fn not_configured() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        refusals::PIX_NOT_CONFIGURED,
        "The organization has no Pix key; set one with pix_settings_update",
    )
}

/// The setup as the API shows it (both operations answer it).
fn settings_answer(stored: &StoredSettings) -> Reply {
    let s = &stored.settings;
    let body = response::PixSettingsResponse {
        data: response::PixSettings {
            key: s.key.as_str(),
            key_type: s.key.kind().word(),
            merchant_name: &s.merchant_name,
            merchant_city: &s.merchant_city,
            updated_at: stored.updated_at,
        },
    };
    answer(StatusCode::OK, &body, None)
}
