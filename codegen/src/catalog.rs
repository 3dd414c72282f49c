//! The MCP catalog as JSON: every `Tool` exactly as `tools/list` returns it, and every
//! resource and resource template exactly as the resource lists return them.
//!
//! The generated tables embed these same objects as text, so the server serves what this
//! module decided byte for byte, and the CLI can show a reviewer the catalog a spec change
//! produces.

use serde_json::{Map, Value, json};

use crate::ir::{Operation, Resource};
use crate::views::{self, View};

/// `{"tools": [...], "resourceTemplates": [...], "resources": [...]}`; the views are fixed
/// resources, after those the operations serve.
pub(crate) fn catalog(ops: &[Operation], views: &[View]) -> Value {
    // Operations that serve prompts are listed with the prompts, not here.
    let tools: Vec<Value> = ops
        .iter()
        .filter(|op| op.response.is_tool())
        .map(tool)
        .collect();
    let resources = ops.iter().filter_map(|op| op.resource.as_ref());
    let (templates, fixed): (Vec<&Resource>, Vec<&Resource>) =
        resources.partition(|r| r.is_template);
    let fixed = fixed
        .into_iter()
        .map(resource)
        .chain(views.iter().map(views::json));
    json!({
        "tools": tools,
        "resourceTemplates": templates.into_iter().map(resource).collect::<Vec<_>>(),
        "resources": fixed.collect::<Vec<_>>(),
    })
}

/// One MCP `Tool` object. All four hints are always explicit: the MCP defaults (e.g.
/// `destructiveHint: true` when absent) are the opposite of what a reader would guess. The
/// title is said once, in `annotations` (every revision has it there; a host showing a
/// `Tool` takes `title`, then `annotations.title`, then the name).
pub(crate) fn tool(op: &Operation) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(op.name.as_str()));
    tool.insert("description".into(), json!(op.description));
    tool.insert("inputSchema".into(), op.listed_input_schema().clone());
    if let Some(schema) = &op.output_schema {
        tool.insert("outputSchema".into(), schema.clone());
    }
    tool.insert(
        "annotations".into(),
        json!({
            "title": op.title,
            "readOnlyHint": op.annotations.read_only,
            "destructiveHint": op.annotations.destructive,
            "idempotentHint": op.annotations.idempotent,
            "openWorldHint": op.annotations.open_world,
        }),
    );
    if !op.meta.is_empty() {
        tool.insert("_meta".into(), Value::Object(op.meta.clone()));
    }
    Value::Object(tool)
}

/// `{"<tool>": ["<keyword>", ...]}` for the tools that have `x-mcp.keywords`, in catalog
/// order; `None` when none has. Beside the tools, not in them: a `Tool` object is sent to the
/// model on every turn, the keywords only serve a search (`mcpgen-axum`'s discovery mode), and
/// the reviewed catalog shows them so that a change of them is seen.
pub(crate) fn keywords(ops: &[Operation]) -> Option<Value> {
    let map: Map<String, Value> = ops
        .iter()
        .filter(|op| op.response.is_tool() && !op.keywords.is_empty())
        .map(|op| (op.name.as_str().to_owned(), json!(op.keywords)))
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// `{"<tool>": "<read tool>"}` for the tools whose `outputSchema` names a read tool's object
/// instead of repeating it when both are listed (see `shared`), in catalog order; `None` when
/// none does. The tools above keep their full `outputSchema`: it is what they carry when the
/// read tool is not listed, and what a reviewer compares.
pub(crate) fn shared_outputs(ops: &[Operation]) -> Option<Value> {
    let map: Map<String, Value> = ops
        .iter()
        .filter_map(|op| {
            let shared = op.shared_output.as_ref()?;
            Some((op.name.as_str().to_owned(), json!(shared.like)))
        })
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// `{"<tool>": <input schema>}` for the tools whose listed `inputSchema` says less than what
/// their arguments are checked against (the budget's `lean_input`), in catalog order; `None`
/// when none does. A reviewer, and `mcpgen diff`, compare these: a bound tightened breaks
/// callers whatever the listing says.
pub(crate) fn checked_input_schemas(ops: &[Operation]) -> Option<Value> {
    let map: Map<String, Value> = ops
        .iter()
        .filter(|op| op.response.is_tool() && op.listed_input_schema.is_some())
        .map(|op| (op.name.as_str().to_owned(), op.input_schema.clone()))
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// One MCP `Resource` (`uri`) or `ResourceTemplate` (`uriTemplate`).
pub(crate) fn resource(r: &Resource) -> Value {
    let uri_key = if r.is_template { "uriTemplate" } else { "uri" };
    let mut out = Map::new();
    out.insert(uri_key.into(), json!(r.uri));
    out.insert("name".into(), json!(r.name));
    out.insert("title".into(), json!(r.title));
    out.insert("description".into(), json!(r.description));
    out.insert("mimeType".into(), json!(r.mime_type));
    Value::Object(out)
}
