//! `openapi.json` is what the service's code says: the committed document (which `build.rs`
//! generates the MCP catalog from) against `ApiDoc::openapi()`. After changing a handler's
//! annotations, `MCPGEN_OVERWRITE=1 cargo test -p mcpgen-example-todos --test document`
//! rewrites it.

use mcpgen_example_todos::ApiDoc;
use utoipa::OpenApi;

#[test]
fn committed_document_is_what_the_code_produces() {
    let value = serde_json::to_value(ApiDoc::openapi()).expect("the document serializes");
    mcpgen::document::check("openapi.json", &value);
}
