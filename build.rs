//! Generates the MCP catalog and dispatch tables from `openapi/v1.yaml` into `$OUT_DIR`.
//! All the work is in the `codegen` crate; this only reads and writes files.

use std::{env, fs, path::Path};

fn main() {
    println!("cargo::rerun-if-changed=openapi");
    println!("cargo::rerun-if-changed=templates");
    let spec = fs::read_to_string("openapi/v1.yaml").expect("read openapi/v1.yaml");
    let instructions =
        fs::read_to_string("templates/instructions.md").expect("read templates/instructions.md");
    let document =
        codegen::load_document(&spec).unwrap_or_else(|report| panic!("openapi/v1.yaml:\n{report}"));
    let settings = codegen::Settings {
        instructions,
        strict_clashes: None,
    };
    let output = codegen::generate(&document, &settings)
        .unwrap_or_else(|report| panic!("openapi/v1.yaml:\n{report}"));
    for warning in &output.warnings {
        println!("cargo::warning={warning}");
    }
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    fs::write(Path::new(&out_dir).join("catalog.rs"), output.source).expect("write catalog.rs");
}
