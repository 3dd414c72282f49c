//! Background work in the same process: each worker is a loop that wakes up, takes due work
//! from the database (so that work survives restarts and is shared by replicas), does it, and
//! sleeps. Workers expose their single step (`tick`) so tests can drive time explicitly.

pub mod actions;
pub mod agreements;
pub mod collection;
pub mod exports;
pub mod housekeeping;
pub mod providers;
pub mod smtp;
pub mod status;
pub mod webhooks;

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::state::AppState;

/// How long a worker holds a piece of due work it claimed: the worker's own `default`,
/// unless the configuration sets one for every worker (`--engine-lease`). After that a
/// replica that died mid-work leaves the work to the others.
pub fn lease(state: &AppState, default: Duration) -> Duration {
    state.config.engine_lease.unwrap_or(default)
}

/// The longest a worker waits after failing steps in a row.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Run `step` every `interval` for ever. After a failure (the database is down, full or
/// read-only) the worker waits twice as long each time, up to [`MAX_BACKOFF`], logging each
/// failure, and goes back to its pace after the first success: it
/// does not hammer a sick database, and resumes by itself.
///
/// A stop (`EngineStatus::stop`) ends the loop between steps, never inside one.
pub async fn run_worker<F, Fut, E>(
    state: &AppState,
    name: &'static str,
    interval: Duration,
    mut step: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let status = &state.engine;
    let _running = status.register(name);
    let mut wait = interval;
    let mut failures = 0u32;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = status.stopped() => return,
        }
        if status.stopping() {
            return;
        }
        match step().await {
            Ok(()) => {
                if failures > 0 {
                    tracing::info!(worker = name, failures, "worker recovered");
                }
                failures = 0;
                wait = interval;
            }
            Err(e) => {
                failures += 1;
                wait = backoff(interval, failures);
                tracing::warn!(
                    worker = name,
                    failures,
                    retry_in_ms = wait.as_millis() as u64,
                    "worker step failed: {e}"
                );
            }
        }
    }
}

/// The wait after `failures` failed steps in a row.
fn backoff(interval: Duration, failures: u32) -> Duration {
    interval
        .saturating_mul(2u32.saturating_pow(failures.min(16)))
        .min(MAX_BACKOFF)
        .max(interval)
}

/// Start every worker; the server runs them unless `Config::run_engine` is off.
// One `push` line per worker keeps the registrations of different areas apart.
#[allow(clippy::vec_init_then_push)]
pub fn start(state: AppState) -> Vec<JoinHandle<()>> {
    let mut handles: Vec<JoinHandle<()>> = Vec::new();
    // Workers register here, one line each: `handles.push(tokio::spawn(area::run(state.clone())));`
    handles.push(tokio::spawn(agreements::run(state.clone())));
    handles.push(tokio::spawn(collection::run(state.clone())));
    handles.push(tokio::spawn(webhooks::run(state.clone())));
    handles.push(tokio::spawn(exports::run(state.clone())));
    handles.push(tokio::spawn(housekeeping::run(state.clone())));
    handles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let second = Duration::from_secs(1);
        assert_eq!(backoff(second, 1), Duration::from_secs(2));
        assert_eq!(backoff(second, 3), Duration::from_secs(8));
        assert_eq!(backoff(second, 30), MAX_BACKOFF);
    }
}
