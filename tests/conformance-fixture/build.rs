//! Generates the fixture's MCP catalog (`catalog.rs`) and its models (`models.rs`, the
//! document's types its operations are written against) from `fixture.yaml`,
//! `instructions.md` and `prompts/` into `$OUT_DIR`, with the same `codegen` as the dunning
//! server. Reads and writes files only.

use std::{env, fs, path::Path};

fn main() {
    for input in ["fixture.yaml", "instructions.md", "prompts"] {
        println!("cargo::rerun-if-changed={input}");
    }
    let spec = fs::read_to_string("fixture.yaml").expect("read fixture.yaml");
    let document =
        codegen::load_document(&spec).unwrap_or_else(|report| panic!("fixture.yaml:\n{report}"));
    let settings = codegen::Settings {
        instructions: fs::read_to_string("instructions.md").expect("read instructions.md"),
        strict_clashes: None,
        prompts: codegen::read_prompts(Path::new("prompts")).expect("read prompts/"),
        // The conformance suite's fixtures are served exactly as written.
        budget: Some(codegen::budget::Budget::unlimited()),
        models: codegen::ModelSettings::default(),
    };
    let output = codegen::generate(&document, &settings)
        .unwrap_or_else(|report| panic!("fixture.yaml and prompts/:\n{report}"));
    for warning in &output.warnings {
        println!("cargo::warning={warning}");
    }
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    fs::write(Path::new(&out_dir).join("catalog.rs"), output.source).expect("write catalog.rs");
    fs::write(Path::new(&out_dir).join("models.rs"), output.models).expect("write models.rs");
}
