//! Runtime configuration: where to listen and with which HTTP limits, which database, and the
//! MCP endpoint's settings.

use std::net::SocketAddr;

/// Everything the server needs to know at start-up; built by `main.rs` from flags and env.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`DUNNING_BIND`).
    pub bind: SocketAddr,
    /// `sqlite://path?mode=rwc` or `postgres://...` (`DATABASE_URL`).
    pub database_url: String,
    /// Seed two demo organizations into a new, empty database.
    pub seed_demo: bool,
    /// Where the demo credentials file is written when the demo is seeded.
    pub demo_credentials_path: Option<std::path::PathBuf>,
    /// Path of the MCP endpoint.
    pub mcp_path: String,
    /// `initialize`, `ping`, `server/discover` and `tools/list` work without a credential.
    pub public_catalog: bool,
    /// Requests per period (seconds) for tokens and organizations without their own limit.
    pub default_rate_limit: (i64, i64),
    /// Public URL of the service; other hosts are redirected to it (`DUNNING_CANONICAL_URL`).
    pub canonical_url: Option<String>,
    /// Browser origins allowed to call `/mcp` besides the server's own.
    pub allowed_origins: Vec<String>,
    /// HMAC key for confirmation states; set it (`DUNNING_CONFIRMATION_SECRET`) when several
    /// replicas serve one endpoint, else each process makes its own at start.
    pub confirmation_secret: Vec<u8>,
    /// HMAC key of the one-click unsubscribe links in debtor e-mails
    /// (`DUNNING_UNSUBSCRIBE_SECRET`); when not given, the one kept in the database
    /// (`server_secrets`, made on first start), so that every replica checks the links the
    /// others signed and links keep working after a restart.
    pub unsubscribe_secret: dunning_engine::unsubscribe::Key,
    /// Refuse destructive tools to handshake-era clients, which cannot be asked to confirm.
    pub reject_unconfirmed_in_handshake_era: bool,
    /// The MCP toolsets any connection may load (`None`: all), checked against the catalog.
    pub mcp_toolsets: Option<Vec<String>>,
    /// Only read-only MCP tools, for every connection.
    pub mcp_read_only: bool,
    /// MCP connections get discovery mode's three tools (search, describe, call) instead of
    /// the catalog unless they ask otherwise (`X-MCP-Discovery: false`).
    pub mcp_discovery: bool,
    /// MCP tool schemas write optional arguments as admitting `null` unless a connection asks
    /// otherwise (`X-MCP-Strict-Schemas: false`).
    pub mcp_strict_schemas: bool,
    /// OAuth authorization servers announced in the protected resource metadata; empty:
    /// this server's own (`server/oauth`).
    pub authorization_servers: Vec<String>,
    /// How long an access token issued by the built-in OAuth server works
    /// (`DUNNING_OAUTH_ACCESS_TOKEN_TTL`, 10 minutes by default); refresh tokens renew it.
    pub oauth_access_token_ttl: std::time::Duration,
    /// Run the background workers (collection plans, deliveries, webhooks, exports). Tests
    /// turn them off and step them explicitly.
    pub run_engine: bool,
    /// `smtp[s]://[user[:password]@]host[:port][?from=&reply_to=&tls=none&ca_file=&timeout=]`:
    /// debtor e-mails go out through this relay (`DUNNING_SMTP_URL`; see
    /// `dunning_engine::Settings::smtp_url` for the options); without it they go to the
    /// sandbox provider.
    pub smtp_url: Option<String>,
    /// DKIM signing of those e-mails: the key file and selector (`DUNNING_DKIM_KEY_FILE`,
    /// `DUNNING_DKIM_SELECTOR`).
    pub dkim: Option<dunning_engine::smtp::DkimSettings>,
    /// SMS and WhatsApp through this Twilio account (`DUNNING_TWILIO_*`); `None`: the sandbox.
    /// Its status callbacks are checked against its auth token (`server/callbacks.rs`).
    pub twilio: Option<dunning_engine::twilio::Account>,
    /// How long a request holds its `Idempotency-Key` without renewing it: the longest a
    /// retry waits after the process running the first attempt died (`DUNNING_IDEMPOTENCY_LEASE`).
    pub idempotency_lease: std::time::Duration,
    /// How long to wait for a database connection before answering 503 (and, at start-up,
    /// before giving up on PostgreSQL).
    pub database_connect_timeout: std::time::Duration,
    /// How long every engine worker holds work it claimed (`DUNNING_ENGINE_LEASE`); `None`:
    /// each worker's own (5 to 10 minutes).
    pub engine_lease: Option<std::time::Duration>,
    /// The export worker's page and piece sizes (`--export-page-rows`, `--export-piece-kib`).
    pub exports: dunning_engine::exports::Sizes,
    /// How many deliveries go out at once (`--smtp-connections`, `--twilio-sms-rate`,
    /// `--twilio-whatsapp-rate`, `--deliveries-per-organization`).
    pub sending: dunning_engine::Sending,
    /// How often the collection worker looks for due work (`DUNNING_COLLECTION_INTERVAL`).
    pub collection_interval: std::time::Duration,
    /// Timeouts and the connection cap of the HTTP server.
    pub http: crate::http::serve::HttpLimits,
    /// Let webhooks reach loopback, private, link-local and other non-public addresses
    /// (`DUNNING_ALLOW_PRIVATE_WEBHOOK_TARGETS`): for development and tests only. Cloud
    /// metadata, unspecified and multicast addresses stay refused even then.
    pub allow_private_webhook_targets: bool,
    /// Let the OAuth server fetch Client ID Metadata Documents from loopback and private
    /// networks (`DUNNING_ALLOW_PRIVATE_CLIENT_METADATA`): for development and tests only.
    pub allow_private_client_metadata: bool,
    /// How long an OAuth grant (a person's consent to an application) lives without being
    /// used (`DUNNING_OAUTH_GRANT_IDLE_TTL`, 30 days): then it ends with its tokens.
    pub oauth_grant_idle_ttl: std::time::Duration,
    /// How long a token found in the database is believed without reading it again
    /// (`DUNNING_TOKEN_CACHE_TTL`): the longest a revoked token keeps working on a replica.
    pub token_cache_ttl: std::time::Duration,
    /// How often each replica gives back the rate-limit budget it holds unused and tops up
    /// busy windows (`DUNNING_RATE_LIMIT_FLUSH`); also how long a replica that found a window
    /// spent refuses before asking the database again.
    pub rate_limit_flush: std::time::Duration,
    /// Where `/metrics` is served (`DUNNING_METRICS_BIND`): its own listener, so that it can
    /// stay on an internal network; `None` serves it on the main listener.
    pub metrics_bind: Option<SocketAddr>,
    /// The refusals one client address may get from each unauthenticated inbound door (Pix
    /// callbacks, Twilio callbacks, unsubscribe links) per window before the door answers 429
    /// without looking (`DUNNING_BAD_REQUEST_BUDGET`; `server/inbound.rs`).
    pub bad_request_budget: crate::http::address_budget::Budget,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`DUNNING_TRUSTED_PROXIES`);
    /// empty: the client is the socket's peer (`server/http/client_address.rs`).
    pub trusted_proxies: Vec<crate::http::client_address::Network>,
    /// The Pix worker and the PSP connections: see [`PixConfig`].
    pub pix: PixConfig,
}

/// What the Pix worker, the PSP connections and their callbacks are configured with.
#[derive(Debug, Clone)]
pub struct PixConfig {
    /// The key the connections' secrets are sealed with (`DUNNING_PIX_SECRETS_KEY`); when not
    /// given, the one kept in the database (`server_secrets`, made on first start).
    pub secrets_key: dunning_engine::pix::sealed::SecretsKey,
    /// How often the worker looks for cobvs to mirror (`DUNNING_PIX_INTERVAL`).
    pub interval: std::time::Duration,
    /// How often each connection's Pix are swept (`DUNNING_PIX_SWEEP_INTERVAL`).
    pub sweep_interval: std::time::Duration,
    /// Let PSP URLs reach loopback and private networks (`DUNNING_ALLOW_PRIVATE_PIX_PSP`):
    /// development and tests only.
    pub allow_private_psp: bool,
    /// CA certificates (PEM) trusted for PSPs besides the public roots (`DUNNING_PIX_CA_FILE`).
    pub ca_pem: Option<Vec<u8>>,
    /// A header (name, value) every callback must carry, set by the reverse proxy that
    /// verified the PSP's client certificate (`DUNNING_PIX_WEBHOOK_REQUIRE_HEADER`).
    pub webhook_require_header: Option<(http::HeaderName, String)>,
}

impl PixConfig {
    /// Defaults for a local run: a key made now, the engine's intervals.
    pub fn local() -> Self {
        PixConfig {
            secrets_key: dunning_engine::pix::sealed::SecretsKey::from_secret(&random_secret()),
            interval: dunning_engine::pix::INTERVAL,
            sweep_interval: dunning_engine::pix::SWEEP_INTERVAL,
            allow_private_psp: false,
            ca_pem: None,
            webhook_require_header: None,
        }
    }
}

impl Config {
    /// Defaults for a local run: 127.0.0.1:8080 and `./data/dunning.db`.
    pub fn local() -> Self {
        Config {
            bind: "127.0.0.1:8080".parse().expect("literal address"),
            database_url: "sqlite://data/dunning.db?mode=rwc".to_string(),
            seed_demo: true,
            demo_credentials_path: Some("data/demo-credentials.json".into()),
            mcp_path: "/mcp".to_string(),
            public_catalog: false,
            default_rate_limit: (600, 60),
            canonical_url: None,
            allowed_origins: Vec::new(),
            confirmation_secret: random_secret(),
            unsubscribe_secret: dunning_engine::unsubscribe::Key::new(random_secret()),
            reject_unconfirmed_in_handshake_era: false,
            mcp_toolsets: None,
            mcp_read_only: false,
            mcp_discovery: false,
            mcp_strict_schemas: false,
            authorization_servers: Vec::new(),
            oauth_access_token_ttl: std::time::Duration::from_secs(600),
            run_engine: true,
            smtp_url: None,
            dkim: None,
            twilio: None,
            idempotency_lease: std::time::Duration::from_secs(30),
            database_connect_timeout: std::time::Duration::from_secs(5),
            engine_lease: None,
            exports: dunning_engine::exports::Sizes::default(),
            sending: dunning_engine::Sending::default(),
            collection_interval: dunning_engine::collection::INTERVAL,
            http: crate::http::serve::HttpLimits::default(),
            allow_private_webhook_targets: false,
            allow_private_client_metadata: false,
            oauth_grant_idle_ttl: std::time::Duration::from_secs(30 * 86_400),
            token_cache_ttl: std::time::Duration::from_secs(2),
            rate_limit_flush: std::time::Duration::from_secs(1),
            metrics_bind: None,
            bad_request_budget: crate::http::address_budget::Budget {
                per_window: 60,
                window: std::time::Duration::from_secs(60),
            },
            trusted_proxies: Vec::new(),
            pix: PixConfig::local(),
        }
    }

    /// The part of the configuration the generic MCP layer reads.
    pub fn mcp_settings(&self) -> mcpgen_axum::Settings {
        mcpgen_axum::Settings {
            path: self.mcp_path.clone(),
            public_catalog: self.public_catalog,
            server_name: "kobana-dunning",
            server_title: "Kobana Dunning",
            server_version: env!("CARGO_PKG_VERSION"),
            loopback_only: self.bind.ip().is_loopback(),
            canonical_url: self.canonical_url.clone(),
            allowed_origins: self.allowed_origins.clone(),
            confirmation_secret: self.confirmation_secret.clone(),
            reject_unconfirmed_in_handshake_era: self.reject_unconfirmed_in_handshake_era,
            openapi_resource_uri: "kobana://dunning/openapi".to_string(),
            // "/" stands for this server itself, resolved against the URL the metadata is
            // served at.
            authorization_servers: if self.authorization_servers.is_empty() {
                vec!["/".to_string()]
            } else {
                self.authorization_servers.clone()
            },
            problem_type_base: "https://docs.kobana.com.br/dunning/problems/".to_string(),
            toolsets: self.mcp_toolsets.clone(),
            read_only: self.mcp_read_only,
            discovery: self.mcp_discovery,
            strict_schemas: self.mcp_strict_schemas,
            authentication: mcpgen_axum::Authentication::Bearer,
            // The in-process request carries the caller's identity in its extensions (see
            // `mcp_host`); `/v1` refuses MCP tokens, so the MCP request's `Authorization` is
            // not handed on. The client's address and `Host` are.
            forward: mcpgen_axum::Forward {
                headers: Some(Vec::new()),
                connection: true,
            },
            // Kobana's conventions: the problem code of CONTRACT.md, and the rate limit, ETag
            // and idempotency facts in `meta` (the output schemas declare them).
            validation_error_code: "VALIDATION_ERROR",
            response_meta: true,
        }
    }

    /// What the engine's workers read of the configuration.
    pub fn engine_settings(&self) -> dunning_engine::Settings {
        dunning_engine::Settings {
            lease: self.engine_lease,
            collection_interval: Some(self.collection_interval),
            smtp_url: self.smtp_url.clone(),
            dkim: self.dkim.clone(),
            unsubscribe: Some(dunning_engine::unsubscribe::Links {
                base_url: self.public_url(),
                key: self.unsubscribe_secret.clone(),
            }),
            twilio: self
                .twilio
                .clone()
                .map(|account| dunning_engine::TwilioSettings {
                    account,
                    callback_base: self.public_url(),
                }),
            allow_private_webhook_targets: self.allow_private_webhook_targets,
            oauth_grant_idle_ttl: self.oauth_grant_idle_ttl,
            pix: dunning_engine::pix::PixSettings {
                interval: Some(self.pix.interval),
                sweep_interval: Some(self.pix.sweep_interval),
                public_url: self.public_url(),
                allow_private: self.pix.allow_private_psp,
                ca_pem: self.pix.ca_pem.clone(),
                secrets_key: Some(self.pix.secrets_key.clone()),
            },
            exports: self.exports,
            sending: self.sending,
        }
    }

    /// The URL debtors and mailbox providers reach this server at, without a trailing `/`:
    /// `--canonical-url` when set, else the listening address (http, for local runs).
    pub fn public_url(&self) -> String {
        match &self.canonical_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => self.base_url(),
        }
    }

    /// Base URL clients use to reach this server (for printed instructions and metadata).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.bind)
    }
}

/// Why a server listening on `bind` must not start, if it must not: beyond loopback without
/// a canonical URL, the OAuth issuer, the MCP resource and the metadata would follow each
/// request's `Host` header, which the client chooses.
pub fn check_public_url(bind: SocketAddr, canonical_url: Option<&str>) -> Result<(), String> {
    if bind.ip().is_loopback() || canonical_url.is_some() {
        return Ok(());
    }
    Err(format!(
        "--bind {bind} listens beyond loopback: set --canonical-url (DUNNING_CANONICAL_URL) to the public URL, e.g. https://dunning.example.com; without it the OAuth issuer and the MCP resource would follow each request's Host header"
    ))
}

/// 32 random bytes, for a confirmation secret nobody configured.
pub fn random_secret() -> Vec<u8> {
    let mut secret = vec![0u8; 32];
    getrandom::fill(&mut secret).expect("the OS random source is available");
    secret
}
