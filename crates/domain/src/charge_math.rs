//! What a debtor owes on a charge today: late fine (capped at 2 %) and simple daily
//! interest on the amount, less what was paid. Never negative. And where the charge stands
//! ([`ChargeStatus`]).

use time::Date;

use super::money::Cents;

/// Legal ceiling of the late fine in Brazil (Código de Defesa do Consumidor, art. 52).
pub const MAX_FINE_BP: i64 = 200;

crate::words! {
    /// Where a charge stands as stored; an open one is `pending` or `overdue` to the API.
    pub enum ChargeState {
        Open = "open",
        Paid = "paid",
        Canceled = "canceled",
        InAgreement = "in_agreement",
    }
}

/// Where a charge stands, as the `/v1` API reports it: a charge stored as open is
/// `pending` or `overdue` depending on the day it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargeStatus {
    /// Open and not yet due.
    Pending,
    /// Open and past its due date.
    Overdue,
    /// Paid in full.
    Paid,
    /// Cancelled by the creditor.
    Canceled,
    /// Replaced by a payment agreement.
    InAgreement,
}

impl ChargeStatus {
    /// Every status, by its API name, in the order the API documents them.
    pub const ALL: &'static [&'static str] =
        &["pending", "overdue", "paid", "canceled", "in_agreement"];

    /// The stored state of a charge with this status: pending and overdue are both open.
    pub fn state(self) -> ChargeState {
        match self {
            ChargeStatus::Pending | ChargeStatus::Overdue => ChargeState::Open,
            ChargeStatus::Paid => ChargeState::Paid,
            ChargeStatus::Canceled => ChargeState::Canceled,
            ChargeStatus::InAgreement => ChargeState::InAgreement,
        }
    }

    /// The API's name for the status.
    pub fn as_str(self) -> &'static str {
        match self {
            ChargeStatus::Pending => "pending",
            ChargeStatus::Overdue => "overdue",
            ChargeStatus::Paid => "paid",
            ChargeStatus::Canceled => "canceled",
            ChargeStatus::InAgreement => "in_agreement",
        }
    }

    /// The status the API calls `status` (one of [`ChargeStatus::ALL`]).
    pub fn from_api(status: &str) -> Option<ChargeStatus> {
        use ChargeStatus::*;
        [Pending, Overdue, Paid, Canceled, InAgreement]
            .into_iter()
            .find(|s| s.as_str() == status)
    }

    /// How the status reads in Portuguese, as a "situação" column shows it.
    pub fn label(self) -> &'static str {
        match self {
            ChargeStatus::Pending => "pendente",
            ChargeStatus::Overdue => "vencida",
            ChargeStatus::Paid => "paga",
            ChargeStatus::Canceled => "cancelada",
            ChargeStatus::InAgreement => "em acordo",
        }
    }

    /// Whether the amount due still counts as owed. A charge in an agreement is not: the
    /// agreement's own installments are what the debtor now pays.
    pub fn is_open(self) -> bool {
        matches!(self, ChargeStatus::Pending | ChargeStatus::Overdue)
    }
}

impl std::fmt::Display for ChargeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The API shows a status by its name.
impl serde::Serialize for ChargeStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Terms of a charge, in centavos and basis points (1 % = 100 bp).
#[derive(Debug, Clone, Copy)]
pub struct ChargeTerms {
    pub amount: Cents,
    pub paid: Cents,
    pub fine_bp: i64,
    /// Monthly interest, applied pro rata per day (30-day month).
    pub interest_bp: i64,
    pub due_date: Date,
}

/// Amount due on `on`: principal plus fine and interest when late, minus payments.
pub fn amount_due(terms: &ChargeTerms, on: Date) -> Cents {
    let days_late = (on - terms.due_date).whole_days().max(0);
    let mut owed = terms.amount.0;
    if days_late > 0 {
        let fine_bp = terms.fine_bp.clamp(0, MAX_FINE_BP);
        owed += round_div(terms.amount.0 * fine_bp, 10_000);
        // amount * bp/10000 per month * days/30, rounded once at the end.
        owed += round_div(terms.amount.0 * terms.interest_bp * days_late, 10_000 * 30);
    }
    Cents((owed - terms.paid.0).max(0))
}

fn round_div(numerator: i64, denominator: i64) -> i64 {
    (numerator + denominator / 2) / denominator
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn terms(amount: i64, paid: i64) -> ChargeTerms {
        ChargeTerms {
            amount: Cents(amount),
            paid: Cents(paid),
            fine_bp: 200,
            interest_bp: 100,
            due_date: date!(2026 - 10 - 01),
        }
    }

    #[test]
    fn before_or_on_the_due_date_only_the_balance_is_due() {
        assert_eq!(
            amount_due(&terms(100_00, 0), date!(2026 - 10 - 01)),
            Cents(100_00)
        );
        assert_eq!(
            amount_due(&terms(100_00, 40_00), date!(2026 - 09 - 01)),
            Cents(60_00)
        );
    }

    #[test]
    fn thirty_days_late_adds_two_percent_fine_and_one_percent_interest() {
        assert_eq!(
            amount_due(&terms(100_00, 0), date!(2026 - 10 - 31)),
            Cents(103_00)
        );
    }

    #[test]
    fn the_fine_is_capped_at_two_percent() {
        let mut t = terms(100_00, 0);
        t.fine_bp = 1000;
        t.interest_bp = 0;
        assert_eq!(amount_due(&t, date!(2026 - 10 - 02)), Cents(102_00));
    }

    #[test]
    fn overpayment_never_makes_the_amount_negative() {
        assert_eq!(
            amount_due(&terms(100_00, 500_00), date!(2026 - 12 - 01)),
            Cents(0)
        );
    }
}
