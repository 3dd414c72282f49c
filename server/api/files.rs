//! The PDF documents of the API: built from the organization's data by `dunning_domain::documents`
//! and sent as `application/pdf`. The statement and the term carry the Pix codes of the charges
//! they ask to pay (`dunning_app::pix`), when the organization has Pix.

use axum::extract::Path;
use axum::response::IntoResponse;
use http::header;
use time::{Date, OffsetDateTime};

use super::answers::reply::Reply;
use super::steps::caller::Caller;
use crate::auth::Principal;
use crate::http::problem::{ApiError, ApiResult};
use crate::state::AppState;
use dunning_domain::document::format_document;
use dunning_domain::documents::{
    self, AgreementTermInput, AutomaticPixCode, ChargeStatus, Debtor, Issuer, PixPayment,
    StatementCharge, StatementInput, TermCharge, TermPayment,
};
use dunning_domain::money::Cents;
use dunning_domain::pix::PixSettings;
use dunning_domain::timestamp::Timestamp;
use dunning_store::charges::Charge;
use dunning_store::customers::Customer;
use dunning_store::{charges, customers};

/// Now as a clock in Brasília shows it (`dunning_domain::calendar`, the time zone database):
/// the dates printed on documents.
fn now_in_brazil() -> OffsetDateTime {
    dunning_domain::calendar::in_brasilia(dunning_domain::timestamp::now())
}

fn issuer(p: &Principal) -> Issuer {
    Issuer {
        name: p.organization_name.clone(),
        document: p.organization_document.clone(),
        email: None,
        phone: None,
    }
}

fn debtor(customer: &Customer) -> Debtor {
    let address_lines = customer
        .address
        .as_ref()
        .map(|a| {
            let mut street = format!("{}, {}", a.street, a.number);
            if let Some(complement) = a.complement.as_deref().filter(|c| !c.is_empty()) {
                street.push_str(&format!(", {complement}"));
            }
            let zip = if a.zip_code.len() == 8 {
                format!("{}-{}", &a.zip_code[..5], &a.zip_code[5..])
            } else {
                a.zip_code.clone()
            };
            vec![
                street,
                format!("{} — {} - {}, CEP {zip}", a.district, a.city, a.state),
            ]
        })
        .unwrap_or_default();
    Debtor {
        name: customer.name.clone(),
        document: customer.document.clone(),
        address_lines,
        email: customer.email.clone(),
    }
}

fn pdf(bytes: Vec<u8>, file_name: &str) -> Reply {
    (
        [
            (header::CONTENT_TYPE, "application/pdf".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{file_name}\""),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// `GET /v1/customers/{id}/statement`: what the debtor owes, charge by charge, as a PDF.
pub async fn customer_statement(
    Caller(state, p): Caller,
    Path(id): Path<String>,
) -> ApiResult<Reply> {
    let customer = customers::get(&state.db, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("customer", &id))?;
    let settings = pix_settings(&state, &p).await?;
    let mut lines = Vec::new();
    let mut pix = Vec::new();
    for charge in charges::for_customer(&state.db, &p.organization_id, &id).await? {
        pix.extend(pix_payment(
            &charge,
            settings.as_ref(),
            &charge.description,
        )?);
        lines.push(StatementCharge {
            description: charge.description.clone(),
            due_date: charge.due_date,
            original: charge.amount_cents,
            paid: charge.paid_cents,
            amount_due: charge.amount_due,
            status: charge.status,
        });
    }
    let input = StatementInput {
        issuer: issuer(&p),
        debtor: debtor(&customer),
        charges: lines,
        issued_at: now_in_brazil(),
        payment_instructions: None,
        pix,
    };
    let file = format!(
        "extrato-{}.pdf",
        format_document(&customer.document).replace(['.', '/'], "")
    );
    Ok(pdf(documents::debtor_statement(&input), &file))
}

/// `GET /v1/charges/{id}/discharge_letter`: the "Carta de quitação" of a paid charge.
pub async fn charge_discharge_letter(
    Caller(state, p): Caller,
    Path(id): Path<String>,
) -> ApiResult<Reply> {
    let charge = charges::get(&state.db, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("charge", &id))?;
    if charge.status != ChargeStatus::Paid {
        return Err(ApiError::conflict(
            "charge_not_paid",
            format!(
                "Charge {id} is {}; a discharge letter exists only for a paid charge",
                charge.status
            ),
        ));
    }
    let customer = customers::get(&state.db, &p.organization_id, &charge.customer_id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("customer of charge {id} is missing")))?;
    let paid_on = date_in_brazil(charge.paid_at.unwrap_or(charge.updated_at));
    let input = documents::DischargeInput {
        issuer: issuer(&p),
        debtor: debtor(&customer),
        description: charge.description.clone(),
        original: charge.amount_cents,
        paid: charge.paid_cents,
        due_date: charge.due_date,
        paid_on,
        // Organizations have no address yet: letters are dated from São Paulo, whose time
        // zone their dates are read in.
        place: "São Paulo".to_string(),
        issued_at: now_in_brazil(),
    };
    Ok(pdf(
        documents::discharge_letter(&input),
        &format!("carta-de-quitacao-{id}.pdf"),
    ))
}

/// The organization's Pix setup, when it has one.
async fn pix_settings(state: &AppState, p: &Principal) -> ApiResult<Option<PixSettings>> {
    Ok(dunning_store::pix::get(&state.db, &p.organization_id)
        .await?
        .map(|stored| stored.settings))
}

/// The Pix a document prints for `charge`, described as `description`: `None` when it has no
/// code (not open, or no Pix).
fn pix_payment(
    charge: &Charge,
    settings: Option<&PixSettings>,
    description: &str,
) -> ApiResult<Option<PixPayment>> {
    let code = dunning_app::pix::code_for(charge, settings, dunning_store::today())?;
    Ok(code.ok().map(|code| PixPayment {
        description: description.to_string(),
        due_date: charge.due_date,
        amount: code.amount,
        payload: code.payload,
    }))
}

/// The date an instant was in Brasília.
fn date_in_brazil(timestamp: Timestamp) -> Date {
    dunning_domain::calendar::day_of(timestamp.instant())
}

/// The authorization code of the agreement's Pix Automático while the debtor has yet to read it.
fn automatic_pix_code(
    agreement: &dunning_store::agreements::Agreement,
) -> Option<AutomaticPixCode> {
    use dunning_store::automatic_pix::{AutomaticPixStatus, Journey};
    let request = &agreement.automatic_pix.as_ref()?.request;
    if request.status != AutomaticPixStatus::AwaitingAuthorization {
        return None;
    }
    Some(AutomaticPixCode {
        payload: request.qr_code.clone()?,
        with_down_payment: request.journey == Journey::QrWithDownPayment,
    })
}

/// `GET /v1/agreements/{id}/term`: the "Termo de acordo e confissão de dívida" as a PDF.
pub async fn agreement_term(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    use dunning_store::agreements;
    let agreement = agreements::get(&state.db, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("agreement", &id))?;
    let customer = customers::get(&state.db, &p.organization_id, &agreement.customer_id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("customer of agreement {id} is missing")))?;
    let mut lines = Vec::new();
    for agreed in &agreement.charges {
        let charge = charges::get(&state.db, &p.organization_id, &agreed.charge_id)
            .await?
            .ok_or_else(|| ApiError::internal(format!("charge {} is missing", agreed.charge_id)))?;
        lines.push(TermCharge {
            description: charge.description,
            due_date: charge.due_date,
            original: Cents(agreed.amount_cents),
            amount_due: Cents(agreed.due_cents),
        });
    }
    let mut payments = Vec::new();
    let mut pix = None;
    let settings = pix_settings(&state, &p).await?;
    for entry in &agreement.installments_schedule {
        // The first payment of the schedule whose charge is still open.
        if pix.is_none()
            && let Some(charge_id) = &entry.charge_id
            && let Some(charge) = charges::get(&state.db, &p.organization_id, charge_id).await?
        {
            let label = match entry.number {
                0 => "Entrada do acordo".to_string(),
                n => format!("Parcela {n}/{} do acordo", agreement.installments),
            };
            pix = pix_payment(&charge, settings.as_ref(), &label)?;
        }
        payments.push(TermPayment {
            number: entry.number,
            due_date: entry.due_date,
            amount: entry.amount_cents,
        });
    }
    let since = |label: &str, at: Option<Timestamp>| match at {
        Some(at) => format!("{label} em {}", documents::date_br(date_in_brazil(at))),
        None => label.to_string(),
    };
    let situation = match agreement.status.as_str() {
        "proposed" => "proposta, aguardando aceite".to_string(),
        "accepted" => since("aceito", agreement.accepted_at),
        "canceled" => since("cancelado", agreement.canceled_at),
        "broken" => since("rompido", agreement.broken_at),
        "fulfilled" => since("cumprido", agreement.fulfilled_at),
        other => other.to_string(),
    };
    let place = customer
        .address
        .as_ref()
        .map_or_else(|| "São Paulo".to_string(), |a| a.city.clone());
    let input = AgreementTermInput {
        issuer: issuer(&p),
        debtor: debtor(&customer),
        reference: agreement.id.clone(),
        situation,
        proposed_on: date_in_brazil(agreement.created_at),
        charges: lines,
        discount_bp: agreement.discount_bp,
        total: agreement.total_cents,
        payments,
        break_after_days: dunning_domain::installments::BREAK_AFTER_DAYS,
        place,
        issued_at: now_in_brazil(),
        pix,
        automatic_pix: automatic_pix_code(&agreement),
    };
    let file = format!(
        "termo-de-acordo-{}.pdf",
        agreement.id.trim_start_matches("agr_")
    );
    Ok(pdf(documents::agreement_term(&input), &file))
}
