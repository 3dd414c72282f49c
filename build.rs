//! Generates the MCP catalog and dispatch tables (`catalog.rs`) and the document's types
//! (`models.rs`) from `openapi/v1.yaml` into `$OUT_DIR`.
//! All the work is in the `codegen` crate; this only reads and writes files.
//! `CODEGEN_DENY_WARNINGS=1` makes the generator's warnings errors.
//! It also names the build for the metrics' build info: `DUNNING_GIT_COMMIT` (the commit, or
//! `unknown` outside a git checkout; a set variable wins) and `DUNNING_CATALOG_HASH`.

use std::process::Command;
use std::{env, fs, path::Path};

fn main() {
    println!("cargo::rerun-if-changed=templates");
    println!("cargo::rerun-if-env-changed=CODEGEN_DENY_WARNINGS");
    let loaded = codegen::load(Path::new("openapi/v1.yaml"))
        .unwrap_or_else(|report| panic!("openapi/v1.yaml:\n{report}"));
    // The document and every file its `$ref`s reach.
    for file in &loaded.files {
        println!("cargo::rerun-if-changed={}", file.display());
    }
    let instructions =
        fs::read_to_string("templates/instructions.md").expect("read templates/instructions.md");
    let prompts =
        codegen::read_prompts(Path::new("templates/prompts")).expect("read templates/prompts");
    let settings = codegen::Settings {
        instructions,
        strict_clashes: None,
        prompts,
        // The defaults (lean output schemas, no input examples): see codegen/src/budget.rs.
        budget: None,
        // The handlers' own types for the formats that matter: dates, money in centavos,
        // instants as the service stores and shows them.
        models: codegen::ModelSettings {
            formats: vec![
                // A date in an answer is written by `Day` (`time`'s own writer was most of
                // the cost of a date); requests read `time::Date`.
                codegen::FormatType {
                    format: "date".into(),
                    request: "::time::Date".into(),
                    response: "::dunning_domain::timestamp::Day".into(),
                },
                codegen::FormatType::new("money", "::dunning_domain::money::Cents"),
                codegen::FormatType::new("date-time", "::dunning_domain::timestamp::Timestamp"),
            ],
        },
    };
    let output = codegen::generate(&loaded.document, &settings)
        .and_then(
            |output| match env::var("CODEGEN_DENY_WARNINGS").as_deref() {
                Ok("1") => codegen::deny_warnings(output),
                _ => Ok(output),
            },
        )
        .unwrap_or_else(|report| panic!("openapi/v1.yaml and templates/:\n{report}"));
    for warning in loaded.warnings.iter().chain(&output.warnings) {
        println!("cargo::warning={warning}");
    }
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!(
        "cargo::rustc-env=DUNNING_CATALOG_HASH={:016x}",
        fnv1a(output.source.as_bytes())
    );
    println!("cargo::rustc-env=DUNNING_GIT_COMMIT={}", git_commit());
    fs::write(Path::new(&out_dir).join("catalog.rs"), output.source).expect("write catalog.rs");
    fs::write(Path::new(&out_dir).join("models.rs"), output.models).expect("write models.rs");
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
