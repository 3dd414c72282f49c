//! The MCP catalog (`$OUT_DIR/catalog.rs`) and the document's models (`models.rs`), generated
//! from the committed `openapi.json` (which `tests/document.rs` keeps equal to what the
//! service's code produces).

fn main() {
    mcpgen::Build::new("openapi.json").run();
}
