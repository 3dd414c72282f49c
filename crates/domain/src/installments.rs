//! The arithmetic of agreements (acordos): what a proposal totals, how it splits into a down
//! payment and monthly instalments that add up to the centavo, and how money paid under an
//! agreement is credited back to the original charges when the agreement ends unpaid.

use time::{Date, Month};

use super::money::Cents;

/// A broken agreement: an instalment unpaid this many days after its due date breaks it
/// (the engine then reinstates the balance on the original charges). Thirty days is the
/// customary grace of Brazilian renegotiations and what the agreement term states.
pub const BREAK_AFTER_DAYS: i64 = 30;

/// The most instalments an agreement may have.
pub const MAX_INSTALLMENTS: i64 = 48;

/// One payment of a schedule: 0 is the down payment, 1..n the instalments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payment {
    pub number: i64,
    pub amount: Cents,
    pub due_date: Date,
}

/// Why a schedule cannot be built from the terms asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("the down payment must be less than the total")]
    DownPaymentTooLarge,
    #[error("each instalment must be at least R$ 0,01")]
    InstallmentsTooSmall,
    #[error("the instalments must number between 1 and {MAX_INSTALLMENTS}")]
    InstallmentCount,
    #[error("the schedule would end after the year 9999")]
    TooFarAhead,
}

/// The agreed total: what is due today less the discount (rounded half up, in the
/// debtor's favour by at most half a centavo). `discount_bp` is 0..=10 000 (0–100 %).
pub fn discounted_total(due: Cents, discount_bp: i64) -> Cents {
    let discount = (due.0 * discount_bp.clamp(0, 10_000) + 5_000) / 10_000;
    Cents(due.0 - discount)
}

/// The schedule: the down payment (number 0) on `first_due_date` when there is one, then
/// `installments` monthly payments, starting on `first_due_date` without a down payment and
/// a month after it with one. Instalments are equal but for the last, which takes the
/// rounding remainder, so the payments add up exactly to `total`.
pub fn schedule(
    total: Cents,
    down_payment: Cents,
    installments: i64,
    first_due_date: Date,
) -> Result<Vec<Payment>, ScheduleError> {
    if !(1..=MAX_INSTALLMENTS).contains(&installments) {
        return Err(ScheduleError::InstallmentCount);
    }
    if down_payment.0 < 0 || (down_payment.0 > 0 && down_payment >= total) {
        return Err(ScheduleError::DownPaymentTooLarge);
    }
    let rest = total.0 - down_payment.0;
    if rest < installments {
        return Err(ScheduleError::InstallmentsTooSmall);
    }
    let mut payments = Vec::with_capacity(installments as usize + 1);
    let offset = if down_payment.0 > 0 {
        payments.push(Payment {
            number: 0,
            amount: down_payment,
            due_date: first_due_date,
        });
        1
    } else {
        0
    };
    let each = rest / installments;
    for number in 1..=installments {
        let amount = if number == installments {
            rest - each * (installments - 1)
        } else {
            each
        };
        let due_date =
            add_months(first_due_date, number - 1 + offset).ok_or(ScheduleError::TooFarAhead)?;
        payments.push(Payment {
            number,
            amount: Cents(amount),
            due_date,
        });
    }
    Ok(payments)
}

/// The same day `months` later; a day the month lacks becomes its last day (31 January + 1
/// month is 28 or 29 February). Counted from `start` each time, so that later months get
/// the 31st back. `None` past the calendar's end.
pub fn add_months(start: Date, months: i64) -> Option<Date> {
    let index = i64::from(start.year()) * 12 + i64::from(u8::from(start.month())) - 1 + months;
    let year = i32::try_from(index.div_euclid(12)).ok()?;
    let month = Month::try_from(u8::try_from(index.rem_euclid(12) + 1).ok()?).ok()?;
    let last = time::util::days_in_month(month, year);
    Date::from_calendar_date(year, month, start.day().min(last)).ok()
}

/// Split `amount` over `weights` in proportion, in whole centavos: each share is rounded
/// down and the centavos left over go, one each, to the largest weights first (ties to the
/// earlier). Shares never exceed their weight when `amount` does not exceed the weights'
/// sum, and always add up to `amount` (0 for no or zero weights).
pub fn pro_rata(amount: Cents, weights: &[Cents]) -> Vec<Cents> {
    let sum: i64 = weights.iter().map(|w| w.0.max(0)).sum();
    if sum == 0 || amount.0 <= 0 {
        return vec![Cents(0); weights.len()];
    }
    let amount = i128::from(amount.0);
    let mut shares: Vec<i64> = weights
        .iter()
        .map(|w| (amount * i128::from(w.0.max(0)) / i128::from(sum)) as i64)
        .collect();
    let mut left = amount as i64 - shares.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weights[i].0));
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        if weights[i].0 > 0 {
            shares[i] += 1;
            left -= 1;
        }
    }
    shares.into_iter().map(Cents).collect()
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn sum(payments: &[Payment]) -> i64 {
        payments.iter().map(|p| p.amount.0).sum()
    }

    #[test]
    fn the_discount_comes_off_the_amount_due() {
        assert_eq!(discounted_total(Cents(2_481_89), 1000), Cents(2_233_70));
        assert_eq!(discounted_total(Cents(1_000_00), 0), Cents(1_000_00));
        assert_eq!(discounted_total(Cents(1_000_00), 10_000), Cents(0));
        // 333 × 12.5 % = 41.625 centavos: rounded to 42 off.
        assert_eq!(discounted_total(Cents(333), 1250), Cents(291));
    }

    #[test]
    fn instalments_add_up_to_the_total_with_the_remainder_on_the_last() {
        let payments = schedule(Cents(1000_00), Cents(0), 3, date!(2026 - 05 - 10)).unwrap();
        let amounts: Vec<i64> = payments.iter().map(|p| p.amount.0).collect();
        assert_eq!(amounts, [333_33, 333_33, 333_34]);
        assert_eq!(payments[0].number, 1);
        assert_eq!(payments[0].due_date, date!(2026 - 05 - 10));
        assert_eq!(payments[2].due_date, date!(2026 - 07 - 10));
    }

    #[test]
    fn the_down_payment_is_number_zero_and_instalments_follow_monthly() {
        let payments = schedule(Cents(2_233_70), Cents(500_00), 4, date!(2026 - 04 - 10)).unwrap();
        let view: Vec<(i64, i64, Date)> = payments
            .iter()
            .map(|p| (p.number, p.amount.0, p.due_date))
            .collect();
        assert_eq!(
            view,
            [
                (0, 500_00, date!(2026 - 04 - 10)),
                (1, 433_42, date!(2026 - 05 - 10)),
                (2, 433_42, date!(2026 - 06 - 10)),
                (3, 433_42, date!(2026 - 07 - 10)),
                (4, 433_44, date!(2026 - 08 - 10)),
            ]
        );
        assert_eq!(sum(&payments), 2_233_70);
    }

    #[test]
    fn every_split_adds_up_exactly() {
        for total in [1_00, 99_99, 1_234_57, 100_000_000_00] {
            for n in 1..=MAX_INSTALLMENTS {
                for down in [0, 1, total / 3] {
                    if let Ok(p) = schedule(Cents(total), Cents(down), n, date!(2026 - 01 - 31)) {
                        assert_eq!(sum(&p), total, "{total} {down} {n}");
                        assert!(p.iter().all(|x| x.amount.0 > 0));
                    }
                }
            }
        }
    }

    #[test]
    fn terms_that_cannot_be_scheduled_are_refused() {
        let d = date!(2026 - 01 - 10);
        assert_eq!(
            schedule(Cents(100_00), Cents(100_00), 2, d),
            Err(ScheduleError::DownPaymentTooLarge)
        );
        assert_eq!(
            schedule(Cents(3), Cents(0), 4, d),
            Err(ScheduleError::InstallmentsTooSmall)
        );
        assert_eq!(
            schedule(Cents(100_00), Cents(0), 49, d),
            Err(ScheduleError::InstallmentCount)
        );
        assert_eq!(
            schedule(Cents(100_00), Cents(0), 3, date!(9999 - 11 - 01)),
            Err(ScheduleError::TooFarAhead)
        );
    }

    #[test]
    fn months_keep_the_day_or_take_the_last_one() {
        let cases = [
            (date!(2026 - 01 - 31), 1, date!(2026 - 02 - 28)),
            (date!(2028 - 01 - 31), 1, date!(2028 - 02 - 29)),
            (date!(2026 - 01 - 31), 2, date!(2026 - 03 - 31)),
            (date!(2026 - 11 - 15), 3, date!(2027 - 02 - 15)),
            (date!(2026 - 05 - 10), 0, date!(2026 - 05 - 10)),
        ];
        for (start, months, expected) in cases {
            assert_eq!(
                add_months(start, months),
                Some(expected),
                "{start} + {months}"
            );
        }
        assert_eq!(add_months(date!(9999 - 12 - 01), 1), None);
    }

    #[test]
    fn payments_are_credited_in_proportion_and_add_up() {
        let weights = [Cents(300_00), Cents(100_00)];
        assert_eq!(
            pro_rata(Cents(200_00), &weights),
            [Cents(150_00), Cents(50_00)]
        );
        let thirds = pro_rata(Cents(100), &[Cents(1), Cents(1), Cents(1)]);
        assert_eq!(thirds, [Cents(34), Cents(33), Cents(33)]);
        assert_eq!(pro_rata(Cents(0), &weights), [Cents(0), Cents(0)]);
        assert_eq!(pro_rata(Cents(5), &[]), Vec::<Cents>::new());
        let full = pro_rata(Cents(400_00), &weights);
        assert_eq!(full, weights);
    }
}
