//! Which workers run, and the signal that stops them: readiness reports a worker that died,
//! and a graceful shutdown lets each finish the step it is in (so it leaves no lease held)
//! instead of aborting it mid-step.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::watch;

/// Shared by the workers, the readiness probe and `main`.
#[derive(Debug)]
pub struct EngineStatus {
    running: Mutex<BTreeMap<&'static str, bool>>,
    stop: watch::Sender<bool>,
}

impl Default for EngineStatus {
    fn default() -> Self {
        EngineStatus {
            running: Mutex::default(),
            stop: watch::channel(false).0,
        }
    }
}

impl EngineStatus {
    /// Ask every worker to stop after its current step.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Whether a stop was asked.
    pub fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// Resolves once a stop is asked.
    pub async fn stopped(&self) {
        let mut receiver = self.stop.subscribe();
        let _ = receiver.wait_for(|stop| *stop).await;
    }

    /// The workers that registered and are no longer running (they panicked or returned
    /// without a stop being asked).
    pub fn dead_workers(&self) -> Vec<&'static str> {
        let running = self.running.lock().expect("worker table");
        running
            .iter()
            .filter(|(_, alive)| !**alive)
            .map(|(name, _)| *name)
            .collect()
    }

    /// Mark `name` running until the returned guard drops (a panic drops it too).
    pub fn register(&self, name: &'static str) -> RunningGuard<'_> {
        self.running
            .lock()
            .expect("worker table")
            .insert(name, true);
        RunningGuard { status: self, name }
    }
}

/// Held by a running worker.
#[derive(Debug)]
pub struct RunningGuard<'a> {
    status: &'a EngineStatus,
    name: &'static str,
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut running) = self.status.running.lock() {
            running.insert(self.name, false);
        }
    }
}
