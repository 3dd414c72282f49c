//! Start-up and shutdown of the server (`serve`): the configuration from the command line,
//! listening, the database and its demo data, the engine's workers, serving until a signal,
//! then a graceful stop. Also the log subscribers the binary installs.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{ServeArgs, redact_password};
use crate::http::serve::{self, HttpLimits};
use crate::ops::logging::{self, LogFormat};
use crate::ops::telemetry;
use crate::{AppState, Config, app, demo};

pub fn init_command_logging() {
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
pub fn init_logging(format: LogFormat) -> Option<telemetry::Exporter> {
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

pub async fn serve(args: ServeArgs) -> Result<(), String> {
    // A public address without a canonical URL is refused before anything listens.
    for address in resolve(&args.bind).await? {
        crate::config::check_public_url(address, args.canonical_url.as_deref())?;
    }
    // Listen first: a busy port must fail before a new database is created (a retry on
    // another port would find it migrated but never seeded).
    let listeners = bind(&args.bind).await?;
    let address = listeners[0].local_addr().map_err(|e| e.to_string())?;
    let metrics_listeners = match &args.metrics_bind {
        Some(text) => Some(bind(text).await?),
        None => None,
    };
    let metrics_bind = match &metrics_listeners {
        Some(listeners) => Some(listeners[0].local_addr().map_err(|e| e.to_string())?),
        None => None,
    };
    let config = config(&args, address, metrics_bind)?;
    // A wrong SMTP URL, CA file or DKIM key stops the start, rather than queueing every e-mail
    // (incomplete or malformed Twilio flags stopped it in `config`).
    dunning_engine::providers::Providers::check(&config.engine_settings())?;
    let (db, fresh) = args.database.open().await?;
    let config = Config {
        unsubscribe_secret: unsubscribe_key(&args, &db).await?,
        pix: args.pix.config(&db).await?,
        ..config
    };
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
    if let Some(listeners) = metrics_listeners {
        tracing::info!(address = %metrics_bind.map_or(String::new(), |a| a.to_string()), "metrics served on their own listener");
        let mut asked = stopping.clone();
        // Alone on its listener, with the same problem documents as the main one.
        let metrics = crate::ops::metrics::router(state.metrics.clone(), state.db.clone())
            .method_not_allowed_fallback(crate::http::problem::wrong_method)
            .fallback(crate::http::problem::no_route);
        tokio::spawn(serve::serve_all(
            listeners,
            metrics,
            limits.clone(),
            async move {
                let _ = asked.wait_for(|stop| *stop).await;
            },
        ));
    }
    let mut asked = stopping.clone();
    let serving = serve::serve_all(listeners, app(state.clone()), limits, async move {
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

/// The server's configuration from its command line, once the listeners are bound (their
/// addresses, port 0 resolved, are part of it).
fn config(
    args: &ServeArgs,
    address: SocketAddr,
    metrics_bind: Option<SocketAddr>,
) -> Result<Config, String> {
    let twilio = dunning_engine::twilio::Account::from_flags(&dunning_engine::twilio::Flags {
        account_sid: args.twilio_account_sid.as_deref(),
        auth_token: args.twilio_auth_token.as_deref(),
        sms_from: args.twilio_sms_from.as_deref(),
        whatsapp_from: args.twilio_whatsapp_from.as_deref(),
        api_url: &args.twilio_api_url,
    })?;
    let config = Config {
        bind: address,
        database_url: args.database.database_url.clone(),
        seed_demo: !args.no_demo,
        demo_credentials_path: Some(PathBuf::from("data/demo-credentials.json")),
        public_catalog: args.public_catalog,
        smtp_url: args.smtp_url.clone(),
        dkim: match (&args.dkim_key_file, &args.dkim_selector) {
            (Some(key_file), Some(selector)) => Some(dunning_engine::smtp::DkimSettings {
                key_file: key_file.clone(),
                selector: selector.clone(),
            }),
            _ => None,
        },
        twilio,
        canonical_url: args.canonical_url.clone(),
        allowed_origins: args.allowed_origins.clone(),
        reject_unconfirmed_in_handshake_era: args.reject_unconfirmed,
        mcp_toolsets: crate::mcp_host::checked_toolsets(&args.mcp_toolsets, "--mcp-toolsets")?,
        mcp_read_only: args.mcp_read_only,
        mcp_discovery: args.mcp_discovery,
        mcp_strict_schemas: args.mcp_strict_schemas,
        authorization_servers: args.authorization_servers.clone(),
        oauth_access_token_ttl: args.oauth_access_token_ttl,
        idempotency_lease: Duration::from_secs(args.idempotency_lease),
        database_connect_timeout: Duration::from_secs(args.database.database_connect_timeout),
        engine_lease: args.engine_lease.map(Duration::from_secs),
        exports: dunning_engine::exports::Sizes {
            page_rows: args.export_page_rows,
            chunk_bytes: usize::try_from(args.export_piece_kib * 1024).unwrap_or(usize::MAX),
        },
        collection_interval: args.collection_interval,
        sending: dunning_engine::Sending {
            smtp_connections: usize::try_from(args.smtp_connections).unwrap_or(usize::MAX),
            twilio_sms_rate: args.twilio_sms_rate,
            twilio_whatsapp_rate: args.twilio_whatsapp_rate,
            per_organization: usize::try_from(args.deliveries_per_organization)
                .unwrap_or(usize::MAX),
        },
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
        bad_request_budget: crate::http::address_budget::Budget {
            per_window: u32::try_from(args.bad_request_budget.0).unwrap_or(u32::MAX),
            window: Duration::from_secs(args.bad_request_budget.1.unsigned_abs()),
        },
        trusted_proxies: args.trusted_proxies.clone(),
        ..Config::local()
    };
    match &args.confirmation_secret {
        Some(secret) if secret.len() < 16 => {
            Err("the confirmation secret must have at least 16 characters".into())
        }
        Some(secret) => Ok(Config {
            confirmation_secret: secret.as_bytes().to_vec(),
            ..config
        }),
        None => Ok(config),
    }
}

/// The unsubscribe links' key: `--unsubscribe-secret`, else the one kept in the database (made
/// now when this is the first start). Never logged.
async fn unsubscribe_key(
    args: &ServeArgs,
    db: &dunning_store::Db,
) -> Result<dunning_engine::unsubscribe::Key, String> {
    use dunning_engine::unsubscribe::Key;
    match &args.unsubscribe_secret {
        Some(secret) if secret.len() < 16 => {
            Err("the unsubscribe secret must have at least 16 characters".into())
        }
        Some(secret) => Ok(Key::new(secret.as_bytes().to_vec())),
        None => match dunning_store::secrets::get_or_create(db, "unsubscribe").await {
            Ok(secret) => Ok(Key::new(secret)),
            // A read-only database that never kept a key: the links of this process work
            // until it stops (it sends no e-mail anyway: deliveries cannot be written).
            Err(e) if db.read_only => {
                tracing::warn!(
                    "no unsubscribe key in the read-only database ({e}); links made now stop working at restart"
                );
                Ok(Key::new(crate::config::random_secret()))
            }
            Err(e) => Err(format!("cannot read or keep the unsubscribe key: {e}")),
        },
    }
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

/// Every address of `HOST:PORT`: an IP address, or each address a host name resolves to
/// (`localhost` is often both 127.0.0.1 and ::1), without repeats.
async fn resolve(text: &str) -> Result<Vec<SocketAddr>, String> {
    if let Ok(address) = text.parse() {
        return Ok(vec![address]);
    }
    let mut addresses: Vec<SocketAddr> = Vec::new();
    for address in tokio::net::lookup_host(text)
        .await
        .map_err(|e| format!("cannot listen on {text}: {e} (give HOST:PORT)"))?
    {
        if !addresses.contains(&address) {
            addresses.push(address);
        }
    }
    if addresses.is_empty() {
        return Err(format!(
            "cannot listen on {text}: the name resolves to no address"
        ));
    }
    Ok(addresses)
}

/// Listen on `HOST:PORT`: on every address the host resolves to, all on one port (with port
/// 0, the one the first listener got). An address this machine does not have (IPv6 turned
/// off, say) is left out with a warning; a port another process holds fails the start.
async fn bind(text: &str) -> Result<Vec<tokio::net::TcpListener>, String> {
    listen_on(text, &resolve(text).await?).await
}

async fn listen_on(
    text: &str,
    addresses: &[SocketAddr],
) -> Result<Vec<tokio::net::TcpListener>, String> {
    let mut listeners: Vec<tokio::net::TcpListener> = Vec::new();
    for &address in addresses {
        let address = match listeners.first() {
            Some(first) if address.port() == 0 => {
                let port = first.local_addr().map_err(|e| e.to_string())?.port();
                SocketAddr::new(address.ip(), port)
            }
            _ => address,
        };
        match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => listeners.push(listener),
            Err(e) if e.kind() == std::io::ErrorKind::AddrNotAvailable && addresses.len() > 1 => {
                tracing::warn!(%address, "not listening on {address}: {e}");
            }
            Err(e) => return Err(format!("cannot listen on {text} ({address}): {e}")),
        }
    }
    if listeners.is_empty() {
        return Err(format!(
            "cannot listen on {text}: no address of it can be used"
        ));
    }
    Ok(listeners)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_name_of_two_addresses_listens_on_both_on_one_port() {
        let both: Vec<SocketAddr> =
            vec!["127.0.0.1:0".parse().unwrap(), "[::1]:0".parse().unwrap()];
        let listeners = listen_on("localhost:0", &both).await.expect("listens");
        let bound: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
        assert_eq!(bound.len(), 2, "{bound:?}");
        assert!(
            bound[0].ip().is_ipv4() && bound[1].ip().is_ipv6(),
            "{bound:?}"
        );
        assert_eq!(bound[0].port(), bound[1].port(), "one port for the name");
        for address in bound {
            tokio::net::TcpStream::connect(address)
                .await
                .expect("connects");
        }
    }

    #[tokio::test]
    async fn a_port_taken_on_one_address_fails_the_start() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let addresses: Vec<SocketAddr> = vec![
            format!("[::1]:{port}").parse().unwrap(),
            format!("127.0.0.1:{port}").parse().unwrap(),
        ];
        let refused = listen_on("localhost", &addresses)
            .await
            .expect_err("refused");
        assert!(refused.contains(&format!("127.0.0.1:{port}")), "{refused}");
    }

    #[tokio::test]
    async fn an_ip_address_is_itself_and_a_name_resolves() {
        assert_eq!(
            resolve("127.0.0.1:8081").await.unwrap(),
            vec!["127.0.0.1:8081".parse::<SocketAddr>().unwrap()]
        );
        let local = resolve("localhost:8081").await.unwrap();
        assert!(
            local
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 8081),
            "{local:?}"
        );
    }
}
