//! The real server binary as a child process: started on 127.0.0.1 port 0 in its own folder,
//! spoken to over HTTP, and stopped the hard way (`kill -9`) when a test says so.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// A running `kobana-dunning` process.
pub struct ServerProcess {
    child: Child,
    pub base_url: String,
    /// Every line the process printed (stdout and stderr), as it printed them.
    output: mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

/// What a process printed before it exited on its own.
pub struct Exited {
    pub code: Option<i32>,
    pub output: String,
}

fn command(folder: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    launched(&[], folder, args, env)
}

/// The binary run by `launcher` (a program and its arguments, the binary's path and `args`
/// after them), or directly when `launcher` is empty.
fn launched(launcher: &[&str], folder: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let binary = env!("CARGO_BIN_EXE_kobana-dunning");
    let mut command = match launcher.split_first() {
        None => Command::new(binary),
        Some((program, rest)) => {
            let mut command = Command::new(program);
            command.args(rest).arg(binary);
            command
        }
    };
    command
        .current_dir(folder)
        .args(args)
        .env("RUST_LOG", "warn")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

impl ServerProcess {
    /// Start the server in `folder` (its `data/` lives there) with `args` after
    /// `--bind 127.0.0.1:0`, and wait until it says where it listens.
    pub fn start(folder: &Path, args: &[&str], env: &[(&str, &str)]) -> ServerProcess {
        Self::start_under(&[], folder, args, env)
    }

    /// [`ServerProcess::start`], the binary run by `launcher` (see [`launched`]).
    pub fn start_under(
        launcher: &[&str],
        folder: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> ServerProcess {
        let mut all = if args.contains(&"--bind") {
            Vec::new()
        } else {
            vec!["--bind", "127.0.0.1:0"]
        };
        all.extend_from_slice(args);
        let mut child = launched(launcher, folder, &all, env)
            .spawn()
            .expect("start the server");
        let (sender, output) = mpsc::channel();
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let sender = sender.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let mut server = ServerProcess {
            child,
            base_url: String::new(),
            output,
            seen: Vec::new(),
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        // The banner starts with where it listens and ends with an empty line.
        let mut banner_done = false;
        while !banner_done {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match server.output.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("Kobana Dunning is listening on ") {
                        server.base_url = url.trim().to_string();
                    } else if !server.base_url.is_empty() && line.trim().is_empty() {
                        banner_done = true;
                    }
                    server.seen.push(line);
                }
                Err(_) => panic!(
                    "the server did not start; it printed:\n{}",
                    server.seen.join("\n")
                ),
            }
        }
        server
    }

    /// Run the binary with `args` and wait (at most `limit`) for it to exit by itself.
    pub fn run_to_exit(folder: &Path, args: &[&str], limit: Duration) -> (Exited, Duration) {
        let started = std::time::Instant::now();
        let mut child = command(folder, args, &[])
            .spawn()
            .expect("start the binary");
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                let output = child.wait_with_output().expect("output");
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                return (
                    Exited {
                        code: status.code(),
                        output: text,
                    },
                    started.elapsed(),
                );
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                panic!("the binary ran for more than {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `kill -9`: no shutdown, no flush, as a crash or an OOM kill would do.
    pub fn kill_hard(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Ctrl-C (SIGINT): the server stops accepting, finishes and exits.
    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        for _ in 0..200 {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the server did not stop on SIGINT");
    }

    /// Send a signal (`TERM`, `INT`, ...) without waiting.
    pub fn signal(&self, name: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status();
    }

    /// Wait at most `limit` for the process to exit; its exit code, if it did.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<Option<i32>> {
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().ok().flatten() {
                return Some(status.code());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// What the process printed so far.
    pub fn printed(&mut self) -> String {
        while let Ok(line) = self.output.try_recv() {
            self.seen.push(line);
        }
        self.seen.join("\n")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The process's id (to read its `/proc` entries).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A new `api` token for the demo admin with a rate limit no load test reaches, issued by
/// the command line on the database `database_args` name (empty: the folder's SQLite).
pub fn unlimited_admin_token(folder: &Path, database_args: &[&str]) -> String {
    issue_token(folder, database_args, "api", "1000000/minute")
}

/// A new token for the demo admin of the first organization, with `audience` and `rate`
/// (e.g. `6/minute`), issued by `kobana-dunning token create`.
pub fn issue_token(folder: &Path, database_args: &[&str], audience: &str, rate: &str) -> String {
    let text = std::fs::read_to_string(folder.join("data/demo-credentials.json"))
        .expect("demo credentials written");
    let credentials: Value = serde_json::from_str(&text).expect("credentials are JSON");
    let organization = &credentials["organizations"][0];
    let admin = organization["people"]
        .as_array()
        .expect("people")
        .iter()
        .find(|p| p["role"] == "admin")
        .expect("an admin");
    let mut args = vec![
        "token",
        "create",
        "--organization",
        organization["id"].as_str().expect("id"),
        "--person",
        admin["email"].as_str().expect("email"),
        "--audience",
        audience,
        "--rate-limit",
        rate,
    ];
    args.extend_from_slice(database_args);
    let output = command(folder, &args, &[]).output().expect("token create");
    assert!(
        output.status.success(),
        "token create: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// Whether this process may mount file systems (root on Linux); fault tests that need a
/// small or read-only mount say they skipped otherwise, and fail under `CI=true`.
pub fn can_mount() -> bool {
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        assert!(
            std::env::var("CI").is_err(),
            "CI runs as root: the mount-based fault tests must run there"
        );
        eprintln!("skipped: mounting (a tmpfs, a resolv.conf) needs root");
    }
    root
}

/// A tmpfs of `size` mounted on a new temporary folder, unmounted when dropped.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    pub fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().expect("temp dir");
        run(
            "mount",
            &["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"],
            dir.path(),
        );
        Tmpfs { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Make the mount read-only (or writable again).
    pub fn remount(&self, read_only: bool) {
        let option = if read_only {
            "remount,ro"
        } else {
            "remount,rw"
        };
        run("mount", &["-o", option], self.path());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

fn run(program: &str, args: &[&str], target: &Path) {
    let status = Command::new(program)
        .args(args)
        .arg(target)
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        status.success(),
        "{program} {args:?} {} failed",
        target.display()
    );
}
