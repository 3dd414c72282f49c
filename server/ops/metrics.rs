//! Prometheus metrics at `/metrics`: what the process counts as it serves (HTTP and MCP
//! requests and their latency, rate-limit refusals, the inbound doors' refusals,
//! confirmations, idempotent replays, webhook deliveries, the wait for a database connection)
//! and what it reads when scraped (engine queues, the database pool).
//!
//! Labels are bounded by construction: `/v1` operation ids, MCP method and tool names from the
//! catalog, status classes and fixed outcome words. Never an organization, a token, a person
//! or an object id: the endpoint is unauthenticated, like the probes, and must not tell one
//! tenant's activity from another's.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderValue, StatusCode, header};
use mcpgen_axum::observe::Exchanges;
use prometheus::{
    Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

use dunning_store as store;
use dunning_store::Db;

/// Latency buckets in seconds: from a cached read (about a millisecond) to a slow export.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// How long a scrape waits for the engine's queue counts before it shows the last ones.
const QUEUE_CHECK: Duration = Duration::from_secs(2);

/// The `/v1` operation that answered a request, set on the response by the API router, so
/// that requests are counted by operation and not by raw path (which holds ids).
#[derive(Debug, Clone, Copy)]
pub struct OperationName(pub &'static str);

/// Every metric of the process, in its own registry (no global state: tests run many
/// servers in one process).
pub struct Metrics {
    registry: Registry,
    http_requests: IntCounterVec,
    http_duration: HistogramVec,
    mcp_requests: IntCounterVec,
    mcp_duration: HistogramVec,
    rate_limit_refusals: IntCounterVec,
    inbound_refusals: IntCounterVec,
    confirmations: IntCounterVec,
    idempotent_replays: IntCounter,
    webhook_deliveries: IntCounterVec,
    webhook_retries: IntCounter,
    oauth: IntCounterVec,
    oauth_expired: IntCounterVec,
    queue_depth: IntGaugeVec,
    queue_lag: GaugeVec,
    pool_connections: IntGaugeVec,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

/// What the build info gauge says about this binary.
#[derive(Debug, Clone, Copy)]
pub struct BuildInfo {
    pub version: &'static str,
    /// The git commit built, or `"unknown"` when the source was not a git checkout.
    pub commit: &'static str,
    /// A hash of the generated MCP catalog: replicas with the same one serve the same tools.
    pub catalog: &'static str,
}

impl BuildInfo {
    /// This binary's.
    pub fn current() -> Self {
        BuildInfo {
            version: env!("CARGO_PKG_VERSION"),
            commit: env!("DUNNING_GIT_COMMIT"),
            catalog: env!("DUNNING_CATALOG_HASH"),
        }
    }
}

fn counter(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let metric = IntCounterVec::new(Opts::new(name, help), labels).expect("valid counter");
    registry
        .register(Box::new(metric.clone()))
        .expect("metric names are unique");
    metric
}

fn histogram(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let opts = HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec());
    let metric = HistogramVec::new(opts, labels).expect("valid histogram");
    registry
        .register(Box::new(metric.clone()))
        .expect("metric names are unique");
    metric
}

fn gauge(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let metric = IntGaugeVec::new(Opts::new(name, help), labels).expect("valid gauge");
    registry
        .register(Box::new(metric.clone()))
        .expect("metric names are unique");
    metric
}

impl Metrics {
    pub fn new(build: BuildInfo) -> Self {
        let r = Registry::new();
        let lag = GaugeVec::new(
            Opts::new(
                "dunning_engine_queue_lag_seconds",
                "How long the oldest due piece of work of a queue has waited (0 when none is due).",
            ),
            &["worker", "queue"],
        )
        .expect("valid gauge");
        r.register(Box::new(lag.clone()))
            .expect("metric names are unique");
        let metrics = Metrics {
            http_requests: counter(
                &r,
                "dunning_http_requests_total",
                "HTTP requests answered, by /v1 operation (or route kind) and status class.",
                &["operation", "status_class"],
            ),
            http_duration: histogram(
                &r,
                "dunning_http_request_duration_seconds",
                "Time to answer an HTTP request, by /v1 operation (or route kind) and status class.",
                &["operation", "status_class"],
            ),
            mcp_requests: counter(
                &r,
                "dunning_mcp_requests_total",
                "MCP request messages answered, by method, tool (tools/call only), protocol era, outcome and HTTP status class.",
                &["method", "tool", "era", "outcome", "status_class"],
            ),
            mcp_duration: histogram(
                &r,
                "dunning_mcp_request_duration_seconds",
                "Time to answer an MCP HTTP request, by method and tool (\"batch\" for a batch) and protocol era.",
                &["method", "tool", "era"],
            ),
            rate_limit_refusals: counter(
                &r,
                "dunning_rate_limit_refusals_total",
                "Requests refused because their token's rate-limit window was spent, by surface (rest or mcp).",
                &["surface"],
            ),
            inbound_refusals: counter(
                &r,
                "dunning_inbound_refusals_total",
                "Requests an unauthenticated inbound door refused, by door (pix_webhook, callbacks, unsubscribe) and reason (not_found, forbidden, unsupported_media_type, ..., over_budget: the client address spent its budget of refusals).",
                &["door", "reason"],
            ),
            confirmations: counter(
                &r,
                "dunning_mcp_confirmations_total",
                "Confirmation steps of destructive MCP tools, by outcome (asked, accepted, declined, expired, invalid, refused).",
                &["outcome"],
            ),
            idempotent_replays: IntCounter::new(
                "dunning_idempotent_replays_total",
                "Writes answered from a stored Idempotency-Key response instead of running again.",
            )
            .expect("valid counter"),
            webhook_deliveries: counter(
                &r,
                "dunning_webhook_delivery_attempts_total",
                "Webhook POSTs made, by outcome (succeeded, retrying, failed: no more retries).",
                &["outcome"],
            ),
            webhook_retries: IntCounter::new(
                "dunning_webhook_delivery_retries_total",
                "Webhook POSTs that were a retry of an earlier failed attempt.",
            )
            .expect("valid counter"),
            oauth: counter(
                &r,
                "dunning_oauth_requests_total",
                "Steps of the built-in OAuth server, by step (sign_in, password_check, consent, register, token_code, token_refresh, reuse) and outcome.",
                &["step", "outcome"],
            ),
            oauth_expired: counter(
                &r,
                "dunning_oauth_expired_total",
                "What OAuth housekeeping ended or deleted: grants unused too long, registrations never used, dead sessions.",
                &["what"],
            ),
            queue_depth: gauge(
                &r,
                "dunning_engine_queue_depth",
                "Pieces of work due now and not claimed, by engine worker and queue (read at scrape time).",
                &["worker", "queue"],
            ),
            queue_lag: lag,
            pool_connections: gauge(
                &r,
                "dunning_db_pool_connections",
                "Database pool connections, by state (in_use, idle, max).",
                &["state"],
            ),
            registry: r,
        };
        for counter in [&metrics.idempotent_replays, &metrics.webhook_retries] {
            metrics
                .registry
                .register(Box::new(counter.clone()))
                .expect("metric names are unique");
        }
        let info = gauge(
            &metrics.registry,
            "dunning_build_info",
            "Always 1; the labels say which build runs: version, git commit, catalog hash.",
            &["version", "commit", "catalog"],
        );
        info.with_label_values(&[build.version, build.commit, build.catalog])
            .set(1);
        metrics
    }

    /// Show the pool's acquire wait (`store::Db::acquire_wait`, timed where the store takes a
    /// connection) with the rest.
    pub fn register_pool_wait(&self, histogram: &prometheus::Histogram) {
        self.registry
            .register(Box::new(histogram.clone()))
            .expect("metric names are unique");
    }

    /// Count one MCP confirmation step.
    fn confirmation(&self, outcome: &str) {
        self.confirmations.with_label_values(&[outcome]).inc();
    }

    /// Count a write answered by replaying its stored response.
    pub fn idempotent_replay(&self) {
        self.idempotent_replays.inc();
    }

    /// Count one webhook POST: `outcome` is `succeeded`, `retrying` or `failed`.
    pub fn webhook_attempt(&self, outcome: &'static str, retry: bool) {
        self.webhook_deliveries.with_label_values(&[outcome]).inc();
        if retry {
            self.webhook_retries.inc();
        }
    }

    /// Count one step of the OAuth server (fixed words, never who or which client).
    pub fn oauth(&self, step: &'static str, outcome: &'static str) {
        self.oauth.with_label_values(&[step, outcome]).inc();
    }

    /// Count one refusal of an inbound door (`inbound`): fixed words, never the address.
    pub fn inbound_refusal(&self, door: &'static str, reason: &'static str) {
        self.inbound_refusals
            .with_label_values(&[door, reason])
            .inc();
    }

    /// Count what OAuth housekeeping removed: `what` is `grants`, `clients` or `sessions`.
    pub fn oauth_expired(&self, what: &'static str, count: u64) {
        self.oauth_expired.with_label_values(&[what]).inc_by(count);
    }

    /// The text format of every metric.
    fn render(&self) -> Result<String, prometheus::Error> {
        let mut buffer = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut buffer)?;
        Ok(String::from_utf8_lossy(&buffer).into_owned())
    }

    /// Count one answered HTTP request (and its MCP messages, when it went to `/mcp`).
    fn observe(&self, path: &str, response: &Response, elapsed: Duration) {
        let class = status_class(response.status());
        let seconds = elapsed.as_secs_f64();
        let named = response.extensions().get::<OperationName>();
        let operation = named.map_or_else(|| route_kind(path), |o| o.0);
        self.http_requests
            .with_label_values(&[operation, class])
            .inc();
        self.http_duration
            .with_label_values(&[operation, class])
            .observe(seconds);
        // A `/v1` operation's 429 is its token's rate limit; other routes' 429s (an address
        // over an inbound door's budget, OAuth registrations) are counted where they are made.
        if response.status() == StatusCode::TOO_MANY_REQUESTS && named.is_some() {
            self.rate_limit_refusals.with_label_values(&["rest"]).inc();
        }
        let Some(Exchanges(exchanges)) = response.extensions().get::<Exchanges>() else {
            return;
        };
        for exchange in exchanges {
            let tool = exchange.tool.unwrap_or("");
            let outcome = exchange.outcome.as_str();
            self.mcp_requests
                .with_label_values(&[exchange.method, tool, exchange.era(), outcome, class])
                .inc();
            if exchange.outcome == mcpgen_axum::observe::Outcome::RateLimited {
                self.rate_limit_refusals.with_label_values(&["mcp"]).inc();
            }
            if let Some(confirmation) = exchange.confirmation {
                self.confirmation(confirmation.as_str());
            }
        }
        let (method, tool, era) = match exchanges.as_slice() {
            [one] => (one.method, one.tool.unwrap_or(""), one.era()),
            [first, ..] => ("batch", "", first.era()),
            [] => return,
        };
        self.mcp_duration
            .with_label_values(&[method, tool, era])
            .observe(seconds);
    }

    /// Read what is only known by asking: the pool's connections and the engine's queues.
    async fn refresh(&self, db: &Db) {
        let pool = &db.pool;
        let size = i64::from(pool.size());
        let idle = i64::try_from(pool.num_idle()).unwrap_or(i64::MAX);
        let max = i64::from(pool.options().get_max_connections());
        let connections = &self.pool_connections;
        connections
            .with_label_values(&["in_use"])
            .set((size - idle).max(0));
        connections.with_label_values(&["idle"]).set(idle);
        connections.with_label_values(&["max"]).set(max);
        let now = dunning_domain::timestamp::now();
        match tokio::time::timeout(QUEUE_CHECK, store::queues::due(db, now)).await {
            Ok(Ok(queues)) => {
                for queue in queues {
                    let labels = [queue.worker, queue.queue];
                    self.queue_depth.with_label_values(&labels).set(queue.depth);
                    self.queue_lag
                        .with_label_values(&labels)
                        .set(queue.lag.as_secs_f64());
                }
            }
            Ok(Err(e)) => tracing::warn!("metrics: engine queues not read: {e}"),
            Err(_) => tracing::warn!("metrics: engine queues not read in time"),
        }
    }
}

/// `2xx`, `4xx`, ...
fn status_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// The label of a request no `/v1` operation answered: a fixed word per kind of route, never
/// the path itself (unknown paths are unbounded).
fn route_kind(path: &str) -> &'static str {
    match path {
        "/mcp" => "mcp",
        "/livez" | "/readyz" => "probe",
        "/metrics" => "metrics",
        "/v1/openapi.json" => "openapi",
        p if p.starts_with("/.well-known/") => "well_known",
        p if p.starts_with("/unsubscribe/") => "unsubscribe",
        p if p.starts_with("/pix/webhook/") => "pix_webhook",
        p if p.starts_with("/callbacks/") => "callbacks",
        _ => "other",
    }
}

/// The middleware counting every request; next to the access log, so it sees the same.
pub async fn count(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    metrics.observe(&path, &response, started.elapsed());
    response
}

/// `/metrics` alone, for the main listener or a listener of its own (`--metrics-bind`): the
/// metrics, and the database whose pool and queues a scrape reads.
pub fn router(metrics: Arc<Metrics>, db: Db) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state((metrics, db))
}

async fn scrape(State((metrics, db)): State<(Arc<Metrics>, Db)>) -> Response {
    metrics.refresh(&db).await;
    match metrics.render() {
        Ok(text) => {
            let mut response = text.into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        Err(e) => crate::http::problem::ApiError::internal(format!("metrics: {e}")).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_operations_are_counted_by_kind_not_by_path() {
        assert_eq!(route_kind("/mcp"), "mcp");
        assert_eq!(route_kind("/readyz"), "probe");
        assert_eq!(route_kind("/v1/charges/chg_123/anything"), "other");
        assert_eq!(route_kind("/org_secret"), "other");
        assert_eq!(
            route_kind("/unsubscribe/u1.org_a.cus_b.email.sig"),
            "unsubscribe"
        );
        assert_eq!(route_kind("/callbacks/twilio/org_a"), "callbacks");
    }

    #[test]
    fn status_classes_cover_every_status() {
        assert_eq!(status_class(StatusCode::OK), "2xx");
        assert_eq!(status_class(StatusCode::TOO_MANY_REQUESTS), "4xx");
        assert_eq!(status_class(StatusCode::SERVICE_UNAVAILABLE), "5xx");
    }
}
