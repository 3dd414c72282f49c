//! What a charge's cobv (BACEN's "cobrança com vencimento") asks of the payer, mirrored from
//! the charge's terms on a day: the amount, the due date and how long after it the code
//! stays payable, and the fine and interest the payer's PSP adds when it is paid late.
//!
//! The PSP computes a late payment itself from these, so they are written the way
//! `charge_math` computes it: the cobv is due on the charge's *effective* due date (a
//! business day: the due date, or the next business day when it falls on a weekend or
//! holiday), its `original` is the principal still unpaid, the fine a percentage of it
//! (`multa` modalidade 2, capped at 2 %), the interest a monthly percentage of it pro rata per
//! calendar day from the due date (`juros` modalidade 3). BACEN's modalidades apply both to
//! the cobv's `original`, which is the balance after a partial payment, and so does
//! `charge_math`: paid any day up to the cobv's validity, the two agree to the centavo
//! (each component rounded on its own, as `componentesValor` reports them). The PSP moves a
//! due date only over national holidays; sending the business day of the organization's own
//! calendar means its municipal holidays count too.
//!
//! A due date cannot precede the cobv's creation (`CobVOperacaoInvalida`), so a charge that
//! is overdue when its cobv is made or remade asks for the day's amount due, fine and
//! interest included, due that day and payable that day only: the engine remakes it each day
//! the charge stays open ([`CobvTerms::valid_until`]).

use time::Date;

use super::charge_math::{ChargeTerms, MAX_FINE_BP, amount_due, balance};
use super::money::Cents;

/// Days after the due date a cobv made before it stays payable, the PSP adding fine and
/// interest (`calendario.validadeAposVencimento`); then the engine remakes it.
pub const VALIDITY_AFTER_DUE_DAYS: i64 = 30;

/// A cobv's terms, as `PUT`/`PATCH /cobv/{txid}` sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CobvTerms {
    /// `valor.original`: what is due on the due date.
    pub original: Cents,
    /// `calendario.dataDeVencimento`.
    pub due_date: Date,
    /// `calendario.validadeAposVencimento`.
    pub validity_days: i64,
    /// `valor.multa` (modalidade 2, percent) in basis points, when the PSP is to add one.
    pub fine_bp: Option<i64>,
    /// `valor.juros` (modalidade 3, percent a month, calendar days) in basis points.
    pub interest_bp: Option<i64>,
}

impl CobvTerms {
    /// The cobv a charge with these terms needs on `today`: the charge's effective due date,
    /// its unpaid principal and its rates while it is not yet overdue, else the day's amount
    /// due, payable today only.
    pub fn mirror(charge: &ChargeTerms<'_>, today: Date) -> CobvTerms {
        if charge.effective_due_date >= today {
            let fine = charge.fine_bp.clamp(0, MAX_FINE_BP);
            let interest = charge.interest_bp.max(0);
            return CobvTerms {
                original: balance(charge, today).owed.principal,
                due_date: charge.effective_due_date,
                validity_days: VALIDITY_AFTER_DUE_DAYS,
                fine_bp: (fine > 0).then_some(fine),
                interest_bp: (interest > 0).then_some(interest),
            };
        }
        CobvTerms {
            original: amount_due(charge, today),
            due_date: today,
            validity_days: 0,
            fine_bp: None,
            interest_bp: None,
        }
    }

    /// The last day the cobv can be paid: after it, a charge still open needs it remade.
    pub fn valid_until(&self) -> Date {
        self.due_date + time::Duration::days(self.validity_days)
    }
}

/// An amount as the API Pix writes it: reais with two decimals and a point (`"123.45"`).
pub fn decimal(cents: Cents) -> String {
    let sign = if cents.0 < 0 { "-" } else { "" };
    let abs = cents.0.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// Basis points as the API Pix writes a percentage (`"2.00"` for 200 bp).
pub fn percent(bp: i64) -> String {
    decimal(Cents(bp))
}

/// An amount the API Pix wrote (`\d{1,10}\.\d{2}`), in centavos; `None` for anything else.
pub fn parse_decimal(text: &str) -> Option<Cents> {
    let (reais, cents) = text.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(reais) || reais.len() > 10 || cents.len() != 2 || !digits(cents) {
        return None;
    }
    Some(Cents(
        reais.parse::<i64>().ok()? * 100 + cents.parse::<i64>().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;
    use crate::charge_math::Paid;

    fn charge(payments: &[Paid]) -> ChargeTerms<'_> {
        ChargeTerms {
            amount: Cents(1234_56),
            fine_bp: 200,
            interest_bp: 100,
            effective_due_date: date!(2026 - 10 - 01),
            payments,
        }
    }

    #[test]
    fn before_its_due_date_a_cobv_carries_the_charge_s_own_terms() {
        assert_eq!(
            CobvTerms::mirror(&charge(&[]), date!(2026 - 09 - 20)),
            CobvTerms {
                original: Cents(1234_56),
                due_date: date!(2026 - 10 - 01),
                validity_days: 30,
                fine_bp: Some(200),
                interest_bp: Some(100),
            }
        );
        let some = [Paid {
            day: date!(2026 - 09 - 30),
            amount: Cents(234_56),
        }];
        let paid_some = CobvTerms::mirror(&charge(&some), date!(2026 - 10 - 01));
        assert_eq!(paid_some.original, Cents(1000_00));
        assert_eq!(paid_some.valid_until(), date!(2026 - 10 - 31));
        let mut capped = charge(&[]);
        capped.fine_bp = 1000;
        capped.interest_bp = 0;
        let terms = CobvTerms::mirror(&capped, date!(2026 - 09 - 01));
        assert_eq!((terms.fine_bp, terms.interest_bp), (Some(200), None));
    }

    /// What a PSP adds to a cobv paid `days` after its due date, by multa modalidade 2 and
    /// juros modalidade 3, each component rounded on its own as `componentesValor` shows it.
    fn psp_amount(terms: &CobvTerms, days: i64) -> Cents {
        let original = terms.original.0;
        let fine = (original * terms.fine_bp.unwrap_or(0) + 5_000) / 10_000;
        let interest = (original * terms.interest_bp.unwrap_or(0) * days + 150_000) / 300_000;
        Cents(original + fine + interest)
    }

    #[test]
    fn what_the_psp_adds_to_a_late_charge_is_what_the_charge_computes() {
        // Unpaid, and after a partial payment made before the cobv was revised (BACEN's
        // modalidades apply the rates to the revised `original`: the balance).
        for payments in [
            vec![],
            vec![Paid {
                day: date!(2026 - 09 - 15),
                amount: Cents(400_00),
            }],
        ] {
            let terms = CobvTerms::mirror(&charge(&payments), date!(2026 - 09 - 20));
            for days in [1, 5, 9, 17, 30] {
                let paid_on = terms.due_date + time::Duration::days(days);
                assert_eq!(
                    psp_amount(&terms, days),
                    amount_due(&charge(&payments), paid_on),
                    "{days} days late, {payments:?}"
                );
            }
        }
    }

    #[test]
    fn an_overdue_charge_asks_for_the_day_s_amount_payable_that_day() {
        let today = date!(2026 - 10 - 11);
        let terms = CobvTerms::mirror(&charge(&[]), today);
        assert_eq!(
            terms,
            CobvTerms {
                original: amount_due(&charge(&[]), today),
                due_date: today,
                validity_days: 0,
                fine_bp: None,
                interest_bp: None,
            }
        );
        assert_eq!(terms.original, Cents(1234_56 + 24_69 + 4_12));
        assert_eq!(terms.valid_until(), today);
    }

    #[test]
    fn amounts_are_written_and_read_as_the_api_pix_does() {
        assert_eq!(decimal(Cents(1234_56)), "1234.56");
        assert_eq!(decimal(Cents(5)), "0.05");
        assert_eq!(percent(200), "2.00");
        assert_eq!(percent(33), "0.33");
        assert_eq!(parse_decimal("1234.56"), Some(Cents(1234_56)));
        assert_eq!(parse_decimal("0.01"), Some(Cents(1)));
        for bad in [
            "",
            "1",
            "1.5",
            "1.500",
            "-1.00",
            "1,00",
            ".50",
            "12345678901.00",
            "1.0a",
        ] {
            assert_eq!(parse_decimal(bad), None, "{bad}");
        }
    }
}
