//! The stable codes of the business rules' refusals: what the API answers as a problem's
//! `code` (a 409, or a 404 for a missing Pix setup) and what a collection plan records as a
//! step's reason. One home for each code, so that the rule refusing, the API mapping and the
//! engine telling a passing refusal from a final one name the same constant (clients and
//! tests match on the words: a code never changes once released).

/// The charge is paid, canceled or in an agreement: only a pending or overdue one can act.
pub const CHARGE_NOT_OPEN: &str = "charge_not_open";
/// The charge is not past its effective due date yet.
pub const CHARGE_NOT_OVERDUE: &str = "charge_not_overdue";
/// The charge has an open dispute, which pauses its collection.
pub const CHARGE_IN_DISPUTE: &str = "charge_in_dispute";
/// The charge already has an open dispute: a second one waits for the first.
pub const CHARGE_HAS_OPEN_DISPUTE: &str = "charge_has_open_dispute";
/// The charge is already part of a live agreement.
pub const CHARGE_IN_AGREEMENT: &str = "charge_in_agreement";
/// The charge's amount cannot change after a payment was recorded.
pub const CHARGE_HAS_PAYMENTS: &str = "charge_has_payments";
/// Another writer changed the row between our read and our write.
pub const CONCURRENT_UPDATE: &str = "concurrent_update";
/// The organization already has a customer with this CPF or CNPJ.
pub const CUSTOMER_DOCUMENT_TAKEN: &str = "customer_document_taken";
/// The customer still has charges being collected.
pub const CUSTOMER_HAS_OPEN_CHARGES: &str = "customer_has_open_charges";
/// The customer opted out of the channel.
pub const CUSTOMER_OPTED_OUT: &str = "customer_opted_out";
/// The customer has no address on the channel.
pub const CUSTOMER_CONTACT_MISSING: &str = "customer_contact_missing";
/// The dispute was already resolved.
pub const DISPUTE_NOT_OPEN: &str = "dispute_not_open";
/// Open charges use the collection plan: it cannot be deleted.
pub const COLLECTION_PLAN_IN_USE: &str = "collection_plan_in_use";
/// The webhook endpoint is disabled: nothing is sent to it.
pub const WEBHOOK_DISABLED: &str = "webhook_disabled";
/// The webhook delivery is still queued or being retried.
pub const WEBHOOK_DELIVERY_PENDING: &str = "webhook_delivery_pending";
/// A negativation is requested, active or being removed.
pub const NEGATIVATION_ACTIVE: &str = "negativation_active";
/// A negativation was already requested.
pub const NEGATIVATION_ALREADY_REQUESTED: &str = "negativation_already_requested";
/// No negativation is in force to remove.
pub const NEGATIVATION_NOT_ACTIVE: &str = "negativation_not_active";
/// The notice a negativation must follow was not delivered in time.
pub const NEGATIVATION_NOTICE_MISSING: &str = "negativation_notice_missing";
/// A protest is requested, done or being canceled.
pub const PROTEST_ACTIVE: &str = "protest_active";
/// A protest was already requested.
pub const PROTEST_ALREADY_REQUESTED: &str = "protest_already_requested";
/// No protest is in force to cancel.
pub const PROTEST_NOT_ACTIVE: &str = "protest_not_active";
/// The agreement is no longer proposed.
pub const AGREEMENT_NOT_PROPOSED: &str = "agreement_not_proposed";
/// The agreement cannot be canceled in its status.
pub const AGREEMENT_NOT_CANCELABLE: &str = "agreement_not_cancelable";
/// The agreement is not live.
pub const AGREEMENT_NOT_LIVE: &str = "agreement_not_live";
/// The agreement has no down payment (a refusal of the `journey` field, a 400).
pub const NO_DOWN_PAYMENT: &str = "no_down_payment";
/// The agreement's down payment is no longer open.
pub const DOWN_PAYMENT_NOT_OPEN: &str = "down_payment_not_open";
/// Pix Automático cannot be asked for here.
pub const AUTOMATIC_PIX_UNAVAILABLE: &str = "automatic_pix_unavailable";
/// The agreement already has a Pix Automático recurrence.
pub const AUTOMATIC_PIX_EXISTS: &str = "automatic_pix_exists";
/// The agreement's Pix Automático recurrence is not live.
pub const AUTOMATIC_PIX_NOT_LIVE: &str = "automatic_pix_not_live";
/// The organization has no Pix key.
pub const PIX_NOT_CONFIGURED: &str = "pix_not_configured";
/// A devolução larger than what is left of the Pix.
pub const REFUND_EXCEEDS_PIX: &str = "refund_exceeds_pix";
/// A later notice of the same plan was due at the same time; only that one was sent.
pub const SUPERSEDED: &str = "superseded";

/// Every code above.
pub const ALL: &[&str] = &[
    CHARGE_NOT_OPEN,
    CHARGE_NOT_OVERDUE,
    CHARGE_IN_DISPUTE,
    CHARGE_HAS_OPEN_DISPUTE,
    CHARGE_IN_AGREEMENT,
    CHARGE_HAS_PAYMENTS,
    CONCURRENT_UPDATE,
    CUSTOMER_DOCUMENT_TAKEN,
    CUSTOMER_HAS_OPEN_CHARGES,
    CUSTOMER_OPTED_OUT,
    CUSTOMER_CONTACT_MISSING,
    DISPUTE_NOT_OPEN,
    COLLECTION_PLAN_IN_USE,
    WEBHOOK_DISABLED,
    WEBHOOK_DELIVERY_PENDING,
    NEGATIVATION_ACTIVE,
    NEGATIVATION_ALREADY_REQUESTED,
    NEGATIVATION_NOT_ACTIVE,
    NEGATIVATION_NOTICE_MISSING,
    PROTEST_ACTIVE,
    PROTEST_ALREADY_REQUESTED,
    PROTEST_NOT_ACTIVE,
    AGREEMENT_NOT_PROPOSED,
    AGREEMENT_NOT_CANCELABLE,
    AGREEMENT_NOT_LIVE,
    NO_DOWN_PAYMENT,
    DOWN_PAYMENT_NOT_OPEN,
    AUTOMATIC_PIX_UNAVAILABLE,
    AUTOMATIC_PIX_EXISTS,
    AUTOMATIC_PIX_NOT_LIVE,
    PIX_NOT_CONFIGURED,
    REFUND_EXCEEDS_PIX,
    SUPERSEDED,
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::ALL;

    #[test]
    fn every_code_is_a_distinct_snake_case_word() {
        let distinct: BTreeSet<&str> = ALL.iter().copied().collect();
        assert_eq!(distinct.len(), ALL.len(), "a code is listed twice");
        for code in ALL {
            assert!(
                !code.is_empty()
                    && code.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    && !code.starts_with('_')
                    && !code.ends_with('_'),
                "{code}"
            );
        }
    }
}
