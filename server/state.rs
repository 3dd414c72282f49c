//! Shared application state handed to every handler.

use std::sync::Arc;

use crate::config::Config;
use crate::engine::status::EngineStatus;
use crate::store::Db;

/// Cheap to clone: the database pool, the configuration and the engine's status behind
/// `Arc`s.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    /// Which background workers run, and the signal that stops them.
    pub engine: Arc<EngineStatus>,
}

impl AppState {
    pub fn new(db: Db, config: Config) -> Self {
        AppState {
            db,
            config: Arc::new(config),
            engine: Arc::default(),
        }
    }
}
