//! Generates the fixture's MCP catalog from `fixture.yaml`, `instructions.md` and `prompts/`
//! into `$OUT_DIR`, with the same `codegen` as the dunning server. Reads and writes files only.

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
        prompts: read_prompts(Path::new("prompts")),
        // The conformance suite's fixtures are served exactly as written.
        budget: Some(codegen::budget::Budget::unlimited()),
    };
    let output = codegen::generate(&document, &settings)
        .unwrap_or_else(|report| panic!("fixture.yaml and prompts/:\n{report}"));
    for warning in &output.warnings {
        println!("cargo::warning={warning}");
    }
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    fs::write(Path::new(&out_dir).join("catalog.rs"), output.source).expect("write catalog.rs");
}

/// Every `*.md` under `dir`, sorted by file name so the prompt order is stable.
fn read_prompts(dir: &Path) -> Vec<codegen::PromptSource> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .expect("read prompts/")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| codegen::PromptSource {
            file: path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned(),
            text: fs::read_to_string(&path).expect("read prompt"),
        })
        .collect()
}
