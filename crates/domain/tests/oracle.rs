//! `charge_math` and `calendar` against a plain model: a loop over the days between the due
//! date and the day asked about, with the payments of each day, in integer centavos, on a
//! calendar read from ANBIMA's published holidays (`tests/data/anbima-holidays-2025-2030.txt`,
//! not from `bdays`) — written from the rule in words, sharing no code with the crate.
//! Thousands of generated charges (a seeded generator: a failure names its seed), payment
//! sequences on and around due dates that fall on weekends, holidays, the organization's own
//! holidays and month ends; and instants around midnight in Brasília for the day of a payment.

use std::collections::BTreeSet;

use dunning_domain::calendar::{Calendar, day_of};
use dunning_domain::charge_math::{ChargeTerms, Paid, balance};
use dunning_domain::money::Cents;
use time::{Date, Duration, OffsetDateTime, UtcOffset, Weekday};

/// SplitMix64: enough randomness for generated cases, and the same cases for a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next() % (high - low + 1) as u64) as i64
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.range(0, items.len() as i64 - 1) as usize]
    }
}

/// ANBIMA's published holidays, 2025 to 2030.
fn published_holidays() -> BTreeSet<Date> {
    include_str!("../../../tests/data/anbima-holidays-2025-2030.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let n = |r: std::ops::Range<usize>| l[r].parse::<i32>().unwrap();
            Date::from_calendar_date(
                n(0..4),
                time::Month::try_from(n(5..7) as u8).unwrap(),
                n(8..10) as u8,
            )
            .unwrap()
        })
        .collect()
}

/// The model's calendar: weekends, the published holidays and the organization's own.
struct ModelCalendar {
    holidays: BTreeSet<Date>,
}

impl ModelCalendar {
    fn business(&self, day: Date) -> bool {
        !matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday)
            && !self.holidays.contains(&day)
    }

    /// The first business day on or after `day`.
    fn effective(&self, mut day: Date) -> Date {
        while !self.business(day) {
            day += Duration::days(1);
        }
        day
    }
}

/// What the model says a charge owes at the end of day `on`: (principal, fine, interest,
/// over-payment). The rule in words: on each day, that day's payments pay — once the
/// effective due date G has passed — interest, then the fine, then principal (before, only
/// principal); at the end of G the fine is set on the principal then unpaid; each day from G
/// on adds its interest on the principal outstanding that day; interest is rounded once.
fn model(
    amount: i64,
    fine_bp: i64,
    interest_bp: i64,
    due: Date,
    payments: &[(Date, i64)],
    on: Date,
    calendar: &ModelCalendar,
) -> (i64, i64, i64, i64) {
    let g = calendar.effective(due);
    let round = |n: i128, d: i128| ((n + d / 2) / d) as i64;
    let (mut principal, mut fine, mut fine_paid, mut interest_paid, mut excess) =
        (amount, 0i64, 0i64, 0i64, 0i64);
    let mut numerator: i128 = 0;
    let mut day = payments.iter().map(|p| p.0).chain([due]).min().unwrap();
    while day <= on {
        for &(_, paid) in payments.iter().filter(|p| p.0 == day) {
            let mut paid = paid;
            if day > g {
                let owed = round(numerator, 300_000) - interest_paid;
                let x = paid.min(owed);
                interest_paid += x;
                paid -= x;
                let y = paid.min(fine - fine_paid);
                fine_paid += y;
                paid -= y;
            }
            let z = paid.min(principal);
            principal -= z;
            excess += paid - z;
        }
        if day == g {
            fine = round(i128::from(principal) * i128::from(fine_bp.min(200)), 10_000);
        }
        if day >= g && day < on {
            numerator += i128::from(principal) * i128::from(interest_bp);
        }
        day += Duration::days(1);
    }
    let fine_owed = if on > g { fine - fine_paid } else { 0 };
    (
        principal,
        fine_owed,
        round(numerator, 300_000) - interest_paid,
        excess,
    )
}

#[test]
fn the_balance_of_any_charge_on_any_day_is_the_day_by_day_model_s() {
    let published = published_holidays();
    let first = Date::from_calendar_date(2025, time::Month::March, 1).unwrap();
    let last = Date::from_calendar_date(2030, time::Month::June, 30).unwrap();
    // Days money goes wrong around: weekends, holidays, month ends.
    let mut specials = Vec::new();
    let mut day = first;
    while day <= last {
        if published.contains(&day)
            || matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday)
            || (day + Duration::days(1)).day() == 1
        {
            specials.push(day);
        }
        day += Duration::days(1);
    }
    let mut checked = 0;
    for seed in 0..40u64 {
        let mut rng = Rng(seed);
        // The organization's own holidays for this seed: a few weekdays.
        let extra: Vec<Date> = (0..6)
            .map(|_| first + Duration::days(rng.range(0, (last - first).whole_days())))
            .collect();
        let model_calendar = ModelCalendar {
            holidays: published
                .iter()
                .copied()
                .chain(extra.iter().copied())
                .collect(),
        };
        let calendar = Calendar::with_holidays(extra.clone());
        for case in 0..250 {
            let amounts = [
                rng.range(1, 99),
                rng.range(100, 100_000),
                rng.range(1, 10_000_000_000),
            ];
            let amount = rng.pick(&amounts);
            let fines = [0, 100, 200, 500, rng.range(0, 200)];
            let fine_bp = rng.pick(&fines);
            let rates = [0, 100, 1000, rng.range(0, 1000)];
            let interest_bp = rng.pick(&rates);
            let due = if rng.range(0, 1) == 0 {
                rng.pick(&specials)
            } else {
                rng.pick(&extra) + Duration::days(rng.range(-1, 1))
            };
            let mut payments: Vec<(Date, i64)> = (0..rng.range(0, 4))
                .map(|_| {
                    let day = due + Duration::days(rng.range(-15, 90));
                    let share = [1, 2, 3, 7][rng.range(0, 3) as usize];
                    (day, (amount / share + rng.range(-100, 100)).max(1))
                })
                .collect();
            payments.sort_by_key(|p| p.0);
            let g = calendar.effective_due_date(due);
            assert_eq!(
                g,
                model_calendar.effective(due),
                "seed {seed} case {case}: effective due date of {due}"
            );
            // The crate keeps one entry a day: what a day's payments add up to.
            let mut by_day: Vec<Paid> = Vec::new();
            for &(day, cents) in &payments {
                match by_day.last_mut() {
                    Some(last) if last.day == day => last.amount.0 += cents,
                    _ => by_day.push(Paid {
                        day,
                        amount: Cents(cents),
                    }),
                }
            }
            let terms = ChargeTerms {
                amount: Cents(amount),
                fine_bp,
                interest_bp,
                effective_due_date: g,
                payments: &by_day,
            };
            // The day before the due date, the due date, the effective due date, each payment's
            // day, and days after.
            let mut days = vec![due - Duration::days(1), due, g, g + Duration::days(1)];
            days.extend(payments.iter().map(|p| p.0));
            days.extend((0..4).map(|_| g + Duration::days(rng.range(2, 400))));
            for on in days {
                let got = balance(&terms, on);
                // A day's payments taken as one: the model's order within a day pays the
                // same parts, so the sum of a day is what counts.
                let day_sums: Vec<(Date, i64)> =
                    by_day.iter().map(|p| (p.day, p.amount.0)).collect();
                let want = model(
                    amount,
                    fine_bp,
                    interest_bp,
                    due,
                    &day_sums,
                    on,
                    &model_calendar,
                );
                assert_eq!(
                    (
                        got.owed.principal.0,
                        got.owed.fine.0,
                        got.owed.interest.0,
                        got.excess.0
                    ),
                    want,
                    "seed {seed} case {case}: {amount} at {fine_bp}/{interest_bp} bp due {due} (G {g}), paid {payments:?}, on {on}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50_000, "{checked} balances checked");
}

#[test]
fn the_day_of_an_instant_around_midnight_is_its_brasilia_date() {
    // Since 2019 Brasília is UTC−3 all year (the model's fixed offset is right for these
    // instants; the crate reads the time zone database, which also knows the years before).
    let brasilia = UtcOffset::from_hms(-3, 0, 0).unwrap();
    let mut rng = Rng(7);
    for _ in 0..20_000 {
        let midnight =
            OffsetDateTime::from_unix_timestamp(rng.range(1_577_847_600, 1_924_916_400)).unwrap();
        let around = midnight
            .to_offset(brasilia)
            .replace_time(time::Time::MIDNIGHT)
            + Duration::seconds(rng.range(-5_400, 5_400));
        assert_eq!(
            day_of(around),
            around.to_offset(brasilia).date(),
            "{around}"
        );
    }
}
