//! The application layer: Kobana Dunning's business operations, each one transaction's worth
//! of reads, rule checks and writes (with their events), called alike by the `/v1` handlers
//! (which parse, call and reply) and by the engine's workers (which run collection plans).
//!
//! An operation runs inside its caller's transaction: the caller decides when to commit, so
//! a `/v1` write commits its idempotent answer with the change. A refusal by a business rule
//! comes back as a `dunning_domain::collection::Refusal` (a stable code the API answers and
//! a plan records), and nothing is written.

pub mod agreements;
pub mod automatic_pix;
pub mod calendars;
pub mod charges;
pub mod collection;
pub mod customers;
pub mod disputes;
pub mod events;
pub mod exports;
pub mod opt_outs;
pub mod payments;
pub mod pix;
pub mod pix_received;
pub mod pix_refunds;
pub mod plans;
pub mod reports;
pub mod webhooks;

// The refusal codes live in the domain (its rules refuse with them too); the engine and the
// API name them through here.
pub use dunning_domain::refusals;

use dunning_domain::collection::Refusal;
use dunning_store::retry::Failure;

/// Why an operation did nothing. The API answers each with its problem; a plan step or a
/// worker records or skips it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A business rule (409), with its stable code.
    Rule(Refusal),
    /// A value of the request that makes the operation impossible (400), by field.
    Field {
        field: &'static str,
        code: &'static str,
        message: String,
    },
    /// Something the request names does not exist in the organization (404).
    Missing { what: &'static str, id: String },
    /// Another writer changed the rows meanwhile (409 `concurrent_update`), naming what.
    Concurrent(&'static str),
    /// A payment larger than what is due on its charge (422).
    PaymentExceedsDue {
        charge_id: String,
        amount: dunning_domain::money::Cents,
        due: dunning_domain::money::Cents,
    },
}

impl Refused {
    /// A rule's refusal.
    pub fn rule(code: &'static str, detail: impl Into<String>) -> Refused {
        Refused::Rule(Refusal {
            code,
            detail: detail.into(),
        })
    }
}

/// What an operation inside a (retried) transaction gives back: its value, or why it did
/// nothing (a refusal, or the database failing, which the caller's retry may run again).
pub type Result<T> = std::result::Result<T, Failure<Refused>>;

/// Stop with a refusal.
pub fn refuse<T>(refused: Refused) -> Result<T> {
    Err(Failure::Refused(refused))
}
