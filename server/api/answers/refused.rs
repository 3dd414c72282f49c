//! The problem each refusal of the application layer is answered with: a rule's as a 409
//! with its code, a field's as a 400 naming it, a missing object as a 404, a concurrent
//! change as a 409 `concurrent_update`.

use dunning_app::Refused;
use dunning_domain::money::Cents;
use dunning_store::retry::Failure;
use http::StatusCode;

use crate::http::problem::{ApiError, FieldError};

impl From<Refused> for ApiError {
    fn from(refused: Refused) -> ApiError {
        match refused {
            Refused::Rule(rule) => ApiError::conflict(rule.code, rule.detail),
            Refused::Field {
                field,
                code,
                message,
            } => ApiError::validation(vec![FieldError::new(field, code, message)]),
            Refused::Missing { what, id } => ApiError::not_found(what, &id),
            Refused::Concurrent(what) => ApiError::concurrent_update(what),
            Refused::PaymentExceedsDue {
                charge_id,
                amount,
                due,
            } => exceeds(amount, due, &charge_id),
        }
    }
}

/// 422 `payment_exceeds_amount_due`: `amount` is more than the `due` of charge `id`.
fn exceeds(amount: Cents, due: Cents, id: &str) -> ApiError {
    ApiError {
        errors: vec![FieldError::new(
            "amount",
            "maximum",
            format!("Must be at most the amount due, {}", due.to_reais()),
        )],
        ..ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "payment_exceeds_amount_due",
            format!(
                "The payment of {} is more than the {} due on charge {id}",
                amount.to_brl(),
                due.to_brl()
            ),
        )
    }
}

/// An operation's failure inside a retried transaction, as the handler's.
pub fn answered(failure: Failure<Refused>) -> Failure<ApiError> {
    match failure {
        Failure::Refused(refused) => Failure::Refused(refused.into()),
        Failure::Store(e) => Failure::Store(e),
    }
}

/// An operation's failure outside a retried transaction, as the handler's problem.
pub fn problem(failure: Failure<Refused>) -> ApiError {
    match failure {
        Failure::Refused(refused) => refused.into(),
        Failure::Store(e) => e.into(),
    }
}
