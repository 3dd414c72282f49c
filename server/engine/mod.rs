//! Background work in the same process: each worker is a loop that wakes up, takes due work
//! from the database (so that work survives restarts and is shared by replicas), does it, and
//! sleeps. Workers expose their single step (`tick`) so tests can drive time explicitly.

pub mod actions;
pub mod agreements;
pub mod collection;
pub mod exports;
pub mod providers;
pub mod smtp;
pub mod webhooks;

use tokio::task::JoinHandle;

use crate::state::AppState;

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
    handles
}
