//! Generates the fixture's MCP catalog (`catalog.rs`) and its models (`models.rs`, the
//! document's types its operations are written against) from `fixture.yaml`,
//! `instructions.md` and `prompts/` into `$OUT_DIR`, with the same `codegen` build step as the
//! dunning server.

fn main() {
    mcpgen::Build::new("fixture.yaml")
        .instructions("instructions.md")
        .prompts("prompts")
        .settings(mcpgen::Settings {
            // The conformance suite's fixtures are served exactly as written.
            budget: Some(mcpgen::budget::Budget::unlimited()),
            ..mcpgen::Settings::default()
        })
        .run();
}
