//! Pix: an organization's setup set (with its event), what `me` says about it, and the code
//! that pays a charge now — its dynamic code from the PSP when it has one, else the static
//! code of the organization's key for the amount due — which the API, the PDFs and the
//! notices all show.

use time::Date;

use dunning_domain::charge_math::amount_due;
use dunning_domain::collection::Refusal;
use dunning_domain::money::Cents;
use dunning_domain::pix::{KeyType, PixSettings, Source, brcode, static_txid};
use dunning_models::response::PixSettingsUpdatedData;
use dunning_store::charges::Charge;
use dunning_store::events::Actor;
use dunning_store::pix::{self as store, StoredSettings};
use dunning_store::{Connection, Db, Result, StoreError, now_text};

use crate::{events, refusals};

/// The code that pays a charge now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeCode {
    /// The BR Code ("Pix copia e cola").
    pub payload: String,
    pub source: Source,
    /// The txid the payment will carry, when the code names one (a dynamic code may carry
    /// `***`, its txid being kept at the PSP's location).
    pub txid: Option<String>,
    /// What is due on the day the code was made, as the charge math computes it.
    pub amount: Cents,
}

/// What `me` says about the organization's Pix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixStatus {
    pub configured: bool,
    pub key_type: Option<KeyType>,
    /// Whether open charges get dynamic codes from a PSP.
    pub dynamic: bool,
}

/// Set the organization's Pix setup and record `pix_settings.updated` (its key's type, name
/// and city: the key itself, a CPF, phone or e-mail, stays out of the audit trail).
pub async fn set_settings(
    conn: &mut Connection,
    organization_id: &str,
    settings: &PixSettings,
    actor: &Actor,
) -> Result<StoredSettings> {
    store::put(conn, organization_id, settings, &now_text()).await?;
    events::record(
        conn,
        organization_id,
        "pix_settings.updated",
        ("pix_settings", organization_id),
        actor,
        &PixSettingsUpdatedData {
            key_type: settings.key.kind().as_str(),
            merchant_name: &settings.merchant_name,
            merchant_city: &settings.merchant_city,
        },
    )
    .await?;
    store::get_in(conn, organization_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt("the pix settings just written are missing".into()))
}

/// The organization's Pix, as `me` shows it: two reads outside a transaction.
pub async fn status(db: &Db, organization_id: &str) -> Result<PixStatus> {
    // One statement (`/v1/me` asks on every call). The one place that says whether charges get
    // dynamic codes: the organization has a PSP connection (`pix connect`, `PUT
    // /v1/pix/psp`), whose worker makes them.
    let (key_type, dynamic) = store::status(db, organization_id).await?;
    Ok(PixStatus {
        configured: key_type.is_some(),
        key_type,
        dynamic,
    })
}

/// The code that pays `charge` on `today`: refused (`charge_not_open`) unless the charge is
/// pending or overdue; its dynamic code when the PSP gave it one; else the static code of
/// `settings`, refused (`pix_not_configured`) when the organization has none. A static code
/// the stored data cannot make is corrupt data.
pub fn code_for(
    charge: &Charge,
    settings: Option<&PixSettings>,
    today: Date,
) -> Result<std::result::Result<ChargeCode, Refusal>> {
    if !charge.is_open() {
        return Ok(Err(Refusal {
            code: refusals::CHARGE_NOT_OPEN,
            detail: format!(
                "Charge {} is {}; only a pending or overdue charge has a Pix code",
                charge.id, charge.status
            ),
        }));
    }
    let amount = amount_due(&charge.terms(), today);
    if let Some(payload) = &charge.pix_payload {
        let txid = brcode::parse(payload)
            .ok()
            .and_then(|code| code.sub(62, 5).map(str::to_string))
            .filter(|txid| txid != "***");
        return Ok(Ok(ChargeCode {
            payload: payload.clone(),
            source: Source::Dynamic,
            txid,
            amount,
        }));
    }
    let Some(settings) = settings else {
        return Ok(Err(Refusal {
            code: refusals::PIX_NOT_CONFIGURED,
            detail: "The organization has no Pix key; set one with pix_settings_update".into(),
        }));
    };
    let payload = settings
        .charge_code(&charge.id, amount)
        .map_err(|e| StoreError::Corrupt(format!("the Pix code of charge {}: {e}", charge.id)))?;
    Ok(Ok(ChargeCode {
        payload,
        source: Source::Static,
        txid: Some(static_txid(&charge.id)),
        amount,
    }))
}

/// The code of `charge` on `today`, reading the organization's setup in `conn`; `None` when
/// the charge has none (not open, or no Pix): what a notice or a document carries.
pub async fn code_if_any(
    conn: &mut Connection,
    organization_id: &str,
    charge: &Charge,
    today: Date,
) -> Result<Option<ChargeCode>> {
    let stored = store::get_in(conn, organization_id).await?;
    let settings = stored.as_ref().map(|s| &s.settings);
    Ok(code_for(charge, settings, today)?.ok())
}
