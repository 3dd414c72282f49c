//! The first start, as a newcomer meets it: the real binary, its output read as a log file
//! would be (not a terminal).

use std::time::Duration;

use crate::faults::process::ServerProcess;

#[tokio::test]
async fn a_busy_port_on_the_first_start_leaves_nothing_behind_and_the_retry_is_seeded() {
    let folder = tempfile::tempdir().expect("temp dir");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("address").port();
    let bind = format!("127.0.0.1:{port}");
    let (exited, _) =
        ServerProcess::run_to_exit(folder.path(), &["--bind", &bind], Duration::from_secs(30));
    assert_eq!(exited.code, Some(1), "{}", exited.output);
    assert!(
        exited.output.contains("cannot listen on"),
        "{}",
        exited.output
    );
    assert!(
        !folder.path().join("data/dunning.db").exists(),
        "no database is created before the port is ours"
    );
    drop(taken);

    // The retry (on another port) is a real first start: demo data and tokens.
    let mut server = ServerProcess::start(folder.path(), &[], &[]);
    let printed = server.printed();
    assert!(folder.path().join("data/demo-credentials.json").exists());
    assert!(
        printed.contains("Tokens:       see data/demo-credentials.json"),
        "{printed}"
    );
    assert!(
        !printed.contains("kd_api_") && !printed.contains("kd_mcp_"),
        "no token in a log:\n{printed}"
    );
    assert!(
        !printed.contains('\u{1b}'),
        "no colour codes in a log:\n{printed}"
    );
}

#[tokio::test]
async fn bind_takes_a_host_name() {
    let folder = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start(folder.path(), &["--bind", "localhost:0", "--no-demo"], &[]);
    let answer = reqwest::get(server.url("/v1/openapi.json"))
        .await
        .expect("served");
    assert_eq!(answer.status(), 200);
}

/// `server/main.rs` keeps the process's memory in 4 KiB pages: a build that lost it would pass
/// every other test and hold a third more memory while it exports a million charges.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_server_runs_without_transparent_huge_pages() {
    let folder = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start(folder.path(), &["--no-demo"], &[]);
    let proc_file = |name: &str| {
        std::fs::read_to_string(format!("/proc/{}/{name}", server.pid())).expect("its /proc entry")
    };
    let status = proc_file("status");
    // `THP_enabled` is there since Linux 5.0.
    if let Some(line) = status.lines().find(|l| l.starts_with("THP_enabled:")) {
        assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
    }
    // A kernel that gives huge pages unasked (`always`) may have given one before `main` ran;
    // otherwise none, mimalloc's arena included (it asks for none: its `no_thp` feature).
    let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
    if !mode.is_ok_and(|m| m.contains("[always]")) {
        let rollup = proc_file("smaps_rollup");
        let huge = rollup.lines().find(|l| l.starts_with("AnonHugePages:"));
        assert!(
            huge.is_none_or(|l| l.split_whitespace().nth(1) == Some("0")),
            "{rollup}"
        );
    }
    server.stop();
}

#[tokio::test]
async fn a_second_start_without_tokens_points_only_at_what_exists() {
    let folder = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start(folder.path(), &["--no-demo"], &[]);
    server.stop();
    let mut again = ServerProcess::start(folder.path(), &["--no-demo"], &[]);
    let printed = again.printed();
    assert!(!printed.contains("demo-credentials.json"), "{printed}");
    assert!(printed.contains("token create"), "{printed}");
}

#[tokio::test]
async fn token_create_prints_only_the_token_on_stdout_whatever_it_logs() {
    let folder = tempfile::tempdir().expect("temp dir");
    ServerProcess::start(folder.path(), &[], &[]).stop();
    let credentials: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.path().join("data/demo-credentials.json"))
            .expect("demo credentials"),
    )
    .expect("JSON");
    let organization = &credentials["organizations"][0];
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kobana-dunning"))
        .current_dir(folder.path())
        .args(["token", "create", "--organization"])
        .arg(organization["id"].as_str().expect("id"))
        .arg("--person")
        .arg(organization["people"][0]["email"].as_str().expect("email"))
        .args(["--audience", "api"])
        // Every statement is logged at this level: the lines a large database's slow
        // statements would print.
        .env("RUST_LOG", "debug")
        .env_remove("DATABASE_URL")
        .output()
        .expect("token create runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "stdout is the token alone:\n{stdout}");
    assert!(lines[0].starts_with("kd_"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("DEBUG"),
        "the log went to stderr"
    );
}
