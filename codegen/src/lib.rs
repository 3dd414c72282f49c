//! Turns an OpenAPI document into an MCP catalog (one tool per operation) and into Rust
//! source for the static tables the server dispatches from.
//!
//! The crate is a pure transformation: [`load_document`] and [`generate`] take text and
//! values and return values, with no file IO and no environment. The one exception is kept
//! apart, in its own module: [`load`] reads a document from disk with every file its `$ref`s
//! reach, bundled into one value (and says which files it read, for `rerun-if-changed`);
//! `build.rs`, the CLI and the tests call it and write the results. The pipeline, a module
//! per stage:
//!
//! 0. `load` (IO, before `generate`): multi-file documents bundled into one;
//! 1. `normalise`: OpenAPI 3.1 constructs rewritten into the 3.0 shape, real-world faults
//!    repaired with a warning;
//! 2. `parse`: typed reading with `openapiv3`, one operation at a time;
//! 3. `lower`: one [`ir::Operation`] per tool, using `names` (every name), `schema` (JSON
//!    Schema 2020-12, self-contained) and `annotations` (hints and `_meta`); the vendor
//!    extension is read by `xmcp`;
//! 4. `catalog` (the MCP JSON) and `emit` (Rust tokens with `quote`, formatted by
//!    `prettyplease`);
//! 5. `models`: the document's schemas as Rust types, from the normalised document and the
//!    IR's operations, into a file of their own ([`Output::models`]).
//!
//! Every problem in a document is collected and reported at once, each with its JSON pointer.
//!
//! A `build.rs` uses [`Build`] (one line); a test or a tool can call the pure part:
//!
//! ```
//! let document = mcpgen::load_document(r#"
//! openapi: 3.1.0
//! info: {title: todos, version: "1"}
//! paths:
//!   /todos/{id}:
//!     delete:
//!       operationId: delete_todo
//!       summary: Delete a todo
//!       parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
//!       responses: {"204": {description: Deleted}}
//! "#)?;
//! let output = mcpgen::generate(&document, &mcpgen::Settings::default())?;
//! let tool = &output.catalog["tools"][0];
//! assert_eq!(tool["name"], "delete_todo");
//! assert_eq!(tool["annotations"]["destructiveHint"], true);
//! assert!(output.source.contains("pub static CATALOG: Catalog"));
//! # Ok::<(), mcpgen::Report>(())
//! ```

#![deny(missing_docs)]

mod annotations;
pub mod budget;
mod build_script;
mod catalog;
mod diagnostics;
pub mod diff;
pub mod document;
mod emit;
pub mod ir;
mod load;
mod lower;
mod models;
pub mod names;
mod normalise;
mod parse;
mod prompts;
mod schema;
mod shared;
pub mod toolsets;
pub mod views;
mod xmcp;
mod yaml;

use serde_json::Value;

pub use annotations::{MAX_RESULT_SIZE_CHARS, REQUIRES_USER_INTERACTION};
pub use build_script::{Build, DENY_WARNINGS};
pub use diagnostics::{Diagnostic, Report};
pub use load::{LoadedDocument, load, read_prompts, read_views};
pub use prompts::{Prompt, PromptArgument, PromptSource, placeholders};
pub use views::{View, ViewSource};

/// What the caller decides beyond the document.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The server's `instructions`, embedded as `INSTRUCTIONS`.
    pub instructions: String,
    /// Whether two arguments of one tool with the same name (or a tool name that is too long
    /// or taken) are errors (`true`) or repaired with a warning (`false`). `None`: strict
    /// when the document root has `x-mcp` (our own spec), lenient otherwise (third-party
    /// documents, which we cannot fix).
    pub strict_clashes: Option<bool>,
    /// Prompt files (Markdown with a YAML front matter), checked against the catalog and
    /// embedded as `PROMPTS`.
    pub prompts: Vec<PromptSource>,
    /// What a tool may carry; `None`: [`budget::Budget::default`]. The document's
    /// `x-mcp.budget` overrides it key by key.
    pub budget: Option<budget::Budget>,
    /// How the models spell values ([`Output::models`]).
    pub models: ModelSettings,
    /// The MCP Apps view files (`x-mcp.ui.template` names one), embedded as `ui://`
    /// resources.
    pub views: Vec<ViewSource>,
    /// What every view's URI starts with, the view's name following: default
    /// [`views::DEFAULT_URI_PREFIX`] (`ui://app/`); a server names itself here
    /// (`ui://todos/`) so that a host holding several servers' views tells them apart.
    pub ui_uri_prefix: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            instructions: String::new(),
            strict_clashes: None,
            prompts: Vec::new(),
            budget: None,
            models: ModelSettings::default(),
            views: Vec::new(),
            ui_uri_prefix: views::DEFAULT_URI_PREFIX.to_owned(),
        }
    }
}

/// What the models need beyond the document: the Rust type of each format that matters.
#[derive(Debug, Clone)]
pub struct ModelSettings {
    /// The Rust types of formats: a schema's `x-format` (see `codegen/X-MCP.md`), else its
    /// `format`, found here, is that type; a format not here (`email`, `uri`, `date-time` by
    /// default) is a plain string, and an `x-format` not here is an error. Default: `date` →
    /// `time::Date` (its serde form is `YYYY-MM-DD` with `time`'s `serde-human-readable`
    /// feature), `money` → the models' own `Cents`.
    pub formats: Vec<FormatType>,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            formats: vec![
                FormatType::new("date", "::time::Date"),
                FormatType::new("money", "super::Cents"),
            ],
        }
    }
}

/// The Rust type of one format, on each side. The paths are written as from a module one
/// level below the models root (`::time::Date`, `crate::domain::money::Cents`, or
/// `super::Cents` for the models' own); the types are owned, `Debug` and `Clone`, and
/// (de)serialise the wire form themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatType {
    /// The `format` (or `x-format`) word: `date`, `date-time`, `money`, ...
    pub format: String,
    /// What requests hold (`Deserialize`).
    pub request: String,
    /// What responses hold (`Serialize`).
    pub response: String,
}

impl FormatType {
    /// The same type on both sides.
    pub fn new(format: &str, rust: &str) -> FormatType {
        FormatType {
            format: format.to_owned(),
            request: rust.to_owned(),
            response: rust.to_owned(),
        }
    }
}

/// The result of a successful generation.
#[derive(Debug, Clone)]
pub struct Output {
    /// The IR, one entry per tool, in tool order (document path order, then GET, POST, PUT,
    /// PATCH, DELETE, HEAD, OPTIONS, TRACE).
    pub operations: Vec<ir::Operation>,
    /// The toolsets, each with its tools (`x-mcp.toolsets`, else one per tag).
    pub toolsets: Vec<toolsets::Toolset>,
    /// The checked prompts, in the order given.
    pub prompts: Vec<Prompt>,
    /// The MCP Apps views operations name, in the order first named.
    pub views: Vec<View>,
    /// `{"tools": [...], "resourceTemplates": [...], "resources": [...]}` (and `"prompts"`
    /// when there are any), each entry exactly as the MCP list methods return it; and
    /// `"toolsets"` (name, description, tools), what a connection chooses from.
    pub catalog: Value,
    /// Repairs made to the document and other things its author should know, each with the
    /// JSON pointer of the place concerned.
    pub warnings: Vec<Diagnostic>,
    /// Rust items (`TOOLS`, `RESOURCES`, `RESOURCE_TEMPLATES`, `PROMPTS`, `INSTRUCTIONS`,
    /// `OPENAPI_JSON`, `CATALOG_JSON`, `CATALOG` gathering them, and the `OperationId` enum with
    /// each operation's request body and query schemas) for `include!` inside a
    /// module that has the MCP layer's `catalog::*` in scope, formatted by `prettyplease`.
    pub source: String,
    /// The document's types as Rust (the models): helpers and enums at the root, `request`
    /// and `response` modules with the component schemas' forms, and a module per operation
    /// (`todos_list::Query`, `todos_list::Response200<'a>`, ...), formatted by
    /// `prettyplease`, for `include!` inside a module of its own. Needs `serde` (with
    /// `derive`), `serde_json` and the crates the format types name.
    pub models: String,
}

/// Shorthand for results whose error is a [`Report`].
pub type Result<T> = std::result::Result<T, Report>;

/// Reads an OpenAPI document written as JSON or YAML, from bytes: text that is not UTF-8
/// is an error naming the byte offset, line and column of the first bad byte.
pub fn load_document_bytes(bytes: &[u8]) -> Result<Value> {
    match std::str::from_utf8(bytes) {
        Ok(text) => load_document(text),
        Err(e) => {
            let at = e.valid_up_to();
            let before = &bytes[..at];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            // The column counts characters, as an editor shows them.
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            Err(Report::single(
                "",
                format!(
                    "not UTF-8 text: invalid byte 0x{:02x} at byte offset {at} (line {line}, column {column})",
                    bytes[at]
                ),
            ))
        }
    }
}

/// Reads an OpenAPI document written as JSON or YAML.
pub fn load_document(text: &str) -> Result<Value> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if is_blank(trimmed) {
        return Err(Report::single("", "empty document"));
    }
    if trimmed.starts_with('{') {
        return serde_json::from_str(text)
            .map_err(|e| Report::single("", format!("not valid JSON: {e}")));
    }
    let doc =
        yaml::from_str(text).map_err(|e| Report::single("", format!("not valid YAML: {e}")))?;
    if doc.is_null() {
        // Only comments, `---` or `~`: nothing a reader could call a document.
        return Err(Report::single("", "empty document"));
    }
    Ok(doc)
}

/// Whether `text` holds nothing but white space and YAML comments.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    })
}

/// Generates the catalog and the Rust tables for `doc` (the document as [`load_document`]
/// returns it). Fails with every error of the document at once.
pub fn generate(doc: &Value, settings: &Settings) -> Result<Output> {
    if !doc.is_object() {
        return Err(Report::single("", "the document is not a JSON object"));
    }
    check_version(doc)?;
    let mut diags = diagnostics::Diagnostics::default();
    let normalised = normalise::normalise(doc, &mut diags);
    let root = xmcp::root(&normalised, &mut diags);
    let strict = settings.strict_clashes.unwrap_or(root.present);
    let parsed = parse::parse(&normalised, &mut diags);
    let mut operations = lower::build(&parsed, doc, &root, strict, &mut diags);
    // From the operations before the budget trims their schemas: the models follow the
    // document, not what a tool carries.
    let models = models::generate(
        &normalised,
        &operations,
        &root.tool_prefix,
        &settings.models,
        &mut diags,
    );
    let budget = budget::Budget::from_document(
        &normalised,
        settings.budget.clone().unwrap_or_default(),
        &mut diags,
    );
    budget::apply(&mut operations, &budget, &mut diags);
    for op in &mut operations {
        let listed = op.listed_input_schema();
        let strict = schema::nullable_when_optional(listed.clone());
        op.strict_input_schema = Some(strict).filter(|s| s != listed);
    }
    shared::find(&mut operations);
    let toolsets = toolsets::collect(&normalised, &root, &operations, &mut diags);
    let views = views::build(
        &mut operations,
        &settings.views,
        &settings.ui_uri_prefix,
        &mut diags,
    );
    let mut prompts = prompts::build(&settings.prompts, &operations, &mut diags);
    let served = prompts::from_operations(&operations);
    prompts::check_unique(&prompts, &served, &mut diags);
    prompts.extend(served);
    if diags.has_errors() {
        let (errors, _) = diags.into_parts();
        return Err(Report { errors });
    }
    let (_, warnings) = diags.into_parts();

    let tools: Vec<Value> = operations.iter().map(catalog::tool).collect();
    let mut catalog = catalog::catalog(&operations, &views);
    if !prompts.is_empty() {
        catalog["prompts"] = Value::Array(prompts.iter().map(prompts::json).collect());
    }
    if !toolsets.is_empty() {
        catalog["toolsets"] = toolsets::json(&toolsets);
    }
    if let Some(keywords) = catalog::keywords(&operations) {
        catalog["keywords"] = keywords;
    }
    if let Some(shared) = catalog::shared_outputs(&operations) {
        catalog["sharedOutputs"] = shared;
    }
    if let Some(checked) = catalog::checked_input_schemas(&operations) {
        catalog["checkedInputSchemas"] = checked;
    }
    let texts = emit::Texts {
        tool_prefix: &root.tool_prefix,
        instructions: &settings.instructions,
        openapi_json: &emit::compact(doc),
        catalog_json: &emit::compact(&catalog),
    };
    let source = emit::source(&operations, &toolsets, &tools, &prompts, &views, &texts);
    Ok(Output {
        operations,
        toolsets,
        prompts,
        views,
        catalog,
        warnings,
        source,
        models,
    })
}

/// What the generator reads: OpenAPI 3.0.x and 3.1.x. Anything else would be read as if it were
/// one of them and give hollow tools (a Swagger 2.0 document has no `requestBody` and no
/// `content`), so it stops here with a message saying what is accepted.
fn check_version(doc: &Value) -> Result<()> {
    const ACCEPTED: &str = "this tool reads OpenAPI 3.0.x and 3.1.x documents";
    if let Some(swagger) = doc.get("swagger") {
        let version = swagger
            .as_str()
            .map_or_else(|| swagger.to_string(), str::to_owned);
        return Err(Report::single(
            "/swagger",
            format!(
                "Swagger {version} is not supported: convert it to OpenAPI 3.0 or 3.1 (e.g. with swagger2openapi); {ACCEPTED}"
            ),
        ));
    }
    let accepted = |v: &str| {
        ["3.0.", "3.1."]
            .iter()
            .any(|p| v.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
    };
    match doc.get("openapi") {
        None => Err(Report::single(
            "",
            format!("no `openapi` version field: {ACCEPTED}"),
        )),
        Some(Value::String(v)) if accepted(v) => Ok(()),
        Some(other) => {
            let version = other
                .as_str()
                .map_or_else(|| other.to_string(), str::to_owned);
            Err(Report::single(
                "/openapi",
                format!("OpenAPI version `{version}` is not supported: {ACCEPTED}"),
            ))
        }
    }
}

/// Turns the warnings of `output` into errors, for teams that want a document without any
/// (`mcpgen --deny-warnings`, `MCPGEN_DENY_WARNINGS=1` in `build.rs`).
pub fn deny_warnings(output: Output) -> Result<Output> {
    if output.warnings.is_empty() {
        Ok(output)
    } else {
        Err(Report {
            errors: output.warnings,
        })
    }
}

/// The number of operations a document declares (every method of every path item, excluded
/// or not): what a reviewer compares the tool count with.
pub fn count_operations(doc: &Value) -> usize {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "patch", "head", "options", "trace",
    ];
    doc.get("paths")
        .and_then(Value::as_object)
        .map(|paths| {
            paths
                .values()
                .filter_map(Value::as_object)
                .map(|item| METHODS.iter().filter(|m| item.contains_key(**m)).count())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_with_integer_keys_loads() {
        let doc = load_document("openapi: 3.0.3\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n").unwrap();
        assert!(doc.pointer("/paths/~1a/get/responses/200").is_some());
    }

    #[test]
    fn bad_json_is_a_report() {
        let err = load_document("{").unwrap_err();
        assert_eq!(err.errors.len(), 1);
    }
}
