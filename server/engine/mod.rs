//! Background work in the same process: each worker is a loop that wakes up, takes due work
//! from the database (so that work survives restarts and is shared by replicas), does it, and
//! sleeps. Workers expose their single step (`tick`) so tests can drive time explicitly.

use tokio::task::JoinHandle;

use crate::state::AppState;

/// Start every worker; the server runs them unless `Config::run_engine` is off.
pub fn start(state: AppState) -> Vec<JoinHandle<()>> {
    let handles: Vec<JoinHandle<()>> = Vec::new();
    // Workers register here, one line each: `handles.push(tokio::spawn(area::run(state.clone())));`
    let _ = state;
    handles
}
