//! `conformance-fixture --bind 127.0.0.1:<port> --token <token>`: serves the fixture's MCP
//! endpoint at `/mcp` until SIGINT or SIGTERM. The token may come from
//! `CONFORMANCE_FIXTURE_TOKEN` instead.

use std::net::SocketAddr;

use tokio::net::TcpListener;

fn usage() -> ! {
    eprintln!("usage: conformance-fixture --bind <addr:port> --token <token>");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let mut bind: Option<SocketAddr> = None;
    let mut token = std::env::var("CONFORMANCE_FIXTURE_TOKEN").ok();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bind" => bind = args.next().and_then(|a| a.parse().ok()),
            "--token" => token = args.next(),
            _ => usage(),
        }
    }
    let (Some(bind), Some(token)) = (bind, token.filter(|t| !t.is_empty())) else {
        usage()
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let listener = TcpListener::bind(bind).await.unwrap_or_else(|e| {
        eprintln!("cannot bind {bind}: {e}");
        std::process::exit(1)
    });
    let settings = conformance_fixture::settings(bind.ip().is_loopback());
    let app = conformance_fixture::app(&token, settings);
    eprintln!("conformance fixture: MCP endpoint at http://{bind}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
        .expect("serve");
}

async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = interrupt => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
