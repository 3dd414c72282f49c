//! Generates the MCP catalog and dispatch tables (`catalog.rs`) and the document's types
//! (`models.rs`) from `openapi/v1.yaml`, `templates/instructions.md`, `templates/prompts/` and
//! the views of `templates/ui/`
//! into `$OUT_DIR`, through the generator's one build step (`mcpgen::Build`).
//! `MCPGEN_DENY_WARNINGS=1` makes the generator's warnings errors.
//! It also names the build for the metrics' build info: `DUNNING_GIT_COMMIT` (the commit, or
//! `unknown` outside a git checkout; a set variable wins) and `DUNNING_CATALOG_HASH`.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    // The generator's one build step: the document and every file its `$ref`s reach, the
    // instructions and the prompts, watched, generated and written to `$OUT_DIR`
    // (`MCPGEN_DENY_WARNINGS=1` makes its warnings errors).
    let output = mcpgen::Build::new("openapi/v1.yaml")
        .instructions("templates/instructions.md")
        .prompts("templates/prompts")
        // The MCP Apps views (templates/ui/README.md), embedded and sealed.
        .views("templates/ui")
        .settings(mcpgen::Settings {
            // The defaults (lean output schemas, no input examples): see codegen/src/budget.rs.
            budget: None,
            // The handlers' own types for the formats that matter: dates, money in centavos,
            // instants as the service stores and shows them.
            models: mcpgen::ModelSettings {
                formats: vec![
                    // A date in an answer is written by `Day` (`time`'s own writer was most of
                    // the cost of a date); requests read `time::Date`.
                    mcpgen::FormatType {
                        format: "date".into(),
                        request: "::time::Date".into(),
                        response: "::dunning_domain::timestamp::Day".into(),
                    },
                    mcpgen::FormatType::new("money", "::dunning_domain::money::Cents"),
                    mcpgen::FormatType::new("date-time", "::dunning_domain::timestamp::Timestamp"),
                ],
            },
            // Our views' URIs, told apart from other servers' in a host: `ui://dunning/aging`.
            ui_uri_prefix: "ui://dunning/".into(),
            ..mcpgen::Settings::default()
        })
        .run();
    println!(
        "cargo::rustc-env=DUNNING_CATALOG_HASH={:016x}",
        fnv1a(output.source.as_bytes())
    );
    println!("cargo::rustc-env=DUNNING_GIT_COMMIT={}", git_commit());
}

/// FNV-1a, 64 bits: enough to tell two catalogs apart, and no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The commit being built. Git's own files that move with `HEAD` are watched, so a new
/// commit reruns this script; a file that does not exist is not named (cargo would rerun
/// every time).
fn git_commit() -> String {
    println!("cargo::rerun-if-env-changed=DUNNING_GIT_COMMIT");
    if let Ok(commit) = env::var("DUNNING_GIT_COMMIT") {
        return commit;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    let watched = [Some("HEAD"), branch.as_deref(), Some("packed-refs")];
    for name in watched.into_iter().flatten() {
        if let Some(path) = git(&["rev-parse", "--git-path", name])
            && Path::new(&path).exists()
        {
            println!("cargo::rerun-if-changed={path}");
        }
    }
    git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
}
