//! `kobana-dunning`: run the server (`serve`, the default), issue tokens (`token create`), set
//! a password, trust an issuer, register an OAuth client, set a Pix key (`pix set`) or a PSP
//! connection (`pix connect`), or fill a demo organization with bulk data (`demo`). The
//! commands are `kobana_dunning::cli`, start-up is `kobana_dunning::startup`; this file only
//! picks one and reports how it ended.

use clap::Parser;
use kobana_dunning::cli::{
    Cli, Command, OauthClientCommand, OrganizationCommand, PersonCommand, PixCommand, TokenCommand,
    commands,
};
use kobana_dunning::startup::{self, init_command_logging, init_logging};

// Many small, short-lived allocations per request (JSON values, headers, rows) cross the
// runtime's worker threads; glibc's allocator spent about 13 % of the server's samples
// under load (bench/RESULTS.md), mimalloc's thread-local pages make that cheap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    small_pages_only();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the async runtime starts");
    let outcome = runtime.block_on(run(Cli::parse()));
    // `serve` has already given requests and workers their grace. What may still be on the
    // blocking pool is a worker's DNS lookup (getaddrinfo cannot be cancelled and waits for
    // the resolver, 5 s a try), whose answer nobody awaits: dropping the runtime would wait
    // for it, so the process would outlive its grace. It ends now instead.
    runtime.shutdown_background();
    if let Err(message) = outcome {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

/// Keep the process's memory in 4 KiB pages: no transparent huge pages, before the runtime
/// starts. A 2 MiB page is resident from the first of its bytes touched until the last is free,
/// and the kernel's khugepaged fills half-empty ranges back into whole ones, so the RSS followed
/// the largest transient the process had made rather than what it holds: mimalloc asked for
/// them on its arena (`MADV_HUGEPAGE`; the `no_thp` feature stops that, Cargo.toml), and a
/// kernel set to `always` gives them unasked (`PR_SET_THP_DISABLE` here stops that, for the
/// whole process). A server exporting a million charges peaked at 76 MiB with them and 48
/// without, no slower, and its reads cost the same CPU (bench/RESULTS.md, "Exports of a million
/// charges under 64 MiB"). A kernel without the flag (before 3.15) refuses it, and the process
/// runs as before.
fn small_pages_only() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

async fn run(cli: Cli) -> Result<(), String> {
    let exporter = match &cli.command {
        None => init_logging(cli.serve.log_format),
        Some(Command::Serve(args)) => init_logging(args.log_format),
        Some(_) => {
            init_command_logging();
            None
        }
    };
    let outcome = match cli.command {
        None => startup::serve(cli.serve).await,
        Some(Command::Serve(args)) => startup::serve(*args).await,
        Some(Command::Token(TokenCommand::Create(args))) => commands::create_token(args).await,
        Some(Command::Demo(args)) => commands::demo_bulk(args).await,
        Some(Command::Person(PersonCommand::SetPassword(args))) => {
            commands::set_password(args).await
        }
        Some(Command::Organization(OrganizationCommand::TrustIssuer(args))) => {
            commands::trust_issuer(args).await
        }
        Some(Command::OauthClient(OauthClientCommand::Create(args))) => {
            commands::create_oauth_client(args).await
        }
        Some(Command::Pix(PixCommand::Set(args))) => commands::set_pix(args).await,
        Some(Command::Pix(PixCommand::Connect(args))) => {
            kobana_dunning::cli::pix::connect_command(args).await
        }
    };
    // Spans still queued go out before the process ends (the SDK bounds how long it tries).
    if let Some(exporter) = exporter {
        let _ = tokio::task::spawn_blocking(move || exporter.shutdown()).await;
    }
    outcome
}
