//! What a debtor owes on a charge on a day, and where the charge stands ([`ChargeStatus`]).
//!
//! The rule, in the order a finance person would check it (docs/money-and-pix.md, "How money is computed"):
//!
//! - The charge is due on its **effective due date**: the due date, or the next business day
//!   when the due date is none (`calendar::Calendar::effective_due_date`). Paid by the end of
//!   that day, the debtor owes the amount less what was paid, nothing more.
//! - The **fine** (multa, at most 2 %: CDC art. 52 §1) is charged once, on the principal still
//!   unpaid when the effective due date ends.
//! - **Interest** (juros de mora, a monthly rate pro rata per calendar day of a 30-day month)
//!   accrues each day from the effective due date on the principal outstanding that day: a
//!   payment made on day d lowers the base from day d on. It is added up exactly and rounded
//!   once, never day by day.
//! - A payment made after the effective due date pays the interest outstanding first, then
//!   the fine, then the principal (Código Civil art. 354); before it, principal only. What a
//!   payment brings beyond all that is an over-payment ([`Balance::excess`]).
//!
//! BACEN's cobv modalidades (multa modalidade 2, juros modalidade 3) make the payer's PSP
//! compute the same from a cobv revised after a partial payment (`pix_cobv`). Payments are
//! kept by day ([`PaymentDays`]), their refunds taken off the day they were paid. The
//! arithmetic runs in `i128`: no amount or date the API accepts can overflow it, and a
//! result beyond `i64` (a far-future day from a faulty party) saturates instead of wrapping.

use std::fmt;

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

/// What was paid on one day (Brasília), refunds of that day's payments taken off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paid {
    pub day: Date,
    pub amount: Cents,
}

/// A charge's payments by day, in day order, one entry a day: what the balance needs of
/// them. Stored with the charge as text (`2026-12-01:3000,2026-12-05:1500`) beside the
/// payments themselves, and written in the same transaction as each of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentDays(Vec<Paid>);

impl PaymentDays {
    /// Read the stored text; `None` when it is not what [`fmt::Display`] writes.
    pub fn parse(text: &str) -> Option<PaymentDays> {
        let mut days: Vec<Paid> = Vec::new();
        if text.is_empty() {
            return Some(PaymentDays(days));
        }
        for entry in text.split(',') {
            let (day, amount) = entry.split_once(':')?;
            let day = parse_date(day)?;
            let amount = Cents(amount.parse().ok()?);
            if days.last().is_some_and(|last| last.day >= day) {
                return None;
            }
            days.push(Paid { day, amount });
        }
        Some(PaymentDays(days))
    }

    /// Add `amount` paid on `day` (negative: a refund of that day's payment).
    pub fn add(&mut self, day: Date, amount: Cents) {
        match self.0.binary_search_by_key(&day, |p| p.day) {
            Ok(at) => self.0[at].amount.0 += amount.0,
            Err(at) => self.0.insert(at, Paid { day, amount }),
        }
        self.0.retain(|p| p.amount.0 != 0);
    }

    /// Every day with something paid, in order.
    pub fn days(&self) -> &[Paid] {
        &self.0
    }

    /// The sum of what was paid.
    pub fn total(&self) -> Cents {
        Cents(self.0.iter().map(|p| p.amount.0).sum())
    }
}

impl fmt::Display for PaymentDays {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, paid) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:{}", paid.day, paid.amount.0)?;
        }
        Ok(())
    }
}

fn parse_date(text: &str) -> Option<Date> {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year = text[0..4].parse().ok()?;
    let month = time::Month::try_from(text[5..7].parse::<u8>().ok()?).ok()?;
    let day = text[8..10].parse().ok()?;
    Date::from_calendar_date(year, month, day).ok()
}

/// Terms of a charge, in centavos and basis points (1 % = 100 bp), and what was paid.
#[derive(Debug, Clone, Copy)]
pub struct ChargeTerms<'a> {
    pub amount: Cents,
    /// The late fine, capped at [`MAX_FINE_BP`].
    pub fine_bp: i64,
    /// Monthly interest, applied pro rata per calendar day (30-day month).
    pub interest_bp: i64,
    /// The day by the end of which the charge is paid without fine or interest.
    pub effective_due_date: Date,
    /// What was paid, by day.
    pub payments: &'a [Paid],
}

/// What is owed, in its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Owed {
    /// What is left of the amount itself.
    pub principal: Cents,
    /// What is left of the late fine.
    pub fine: Cents,
    /// What is left of the interest accrued.
    pub interest: Cents,
}

impl Owed {
    /// The amount due: principal, fine and interest.
    pub fn total(&self) -> Cents {
        Cents(
            self.principal
                .0
                .saturating_add(self.fine.0)
                .saturating_add(self.interest.0),
        )
    }
}

/// A charge's balance on a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Balance {
    /// What is owed at the end of the day, payments of that day included.
    pub owed: Owed,
    /// What the payments brought beyond what they paid off: an over-payment.
    pub excess: Cents,
}

/// Interest numerators are in centavos × basis points × days; 300 000 of them make a
/// centavo (10 000 bp a unit × 30 days a month).
const INTEREST_UNIT: i128 = 10_000 * 30;

fn round_div(numerator: i128, denominator: i128) -> i128 {
    (numerator + denominator / 2) / denominator
}

fn cents(value: i128) -> Cents {
    Cents(i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX }))
}

/// A charge's account as the days go by, in exact numbers.
struct Account {
    effective_due_date: Date,
    fine_rate: i128,
    interest_rate: i128,
    principal: i128,
    /// The fine, once the effective due date has ended, and what was paid of it.
    fine: Option<i128>,
    fine_paid: i128,
    /// Interest accrued on the days before `accrued_to`, in centavos × bp × days, and what
    /// was paid of it in centavos.
    interest_numerator: i128,
    accrued_to: Date,
    interest_paid: i128,
    excess: i128,
}

impl Account {
    fn open(terms: &ChargeTerms<'_>) -> Account {
        Account {
            effective_due_date: terms.effective_due_date,
            fine_rate: i128::from(terms.fine_bp.clamp(0, MAX_FINE_BP)),
            interest_rate: i128::from(terms.interest_bp.max(0)),
            principal: i128::from(terms.amount.0.max(0)),
            fine: None,
            fine_paid: 0,
            interest_numerator: 0,
            accrued_to: terms.effective_due_date,
            interest_paid: 0,
            excess: 0,
        }
    }

    fn late_on(&self, day: Date) -> bool {
        day > self.effective_due_date
    }

    /// Bring the account to the start of `day`: once the effective due date has ended, the
    /// fine is set on the principal then unpaid, and each day since the last accrual adds its
    /// interest on the principal outstanding.
    fn accrue_to(&mut self, day: Date) {
        if !self.late_on(day) {
            return;
        }
        let principal = self.principal;
        let fine_rate = self.fine_rate;
        self.fine
            .get_or_insert_with(|| round_div(principal * fine_rate, 10_000));
        let days = i128::from((day - self.accrued_to).whole_days().max(0));
        self.interest_numerator += self.principal * self.interest_rate * days;
        self.accrued_to = day;
    }

    fn interest_accrued(&self) -> i128 {
        round_div(self.interest_numerator, INTEREST_UNIT)
    }

    /// A payment made on `day`: interest, then fine, then principal once late; principal
    /// only before. What is left over is an over-payment.
    fn pay(&mut self, day: Date, amount: Cents) {
        self.accrue_to(day);
        let mut left = i128::from(amount.0);
        if self.late_on(day) {
            let to_interest = left.clamp(0, self.interest_accrued() - self.interest_paid);
            self.interest_paid += to_interest;
            left -= to_interest;
            let to_fine = left.clamp(0, self.fine.unwrap_or(0) - self.fine_paid);
            self.fine_paid += to_fine;
            left -= to_fine;
        }
        let to_principal = left.clamp(0, self.principal);
        self.principal -= to_principal;
        left -= to_principal;
        // A day with more refunded than paid (which the store never writes) gives nothing
        // back: it is no over-payment either.
        self.excess += left.max(0);
    }

    fn owed(&self) -> Owed {
        Owed {
            principal: cents(self.principal),
            fine: cents(self.fine.unwrap_or(0) - self.fine_paid),
            interest: cents(self.interest_accrued() - self.interest_paid),
        }
    }
}

/// The balance on day `on`, payments made after it left out.
pub fn balance(terms: &ChargeTerms<'_>, on: Date) -> Balance {
    let mut account = Account::open(terms);
    for paid in terms.payments.iter().filter(|p| p.day <= on) {
        account.pay(paid.day, paid.amount);
    }
    account.accrue_to(on);
    Balance {
        owed: account.owed(),
        excess: cents(account.excess),
    }
}

/// The amount due on `on`: principal, fine and interest left after the payments up to it.
pub fn amount_due(terms: &ChargeTerms<'_>, on: Date) -> Cents {
    balance(terms, on).owed.total()
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn terms(amount: i64, payments: &[Paid]) -> ChargeTerms<'_> {
        ChargeTerms {
            amount: Cents(amount),
            fine_bp: 200,
            interest_bp: 100,
            effective_due_date: date!(2026 - 10 - 01),
            payments,
        }
    }

    fn paid(day: Date, amount: i64) -> Paid {
        Paid {
            day,
            amount: Cents(amount),
        }
    }

    #[test]
    fn before_or_on_the_due_date_only_the_balance_is_due() {
        assert_eq!(
            amount_due(&terms(100_00, &[]), date!(2026 - 10 - 01)),
            Cents(100_00)
        );
        let some = [paid(date!(2026 - 08 - 20), 40_00)];
        assert_eq!(
            amount_due(&terms(100_00, &some), date!(2026 - 09 - 01)),
            Cents(60_00)
        );
    }

    #[test]
    fn thirty_days_late_adds_two_percent_fine_and_one_percent_interest() {
        let owed = balance(&terms(100_00, &[]), date!(2026 - 10 - 31)).owed;
        assert_eq!(
            owed,
            Owed {
                principal: Cents(100_00),
                fine: Cents(2_00),
                interest: Cents(1_00)
            }
        );
        assert_eq!(owed.total(), Cents(103_00));
    }

    #[test]
    fn the_fine_is_capped_at_two_percent() {
        let mut t = terms(100_00, &[]);
        t.fine_bp = 1000;
        t.interest_bp = 0;
        assert_eq!(amount_due(&t, date!(2026 - 10 - 02)), Cents(102_00));
    }

    #[test]
    fn a_partial_payment_before_the_due_date_lowers_the_base_of_fine_and_interest() {
        // R$ 90.00 with R$ 30.00 paid before the due date, 5 days late: 60.00 + 1.20 fine
        // (2 % of 60.00) + 0.10 interest (60.00 × 1 % / 30 × 5) — what the cobv asks.
        let before = [paid(date!(2026 - 09 - 25), 30_00)];
        let owed = balance(&terms(90_00, &before), date!(2026 - 10 - 06)).owed;
        assert_eq!(
            (owed.principal, owed.fine, owed.interest),
            (Cents(60_00), Cents(1_20), Cents(10))
        );
        // Paying exactly that settles it.
        let then = [before[0], paid(date!(2026 - 10 - 06), 61_30)];
        let settled = balance(&terms(90_00, &then), date!(2026 - 10 - 20));
        assert_eq!(settled, Balance::default());
    }

    #[test]
    fn a_late_payment_pays_interest_then_fine_then_principal_and_lowers_the_base_from_its_day() {
        // R$ 300.00 due 1 October, R$ 100.00 paid on the 11th (10 days late): interest then
        // was 300.00 × 1 % / 30 × 10 = 1.00, the fine 6.00; the 100.00 pays 1.00 + 6.00 and
        // 93.00 of principal, leaving 207.00. Ten days more of interest on 207.00: 0.69.
        let late = [paid(date!(2026 - 10 - 11), 100_00)];
        let owed = balance(&terms(300_00, &late), date!(2026 - 10 - 21)).owed;
        assert_eq!(
            owed,
            Owed {
                principal: Cents(207_00),
                fine: Cents(0),
                interest: Cents(69)
            }
        );
    }

    #[test]
    fn what_a_payment_brings_beyond_the_balance_is_an_excess() {
        let over = [paid(date!(2026 - 09 - 01), 500_00)];
        let balance = balance(&terms(100_00, &over), date!(2026 - 12 - 01));
        assert_eq!(balance.owed, Owed::default());
        assert_eq!(balance.excess, Cents(400_00));
    }

    #[test]
    fn payments_after_the_day_asked_about_are_left_out() {
        let later = [paid(date!(2026 - 10 - 10), 50_00)];
        assert_eq!(
            amount_due(&terms(100_00, &later), date!(2026 - 10 - 01)),
            Cents(100_00)
        );
    }

    #[test]
    fn the_largest_charge_the_api_accepts_never_overflows() {
        let mut t = terms(10_000_000_000, &[]);
        t.interest_bp = 1000;
        t.effective_due_date = date!(2000 - 01 - 01);
        let far = balance(&t, date!(9999 - 12 - 31)).owed;
        assert!(far.interest.0 > 0 && far.total().0 > far.principal.0);
        assert_eq!(far.fine, Cents(200_000_000));
    }

    #[test]
    fn payment_days_are_stored_and_read_back_in_order() {
        let mut days = PaymentDays::default();
        days.add(date!(2026 - 12 - 05), Cents(15_00));
        days.add(date!(2026 - 12 - 01), Cents(30_00));
        days.add(date!(2026 - 12 - 05), Cents(-5_00));
        assert_eq!(days.to_string(), "2026-12-01:3000,2026-12-05:1000");
        assert_eq!(PaymentDays::parse(&days.to_string()), Some(days.clone()));
        assert_eq!(days.total(), Cents(40_00));
        days.add(date!(2026 - 12 - 05), Cents(-10_00));
        assert_eq!(days.to_string(), "2026-12-01:3000");
        assert_eq!(PaymentDays::parse(""), Some(PaymentDays::default()));
        for bad in [
            "x",
            "2026-12-01",
            "2026-12-01:a",
            "2026-12-05:1,2026-12-01:1",
            "2026-13-01:1",
        ] {
            assert_eq!(PaymentDays::parse(bad), None, "{bad}");
        }
    }
}
