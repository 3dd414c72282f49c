//! `todos [--port PORT] [--key KEY=OWNER]...`: serves the todo list (REST and `/mcp`) on
//! 127.0.0.1 only (port 8080 unless told), and prints `listening on http://127.0.0.1:PORT`
//! once bound (port 0 picks a free one). Keys come from `--key` or from `TODOS_API_KEYS`
//! (`KEY=OWNER,KEY=OWNER`); without any, the one demo key `demo-key` (held by `demo`).

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};

use mcpgen_example_todos::ApiKeys;
use tokio::net::TcpListener;

const USAGE: &str = "usage: todos [--port PORT] [--key KEY=OWNER]...";

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let mut listen = SocketAddr::from((Ipv4Addr::LOCALHOST, 8080));
    let mut pairs: Vec<String> = std::env::var("TODOS_API_KEYS")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| fail(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--port" => listen.set_port(value.parse().unwrap_or_else(|_| fail("bad port"))),
            "--key" => pairs.push(value),
            _ => fail(&format!("unknown argument {arg}")),
        }
    }
    let mut keys = ApiKeys::parse(pairs.iter().map(String::as_str)).unwrap_or_else(|e| fail(&e));
    if keys.is_empty() {
        eprintln!("no --key given: the demo key `demo-key` (held by `demo`) is accepted");
        keys = ApiKeys::parse(["demo-key=demo"]).expect("the demo key");
    }
    let listener = TcpListener::bind(listen)
        .await
        .unwrap_or_else(|e| fail(&format!("cannot listen on {listen}: {e}")));
    let bound = listener.local_addr().expect("the bound address");
    // One line on stdout, flushed at once: a test or a script reads the port from it.
    println!("listening on http://{bound}");
    std::io::stdout().flush().expect("stdout");
    let app = mcpgen_example_todos::app(keys);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async {
        tokio::signal::ctrl_c().await.ok();
    })
    .await
    .expect("serve");
}
