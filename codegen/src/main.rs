//! `codegen`: prints what the generator makes of an OpenAPI document, for review ("what
//! changes for MCP if I merge this spec change?").
//!
//! ```text
//! codegen catalog <spec> [--stats]   the catalog JSON (pretty) on stdout;
//!                                    with --stats, counts and timings on stdout instead
//! codegen source <spec>              the generated Rust tables on stdout
//! ```
//!
//! `<spec>` may `$ref` other files (relative to the file that refers to them): they are
//! bundled in. Warnings go to stderr; `--deny-warnings` makes them errors. Errors: the whole
//! report on stderr and exit status 1.

use std::process::ExitCode;
use std::time::Instant;

use codegen::{Settings, count_operations, deny_warnings, generate, load};

const USAGE: &str = "usage: codegen catalog <spec> [--stats] [--deny-warnings]\n       codegen source <spec> [--deny-warnings]";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let strict = args.iter().any(|a| a == "--deny-warnings");
    args.retain(|a| a != "--deny-warnings");
    let (command, spec, stats) = match args.as_slice() {
        [cmd, spec] => (cmd.as_str(), spec, false),
        [cmd, spec, flag] if flag == "--stats" => (cmd.as_str(), spec, true),
        [cmd, flag, spec] if flag == "--stats" => (cmd.as_str(), spec, true),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if command != "catalog" && command != "source" {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let doc = match load(std::path::Path::new(spec)) {
        Ok(d) => d.document,
        Err(report) => {
            eprintln!("{report}");
            return ExitCode::FAILURE;
        }
    };
    let loaded = started.elapsed();
    let started = Instant::now();
    let generated = generate(&doc, &Settings::default());
    let output = match if strict {
        generated.and_then(deny_warnings)
    } else {
        generated
    } {
        Ok(o) => o,
        Err(report) => {
            eprintln!("{report}");
            return ExitCode::FAILURE;
        }
    };
    let generated = started.elapsed();
    for warning in &output.warnings {
        eprintln!("warning: {warning}");
    }
    if stats {
        let count = |key: &str| {
            output.catalog[key]
                .as_array()
                .map(Vec::len)
                .unwrap_or_default()
        };
        println!("operations:         {}", count_operations(&doc));
        println!("tools:              {}", count("tools"));
        println!("resources:          {}", count("resources"));
        println!("resource templates: {}", count("resourceTemplates"));
        println!("warnings:           {}", output.warnings.len());
        println!("catalog bytes:      {}", output.catalog.to_string().len());
        println!("source bytes:       {}", output.source.len());
        println!("load ms:            {}", loaded.as_millis());
        println!("generate ms:        {}", generated.as_millis());
        return ExitCode::SUCCESS;
    }
    match command {
        "source" => print!("{}", output.source),
        _ => match serde_json::to_string_pretty(&output.catalog) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("codegen: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}
