//! Shared application state handed to every handler.

use std::sync::Arc;

use crate::config::Config;
use crate::store::Db;

/// Cheap to clone: the database pool and the configuration behind `Arc`s.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
}

impl AppState {
    pub fn new(db: Db, config: Config) -> Self {
        AppState {
            db,
            config: Arc::new(config),
        }
    }
}
