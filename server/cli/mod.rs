//! The command line: what `kobana-dunning` takes (clap types), the parsers of its values
//! (`parse`), and the commands besides `serve` (`commands`). `serve` itself, start-up and
//! shutdown, is `crate::startup`.

pub mod commands;
pub mod parse;
pub mod pix;

use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use dunning_store::{Db, DbSettings};

use crate::ops::logging::LogFormat;
use parse::{parse_duration, parse_rate_limit, parse_token_cache_ttl, positive_rate};

#[derive(Parser)]
#[command(
    name = "kobana-dunning",
    version,
    about = "Debt collection: the /v1 REST API and its MCP server"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a command, the server runs with these options.
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the server (the default when no command is given).
    // Boxed: the serve flags outweigh every other command's (clippy's large_enum_variant).
    Serve(Box<ServeArgs>),
    /// Manage access tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Fill a demo organization with many customers and charges (for benchmarks).
    Demo(DemoArgs),
    /// Manage people's sign-in (for the OAuth pages).
    #[command(subcommand)]
    Person(PersonCommand),
    /// Organization settings.
    #[command(subcommand)]
    Organization(OrganizationCommand),
    /// Manage OAuth client applications.
    #[command(name = "oauth-client", subcommand)]
    OauthClient(OauthClientCommand),
    /// An organization's Pix: the key its charges are paid to, and its PSP connection.
    #[command(subcommand)]
    Pix(PixCommand),
}

#[derive(Subcommand)]
pub enum PixCommand {
    /// Set the Pix key every charge's static code pays, and the name and city the codes carry.
    Set(PixSetArgs),
    /// Set (or replace) an organization's PSP connection: the API Pix URL, the OAuth client
    /// credentials and the mTLS certificate and key, from files. The running server picks it
    /// up: it registers the webhook and creates a cobv for every open charge.
    Connect(pix::PixConnectArgs),
}

#[derive(Args)]
pub struct PixSetArgs {
    /// Organization id or exact name.
    #[arg(long)]
    pub organization: String,
    /// The Pix key: a CPF or CNPJ, an e-mail, a mobile phone (+55...), or a random key (UUID).
    #[arg(long)]
    pub key: String,
    /// The name debtors' bank apps show: at most 25 characters (accents are removed).
    #[arg(long)]
    pub merchant_name: String,
    /// The organization's city: at most 15 characters (accents are removed).
    #[arg(long)]
    pub merchant_city: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Subcommand)]
pub enum PersonCommand {
    /// Set a person's password, read from the first line of standard input.
    SetPassword(SetPasswordArgs),
}

#[derive(Args)]
pub struct SetPasswordArgs {
    /// Organization id or exact name.
    #[arg(long)]
    pub organization: String,
    /// Person id or email.
    #[arg(long)]
    pub person: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Subcommand)]
pub enum OrganizationCommand {
    /// Accept ES256 JWT access tokens on /mcp from the organization's own identity provider.
    TrustIssuer(TrustIssuerArgs),
}

#[derive(Args)]
pub struct TrustIssuerArgs {
    /// Organization id or exact name.
    #[arg(long)]
    pub organization: String,
    /// The `iss` its tokens carry.
    #[arg(long)]
    pub issuer: String,
    /// Where its public keys are (JWKS, fetched through the outbound guard).
    #[arg(long)]
    pub jwks_uri: String,
    /// The `aud` a token must carry (e.g. this server's MCP URL).
    #[arg(long)]
    pub audience: String,
    /// The claim naming the person (their e-mail or id in the organization).
    #[arg(long, default_value = "email")]
    pub person_claim: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Subcommand)]
pub enum OauthClientCommand {
    /// Pre-register a public client; prints its client_id.
    Create(OauthClientCreateArgs),
}

#[derive(Args)]
pub struct OauthClientCreateArgs {
    /// Name shown on the consent page.
    #[arg(long)]
    pub name: String,
    /// Redirect URI (repeat for several): https, http on loopback (any port), or a
    /// private-use scheme.
    #[arg(long = "redirect-uri", required = true)]
    pub redirect_uris: Vec<String>,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Args)]
pub struct DemoArgs {
    /// Customers to add.
    #[arg(long, default_value_t = 0)]
    pub customers: usize,
    /// Charges to add, spread over the new customers (the existing ones when none is added).
    #[arg(long, default_value_t = 0)]
    pub charges: usize,
    /// Organization id or exact name; default: the first demo organization.
    #[arg(long, default_value = "Padaria Pão Dourado Ltda")]
    pub organization: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on: `HOST:PORT`, the host an IP address or a name (`localhost:8081`
    /// listens on every address the name resolves to).
    #[arg(long, env = "DUNNING_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Do not seed demo organizations into a new database.
    #[arg(long)]
    pub no_demo: bool,
    /// Let `initialize`, `ping`, `server/discover` and `tools/list` work without a token.
    #[arg(long, env = "DUNNING_PUBLIC_CATALOG")]
    pub public_catalog: bool,
    /// Send debtor e-mails through this SMTP relay:
    /// `smtp[s]://[user[:password]@]host[:port][?option=value&...]`. `smtp://` requires
    /// STARTTLS (port 587 by default; a relay that does not offer it is refused), `smtps://` is
    /// TLS from the first byte (port 465). User and password (percent-encoded) log in with AUTH
    /// PLAIN or LOGIN. Options: `from=ADDRESS` (sender; `nao-responda@<host>`),
    /// `reply_to=ADDRESS`, `ca_file=PATH` (PEM CA certificates trusted besides the public
    /// roots), `timeout=SECONDS` (connection and each message, 30), `tls=none` (plain TCP, port
    /// 25: only to a loopback relay).
    #[arg(long, env = "DUNNING_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// Sign e-mails with DKIM using this private key (PEM: RSA in PKCS#1 or PKCS#8, or
    /// Ed25519 in PKCS#8); the signing domain is the sender's. Needs `--dkim-selector`.
    #[arg(long, env = "DUNNING_DKIM_KEY_FILE", requires = "dkim_selector")]
    pub dkim_key_file: Option<std::path::PathBuf>,
    /// The DKIM selector: the public key is published at `<selector>._domainkey.<domain>`.
    #[arg(long, env = "DUNNING_DKIM_SELECTOR", requires = "dkim_key_file")]
    pub dkim_selector: Option<String>,
    /// Send SMS and WhatsApp through this Twilio account (`AC...`), with `--twilio-auth-token`
    /// and a sender; without them both go to the sandbox.
    #[arg(long, env = "DUNNING_TWILIO_ACCOUNT_SID")]
    pub twilio_account_sid: Option<String>,
    /// The Twilio account's auth token: it authenticates our requests and signs Twilio's
    /// status callbacks.
    #[arg(long, env = "DUNNING_TWILIO_AUTH_TOKEN", hide_env_values = true)]
    pub twilio_auth_token: Option<String>,
    /// The SMS sender: an E.164 number (`+5511...`) or a Messaging Service SID (`MG...`).
    #[arg(long, env = "DUNNING_TWILIO_SMS_FROM")]
    pub twilio_sms_from: Option<String>,
    /// The WhatsApp sender: `whatsapp:+<E.164 number>` or a Messaging Service SID (`MG...`).
    #[arg(long, env = "DUNNING_TWILIO_WHATSAPP_FROM")]
    pub twilio_whatsapp_from: Option<String>,
    /// SMTP connections open at once to the relay (4): a due-day burst goes out over all of
    /// them, each opened with the same TLS and AUTH rules.
    #[arg(long, env = "DUNNING_SMTP_CONNECTIONS", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub smtp_connections: u64,
    /// SMS a second per Twilio sender (1: Twilio's rate for a long-code number; toll-free
    /// numbers, short codes and Messaging Services take more). A 429 from Twilio also slows
    /// the channel down for its `Retry-After`.
    #[arg(long, env = "DUNNING_TWILIO_SMS_RATE", default_value_t = 1.0,
          value_parser = positive_rate)]
    pub twilio_sms_rate: f64,
    /// WhatsApp messages a second per Twilio sender (80: Twilio's default for a WhatsApp
    /// sender).
    #[arg(long, env = "DUNNING_TWILIO_WHATSAPP_RATE", default_value_t = 80.0,
          value_parser = positive_rate)]
    pub twilio_whatsapp_rate: f64,
    /// Deliveries of one organization in flight at once on each channel (8): one
    /// organization's burst leaves room for the others'.
    #[arg(long, env = "DUNNING_DELIVERIES_PER_ORGANIZATION", default_value_t = 8,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub deliveries_per_organization: u64,
    /// Twilio's API (https; http only to a loopback address, for tests).
    #[arg(
        long,
        env = "DUNNING_TWILIO_API_URL",
        default_value = "https://api.twilio.com"
    )]
    pub twilio_api_url: String,
    /// Public URL of the service; requests through other hosts are redirected to it.
    #[arg(long, env = "DUNNING_CANONICAL_URL")]
    pub canonical_url: Option<String>,
    /// Browser origins allowed on /mcp besides the server's own (repeat, or comma-separated).
    #[arg(
        long = "allowed-origin",
        env = "DUNNING_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// HMAC key for confirmation states; give every replica the same one.
    #[arg(long, env = "DUNNING_CONFIRMATION_SECRET", hide_env_values = true)]
    pub confirmation_secret: Option<String>,
    /// HMAC key of the one-click unsubscribe links in debtor e-mails (at least 16 characters);
    /// without it, a key made once and kept in the database, shared by every replica.
    #[arg(long, env = "DUNNING_UNSUBSCRIBE_SECRET", hide_env_values = true)]
    pub unsubscribe_secret: Option<String>,
    /// The MCP toolsets any connection may load (repeat, or comma-separated; default: all):
    /// an upper bound no token or request can widen. `kobana-dunning` lists them in
    /// docs/choosing-tools.md.
    #[arg(
        long = "mcp-toolsets",
        env = "DUNNING_MCP_TOOLSETS",
        value_delimiter = ','
    )]
    pub mcp_toolsets: Vec<String>,
    /// Serve only read-only MCP tools (`readOnlyHint`), to every connection.
    #[arg(long = "mcp-read-only", env = "DUNNING_MCP_READ_ONLY")]
    pub mcp_read_only: bool,
    /// Offer MCP connections discovery mode by default: three tools (`dunning_search`,
    /// `dunning_describe`, `dunning_call`) instead of the catalog; a connection may still ask
    /// for the catalog (`X-MCP-Discovery: false`).
    #[arg(long = "mcp-discovery", env = "DUNNING_MCP_DISCOVERY")]
    pub mcp_discovery: bool,
    /// Write every optional MCP tool argument as also admitting `null`, the form strict
    /// function-calling modes (OpenAI's) need, for connections that do not say otherwise
    /// (`X-MCP-Strict-Schemas: true` or `false`).
    #[arg(long = "mcp-strict-schemas", env = "DUNNING_MCP_STRICT_SCHEMAS")]
    pub mcp_strict_schemas: bool,
    /// Refuse destructive tools to handshake-era MCP clients, which cannot be asked to confirm.
    #[arg(long = "reject-unconfirmed", env = "DUNNING_REJECT_UNCONFIRMED")]
    pub reject_unconfirmed: bool,
    /// OAuth authorization servers to name in the protected resource metadata.
    #[arg(
        long = "authorization-server",
        env = "DUNNING_AUTHORIZATION_SERVERS",
        value_delimiter = ','
    )]
    pub authorization_servers: Vec<String>,
    /// How long an access token issued by the built-in OAuth server works, e.g. `10m`.
    #[arg(long, env = "DUNNING_OAUTH_ACCESS_TOKEN_TTL", default_value = "10m", value_parser = parse_duration)]
    pub oauth_access_token_ttl: Duration,
    /// How long an OAuth grant (a person's consent to an application) may go unused before
    /// it ends with its tokens, e.g. `30d`.
    #[arg(long, env = "DUNNING_OAUTH_GRANT_IDLE_TTL", default_value = "30d", value_parser = parse_duration)]
    pub oauth_grant_idle_ttl: Duration,
    /// Let the OAuth server fetch Client ID Metadata Documents from loopback and private
    /// networks (development and tests only).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_CLIENT_METADATA")]
    pub allow_private_client_metadata: bool,
    /// Seconds a request holds its Idempotency-Key without renewing it: the longest a retry
    /// waits after the process that ran the first attempt died.
    #[arg(long, env = "DUNNING_IDEMPOTENCY_LEASE", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=60))]
    pub idempotency_lease: u64,
    /// Log lines as `text` (for people) or `json` (one object per line, for collectors).
    #[arg(long, env = "DUNNING_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// On SIGTERM or SIGINT: how long requests under way and the workers' current steps may
    /// take to finish before the process exits anyway. A second signal exits at once.
    #[arg(long, env = "DUNNING_SHUTDOWN_GRACE", default_value = "30s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,
    /// Seconds every engine worker holds a piece of due work it claimed (default: each
    /// worker's own, 5 to 10 minutes); a replica that died mid-work leaves it after this.
    #[arg(long, env = "DUNNING_ENGINE_LEASE",
          value_parser = clap::value_parser!(u64).range(5..=3600))]
    pub engine_lease: Option<u64>,
    /// Rows the export worker reads per statement (250): fewer hold less memory and run
    /// more statements.
    #[arg(long, env = "DUNNING_EXPORT_PAGE_ROWS", default_value_t = 250,
          value_parser = clap::value_parser!(i64).range(1..=100_000))]
    pub export_page_rows: i64,
    /// KiB of CSV in each stored piece of an export's file (256): smaller pieces hold less
    /// memory and take more transactions.
    #[arg(long, env = "DUNNING_EXPORT_PIECE_KIB", default_value_t = 256,
          value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub export_piece_kib: u64,
    /// How often the collection worker looks for due plan steps and queued notices, e.g.
    /// `10s` (the default) or `1s`; a notice asked for now goes out on its next look.
    #[arg(long, env = "DUNNING_COLLECTION_INTERVAL", default_value = "10s", value_parser = parse_duration)]
    pub collection_interval: Duration,
    /// Time a client has to send a whole request head, e.g. `10s` or `500ms`.
    #[arg(long, env = "DUNNING_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// Time a keep-alive connection may stay idle between requests.
    #[arg(long, env = "DUNNING_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Time a request body has to arrive after its head (408 after that).
    #[arg(long, env = "DUNNING_BODY_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub body_timeout: Duration,
    /// Connections served at once; more wait until one closes.
    #[arg(long, env = "DUNNING_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Let webhooks reach loopback and private-network addresses (development and tests only;
    /// cloud metadata addresses stay refused).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_WEBHOOK_TARGETS")]
    pub allow_private_webhook_targets: bool,
    /// How long a token found in the database is believed without reading it again, at most
    /// 5s: the longest a revoked token keeps working on this replica (`0`: read every time).
    #[arg(long, env = "DUNNING_TOKEN_CACHE_TTL", default_value = "2s", value_parser = parse_token_cache_ttl)]
    pub token_cache_ttl: Duration,
    /// How often this replica gives back rate-limit budget it holds unused and tops up busy
    /// windows; a replica may refuse early for about this long while another holds budget.
    #[arg(long, env = "DUNNING_RATE_LIMIT_FLUSH", default_value = "1s", value_parser = parse_duration)]
    pub rate_limit_flush: Duration,
    /// Serve `/metrics` (Prometheus) on this `HOST:PORT` instead of the main listener, e.g.
    /// on an address only the monitoring network reaches.
    #[arg(long, env = "DUNNING_METRICS_BIND")]
    pub metrics_bind: Option<String>,
    /// Refusals (4xx) one client address may get from each unauthenticated inbound door (Pix
    /// callbacks, Twilio callbacks, unsubscribe links) per window, e.g. `60/minute` or `20/10s`;
    /// past it the door answers 429 with Retry-After until the address's window ends, without
    /// looking anything up or logging each request. Valid requests never count.
    #[arg(long, env = "DUNNING_BAD_REQUEST_BUDGET", default_value = "60/minute", value_parser = parse_rate_limit)]
    pub bad_request_budget: (i64, i64),
    /// A reverse proxy (an address or a network, e.g. `10.0.0.0/8`; repeat, or comma-separated)
    /// whose `X-Forwarded-For` names the client, for the limits kept per client address;
    /// without one the client is the connection's peer.
    #[arg(
        long = "trusted-proxy",
        env = "DUNNING_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<crate::http::client_address::Network>,
    #[command(flatten)]
    pub pix: pix::PixArgs,
}

#[derive(Args, Clone)]
pub struct DatabaseArgs {
    /// `sqlite://path?mode=rwc` or `postgres://user@host/db`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://data/dunning.db?mode=rwc"
    )]
    pub database_url: String,
    /// Seconds to wait for a database connection before giving up (at start-up) or answering
    /// 503 (while serving).
    #[arg(long, env = "DUNNING_DATABASE_CONNECT_TIMEOUT", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=120))]
    pub database_connect_timeout: u64,
    /// Connections in the database pool (default: SQLite two per core and at least 4;
    /// PostgreSQL 16, half for transactions and half for the reads outside one). On
    /// PostgreSQL, replicas × this must stay under the server's `max_connections`.
    #[arg(long, env = "DUNNING_DATABASE_POOL_SIZE",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub database_pool_size: Option<u32>,
    /// SQLite only: milliseconds a statement waits for another connection's lock (a writer
    /// waits for the one before it) before failing with 503.
    #[arg(long, env = "DUNNING_DATABASE_BUSY_TIMEOUT", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub database_busy_timeout: u64,
}

impl DatabaseArgs {
    pub async fn open(&self) -> Result<(Db, bool), String> {
        let settings = DbSettings {
            connect_timeout: Duration::from_secs(self.database_connect_timeout),
            pool_size: self.database_pool_size,
            busy_timeout: Duration::from_millis(self.database_busy_timeout),
        };
        Db::open_with(&self.database_url, &settings)
            .await
            .map_err(|e| format!("cannot open {}: {e}", redact_password(&self.database_url)))
    }
}

/// The database URL as it may be printed: without its password.
pub fn redact_password(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((user_info, host)) if user_info.contains(':') => {
                let user = user_info.split(':').next().unwrap_or_default();
                format!("{scheme}://{user}:***@{host}")
            }
            _ => url.to_string(),
        },
        None => url.to_string(),
    }
}

#[derive(Subcommand)]
pub enum TokenCommand {
    /// Issue a token for a person of an organization; prints it once.
    Create(TokenCreateArgs),
}

#[derive(Args)]
pub struct TokenCreateArgs {
    /// Organization id or exact name.
    #[arg(long)]
    pub organization: String,
    /// Person id or email.
    #[arg(long)]
    pub person: String,
    /// `api` (for /v1) or `mcp` (for /mcp).
    #[arg(long)]
    pub audience: String,
    /// Comma-separated scopes; default: everything the person's role permits.
    #[arg(long, value_delimiter = ',')]
    pub scopes: Vec<String>,
    /// Requests allowed per period, e.g. `120/minute`, `10/s`, `1000/hour`.
    #[arg(long)]
    pub rate_limit: Option<String>,
    /// A note saying what the token is for.
    #[arg(long)]
    pub label: Option<String>,
    /// MCP toolsets the token may load at most (comma-separated, e.g. `customers,charges`);
    /// default: no limit beyond its scopes. A connection can narrow further, never widen.
    #[arg(long, value_delimiter = ',')]
    pub toolsets: Vec<String>,
    /// How MCP connections with this token are offered the tools when a request does not say
    /// (`X-MCP-Discovery`, the `/discover` URLs): `on`, discovery mode's three tools (search,
    /// describe, call); `off`, the catalog; default: as the server's `--mcp-discovery` says.
    #[arg(long, value_parser = ["on", "off"])]
    pub discovery: Option<String>,
    #[command(flatten)]
    pub database: DatabaseArgs,
}
