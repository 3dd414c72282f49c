//! The size budget of a tool: what an assistant reads is the catalog, and every byte of it
//! costs context. An output schema is there so that clients can check `structuredContent`
//! and models can see the shape of an answer; examples, `readOnly`, descriptions and
//! validation keywords inside it, and the deep structure of nested objects, tell neither
//! much. An input schema as listed keeps what a call is made of (names, types, enums,
//! formats, defaults, `required`, nesting) and, with `lean_input`, leaves out the bounds and
//! patterns the server checks anyway: the arguments are still checked against the complete
//! schema, which refuses naming the key and the rule (the document's descriptions say the
//! limits a model must know, "1 to 100"), and discovery's `describe` shows it.
//!
//! Set at document level in `x-mcp.budget` (see `X-MCP.md`) or by the caller in
//! [`crate::Settings::budget`]; the defaults halve our own v1 catalog.

use serde_json::{Map, Value};

use crate::diagnostics::Diagnostics;
use crate::ir::Operation;

/// Bounds and patterns: checks a value meets, which the server makes on every call. An input
/// schema as listed loses them when `lean_input` is on (they cost every turn and rarely change
/// what a model writes); an output schema when `lean_output` is on.
const CHECKS: &[&str] = &[
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// Keywords an output schema loses besides [`CHECKS`] when `lean_output` is on: annotations
/// that neither shape a client's check of an answer in a useful way nor tell a model more
/// than the names and types do.
const LEAN_OUTPUT_DROPS: &[&str] = &[
    "examples",
    "example",
    "readOnly",
    "writeOnly",
    "description",
    "title",
    "default",
    "format",
    // The server always sends its fields; `required` in an answer tells a model nothing.
    "required",
];

/// How much a tool may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Object levels of an output schema kept whole; deeper objects become
    /// `{"type": "object"}`. `None`: no limit.
    pub output_depth: Option<usize>,
    /// Drop [`LEAN_OUTPUT_DROPS`] and [`CHECKS`] from output schemas.
    pub lean_output: bool,
    /// List input schemas without [`CHECKS`] (arguments are still checked
    /// against the complete schema).
    pub lean_input: bool,
    /// Keep `examples` in input schemas.
    pub input_examples: bool,
    /// A warning names each tool whose name, description and schemas exceed this many bytes.
    pub tool_bytes: Option<usize>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            output_depth: Some(2),
            lean_output: true,
            lean_input: true,
            input_examples: false,
            tool_bytes: Some(6 * 1024),
        }
    }
}

impl Budget {
    /// Everything kept, no warning: the catalog as the document states it.
    pub fn unlimited() -> Self {
        Budget {
            output_depth: None,
            lean_output: false,
            lean_input: false,
            input_examples: true,
            tool_bytes: None,
        }
    }

    /// The budget of `doc`: `base` with what `x-mcp.budget` sets.
    pub(crate) fn from_document(doc: &Value, base: Budget, diags: &mut Diagnostics) -> Budget {
        let pointer = "/x-mcp/budget";
        let Some(settings) = doc.pointer(pointer) else {
            return base;
        };
        let Some(map) = settings.as_object() else {
            diags.error(pointer, "x-mcp.budget must be an object");
            return base;
        };
        let mut budget = base;
        for (key, value) in map {
            let at = format!("{pointer}/{key}");
            match key.as_str() {
                "output_depth" => match value {
                    Value::Null => budget.output_depth = None,
                    v => match v.as_u64() {
                        Some(n) => budget.output_depth = Some(n as usize),
                        None => diags.error(&at, "must be a whole number or null"),
                    },
                },
                "tool_bytes" => match value {
                    Value::Null => budget.tool_bytes = None,
                    v => match v.as_u64() {
                        Some(n) => budget.tool_bytes = Some(n as usize),
                        None => diags.error(&at, "must be a whole number or null"),
                    },
                },
                "lean_output" | "lean_input" | "input_examples" => match value.as_bool() {
                    Some(b) if key == "lean_output" => budget.lean_output = b,
                    Some(b) if key == "lean_input" => budget.lean_input = b,
                    Some(b) => budget.input_examples = b,
                    None => diags.error(&at, "must be true or false"),
                },
                other => diags.error(
                    &at,
                    format!(
                        "unknown key '{other}' (known: output_depth, lean_output, lean_input, input_examples, tool_bytes)"
                    ),
                ),
            }
        }
        budget
    }
}

/// Apply `budget` to every operation's schemas, and warn about tools still over it.
pub(crate) fn apply(operations: &mut [Operation], budget: &Budget, diags: &mut Diagnostics) {
    for op in operations.iter_mut() {
        if let Some(output) = op.output_schema.take() {
            op.output_schema = Some(trim_output(output, budget, 0));
        }
        if !budget.input_examples {
            drop_examples(&mut op.input_schema);
        }
        if budget.lean_input {
            let listed = without_checks(op.input_schema.clone());
            op.listed_input_schema = Some(listed).filter(|s| *s != op.input_schema);
        }
        if let Some(limit) = budget.tool_bytes {
            let bytes = tool_bytes(op);
            if bytes > limit {
                diags.warn(
                    &op.pointer,
                    format!(
                        "tool {} carries {bytes} bytes (name, description and schemas), over the budget of {limit}: shorten its description or output, or raise x-mcp.budget.tool_bytes",
                        op.name
                    ),
                );
            }
        }
    }
}

/// Bytes of what an assistant reads of a tool.
pub fn tool_bytes(op: &Operation) -> usize {
    let compact = |v: &Value| v.to_string().len();
    op.name.to_string().len()
        + op.description.len()
        + compact(op.listed_input_schema())
        + op.output_schema.as_ref().map_or(0, compact)
}

fn trim_output(schema: Value, budget: &Budget, depth: usize) -> Value {
    match schema {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|s| trim_output(s, budget, depth))
                .collect(),
        ),
        Value::Object(map) => {
            if budget.output_depth.is_some_and(|limit| depth >= limit)
                && map.contains_key("properties")
            {
                return shallow(&map);
            }
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map {
                if budget.lean_output
                    && (LEAN_OUTPUT_DROPS.contains(&key.as_str()) || CHECKS.contains(&key.as_str()))
                {
                    continue;
                }
                let value = match key.as_str() {
                    "properties" => match value {
                        Value::Object(props) => Value::Object(
                            props
                                .into_iter()
                                .map(|(name, s)| (name, trim_output(s, budget, depth + 1)))
                                .collect(),
                        ),
                        other => other,
                    },
                    // `enum` and `const` are data, not schemas.
                    "enum" | "const" => value,
                    "items" | "additionalProperties" => trim_output(value, budget, depth),
                    _ => trim_output(value, budget, depth),
                };
                out.insert(key, value);
            }
            Value::Object(out)
        }
        other => other,
    }
}

/// An object cut at the depth limit: its type (and nullability) only.
fn shallow(map: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    out.insert(
        "type".into(),
        map.get("type").cloned().unwrap_or_else(|| "object".into()),
    );
    Value::Object(out)
}

/// `schema` without [`CHECKS`] at any level; values that are data (`enum`,
/// `const`, `default`) and property names are left as they are.
fn without_checks(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| !CHECKS.contains(&key.as_str()))
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "enum" | "const" | "default" | "examples" | "required" => value,
                        "properties" => match value {
                            Value::Object(props) => Value::Object(
                                props
                                    .into_iter()
                                    .map(|(name, s)| (name, without_checks(s)))
                                    .collect(),
                            ),
                            other => other,
                        },
                        _ => without_checks(value),
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_checks).collect()),
        other => other,
    }
}

fn drop_examples(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.remove("examples");
            map.remove("example");
            for (key, value) in map.iter_mut() {
                if key != "enum" && key != "const" && key != "default" {
                    drop_examples(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_examples),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_lean_output_keeps_names_types_and_enums() {
        let schema = json!({
            "type": "object", "required": ["data"],
            "properties": {"data": {"type": "object", "required": ["id"], "description": "d",
                "properties": {
                    "id": {"type": "string", "pattern": "^x$", "examples": ["x"]},
                    "status": {"type": "string", "enum": ["a", "b"], "readOnly": true},
                    "address": {"type": ["object", "null"], "properties": {"city": {"type": "string"}}}
                }}}
        });
        let trimmed = trim_output(schema, &Budget::default(), 0);
        assert_eq!(
            trimmed,
            json!({
                "type": "object",
                "properties": {"data": {"type": "object", "properties": {
                    "id": {"type": "string"},
                    "status": {"type": "string", "enum": ["a", "b"]},
                    "address": {"type": ["object", "null"]}
                }}}
            })
        );
    }

    #[test]
    fn a_lean_input_keeps_what_a_call_is_made_of_and_leaves_the_checks() {
        let schema = json!({
            "type": "object", "required": ["id"], "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "pattern": "^chg_[a-z0-9]{16}$", "description": "Charge id."},
                "per_page": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
                "pattern": {"type": "string", "enum": ["a", "b"], "maxLength": 1},
                "tags": {"type": "array", "maxItems": 20, "items": {"type": "string", "minLength": 1}},
                "note": {"anyOf": [{"type": "string", "maxLength": 500}, {"type": "null"}]},
                "due": {"type": "string", "format": "date", "pattern": "^20"}
            }
        });
        assert_eq!(
            without_checks(schema),
            json!({
                "type": "object", "required": ["id"], "additionalProperties": false,
                "properties": {
                    "id": {"type": "string", "description": "Charge id."},
                    "per_page": {"type": "integer", "default": 25},
                    "pattern": {"type": "string", "enum": ["a", "b"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "due": {"type": "string", "format": "date"}
                }
            })
        );
    }

    #[test]
    fn unlimited_keeps_everything() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "object", "description": "x",
            "properties": {"b": {"type": "object", "properties": {"c": {"type": "string", "examples": ["q"]}}}}}}});
        assert_eq!(trim_output(schema.clone(), &Budget::unlimited(), 0), schema);
    }

    #[test]
    fn document_settings_override_and_unknown_keys_are_errors() {
        let mut diags = Diagnostics::default();
        let doc = json!({"x-mcp": {"budget": {"output_depth": null, "lean_output": false, "tool_bytes": 100}}});
        let budget = Budget::from_document(&doc, Budget::default(), &mut diags);
        assert_eq!(budget.output_depth, None);
        assert!(!budget.lean_output);
        assert_eq!(budget.tool_bytes, Some(100));
        assert!(!diags.has_errors());
        let bad = json!({"x-mcp": {"budget": {"depth": 3}}});
        Budget::from_document(&bad, Budget::default(), &mut diags);
        assert!(diags.has_errors());
    }
}
