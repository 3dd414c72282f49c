//! The domain's word enums as the document's (`crate::generated::models`): one [`Word`] per
//! pair, matching variant by variant, so a word the document drops or the domain adds stops
//! the build here instead of answering a word the document does not list. (A trait of our
//! own rather than `From`: both enums live in other crates.)

use crate::generated::models;
use dunning_domain::charge_math::ChargeStatus;
use dunning_domain::collection::{NegativationStatus, ProtestStatus};

/// A word enum as another crate's same words: `status.word()`.
pub trait Word<T> {
    fn word(self) -> T;
}

/// `impl Word<model> for domain`, one arm per variant: both enums must have exactly these.
macro_rules! same_words {
    ($from:ty => $to:ty { $($variant:ident),+ $(,)? }) => {
        impl Word<$to> for $from {
            fn word(self) -> $to {
                match self {
                    $(<$from>::$variant => <$to>::$variant,)+
                }
            }
        }
    };
}

same_words!(ChargeStatus => models::ChargeStatus { Pending, Overdue, Paid, Canceled, InAgreement });
same_words!(NegativationStatus => models::ChargeNegativationStatus {
    None, Requested, Active, RemovalRequested, Removed,
});
same_words!(ProtestStatus => models::ChargeProtestStatus {
    None, Requested, Protested, CancelRequested, Canceled,
});
same_words!(dunning_store::disputes::DisputeStatus => models::DisputeStatus {
    Open, Upheld, Rejected,
});
same_words!(dunning_store::agreements::AgreementStatus => models::AgreementStatus {
    Proposed, Accepted, Canceled, Broken, Fulfilled,
});
same_words!(dunning_store::webhooks::DeliveryStatus => models::WebhookDeliveryStatus {
    Pending, Succeeded, Failed,
});
same_words!(dunning_store::deliveries::DeliveryStatus => models::DeliveryStatus {
    Queued, Sent, Delivered, Failed, Bounced,
});
same_words!(dunning_store::exports::ExportStatus => models::ExportStatus {
    Pending, Running, Completed, Failed,
});
same_words!(crate::auth::Audience => models::MeTokenAudience { Api, Mcp });
same_words!(dunning_domain::pix::KeyType => models::PixKeyType { Cpf, Cnpj, Email, Phone, Evp });
same_words!(dunning_domain::pix::Source => models::ChargePixSource { Static, Dynamic });
same_words!(dunning_store::pix_psp::ReceivedStatus => models::PixReceivedStatus {
    Applied, Review, Refunded,
});
same_words!(dunning_store::pix_refunds::RefundStatus => models::PixRefundStatus {
    Requested, InProcess, Returned, NotDone,
});
same_words!(dunning_domain::collection::DayCount => models::CollectionPlanStepDayCount {
    Calendar, Business,
});

// A step's `day_count` as a request gives it, as the domain's (`same_words!` the other way).
same_words!(models::CollectionPlanStepCreateDayCount => dunning_domain::collection::DayCount {
    Calendar, Business,
});
same_words!(models::CollectionPlanStepUpdateDayCount => dunning_domain::collection::DayCount {
    Calendar, Business,
});
same_words!(dunning_store::automatic_pix::AutomaticPixStatus => models::AgreementAutomaticPixStatus {
    Requested, AwaitingAuthorization, Authorized, Rejected, Expired, Canceled, Failed,
});
same_words!(dunning_store::automatic_pix::Journey => models::AgreementAutomaticPixJourney {
    Qr, QrWithDownPayment,
});
same_words!(dunning_store::automatic_pix::RetryPolicy => models::AgreementAutomaticPixRetryPolicy {
    None, ThreeInSevenDays,
});
same_words!(dunning_store::automatic_pix::DebitStatus => models::AgreementAutomaticPixDebitStatus {
    Scheduling, Scheduled, Paid, Failed, Canceled,
});
same_words!(models::AgreementAutomaticPixRequestJourney => dunning_store::automatic_pix::Journey {
    Qr, QrWithDownPayment,
});
same_words!(models::AgreementAutomaticPixRequestRetryPolicy => dunning_store::automatic_pix::RetryPolicy {
    None, ThreeInSevenDays,
});
