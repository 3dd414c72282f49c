//! `kobana-dunning`: run the server (`serve`, the default), issue tokens (`token create`) or
//! fill a demo organization with bulk data (`demo`).

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use dunning_store::{Db, DbSettings, orgs};
use kobana_dunning::auth::{Audience, roles, tokens};
use kobana_dunning::logging::{self, LogFormat};
use kobana_dunning::serve::HttpLimits;
use kobana_dunning::{AppState, Config, app, demo, oauth, serve, telemetry};

// Many small, short-lived allocations per request (JSON values, headers, rows) cross the
// runtime's worker threads; glibc's allocator spent about 13 % of the server's samples
// under load (bench/RESULTS.md), mimalloc's thread-local pages make that cheap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "kobana-dunning",
    version,
    about = "Debt collection: the /v1 REST API and its MCP server"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a command, the server runs with these options.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (the default when no command is given).
    Serve(ServeArgs),
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
}

#[derive(Subcommand)]
enum PersonCommand {
    /// Set a person's password, read from the first line of standard input.
    SetPassword(SetPasswordArgs),
}

#[derive(Args)]
struct SetPasswordArgs {
    /// Organization id or exact name.
    #[arg(long)]
    organization: String,
    /// Person id or email.
    #[arg(long)]
    person: String,
    #[command(flatten)]
    database: DatabaseArgs,
}

#[derive(Subcommand)]
enum OrganizationCommand {
    /// Accept ES256 JWT access tokens on /mcp from the organization's own identity provider.
    TrustIssuer(TrustIssuerArgs),
}

#[derive(Args)]
struct TrustIssuerArgs {
    /// Organization id or exact name.
    #[arg(long)]
    organization: String,
    /// The `iss` its tokens carry.
    #[arg(long)]
    issuer: String,
    /// Where its public keys are (JWKS, fetched through the outbound guard).
    #[arg(long)]
    jwks_uri: String,
    /// The `aud` a token must carry (e.g. this server's MCP URL).
    #[arg(long)]
    audience: String,
    /// The claim naming the person (their e-mail or id in the organization).
    #[arg(long, default_value = "email")]
    person_claim: String,
    #[command(flatten)]
    database: DatabaseArgs,
}

#[derive(Subcommand)]
enum OauthClientCommand {
    /// Pre-register a public client; prints its client_id.
    Create(OauthClientCreateArgs),
}

#[derive(Args)]
struct OauthClientCreateArgs {
    /// Name shown on the consent page.
    #[arg(long)]
    name: String,
    /// Redirect URI (repeat for several): https, http on loopback (any port), or a
    /// private-use scheme.
    #[arg(long = "redirect-uri", required = true)]
    redirect_uris: Vec<String>,
    #[command(flatten)]
    database: DatabaseArgs,
}

#[derive(Args)]
struct DemoArgs {
    /// Customers to add.
    #[arg(long, default_value_t = 0)]
    customers: usize,
    /// Charges to add, spread over the new customers (the existing ones when none is added).
    #[arg(long, default_value_t = 0)]
    charges: usize,
    /// Organization id or exact name; default: the first demo organization.
    #[arg(long, default_value = "Padaria Pão Dourado Ltda")]
    organization: String,
    #[command(flatten)]
    database: DatabaseArgs,
}

#[derive(Args, Clone)]
struct ServeArgs {
    /// Address to listen on: `HOST:PORT`, the host an IP address or a name (`localhost:8081`).
    #[arg(long, env = "DUNNING_BIND", default_value = "127.0.0.1:8080")]
    bind: String,
    #[command(flatten)]
    database: DatabaseArgs,
    /// Do not seed demo organizations into a new database.
    #[arg(long)]
    no_demo: bool,
    /// Let `initialize`, `ping`, `server/discover` and `tools/list` work without a token.
    #[arg(long, env = "DUNNING_PUBLIC_CATALOG")]
    public_catalog: bool,
    /// Send debtor e-mails through this SMTP server: `smtp://[user[:password]@]host[:port][?from=address]`.
    #[arg(long, env = "DUNNING_SMTP_URL")]
    smtp_url: Option<String>,
    /// Public URL of the service; requests through other hosts are redirected to it.
    #[arg(long, env = "DUNNING_CANONICAL_URL")]
    canonical_url: Option<String>,
    /// Browser origins allowed on /mcp besides the server's own (repeat, or comma-separated).
    #[arg(
        long = "allowed-origin",
        env = "DUNNING_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    allowed_origins: Vec<String>,
    /// HMAC key for confirmation states; give every replica the same one.
    #[arg(long, env = "DUNNING_CONFIRMATION_SECRET", hide_env_values = true)]
    confirmation_secret: Option<String>,
    /// Refuse destructive tools to handshake-era MCP clients, which cannot be asked to confirm.
    #[arg(long = "reject-unconfirmed", env = "DUNNING_REJECT_UNCONFIRMED")]
    reject_unconfirmed: bool,
    /// OAuth authorization servers to name in the protected resource metadata.
    #[arg(
        long = "authorization-server",
        env = "DUNNING_AUTHORIZATION_SERVERS",
        value_delimiter = ','
    )]
    authorization_servers: Vec<String>,
    /// How long an access token issued by the built-in OAuth server works, e.g. `10m`.
    #[arg(long, env = "DUNNING_OAUTH_ACCESS_TOKEN_TTL", default_value = "10m", value_parser = parse_duration)]
    oauth_access_token_ttl: Duration,
    /// How long an OAuth grant (a person's consent to an application) may go unused before
    /// it ends with its tokens, e.g. `30d`.
    #[arg(long, env = "DUNNING_OAUTH_GRANT_IDLE_TTL", default_value = "30d", value_parser = parse_duration)]
    oauth_grant_idle_ttl: Duration,
    /// Let the OAuth server fetch Client ID Metadata Documents from loopback and private
    /// networks (development and tests only).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_CLIENT_METADATA")]
    allow_private_client_metadata: bool,
    /// Seconds a request holds its Idempotency-Key without renewing it: the longest a retry
    /// waits after the process that ran the first attempt died.
    #[arg(long, env = "DUNNING_IDEMPOTENCY_LEASE", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=60))]
    idempotency_lease: u64,
    /// Log lines as `text` (for people) or `json` (one object per line, for collectors).
    #[arg(long, env = "DUNNING_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// On SIGTERM or SIGINT: how long requests under way and the workers' current steps may
    /// take to finish before the process exits anyway. A second signal exits at once.
    #[arg(long, env = "DUNNING_SHUTDOWN_GRACE", default_value = "30s", value_parser = parse_duration)]
    shutdown_grace: Duration,
    /// Seconds every engine worker holds a piece of due work it claimed (default: each
    /// worker's own, 5 to 10 minutes); a replica that died mid-work leaves it after this.
    #[arg(long, env = "DUNNING_ENGINE_LEASE",
          value_parser = clap::value_parser!(u64).range(5..=3600))]
    engine_lease: Option<u64>,
    /// Time a client has to send a whole request head, e.g. `10s` or `500ms`.
    #[arg(long, env = "DUNNING_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    header_timeout: Duration,
    /// Time a keep-alive connection may stay idle between requests.
    #[arg(long, env = "DUNNING_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    idle_timeout: Duration,
    /// Time a request body has to arrive after its head (408 after that).
    #[arg(long, env = "DUNNING_BODY_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    body_timeout: Duration,
    /// Connections served at once; more wait until one closes.
    #[arg(long, env = "DUNNING_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Let webhooks reach loopback and private-network addresses (development and tests only;
    /// cloud metadata addresses stay refused).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_WEBHOOK_TARGETS")]
    allow_private_webhook_targets: bool,
    /// How long a token found in the database is believed without reading it again, at most
    /// 5s: the longest a revoked token keeps working on this replica (`0`: read every time).
    #[arg(long, env = "DUNNING_TOKEN_CACHE_TTL", default_value = "2s", value_parser = parse_token_cache_ttl)]
    token_cache_ttl: Duration,
    /// How often this replica gives back rate-limit budget it holds unused and tops up busy
    /// windows; a replica may refuse early for about this long while another holds budget.
    #[arg(long, env = "DUNNING_RATE_LIMIT_FLUSH", default_value = "1s", value_parser = parse_duration)]
    rate_limit_flush: Duration,
    /// Serve `/metrics` (Prometheus) on this `HOST:PORT` instead of the main listener, e.g.
    /// on an address only the monitoring network reaches.
    #[arg(long, env = "DUNNING_METRICS_BIND")]
    metrics_bind: Option<String>,
}

#[derive(Args, Clone)]
struct DatabaseArgs {
    /// `sqlite://path?mode=rwc` or `postgres://user@host/db`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://data/dunning.db?mode=rwc"
    )]
    database_url: String,
    /// Seconds to wait for a database connection before giving up (at start-up) or answering
    /// 503 (while serving).
    #[arg(long, env = "DUNNING_DATABASE_CONNECT_TIMEOUT", default_value_t = 5,
          value_parser = clap::value_parser!(u64).range(1..=120))]
    database_connect_timeout: u64,
    /// Connections in the database pool (default: SQLite two per core and at least 4;
    /// PostgreSQL 16). On PostgreSQL, replicas × this must stay under the server's
    /// `max_connections`.
    #[arg(long, env = "DUNNING_DATABASE_POOL_SIZE",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    database_pool_size: Option<u32>,
    /// SQLite only: milliseconds a statement waits for another connection's lock (a writer
    /// waits for the one before it) before failing with 503.
    #[arg(long, env = "DUNNING_DATABASE_BUSY_TIMEOUT", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(0..=600_000))]
    database_busy_timeout: u64,
}

impl DatabaseArgs {
    async fn open(&self) -> Result<(Db, bool), String> {
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
fn redact_password(url: &str) -> String {
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
enum TokenCommand {
    /// Issue a token for a person of an organization; prints it once.
    Create(TokenCreateArgs),
}

#[derive(Args)]
struct TokenCreateArgs {
    /// Organization id or exact name.
    #[arg(long)]
    organization: String,
    /// Person id or email.
    #[arg(long)]
    person: String,
    /// `api` (for /v1) or `mcp` (for /mcp).
    #[arg(long)]
    audience: String,
    /// Comma-separated scopes; default: everything the person's role permits.
    #[arg(long, value_delimiter = ',')]
    scopes: Vec<String>,
    /// Requests allowed per period, e.g. `120/minute`, `10/s`, `1000/hour`.
    #[arg(long)]
    rate_limit: Option<String>,
    /// A note saying what the token is for.
    #[arg(long)]
    label: Option<String>,
    #[command(flatten)]
    database: DatabaseArgs,
}

/// The other commands print their result on stdout (a token, a client id) for scripts to
/// read: their log lines (a slow statement on a large database, say) go to stderr.
/// The organization a command names by id or name, or the message to print.
async fn find_organization(db: &Db, organization: &str) -> Result<orgs::Organization, String> {
    orgs::find_organization(db, organization)
        .await
        .map_err(|e| e.to_string())?
        .ok_or(format!("no organization with id or name '{organization}'"))
}

/// The organization and the person of it a command names, or the message to print.
async fn find_person(
    db: &Db,
    organization: &str,
    person: &str,
) -> Result<(orgs::Organization, orgs::Person), String> {
    let org = find_organization(db, organization).await?;
    let found = orgs::find_person(db, &org.id, person)
        .await
        .map_err(|e| e.to_string())?
        .ok_or(format!(
            "no person with id or email '{person}' in {}",
            org.name
        ))?;
    Ok((org, found))
}

fn init_command_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,sqlx=warn".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

/// Log lines on stdout, and spans to an OpenTelemetry collector when the `OTEL_*` variables
/// ask for it (see `telemetry` and `logging`): the exporter returned is shut down, sending
/// what it holds, when the server stops.
fn init_logging(format: LogFormat) -> Option<telemetry::Exporter> {
    use tracing_subscriber::util::SubscriberInitExt;

    let (traces, warnings) = telemetry::decide(|name| std::env::var(name).ok());
    let mut problems = warnings;
    let exporter = match traces {
        telemetry::Traces::Otlp => telemetry::Exporter::start()
            .map_err(|e| problems.push(format!("{e}; traces are not exported")))
            .ok(),
        telemetry::Traces::Off => None,
    };
    logging::subscriber(format, logging::lines_from_env(), exporter.as_ref()).init();
    for problem in problems {
        tracing::warn!("{problem}");
    }
    if exporter.is_some() {
        tracing::info!("traces are exported over OTLP/HTTP");
    }
    exporter
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let exporter = match &cli.command {
        None => init_logging(cli.serve.log_format),
        Some(Command::Serve(args)) => init_logging(args.log_format),
        Some(_) => {
            init_command_logging();
            None
        }
    };
    let outcome = match cli.command {
        None => serve(cli.serve).await,
        Some(Command::Serve(args)) => serve(args).await,
        Some(Command::Token(TokenCommand::Create(args))) => create_token(args).await,
        Some(Command::Demo(args)) => demo_bulk(args).await,
        Some(Command::Person(PersonCommand::SetPassword(args))) => set_password(args).await,
        Some(Command::Organization(OrganizationCommand::TrustIssuer(args))) => {
            trust_issuer(args).await
        }
        Some(Command::OauthClient(OauthClientCommand::Create(args))) => {
            create_oauth_client(args).await
        }
    };
    // Spans still queued go out before the process ends (the SDK bounds how long it tries).
    if let Some(exporter) = exporter {
        let _ = tokio::task::spawn_blocking(move || exporter.shutdown()).await;
    }
    if let Err(message) = outcome {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

async fn serve(args: ServeArgs) -> Result<(), String> {
    // A public address without a canonical URL is refused before anything listens.
    kobana_dunning::config::check_public_url(
        resolve(&args.bind).await?,
        args.canonical_url.as_deref(),
    )?;
    // Listen first: a busy port must fail before a new database is created (a retry on
    // another port would find it migrated but never seeded).
    let listener = bind(&args.bind).await?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let metrics_listener = match &args.metrics_bind {
        Some(text) => Some(bind(text).await?),
        None => None,
    };
    let metrics_bind = match &metrics_listener {
        Some(listener) => Some(listener.local_addr().map_err(|e| e.to_string())?),
        None => None,
    };
    let config = Config {
        bind: address,
        database_url: args.database.database_url.clone(),
        seed_demo: !args.no_demo,
        demo_credentials_path: Some(PathBuf::from("data/demo-credentials.json")),
        public_catalog: args.public_catalog,
        smtp_url: args.smtp_url.clone(),
        canonical_url: args.canonical_url.clone(),
        allowed_origins: args.allowed_origins.clone(),
        reject_unconfirmed_in_handshake_era: args.reject_unconfirmed,
        authorization_servers: args.authorization_servers.clone(),
        oauth_access_token_ttl: args.oauth_access_token_ttl,
        idempotency_lease: Duration::from_secs(args.idempotency_lease),
        database_connect_timeout: Duration::from_secs(args.database.database_connect_timeout),
        engine_lease: args.engine_lease.map(Duration::from_secs),
        http: HttpLimits {
            header_timeout: args.header_timeout,
            idle_timeout: args.idle_timeout,
            body_timeout: args.body_timeout,
            max_connections: args.max_connections as usize,
        },
        allow_private_webhook_targets: args.allow_private_webhook_targets,
        allow_private_client_metadata: args.allow_private_client_metadata,
        oauth_grant_idle_ttl: args.oauth_grant_idle_ttl,
        token_cache_ttl: args.token_cache_ttl,
        rate_limit_flush: args.rate_limit_flush,
        metrics_bind,
        ..Config::local()
    };
    let config = match &args.confirmation_secret {
        Some(secret) if secret.len() < 16 => {
            return Err("the confirmation secret must have at least 16 characters".into());
        }
        Some(secret) => Config {
            confirmation_secret: secret.as_bytes().to_vec(),
            ..config
        },
        None => config,
    };
    let (db, fresh) = args.database.open().await?;
    let base_url = format!("http://{address}");
    if fresh && config.seed_demo {
        let credentials = demo::seed(&db, &base_url)
            .await
            .map_err(|e| format!("cannot seed the demo data: {e}"))?;
        if let Some(path) = &config.demo_credentials_path {
            demo::write_credentials(path, &credentials)?;
        }
        print_welcome(&base_url, &config, Some(&credentials));
    } else {
        print_welcome(&base_url, &config, None);
    }
    if db.read_only {
        println!(
            "The database cannot be written: reads are served, writes answer 503 storage_read_only.\n"
        );
    }
    let state = AppState::new(db, config);
    let workers = if state.config.run_engine {
        dunning_engine::start(state.engine.clone())
    } else {
        Vec::new()
    };
    let limits = state.config.http.clone();
    let grace = args.shutdown_grace;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    tokio::spawn(signals(stop));
    if let Some(listener) = metrics_listener {
        tracing::info!(address = %metrics_bind.map_or(String::new(), |a| a.to_string()), "metrics served on their own listener");
        let mut asked = stopping.clone();
        // Alone on its listener, with the same problem documents as the main one.
        let metrics = kobana_dunning::metrics::router(state.metrics.clone(), state.db.clone())
            .method_not_allowed_fallback(kobana_dunning::http::problem::wrong_method)
            .fallback(kobana_dunning::http::problem::no_route);
        tokio::spawn(serve::serve(
            listener,
            metrics,
            limits.clone(),
            async move {
                let _ = asked.wait_for(|stop| *stop).await;
            },
        ));
    }
    let mut asked = stopping.clone();
    let serving = serve::serve(listener, app(state.clone()), limits, async move {
        let _ = asked.wait_for(|stop| *stop).await;
    });
    tokio::pin!(serving);
    // Serve until a signal; then stop accepting and give requests under way the grace.
    let mut asked = stopping;
    let served = tokio::select! {
        served = &mut serving => served.map_err(|e| e.to_string()),
        _ = asked.wait_for(|stop| *stop) => {
            tracing::info!(grace_ms = grace.as_millis() as u64, "shutting down: finishing requests under way");
            match tokio::time::timeout(grace, &mut serving).await {
                Ok(served) => served.map_err(|e| e.to_string()),
                Err(_) => {
                    tracing::warn!("requests still running after the grace period; leaving them");
                    Ok(())
                }
            }
        }
    };
    // The workers finish the step they are in (so they leave no lease held), then stop.
    state.engine.status.stop();
    let all_stopped = async {
        for worker in workers {
            let _ = worker.await;
        }
    };
    if tokio::time::timeout(grace, all_stopped).await.is_err() {
        tracing::warn!("engine workers still busy after the grace period; their leases expire");
    }
    state.db.pool.close().await;
    tracing::info!("stopped");
    served
}

/// The first SIGTERM or SIGINT asks for a graceful stop; a second one exits at once.
async fn signals(stop: tokio::sync::watch::Sender<bool>) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).ok();
    next_signal(&mut terminate).await;
    stop.send_replace(true);
    next_signal(&mut terminate).await;
    eprintln!("second signal: exiting now");
    std::process::exit(130);
}

async fn next_signal(terminate: &mut Option<tokio::signal::unix::Signal>) {
    match terminate {
        Some(terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        None => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The address of `HOST:PORT`, resolving a host name (the first address it resolves to).
async fn resolve(text: &str) -> Result<SocketAddr, String> {
    match text.parse() {
        Ok(address) => Ok(address),
        Err(_) => tokio::net::lookup_host(text)
            .await
            .map_err(|e| format!("cannot listen on {text}: {e} (give HOST:PORT)"))?
            .next()
            .ok_or(format!(
                "cannot listen on {text}: the name resolves to no address"
            )),
    }
}

/// Listen on `HOST:PORT`, resolving a host name (the first address it resolves to).
async fn bind(text: &str) -> Result<tokio::net::TcpListener, String> {
    let address = resolve(text).await?;
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {text} ({address}): {e}"))
}

fn print_welcome(base_url: &str, config: &Config, credentials: Option<&demo::Credentials>) {
    println!();
    println!("Kobana Dunning is listening on {base_url}");
    println!("  REST API:     {base_url}/v1   (OpenAPI document: {base_url}/v1/openapi.json)");
    println!("  MCP endpoint: {base_url}{}", config.mcp_path);
    println!(
        "  OAuth:        {base_url}/.well-known/oauth-authorization-server (people sign in at {base_url}/oauth/apps)"
    );
    println!("  Database:     {}", redact_password(&config.database_url));
    if config.allow_private_webhook_targets {
        println!(
            "  Webhooks:     may reach loopback and private networks (--allow-private-webhook-targets; never in production)"
        );
    }
    let credentials_file = config
        .demo_credentials_path
        .as_ref()
        .filter(|path| path.exists());
    match credentials {
        // Tokens go to a person at a terminal; a log file or a container log only learns
        // where they are.
        Some(_) if !std::io::stdout().is_terminal() => {
            if let Some(path) = credentials_file {
                println!("  Tokens:       see {}", path.display());
            }
        }
        Some(credentials) => {
            println!();
            println!(
                "A new database was seeded with two demo organizations. Their tokens (shown once) are in"
            );
            println!("data/demo-credentials.json. The admins':");
            for org in &credentials.organizations {
                if let Some(admin) = org.people.iter().find(|p| p.role == "admin") {
                    println!("  {} ({})", org.name, org.id);
                    println!("    API token: {}", admin.api_token);
                    println!("    MCP token: {}", admin.mcp_token);
                }
            }
            if let Some(token) = credentials
                .organizations
                .first()
                .and_then(|o| o.people.first())
                .map(|p| &p.mcp_token)
            {
                println!();
                println!("Try it:");
                println!(
                    "  curl -s {base_url}{} -H 'Content-Type: application/json' -H 'Authorization: Bearer {token}' \\\n    -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}'",
                    config.mcp_path
                );
            }
        }
        None => match credentials_file {
            Some(path) => println!(
                "  Tokens:       see {}, or issue one with `kobana-dunning token create`",
                path.display()
            ),
            None => println!("  Tokens:       issue one with `kobana-dunning token create`"),
        },
    }
    println!();
}

/// `10s`, `500ms`, `2m`, `12h`, `30d` or a bare number of seconds; zero is refused (it would
/// cut every connection at once).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration such as 10s, 500ms or 2m"))?;
    let duration = match unit.trim() {
        "ms" => Duration::from_millis(number),
        "" | "s" => Duration::from_secs(number),
        "m" | "min" => Duration::from_secs(number.saturating_mul(60)),
        "h" => Duration::from_secs(number.saturating_mul(3600)),
        "d" => Duration::from_secs(number.saturating_mul(86_400)),
        other => return Err(format!("'{other}' is not a unit; use ms, s, m, h or d")),
    };
    if duration.is_zero() {
        return Err("a timeout must be longer than zero".into());
    }
    Ok(duration)
}

/// At most 5 seconds, since revoked tokens must stop working within that; zero turns the
/// cache off.
fn parse_token_cache_ttl(text: &str) -> Result<Duration, String> {
    let ttl = match text.trim().trim_end_matches('s') {
        "0" | "0m" => Duration::ZERO,
        _ => parse_duration(text)?,
    };
    if ttl > Duration::from_secs(5) {
        return Err("the token cache keeps tokens at most 5s".into());
    }
    Ok(ttl)
}

fn parse_rate_limit(text: &str) -> Result<(i64, i64), String> {
    let (count, period) = text
        .split_once('/')
        .ok_or("rate limit must look like 120/minute")?;
    let count: i64 = count
        .trim()
        .parse()
        .map_err(|_| format!("'{count}' is not a number of requests"))?;
    let seconds = match period.trim() {
        "s" | "sec" | "second" => 1,
        "m" | "min" | "minute" => 60,
        "h" | "hour" => 3600,
        "d" | "day" => 86_400,
        other => other
            .strip_suffix('s')
            .and_then(|n| n.parse::<i64>().ok())
            .ok_or(format!(
                "'{other}' is not a period (second, minute, hour, day or e.g. 30s)"
            ))?,
    };
    if count < 1 || seconds < 1 {
        return Err("rate limit and period must be positive".into());
    }
    Ok((count, seconds))
}

/// `demo`: seed the demo organizations into a new database (writing the credentials file as
/// the server would), then add the bulk rows to one of them.
async fn demo_bulk(args: DemoArgs) -> Result<(), String> {
    let (db, fresh) = args.database.open().await?;
    if fresh {
        let credentials = demo::seed(&db, "http://127.0.0.1:8080")
            .await
            .map_err(|e| format!("cannot seed the demo data: {e}"))?;
        demo::write_credentials(
            std::path::Path::new("data/demo-credentials.json"),
            &credentials,
        )?;
        eprintln!("Seeded the demo organizations; tokens in data/demo-credentials.json");
    }
    let org = find_organization(&db, &args.organization).await?;
    let started = std::time::Instant::now();
    let generated = kobana_dunning::demo_bulk::generate(
        &db,
        &org.id,
        args.customers,
        args.charges,
        |what, done, total| {
            eprintln!(
                "{what}: {done}/{total} ({:.1} s)",
                started.elapsed().as_secs_f64()
            )
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "Added {} customers and {} charges to {} ({}) in {:.1} s",
        generated.customers,
        generated.charges,
        org.name,
        org.id,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

async fn create_token(args: TokenCreateArgs) -> Result<(), String> {
    let audience = Audience::parse(&args.audience).ok_or("audience must be 'api' or 'mcp'")?;
    let rate_limit = args
        .rate_limit
        .as_deref()
        .map(parse_rate_limit)
        .transpose()?;
    let (db, _) = args.database.open().await?;
    let (org, person) = find_person(&db, &args.organization, &args.person).await?;
    let permitted = roles::permissions(&person.role);
    let scopes: Vec<String> = if args.scopes.is_empty() {
        permitted.iter().map(|s| s.to_string()).collect()
    } else {
        for scope in &args.scopes {
            if !roles::ALL_SCOPES.contains(&scope.as_str()) {
                return Err(format!(
                    "unknown scope '{scope}'; known: {}",
                    roles::ALL_SCOPES.join(", ")
                ));
            }
            if !permitted.contains(&scope.as_str()) {
                eprintln!(
                    "warning: the role '{}' does not permit '{scope}'; the token will not be able to use it",
                    person.role
                );
            }
        }
        args.scopes.clone()
    };
    let token = tokens::generate(audience);
    let id = orgs::create_token(
        &db,
        orgs::NewToken {
            organization_id: &org.id,
            person_id: &person.id,
            audience: audience.as_str(),
            scopes: &scopes,
            token_hash: &tokens::hash(&token),
            label: args.label.as_deref(),
            rate_limit,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "Issued {id} for {} ({}) in {}, audience {}, scopes: {}",
        person.name,
        person.role,
        org.name,
        audience.as_str(),
        scopes.join(" ")
    );
    println!("{token}");
    Ok(())
}

async fn set_password(args: SetPasswordArgs) -> Result<(), String> {
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .map_err(|e| format!("cannot read the password from standard input: {e}"))?;
    let password = password.trim_end_matches(['\r', '\n']);
    let chars = password.chars().count();
    if !oauth::passwords::PASSWORD_CHARS.contains(&chars) {
        return Err(format!(
            "a password has {} to {} characters",
            oauth::passwords::PASSWORD_CHARS.start(),
            oauth::passwords::PASSWORD_CHARS.end()
        ));
    }
    let (db, _) = args.database.open().await?;
    let (org, person) = find_person(&db, &args.organization, &args.person).await?;
    dunning_store::oauth::set_password(&db, &person.id, &oauth::passwords::hash(password))
        .await
        .map_err(|e| e.to_string())?;
    // Browsers without a device cookie that strangers locked out of the address get in again.
    let untrusted = oauth::throttle::key(&person.email.trim().to_lowercase(), None);
    dunning_store::sign_in::clear_attempts(&db, &untrusted)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "Password set for {} ({}) in {}; their sign-ins and connected applications were ended",
        person.name, person.email, org.name
    );
    Ok(())
}

async fn trust_issuer(args: TrustIssuerArgs) -> Result<(), String> {
    let (db, _) = args.database.open().await?;
    let org = find_organization(&db, &args.organization).await?;
    dunning_store::oauth::set_external_issuer(
        &db,
        &dunning_store::oauth::ExternalIssuer {
            organization_id: org.id.clone(),
            issuer: args.issuer.clone(),
            jwks_uri: args.jwks_uri.clone(),
            audience: args.audience.clone(),
            person_claim: args.person_claim.clone(),
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "{} now accepts JWTs from {} (keys at {})",
        org.name, args.issuer, args.jwks_uri
    );
    Ok(())
}

async fn create_oauth_client(args: OauthClientCreateArgs) -> Result<(), String> {
    for uri in &args.redirect_uris {
        oauth::clients::check_redirect_uri(uri)?;
    }
    let (db, _) = args.database.open().await?;
    let client = dunning_store::oauth::Client {
        id: dunning_store::ids::new_id("cli"),
        name: args.name.clone(),
        redirect_uris: args.redirect_uris.clone(),
        kind: "preregistered".into(),
        fetched_at_epoch: None,
    };
    dunning_store::oauth::save_client(&db, &client)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "Registered {} with redirect URIs {}",
        client.name,
        client.redirect_uris.join(" ")
    );
    println!("{}", client.id);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit_and_refuse_zero() {
        let cases = [
            ("10s", Some(Duration::from_secs(10))),
            ("500ms", Some(Duration::from_millis(500))),
            ("2m", Some(Duration::from_secs(120))),
            ("30", Some(Duration::from_secs(30))),
            ("0s", None),
            ("ten", None),
            ("5h", Some(Duration::from_secs(5 * 3600))),
            ("30d", Some(Duration::from_secs(30 * 86_400))),
            ("5w", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text).ok(), expected, "{text}");
        }
    }
}
