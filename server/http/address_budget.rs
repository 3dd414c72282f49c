//! What one client address may do per window, counted in memory: the OAuth registrations an
//! address may make (`oauth::clients`), the refusals an address may get from an
//! unauthenticated inbound door (`inbound`). Past its budget, the address is refused until its
//! window ends, and the refusal says when that is.
//!
//! - **A window per address**, starting at the first thing the address spends and lasting
//!   [`Budget::window`]: an address cannot get twice its budget by spending it on both sides of
//!   a boundary shared by everyone.
//! - **Bounded**: at most [`MOST_ADDRESSES`] addresses are kept. When the table is full,
//!   windows that ended are dropped; if it is still full, a new address is served uncounted.
//!   A budget per address cannot stop many addresses anyway, and refusing every newcomer would
//!   let a flood of addresses shut the door on everyone (once per window, a line says the
//!   table was full).
//! - **IPv6 by its /64**: one host usually holds a whole /64, and each of its 2^64 addresses
//!   would otherwise be a new budget.
//! - **Logged once per window**: the first refusal of an address's window is one line naming
//!   the budget and the address; the rest only count. When the window ends (found by a
//!   sweep that runs while some window holds refusals, or by the address's next request) one
//!   line says how many were refused.
//! - **Per process**: each replica counts its own; the limit across replicas is the budget
//!   times the replicas, which is what a bound on a flood needs.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// Most addresses one budget remembers.
pub const MOST_ADDRESSES: usize = 10_000;

/// How much an address may spend per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// What one address may spend in a window.
    pub per_window: u32,
    /// How long a window lasts, from the address's first spending.
    pub window: Duration,
}

/// The mark of a response refused by an address budget: the access log writes no line for
/// it (the budget's own lines stand for all of them).
#[derive(Debug, Clone, Copy)]
pub struct OverBudget {
    /// Whole seconds until the address's window ends (at least 1).
    pub retry_after: u64,
}

/// The key of an address: itself, or the /64 of an IPv6 address; `None` when the request
/// came without a peer address (in-process, in tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key(Option<IpAddr>);

impl Key {
    fn of(address: Option<IpAddr>) -> Key {
        Key(address.map(|ip| match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(prefix.into())
            }
            v4 => v4,
        }))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("unknown"),
            Some(IpAddr::V4(v4)) => write!(f, "{v4}"),
            Some(IpAddr::V6(v6)) => write!(f, "{v6}/64"),
        }
    }
}

/// One address's window: when it started (milliseconds since the epoch), what it spent and
/// how many requests it had refused.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: i64,
    spent: u32,
    refused: u64,
}

#[derive(Debug, Default)]
struct Table {
    windows: HashMap<Key, Window>,
    /// A sweep is scheduled (some window holds refusals not yet summed up).
    sweeping: bool,
    /// When the table was last found full (so that it is said once per window).
    full_noted: Option<i64>,
}

/// A budget per client address, for one door (or one step, like OAuth registration).
#[derive(Debug)]
pub struct AddressBudget {
    /// The door or step, in log lines.
    name: &'static str,
    budget: Budget,
    table: Mutex<Table>,
}

impl AddressBudget {
    pub fn new(name: &'static str, budget: Budget) -> Arc<AddressBudget> {
        Arc::new(AddressBudget {
            name,
            budget: Budget {
                per_window: budget.per_window.max(1),
                window: budget.window.max(Duration::from_secs(1)),
            },
            table: Mutex::new(Table::default()),
        })
    }

    fn window_ms(&self) -> i64 {
        i64::try_from(self.budget.window.as_millis()).unwrap_or(i64::MAX / 4)
    }

    /// Whether `address` may still be served at `now_ms` (milliseconds since the epoch);
    /// spends nothing. A refusal is counted (and the window's first one logged).
    pub fn check(self: &Arc<Self>, address: Option<IpAddr>, now_ms: i64) -> Result<(), OverBudget> {
        let key = Key::of(address);
        let mut table = self.table.lock().expect("address budget lock");
        self.refuse_if_spent(&mut table, key, now_ms)
    }

    /// Count one spending of `address` at `now_ms`.
    pub fn spend(self: &Arc<Self>, address: Option<IpAddr>, now_ms: i64) {
        let key = Key::of(address);
        let mut table = self.table.lock().expect("address budget lock");
        self.spend_in(&mut table, key, now_ms);
    }

    /// [`check`](Self::check), then [`spend`](Self::spend) when it passes, as one step (for
    /// what counts every request, like a registration).
    pub fn admit(self: &Arc<Self>, address: Option<IpAddr>, now_ms: i64) -> Result<(), OverBudget> {
        let key = Key::of(address);
        let mut table = self.table.lock().expect("address budget lock");
        self.refuse_if_spent(&mut table, key, now_ms)?;
        self.spend_in(&mut table, key, now_ms);
        Ok(())
    }

    fn refuse_if_spent(
        self: &Arc<Self>,
        table: &mut Table,
        key: Key,
        now_ms: i64,
    ) -> Result<(), OverBudget> {
        let window_ms = self.window_ms();
        let Some(window) = table.windows.get_mut(&key) else {
            return Ok(());
        };
        if window.start + window_ms <= now_ms {
            let ended = *window;
            table.windows.remove(&key);
            self.summed_up(key, &ended);
            return Ok(());
        }
        if window.spent < self.budget.per_window {
            return Ok(());
        }
        window.refused += 1;
        let left_ms = window.start + window_ms - now_ms;
        if window.refused == 1 {
            tracing::warn!(
                door = self.name,
                address = %key,
                budget = self.budget.per_window,
                window_s = self.budget.window.as_secs(),
                "client address over its budget: refused until its window ends"
            );
            if !table.sweeping {
                table.sweeping = true;
                self.schedule_sweep();
            }
        }
        Err(OverBudget {
            retry_after: u64::try_from((left_ms + 999) / 1000).unwrap_or(1).max(1),
        })
    }

    fn spend_in(self: &Arc<Self>, table: &mut Table, key: Key, now_ms: i64) {
        let window_ms = self.window_ms();
        if let Some(window) = table.windows.get_mut(&key) {
            if window.start + window_ms > now_ms {
                window.spent = window.spent.saturating_add(1);
                return;
            }
            let ended = *window;
            self.summed_up(key, &ended);
            *window = Window {
                start: now_ms,
                spent: 1,
                refused: 0,
            };
            return;
        }
        if table.windows.len() >= MOST_ADDRESSES {
            self.drop_ended(table, now_ms);
        }
        if table.windows.len() >= MOST_ADDRESSES {
            let noted_lately = table.full_noted.is_some_and(|at| at + window_ms > now_ms);
            if !noted_lately {
                table.full_noted = Some(now_ms);
                tracing::warn!(
                    door = self.name,
                    addresses = table.windows.len(),
                    "address budget full: new addresses are served uncounted until windows end"
                );
            }
            return;
        }
        table.windows.insert(
            key,
            Window {
                start: now_ms,
                spent: 1,
                refused: 0,
            },
        );
    }

    /// Drop the windows that ended by `now_ms`, summing up those that refused; whether any
    /// window left still holds refusals.
    fn drop_ended(&self, table: &mut Table, now_ms: i64) -> bool {
        let window_ms = self.window_ms();
        let mut refusing = false;
        table.windows.retain(|key, window| {
            if window.start + window_ms > now_ms {
                refusing |= window.refused > 0;
                return true;
            }
            self.summed_up(*key, window);
            false
        });
        refusing
    }

    /// The line that closes a window that refused requests.
    fn summed_up(&self, key: Key, window: &Window) {
        if window.refused > 0 {
            tracing::warn!(
                door = self.name,
                address = %key,
                refused = window.refused,
                window_s = self.budget.window.as_secs(),
                "client address refused requests over its budget in its window"
            );
        }
    }

    /// Sweep once per window length while some window holds refusals, so that each one's
    /// closing line comes when it ends even if its address is never heard from again. The
    /// task holds the budget weakly: it ends with the server.
    fn schedule_sweep(self: &Arc<Self>) {
        let weak: Weak<AddressBudget> = Arc::downgrade(self);
        let every = self.budget.window;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(budget) = weak.upgrade() else {
                    return;
                };
                let now_ms = now_ms();
                let mut table = budget.table.lock().expect("address budget lock");
                if !budget.drop_ended(&mut table, now_ms) {
                    table.sweeping = false;
                    return;
                }
            }
        });
    }
}

/// Milliseconds since the epoch, by the service's one clock.
pub fn now_ms() -> i64 {
    i64::try_from(dunning_domain::timestamp::now().unix_timestamp_nanos() / 1_000_000)
        .unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(per_window: u32, seconds: u64) -> Arc<AddressBudget> {
        AddressBudget::new(
            "test",
            Budget {
                per_window,
                window: Duration::from_secs(seconds),
            },
        )
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[tokio::test]
    async fn an_address_is_refused_once_it_spent_its_budget_until_its_own_window_ends() {
        let limit = budget(3, 10);
        let (a, b) = (ip("192.0.2.1"), ip("192.0.2.2"));
        let t0 = 1_000_000;
        for _ in 0..3 {
            assert!(limit.check(a, t0).is_ok());
            limit.spend(a, t0);
        }
        let refused = limit.check(a, t0 + 2_500).unwrap_err();
        assert_eq!(refused.retry_after, 8, "7.5 s left, rounded up");
        assert!(limit.check(b, t0 + 2_500).is_ok(), "another address");
        assert!(limit.check(a, t0 + 9_999).is_err());
        assert!(limit.check(a, t0 + 10_000).is_ok(), "its window ended");
        limit.spend(a, t0 + 10_000);
        assert!(
            limit.check(a, t0 + 10_001).is_ok(),
            "a new window, one spent"
        );
    }

    #[tokio::test]
    async fn admitting_counts_every_request_and_refuses_past_the_budget() {
        let limit = budget(2, 60);
        let a = ip("198.51.100.7");
        assert!(limit.admit(a, 0).is_ok());
        assert!(limit.admit(a, 1).is_ok());
        assert_eq!(limit.admit(a, 2).unwrap_err().retry_after, 60);
        assert!(
            limit.admit(None, 2).is_ok(),
            "no address is one address of its own"
        );
    }

    #[tokio::test]
    async fn ipv6_addresses_of_one_64_share_a_budget_and_mapped_ipv4_is_ipv4() {
        let limit = budget(1, 60);
        limit.spend(ip("2001:db8:1:2::1"), 0);
        assert!(limit.check(ip("2001:db8:1:2:ffff::9"), 1).is_err());
        assert!(limit.check(ip("2001:db8:1:3::1"), 1).is_ok());
        limit.spend(ip("::ffff:192.0.2.9"), 0);
        assert!(limit.check(ip("192.0.2.9"), 1).is_err());
        assert_eq!(
            Key::of(ip("2001:db8:1:2::1")).to_string(),
            "2001:db8:1:2::/64"
        );
    }

    #[tokio::test]
    async fn a_flood_of_addresses_keeps_the_table_bounded_and_is_served_uncounted() {
        let limit = budget(1, 60);
        for n in 0..(MOST_ADDRESSES as u32 + 500) {
            limit.spend(Some(IpAddr::V4(n.into())), 0);
        }
        assert_eq!(limit.table.lock().unwrap().windows.len(), MOST_ADDRESSES);
        let newcomer = Some(IpAddr::V4((MOST_ADDRESSES as u32 + 1).into()));
        assert!(limit.check(newcomer, 1).is_ok(), "uncounted, never refused");
        // Once the windows end, new addresses are counted again.
        limit.spend(newcomer, 60_000);
        assert_eq!(limit.table.lock().unwrap().windows.len(), 1);
        assert!(limit.check(newcomer, 60_001).is_err());
    }
}
