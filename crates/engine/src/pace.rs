//! A sender's pace: the message rate a provider allows one sender (Twilio takes about one SMS
//! a second from a long-code number by default, WhatsApp far more), and the back-off it asks
//! for when it answers 429 with `Retry-After`.
//!
//! Each message takes the next free turn. A turn that comes soon (within [`HORIZON`]) is waited
//! for; a later one is not: the message goes back to the queue for when its turn would come, so
//! that a worker never sits for minutes on claimed deliveries (its lease would run out) and the
//! engine claims of a slow channel only what its pace lets it send soon
//! ([`Pace::claim_size`]).

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The longest a message waits for its turn in the worker; a later turn sends it back to the
/// queue.
pub const HORIZON: Duration = Duration::from_secs(10);

/// Turns taken by the messages of one sender.
#[derive(Debug)]
pub struct Pace {
    /// Between two messages: one over the rate.
    interval: Duration,
    /// When the next message may go: after the last turn given, or after the provider's
    /// back-off.
    next: Mutex<Instant>,
}

impl Pace {
    /// `per_second` messages a second at most (a rate of zero or less is taken as one a
    /// minute, never as no limit).
    pub fn new(per_second: f64) -> Pace {
        let interval = if per_second > 0.0 {
            Duration::from_secs_f64(1.0 / per_second)
        } else {
            Duration::from_secs(60)
        };
        Pace {
            interval,
            next: Mutex::new(Instant::now()),
        }
    }

    /// Wait for this message's turn, when it comes within [`HORIZON`]; otherwise take no turn
    /// and say how long until the next one would come.
    pub async fn turn(&self) -> Result<(), Duration> {
        let at = {
            let mut next = self.next.lock().expect("no panic holds the lock");
            let now = Instant::now();
            let at = (*next).max(now);
            if at - now > HORIZON {
                return Err(at - now);
            }
            *next = at + self.interval;
            at
        };
        tokio::time::sleep_until(at).await;
        Ok(())
    }

    /// The provider asked us to wait `wait` before the next message (429 with `Retry-After`).
    pub fn back_off(&self, wait: Duration) {
        let mut next = self.next.lock().expect("no panic holds the lock");
        *next = (*next).max(Instant::now() + wait);
    }

    /// How many messages this pace sends within [`HORIZON`]: what a worker should claim at
    /// once, at least one.
    pub fn claim_size(&self) -> usize {
        let per_horizon = HORIZON.as_secs_f64() / self.interval.as_secs_f64();
        (per_horizon.floor() as usize).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_are_spaced_by_the_rate_and_a_turn_past_a_back_off_is_refused() {
        let pace = Pace::new(1000.0);
        let started = Instant::now();
        for _ in 0..3 {
            pace.turn().await.unwrap();
        }
        // The third turn comes two intervals after the first, never sooner.
        assert!(started.elapsed() >= Duration::from_millis(2));
        pace.back_off(Duration::from_secs(30));
        let refused = pace.turn().await.unwrap_err();
        assert!(
            refused > HORIZON && refused <= Duration::from_secs(30),
            "{refused:?}"
        );
        // A refused turn takes nothing: the next message is told the same.
        assert!(pace.turn().await.unwrap_err() <= refused);
    }

    #[test]
    fn a_fast_sender_claims_more_and_no_rate_is_no_licence() {
        assert_eq!(Pace::new(1.0).claim_size(), 10);
        assert_eq!(Pace::new(80.0).claim_size(), 800);
        assert_eq!(Pace::new(0.0).claim_size(), 1);
    }
}
