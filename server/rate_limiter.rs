//! The rate limiter ([`Limiter`]): rate-limit windows counted in memory, with budgets shared
//! through the database. What a request does with it (counted once, 429 once its window is
//! spent, the `RateLimit-*` headers) is the `/v1` step `api::steps::rate_limit`, whose `count`
//! the MCP host calls too.
//!
//! Each token has fixed windows of its period. The database row of a window holds how many of
//! its requests the replicas have *claimed* between them (never more than the limit); each
//! replica admits requests against what it claimed, counting them in memory. So:
//!
//! - **One process is exact**: it claims everything eventually, and admits the limit's worth
//!   of requests in a window, refusing the next one, just as when every request was a write.
//! - **Replicas never admit more than the limit between them** in a window: a request is
//!   admitted only against a claim, and claims never take the window past its limit.
//! - **A replica may refuse early** only while another replica holds budget it claimed and
//!   has not used yet. Claims are sized so that this stays small and short: a claim takes at
//!   most half of what is left in the window, and every flush interval (1 s by default) each
//!   replica gives back what it holds beyond about one interval of its own traffic, and all of
//!   it when idle. A replica that refused re-asks the database after one interval. A replica
//!   killed mid-window keeps what it claimed out of reach until the window closes.
//! - **No write on a request's path** except a claim: the first request of a window on a
//!   replica, and a request that finds its replica's claim used up (a burst faster than the
//!   background top-up, or a window near its limit, where claims shrink to single requests
//!   and every request coordinates through the database). Steady traffic is topped up in the
//!   background.
//!
//! A storage fault while claiming lets the request through uncounted, as before: the storage
//! refuses what it cannot do with its own 503, and reads keep working on a read-only database.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use dunning_store::rate_windows::{self as store, Claimant, WindowState};
use dunning_store::{Db, Result};

/// How many flushes between deletions of windows closed more than a day ago.
const FORGET_EVERY: u32 = 60;
/// Most tokens counted at once; beyond it the oldest closed windows are dropped first.
const MOST_SLOTS: usize = 100_000;

/// Every token's current window on this replica.
pub struct Limiter {
    db: Db,
    flush: Duration,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    flushing: AtomicBool,
}

struct Slot {
    window: Mutex<Window>,
    /// One claim at a time per token on this replica: the others wait and use its result.
    gate: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default, Clone)]
struct Window {
    start: i64,
    period: i64,
    limit: i64,
    /// Requests of this window this replica claimed and still holds (`used` included).
    claimed: i64,
    /// Requests admitted here.
    used: i64,
    /// `used` at the last flush: the traffic of one interval is the difference.
    used_at_flush: i64,
    refused: i64,
    /// What other replicas held when this one last talked to the database.
    others: i64,
    /// The window had nothing left at the last claim: refuse without asking until then.
    spent_until: Option<Instant>,
}

/// What to do with a request after looking at the window in memory.
enum Step {
    Done(WindowState),
    Claim { want: i64 },
}

impl Slot {
    /// Admit or refuse from memory if this replica's claim decides it, in the window of
    /// `start` (a new window starts empty).
    fn look(&self, start: i64, period: i64, limit: i64, now: i64) -> Step {
        let mut window = self.window.lock().expect("window lock");
        if window.start != start || window.period != period {
            *window = Window {
                start,
                period,
                ..Window::default()
            };
        }
        window.limit = limit;
        window.step(now, Instant::now())
    }
}

impl Window {
    fn state(&self, now: i64, hits: i64) -> WindowState {
        WindowState {
            limit: self.limit,
            hits,
            reset: self.start + self.period - now,
        }
    }

    /// Admit or refuse from memory when the claim held here decides it.
    fn step(&mut self, now: i64, at: Instant) -> Step {
        // A limit lowered mid-window (the token cache expired) stops what was claimed under
        // the old one.
        if self.used < self.claimed && self.others + self.used < self.limit {
            self.used += 1;
            return Step::Done(self.state(now, self.others + self.used));
        }
        if self.spent_until.is_some_and(|until| at < until) {
            self.refused += 1;
            let hits = (self.others + self.used + self.refused).max(self.limit + 1);
            return Step::Done(self.state(now, hits));
        }
        // Claim as much as was used so far (so claims grow geometrically with the traffic),
        // at least 1/64 of the limit; the database caps it at half of what is left.
        Step::Claim {
            want: self.used.max(self.limit / 64).max(1),
        }
    }

    fn record_claim(&mut self, claim: store::Claim, at: Instant, flush: Duration) {
        self.claimed += claim.granted;
        self.others = (claim.claimed - self.claimed).max(0);
        self.spent_until = (claim.granted == 0).then(|| at + flush);
    }
}

impl Limiter {
    pub fn new(db: Db, flush: Duration) -> Limiter {
        Limiter {
            db,
            flush: flush.max(Duration::from_millis(10)),
            slots: Mutex::new(HashMap::new()),
            flushing: AtomicBool::new(false),
        }
    }

    /// Count one request of `token_id` in its current window of `period` seconds.
    pub async fn hit(
        self: &Arc<Self>,
        token_id: &str,
        limit: i64,
        period: i64,
    ) -> Result<WindowState> {
        self.start_flushing();
        let now = dunning_domain::timestamp::now().unix_timestamp();
        let start = now - now.rem_euclid(period);
        let slot = self.slot(token_id);
        loop {
            if let Step::Done(state) = slot.look(start, period, limit, now) {
                return Ok(state);
            }
            let gate = slot.gate.lock().await;
            // Another request may have claimed while this one waited at the gate.
            let want = match slot.look(start, period, limit, now) {
                Step::Done(state) => return Ok(state),
                Step::Claim { want } => want,
            };
            let claim = store::claim(&self.db, token_id, start, limit, want, Claimant::Request);
            let claim = match claim.await {
                Ok(claim) => claim,
                Err(e) if e.storage_fault().is_some() => {
                    tracing::debug!("rate limit not counted: {e}");
                    return Ok(WindowState {
                        limit,
                        hits: 0,
                        reset: period,
                    });
                }
                Err(e) => return Err(e),
            };
            let mut window = slot.window.lock().expect("window lock");
            if window.start == start {
                window.record_claim(claim, Instant::now(), self.flush);
            }
            drop(window);
            drop(gate);
        }
    }

    fn slot(&self, token_id: &str) -> Arc<Slot> {
        let mut slots = self.slots.lock().expect("slots lock");
        if let Some(slot) = slots.get(token_id) {
            return slot.clone();
        }
        if slots.len() >= MOST_SLOTS {
            let now = dunning_domain::timestamp::now().unix_timestamp();
            slots.retain(|_, slot| {
                let window = slot.window.lock().expect("window lock");
                window.start + window.period > now
            });
        }
        let slot = Arc::new(Slot {
            window: Mutex::new(Window::default()),
            gate: tokio::sync::Mutex::new(()),
        });
        slots.insert(token_id.to_string(), slot.clone());
        slot
    }

    /// Start the background flush on the first request (there is a runtime then); it stops
    /// when the limiter is dropped.
    fn start_flushing(self: &Arc<Self>) {
        if self.flushing.swap(true, Ordering::Relaxed) {
            return;
        }
        let weak = Arc::downgrade(self);
        let every = self.flush;
        tokio::spawn(async move {
            let mut ticks = 0u32;
            loop {
                tokio::time::sleep(every).await;
                let Some(limiter) = Weak::upgrade(&weak) else {
                    return;
                };
                limiter.flush_once().await;
                ticks = ticks.wrapping_add(1);
                if ticks.is_multiple_of(FORGET_EVERY) {
                    let now = dunning_domain::timestamp::now().unix_timestamp();
                    if let Err(e) = store::forget_before(&limiter.db, now - 86_400).await {
                        tracing::debug!("old rate-limit windows not deleted: {e}");
                    }
                }
            }
        });
    }

    /// Give back what each window holds beyond about one interval of its traffic (all of it
    /// when idle), top up busy windows to one interval ahead, and drop closed windows.
    pub async fn flush_once(&self) {
        let now = dunning_domain::timestamp::now().unix_timestamp();
        let slots: Vec<(String, Arc<Slot>)> = {
            let mut slots = self.slots.lock().expect("slots lock");
            slots.retain(|_, slot| {
                let window = slot.window.lock().expect("window lock");
                window.start + window.period > now
            });
            slots
                .iter()
                .map(|(token, slot)| (token.clone(), slot.clone()))
                .collect()
        };
        for (token_id, slot) in slots {
            // A request claiming right now knows better; skip this token until next time.
            let Ok(_gate) = slot.gate.try_lock() else {
                continue;
            };
            let (start, limit, change) = {
                let mut window = slot.window.lock().expect("window lock");
                let traffic = window.used - window.used_at_flush;
                window.used_at_flush = window.used;
                let unused = window.claimed - window.used;
                let change = if unused > traffic {
                    // Give back first in memory: until the database has it, the row counts
                    // more than this replica holds, never less.
                    window.claimed -= unused - traffic;
                    -(unused - traffic)
                } else if traffic > 0 && window.spent_until.is_none() {
                    traffic - unused
                } else {
                    0
                };
                (window.start, window.limit, change)
            };
            if change < 0 {
                if let Err(e) = store::give_back(&self.db, &token_id, start, -change).await {
                    tracing::debug!("unused rate-limit budget not given back: {e}");
                }
            } else if change > 0 {
                match store::claim(&self.db, &token_id, start, limit, change, Claimant::Flush).await
                {
                    // Nothing granted here says nothing about the window being spent.
                    Ok(claim) if claim.granted > 0 => {
                        let mut window = slot.window.lock().expect("window lock");
                        if window.start == start {
                            window.record_claim(claim, Instant::now(), self.flush);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => tracing::debug!("rate-limit budget not topped up: {e}"),
                }
            }
        }
    }
}
