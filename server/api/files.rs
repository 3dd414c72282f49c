//! The PDF documents of the API: built from the organization's data by `crate::documents`
//! and sent as `application/pdf`.

use axum::Extension;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use http::header;
use time::{Date, OffsetDateTime, UtcOffset};

use super::problem::{ApiError, ApiResult};
use super::reply::Reply;
use crate::auth::Principal;
use crate::documents::{self, ChargeStatus, Debtor, Issuer, StatementCharge, StatementInput};
use crate::domain::document::format_document;
use crate::domain::money::Cents;
use crate::state::AppState;
use crate::store::customers::Customer;
use crate::store::{charges, customers};

/// Brasília time (UTC−3, no daylight saving since 2019): the dates printed on documents.
fn now_in_brazil() -> OffsetDateTime {
    OffsetDateTime::now_utc().to_offset(UtcOffset::from_hms(-3, 0, 0).expect("a valid offset"))
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

fn parse_date(text: &str) -> ApiResult<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text, &format).map_err(|e| ApiError::internal(format!("stored date {text}: {e}")))
}

/// `GET /v1/customers/{id}/statement`: what the debtor owes, charge by charge, as a PDF.
pub async fn customer_statement(
    State(state): State<AppState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> ApiResult<Reply> {
    let customer = customers::get(&state.db, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("customer", &id))?;
    let mut lines = Vec::new();
    for charge in charges::for_customer(&state.db, &p.organization_id, &id).await? {
        lines.push(StatementCharge {
            description: charge.description.clone(),
            due_date: parse_date(&charge.due_date)?,
            original: Cents(charge.amount_cents),
            paid: Cents(charge.paid_cents),
            amount_due: Cents::from_reais(charge.amount_due).unwrap_or_default(),
            status: ChargeStatus::from_api(&charge.status)
                .ok_or_else(|| ApiError::internal(format!("status {}", charge.status)))?,
        });
    }
    let input = StatementInput {
        issuer: issuer(&p),
        debtor: debtor(&customer),
        charges: lines,
        issued_at: now_in_brazil(),
        payment_instructions: None,
    };
    let file = format!(
        "extrato-{}.pdf",
        format_document(&customer.document).replace(['.', '/'], "")
    );
    Ok(pdf(documents::debtor_statement(&input), &file))
}
