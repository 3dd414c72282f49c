//! `mcpgen`: prints what the generator makes of an OpenAPI document, for review ("what
//! changes for MCP if I merge this spec change?").
//!
//! ```text
//! mcpgen catalog <spec> [--stats] [--no-budget] [--views <dir>]
//!                                    the catalog JSON (pretty) on stdout; with --stats,
//!                                    counts, timings and sizes per tool instead; with
//!                                    --no-budget, every schema as the document writes it;
//!                                    --views: the MCP Apps views' folder (`x-mcp.ui`)
//! mcpgen source <spec>              the generated Rust tables on stdout
//! mcpgen models <spec>              the generated models (the document's types) on stdout
//! mcpgen diff <old> <new>           what changes for an assistant between two catalogs (or
//!                                    documents): each change breaking or compatible; exit
//!                                    status 1 when one is breaking
//! ```
//!
//! `<spec>` may `$ref` other files (relative to the file that refers to them): they are
//! bundled in. Warnings go to stderr; `--deny-warnings` makes them errors. Errors: the whole
//! report on stderr and exit status 1.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use mcpgen::{Settings, count_operations, deny_warnings, generate, load};

const USAGE: &str = "usage: mcpgen catalog <spec> [--stats] [--no-budget] [--deny-warnings] [--views <dir>]\n       mcpgen source <spec> [--deny-warnings] [--views <dir>]\n       mcpgen models <spec> [--deny-warnings]\n       mcpgen diff <old> <new>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [command, old, new] = args.as_slice()
        && command == "diff"
    {
        return diff(old, new);
    }
    let [command, rest @ ..] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    // `--views <dir>` takes a value: taken out before the flags and the spec are told apart.
    let mut rest = rest.to_vec();
    let views = match rest.iter().position(|a| a == "--views") {
        Some(at) if at + 1 < rest.len() => {
            let dir = rest.remove(at + 1);
            rest.remove(at);
            match mcpgen::read_views(std::path::Path::new(&dir)) {
                Ok(views) => views,
                Err(e) => {
                    eprintln!("mcpgen: cannot read {dir}: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        Some(_) => {
            eprintln!("mcpgen: --views needs a folder\n{USAGE}");
            return ExitCode::from(2);
        }
        None => Vec::new(),
    };
    let stats = rest.iter().any(|a| a == "--stats");
    let unlimited = rest.iter().any(|a| a == "--no-budget");
    let strict = rest.iter().any(|a| a == "--deny-warnings");
    let specs: Vec<&String> = rest.iter().filter(|a| !a.starts_with("--")).collect();
    let (command, [spec]) = (command.as_str(), specs.as_slice()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if let Some(flag) = rest.iter().find(|a| {
        a.starts_with("--") && !["--stats", "--no-budget", "--deny-warnings"].contains(&a.as_str())
    }) {
        eprintln!("mcpgen: unknown option {flag}\n{USAGE}");
        return ExitCode::from(2);
    }
    if !["catalog", "source", "models"].contains(&command) {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let doc = match load(std::path::Path::new(spec)) {
        Ok(d) => {
            // References the loader read where OpenAPI allows none (JSON Reference).
            for warning in &d.warnings {
                eprintln!("warning: {warning}");
            }
            if strict && !d.warnings.is_empty() {
                eprintln!("mcpgen: --deny-warnings: the loader warned");
                return ExitCode::FAILURE;
            }
            d.document
        }
        Err(report) => {
            eprintln!("{report}");
            return ExitCode::FAILURE;
        }
    };
    let loaded = started.elapsed();
    let started = Instant::now();
    let settings = Settings {
        budget: unlimited.then(mcpgen::budget::Budget::unlimited),
        views,
        ..Settings::default()
    };
    let generated = generate(&doc, &settings);
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
        print_tool_sizes(&output.catalog);
        print_toolset_sizes(&output.catalog);
        return ExitCode::SUCCESS;
    }
    match command {
        "source" => print!("{}", output.source),
        "models" => print!("{}", output.models),
        _ => match serde_json::to_string_pretty(&output.catalog) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("mcpgen: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}

/// `mcpgen diff OLD NEW`: each change on a line, breaking ones first; exit 1 when any is
/// breaking, 2 when a file cannot be read.
fn diff(old: &str, new: &str) -> ExitCode {
    let (old, new) = match (catalog_of(old), catalog_of(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("mcpgen: {e}");
            return ExitCode::from(2);
        }
    };
    let changes = mcpgen::diff::diff(&old, &new);
    let mut out = std::io::stdout().lock();
    // A reader that stops early (`| head`) ends the listing, not the process with a panic.
    for change in &changes {
        if writeln!(out, "{change}").is_err() {
            break;
        }
    }
    drop(out);
    let breaking = changes
        .iter()
        .filter(|c| c.impact == mcpgen::diff::Impact::Breaking)
        .count();
    eprintln!(
        "{} changes for an assistant, {breaking} breaking",
        changes.len()
    );
    if breaking > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The catalog in `path`: a catalog as it is (it has `tools`), or the one an OpenAPI
/// document generates (without the prompts and instructions a build adds).
fn catalog_of(path: &str) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if let Ok(catalog) = serde_json::from_str::<serde_json::Value>(&text)
        && catalog.get("tools").is_some()
    {
        return Ok(catalog);
    }
    let document = load(std::path::Path::new(path))
        .map_err(|report| format!("{path}: {report}"))?
        .document;
    generate(&document, &Settings::default())
        .map(|output| output.catalog)
        .map_err(|report| format!("{path}: {report}"))
}

/// Per tool: bytes of the description, the input and the output schema, and roughly how many
/// tokens a model reads for it (name, description and input schema; ~4 bytes a token).
/// Per toolset: its tools, the bytes of their `tools/list` entries and the estimated tokens
/// (bytes / 4), what a connection that loads only it carries.
fn print_toolset_sizes(catalog: &serde_json::Value) {
    let Some(toolsets) = catalog["toolsets"].as_array() else {
        return;
    };
    let tools = catalog["tools"].as_array().cloned().unwrap_or_default();
    let size = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map_or(0, |t| t.to_string().len())
    };
    println!();
    println!(
        "{:<24} {:>6} {:>9} {:>8}",
        "toolset", "tools", "bytes", "~tokens"
    );
    for toolset in toolsets {
        let names: Vec<&str> = toolset["tools"]
            .as_array()
            .map(|t| t.iter().filter_map(|n| n.as_str()).collect())
            .unwrap_or_default();
        let bytes: usize = names.iter().map(|n| size(n)).sum();
        let mut label = toolset["name"].as_str().unwrap_or_default().to_string();
        if toolset["always"] == true {
            label.push_str(" (always)");
        }
        println!(
            "{label:<24} {:>6} {bytes:>9} {:>8}",
            names.len(),
            bytes.div_ceil(4)
        );
    }
}

fn print_tool_sizes(catalog: &serde_json::Value) {
    let tools = catalog["tools"].as_array().cloned().unwrap_or_default();
    let bytes = |v: Option<&serde_json::Value>| v.map_or(0, |v| v.to_string().len());
    println!();
    println!(
        "{:<48} {:>11} {:>11} {:>12} {:>8}",
        "tool", "description", "inputSchema", "outputSchema", "~tokens"
    );
    let mut totals = [0usize; 4];
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let description = tool["description"].as_str().map_or(0, str::len);
        let input = bytes(tool.get("inputSchema"));
        let output = bytes(tool.get("outputSchema"));
        let tokens = (name.len() + description + input).div_ceil(4);
        for (total, n) in totals.iter_mut().zip([description, input, output, tokens]) {
            *total += n;
        }
        println!("{name:<48} {description:>11} {input:>11} {output:>12} {tokens:>8}");
    }
    let [description, input, output, tokens] = totals;
    println!(
        "{:<48} {description:>11} {input:>11} {output:>12} {tokens:>8}",
        format!("total ({} tools)", tools.len())
    );
}
