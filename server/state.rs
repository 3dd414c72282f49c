//! Shared application state handed to every handler, and the engine's view of the process
//! (its `Observer`: the metrics to count in, the token cache a revocation clears).

use std::sync::Arc;

use dunning_engine::providers::Providers;
use dunning_engine::status::EngineStatus;
use dunning_engine::{Engine, Observer};
use dunning_store::Db;

use crate::auth::TokenCache;
use crate::config::Config;
use crate::ops::metrics::{BuildInfo, Metrics};
use crate::rate_limiter::Limiter;

/// What every handler is handed: the [`Shared`] state behind one `Arc`. A request clones it
/// several times (each middleware and extractor takes its own), and one reference count is
/// cheaper than the dozen `Arc`s inside (bench/RESULTS.md, issue 26).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The database pool, the configuration, what the process keeps in memory between requests
/// (token lookups, rate-limit windows), the metrics, and the engine (its workers' settings and
/// status).
pub struct Shared {
    pub db: Db,
    pub config: Arc<Config>,
    /// The background workers' view of the process: what `dunning_engine` runs on.
    pub engine: Engine,
    pub tokens: Arc<TokenCache>,
    pub limits: Arc<Limiter>,
    /// What `/metrics` shows.
    pub metrics: Arc<Metrics>,
}

impl AppState {
    pub fn new(db: Db, config: Config) -> Self {
        let metrics = Arc::new(Metrics::new(BuildInfo::current()));
        metrics.register_pool_wait(&db.acquire_wait);
        let tokens = Arc::new(TokenCache::new(config.token_cache_ttl));
        let settings = Arc::new(config.engine_settings());
        let engine = Engine {
            db: db.clone(),
            providers: Arc::new(Providers::from_settings(&settings)),
            settings,
            status: Arc::new(EngineStatus::default()),
            pix: Arc::default(),
            observer: Arc::new(Observed {
                metrics: metrics.clone(),
                tokens: tokens.clone(),
            }),
        };
        AppState(Arc::new(Shared {
            tokens,
            limits: Arc::new(Limiter::new(db.clone(), config.rate_limit_flush)),
            db,
            config: Arc::new(config),
            engine,
            metrics,
        }))
    }
}

/// What the engine reports, counted in the process's metrics; a revocation clears the token
/// cache, so it takes effect here at once.
struct Observed {
    metrics: Arc<Metrics>,
    tokens: Arc<TokenCache>,
}

impl Observer for Observed {
    fn webhook_attempt(&self, outcome: &'static str, retry: bool) {
        self.metrics.webhook_attempt(outcome, retry);
    }

    fn expired(&self, what: &'static str, count: u64) {
        self.metrics.oauth_expired(what, count);
    }

    fn revoked(&self) {
        self.tokens.forget_all();
    }
}
