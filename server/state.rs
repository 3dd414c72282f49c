//! Shared application state handed to every handler.

use std::sync::Arc;

use crate::auth::TokenCache;
use crate::config::Config;
use crate::engine::status::EngineStatus;
use crate::limits::Limiter;
use crate::metrics::{BuildInfo, Metrics};
use crate::store::Db;

/// Cheap to clone: the database pool, the configuration, what the process keeps in memory
/// between requests (token lookups, rate-limit windows) and the engine's status behind
/// `Arc`s.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    /// Which background workers run, and the signal that stops them.
    pub engine: Arc<EngineStatus>,
    pub tokens: Arc<TokenCache>,
    pub limits: Arc<Limiter>,
    /// What `/metrics` shows.
    pub metrics: Arc<Metrics>,
}

impl AppState {
    pub fn new(db: Db, config: Config) -> Self {
        let metrics = Metrics::new(BuildInfo::current());
        metrics.register_pool_wait(&db.acquire_wait);
        AppState {
            tokens: Arc::new(TokenCache::new(config.token_cache_ttl)),
            limits: Arc::new(Limiter::new(db.clone(), config.rate_limit_flush)),
            db,
            config: Arc::new(config),
            engine: Arc::default(),
            metrics: Arc::new(metrics),
        }
    }
}
