//! The document's types as Rust types (the models): for every operation its path parameters,
//! query string, request body and each response body it declares, and the component schemas
//! those reach — `Deserialize` forms for what the server reads, borrowing `Serialize` views
//! for what it writes. A handler written against them stops compiling when the document
//! renames, removes or retypes a field it uses.
//!
//! `build` reads the schemas into an IR (`ir`), `emit` writes it; `generate` returns the
//! formatted file, for `include!` inside a module (see [`crate::Output::models`]).

mod build;
mod emit;
mod ir;

use serde_json::Value;

use crate::ModelSettings;
use crate::diagnostics::Diagnostics;
use crate::ir::Operation;

/// The models file of `ops` (tool order, their names starting with `prefix`) from the
/// normalised document `doc`; problems go to `diags` (an `x-format` without a Rust type, a
/// settings type that is not one).
pub(crate) fn generate(
    doc: &Value,
    ops: &[Operation],
    prefix: &str,
    settings: &ModelSettings,
    diags: &mut Diagnostics,
) -> String {
    let formats = match emit::format_types(&settings.formats) {
        Ok(formats) => formats,
        Err(message) => {
            diags.error("", message);
            return String::new();
        }
    };
    let models = build::build(doc, ops, prefix, &settings.formats, diags);
    emit::source(&models, &formats)
}
