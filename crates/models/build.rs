//! Generates the document's types (`$OUT_DIR/models.rs`) from `openapi/v1.yaml` through the
//! generator's build step (`mcpgen::Build`), with the service's Rust types for the formats
//! that matter. The catalog it writes beside them is the server's business (its own
//! `build.rs`), and unused here.

fn main() {
    mcpgen::Build::new("../../openapi/v1.yaml")
        // The views only so the document's `x-mcp.ui.template`s resolve.
        .views("../../templates/ui")
        .settings(mcpgen::Settings {
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
            ui_uri_prefix: "ui://dunning/".into(),
            ..mcpgen::Settings::default()
        })
        .run();
}
