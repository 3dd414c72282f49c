//! Reports of what an organization is owed: the aging of its open charges on a day.
//!
//! Each open charge counts with its `amount_due` as the charge math computes it on that day
//! (`dunning_store::charges::Charge`, the amount the charges endpoint shows), and its days
//! overdue count from its effective due date; what is owed is only grouped here, never
//! worked out again.

use std::collections::HashMap;

use time::Date;

use dunning_domain::charge_math::ChargeStatus;
use dunning_domain::money::Cents;
use dunning_store::charges::{self, Charge};
use dunning_store::{Db, Result, StoreError, customers};

/// How many debtors a report names, those who owe the most.
pub const TOP_DEBTORS: usize = 10;

/// Some open charges: how many, and what they owe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Open {
    pub count: i64,
    pub amount: Cents,
}

impl Open {
    fn add(&mut self, amount: Cents) {
        self.count += 1;
        self.amount = Cents(self.amount.0.saturating_add(amount.0));
    }
}

/// A range of days overdue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Not past the effective due date.
    NotDue,
    Days1To30,
    Days31To60,
    Days61To90,
    Over90,
}

impl Bucket {
    /// Every range, fewest days first.
    pub const ALL: [Bucket; 5] = [
        Bucket::NotDue,
        Bucket::Days1To30,
        Bucket::Days31To60,
        Bucket::Days61To90,
        Bucket::Over90,
    ];

    /// The fewest and the most days overdue in the range (`None`: no most).
    pub fn days(self) -> (i64, Option<i64>) {
        match self {
            Bucket::NotDue => (0, Some(0)),
            Bucket::Days1To30 => (1, Some(30)),
            Bucket::Days31To60 => (31, Some(60)),
            Bucket::Days61To90 => (61, Some(90)),
            Bucket::Over90 => (91, None),
        }
    }

    /// The range holding `days` overdue (0 or fewer: not due).
    pub fn of(days: i64) -> Bucket {
        match days {
            ..=0 => Bucket::NotDue,
            1..=30 => Bucket::Days1To30,
            31..=60 => Bucket::Days31To60,
            61..=90 => Bucket::Days61To90,
            _ => Bucket::Over90,
        }
    }
}

/// A customer with open charges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Debtor {
    pub customer_id: String,
    pub name: String,
    pub open: Open,
}

/// The open charges of an organization on a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aging {
    /// The day the amounts and days overdue are of.
    pub as_of: Date,
    pub total: Open,
    /// Each range of [`Bucket::ALL`], in that order.
    pub buckets: [(Bucket, Open); 5],
    pub pending: Open,
    pub overdue: Open,
    /// At most [`TOP_DEBTORS`], who owes most first, ties by customer id.
    pub top_debtors: Vec<Debtor>,
}

/// The aging of the organization's open charges on `today`: two reads, its open charges and
/// the names of its top debtors.
pub async fn aging(db: &Db, organization_id: &str, today: Date) -> Result<Aging> {
    let open = charges::open_on(db, organization_id, today).await?;
    let (mut report, top) = tally(&open, today);
    let ids: Vec<&str> = top.iter().map(|(id, _)| *id).collect();
    let mut names: HashMap<String, String> = customers::names(db, organization_id, &ids)
        .await?
        .into_iter()
        .map(|c| (c.id, c.name))
        .collect();
    for (customer_id, open) in top {
        let name = names.remove(customer_id).ok_or_else(|| {
            StoreError::Corrupt(format!("charges name a missing customer {customer_id}"))
        })?;
        report.top_debtors.push(Debtor {
            customer_id: customer_id.to_string(),
            name,
            open,
        });
    }
    Ok(report)
}

/// The report of `open` (charges seen on `today`) without its debtors' names, and the top
/// debtors by customer id.
fn tally(open: &[Charge], today: Date) -> (Aging, Vec<(&str, Open)>) {
    let mut report = Aging {
        as_of: today,
        total: Open::default(),
        buckets: Bucket::ALL.map(|bucket| (bucket, Open::default())),
        pending: Open::default(),
        overdue: Open::default(),
        top_debtors: Vec::new(),
    };
    let mut by_customer: HashMap<&str, Open> = HashMap::new();
    for charge in open {
        let due = charge.amount_due;
        let days = match charge.status {
            ChargeStatus::Overdue => {
                report.overdue.add(due);
                (today - charge.effective_due_date).whole_days()
            }
            ChargeStatus::Pending => {
                report.pending.add(due);
                0
            }
            // Only open charges are read; any other owes nothing.
            ChargeStatus::Paid | ChargeStatus::Canceled | ChargeStatus::InAgreement => continue,
        };
        report.total.add(due);
        let bucket = Bucket::of(days);
        if let Some((_, sum)) = report.buckets.iter_mut().find(|(b, _)| *b == bucket) {
            sum.add(due);
        }
        by_customer.entry(&charge.customer_id).or_default().add(due);
    }
    let mut top: Vec<(&str, Open)> = by_customer.into_iter().collect();
    top.sort_by(|(a_id, a), (b_id, b)| b.amount.cmp(&a.amount).then(a_id.cmp(b_id)));
    top.truncate(TOP_DEBTORS);
    (report, top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_day_count_falls_in_one_range_whose_bounds_hold_it() {
        for days in -3..200 {
            let (min, max) = Bucket::of(days).days();
            assert!(days.max(0) >= min, "{days}");
            assert!(max.is_none_or(|max| days <= max), "{days}");
        }
        assert_eq!(Bucket::of(30), Bucket::Days1To30);
        assert_eq!(Bucket::of(31), Bucket::Days31To60);
        assert_eq!(Bucket::of(90), Bucket::Days61To90);
        assert_eq!(Bucket::of(91), Bucket::Over90);
    }
}
