//! Turns an OpenAPI document into an MCP catalog (one tool per operation) and into Rust
//! source for the static tables the server dispatches from.
//!
//! The crate is a pure transformation: [`load_document`] and [`generate`] take text and
//! values and return values, with no file IO and no environment; `build.rs`, the CLI and the
//! tests do the reading and writing. The pipeline, a module per stage:
//!
//! 1. `normalise`: OpenAPI 3.1 constructs rewritten into the 3.0 shape, real-world faults
//!    repaired with a warning;
//! 2. `parse`: typed reading with `openapiv3`, one operation at a time;
//! 3. `lower`: one [`ir::Operation`] per tool, using `names` (every name), `schema` (JSON
//!    Schema 2020-12, self-contained) and `annotations` (hints and `_meta`); the vendor
//!    extension is read by `xmcp`;
//! 4. `catalog` (the MCP JSON) and `emit` (Rust tokens with `quote`, formatted by
//!    `prettyplease`).
//!
//! Every problem in a document is collected and reported at once, each with its JSON pointer.

#![deny(missing_docs)]

mod annotations;
pub mod budget;
mod catalog;
mod diagnostics;
pub mod diff;
mod emit;
pub mod ir;
mod lower;
pub mod names;
mod normalise;
mod parse;
mod prompts;
mod schema;
mod xmcp;

use serde_json::Value;

pub use annotations::{MAX_RESULT_SIZE_CHARS, REQUIRES_USER_INTERACTION};
pub use diagnostics::{Diagnostic, Report};
pub use prompts::{Prompt, PromptArgument, PromptSource, placeholders};

/// What the caller decides beyond the document.
#[derive(Debug, Clone, Default)]
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
}

/// The result of a successful generation.
#[derive(Debug, Clone)]
pub struct Output {
    /// The IR, one entry per tool, in tool order (document path order, then GET, POST, PUT,
    /// PATCH, DELETE, HEAD, OPTIONS, TRACE).
    pub operations: Vec<ir::Operation>,
    /// The checked prompts, in the order given.
    pub prompts: Vec<Prompt>,
    /// `{"tools": [...], "resourceTemplates": [...], "resources": [...]}` (and `"prompts"`
    /// when there are any), each entry exactly
    /// as the MCP list methods return it.
    pub catalog: Value,
    /// Repairs made to the document and other things its author should know, each with the
    /// JSON pointer of the place concerned.
    pub warnings: Vec<Diagnostic>,
    /// Rust items (`TOOLS`, `RESOURCES`, `RESOURCE_TEMPLATES`, `PROMPTS`, `INSTRUCTIONS`,
    /// `OPENAPI_JSON`, `CATALOG_JSON`, and `CATALOG` gathering them) for `include!` inside a
    /// module that has the MCP layer's `catalog::*` in scope, formatted by `prettyplease`.
    pub source: String,
}

/// Shorthand for results whose error is a [`Report`].
pub type Result<T> = std::result::Result<T, Report>;

/// Reads an OpenAPI document written as JSON or YAML.
pub fn load_document(text: &str) -> Result<Value> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(text)
            .map_err(|e| Report::single("", format!("not valid JSON: {e}")));
    }
    let yaml: serde_yaml::Value = serde_yaml::from_str(text)
        .map_err(|e| Report::single("", format!("not valid YAML: {e}")))?;
    yaml_to_json(yaml, "").map_err(|(pointer, message)| Report::single(pointer, message))
}

/// YAML to JSON by hand: `serde_json::Value` cannot take YAML's non-string keys (`200:` in
/// `responses` is an integer), so scalar keys are turned into their text here.
fn yaml_to_json(
    yaml: serde_yaml::Value,
    pointer: &str,
) -> std::result::Result<Value, (String, String)> {
    use serde_yaml::Value as Y;
    Ok(match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .ok_or_else(|| (pointer.to_owned(), format!("{f} is not a JSON number")))?
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(yaml_to_json(
                    item,
                    &diagnostics::join(pointer, &i.to_string()),
                )?);
            }
            Value::Array(out)
        }
        Y::Mapping(mut map) => {
            // `<<` merge keys are YAML's way to share blocks; resolve them first.
            if map.contains_key("<<") {
                let mut v = Y::Mapping(map);
                v.apply_merge()
                    .map_err(|e| (pointer.to_owned(), e.to_string()))?;
                let Y::Mapping(m) = v else { unreachable!() };
                map = m;
            }
            let mut out = serde_json::Map::with_capacity(map.len());
            for (key, value) in map {
                let key = match key {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".to_owned(),
                    other => {
                        return Err((
                            pointer.to_owned(),
                            format!("a mapping key must be a scalar, found {other:?}"),
                        ));
                    }
                };
                let value = yaml_to_json(value, &diagnostics::join(pointer, &key))?;
                out.insert(key, value);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value, pointer)?,
    })
}

/// Generates the catalog and the Rust tables for `doc` (the document as [`load_document`]
/// returns it). Fails with every error of the document at once.
pub fn generate(doc: &Value, settings: &Settings) -> Result<Output> {
    if !doc.is_object() {
        return Err(Report::single("", "the document is not a JSON object"));
    }
    let mut diags = diagnostics::Diagnostics::default();
    let normalised = normalise::normalise(doc, &mut diags);
    let root = xmcp::root(&normalised, &mut diags);
    let strict = settings.strict_clashes.unwrap_or(root.present);
    let parsed = parse::parse(&normalised, &mut diags);
    let mut operations = lower::build(&parsed, doc, &root, strict, &mut diags);
    let budget = budget::Budget::from_document(
        &normalised,
        settings.budget.clone().unwrap_or_default(),
        &mut diags,
    );
    budget::apply(&mut operations, &budget, &mut diags);
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
    let mut catalog = catalog::catalog(&operations);
    if !prompts.is_empty() {
        catalog["prompts"] = Value::Array(prompts.iter().map(prompts::json).collect());
    }
    let texts = emit::Texts {
        instructions: &settings.instructions,
        openapi_json: &emit::compact(doc),
        catalog_json: &emit::compact(&catalog),
    };
    let source = emit::source(&operations, &tools, &prompts, &texts);
    Ok(Output {
        operations,
        prompts,
        catalog,
        warnings,
        source,
    })
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
