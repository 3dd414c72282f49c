//! Toolsets: the groups of tools a connection loads or leaves out (`X-MCP-Toolsets`,
//! `/mcp/x/{toolsets}`), so an assistant need not carry the whole catalog on every turn.
//!
//! A first-party document declares them in `x-mcp.toolsets` (name, description, the tags
//! they take in, `always` for the set every connection keeps), and each operation belongs to
//! the toolset of its first tag unless `x-mcp.toolset` names another; an operation that lands
//! in none is an error, so a new operation cannot silently escape every choice. A document
//! without `x-mcp.toolsets` gets one toolset per first tag, described by the tag.

use serde_json::{Value, json};

use crate::diagnostics::{Diagnostics, join};
use crate::ir::Operation;
use crate::xmcp::{OperationExt, RootExt, is_toolset_name};

/// A toolset as the catalog carries it: its tools in catalog order.
#[derive(Debug, Clone)]
pub struct Toolset {
    /// What a connection writes to choose it (`todos`).
    pub name: String,
    /// What its tools are for.
    pub description: String,
    /// Loaded whatever a connection chooses.
    pub always: bool,
    /// Its tools' names.
    pub tools: Vec<String>,
}

/// The toolset of the operation at `pointer` with these `tags` and `x-mcp`; empty when the
/// document has no toolsets and the operation no tag.
pub(crate) fn of(
    tags: &[String],
    ext: &OperationExt,
    pointer: &str,
    root: &RootExt,
    diags: &mut Diagnostics,
) -> String {
    let at = join(&join(pointer, "x-mcp"), "toolset");
    if root.toolsets.is_empty() {
        return match &ext.toolset {
            Some(name) if is_toolset_name(name) => name.clone(),
            Some(name) => {
                diags.error(
                    at,
                    format!("toolset name `{name}` must be 1-32 of a-z, 0-9 and _"),
                );
                String::new()
            }
            None => tags.first().map(|t| from_tag(t)).unwrap_or_default(),
        };
    }
    if let Some(name) = &ext.toolset {
        if !root.toolsets.iter().any(|t| &t.name == name) {
            diags.error(
                at,
                format!("toolset `{name}` is not declared in the root's `x-mcp.toolsets`"),
            );
        }
        return name.clone();
    }
    let first = tags.first();
    match first.and_then(|tag| root.toolsets.iter().find(|t| t.tags.contains(tag))) {
        Some(toolset) => toolset.name.clone(),
        None => {
            diags.error(
                pointer,
                format!(
                    "the operation belongs to no toolset: name one in `x-mcp.toolset`, or add its first tag ({}) to a toolset's `tags`",
                    first.map_or("none".to_string(), |t| format!("`{t}`"))
                ),
            );
            String::new()
        }
    }
}

/// A tag as a toolset name: lower case, runs of anything but a-z and 0-9 as one `_`.
fn from_tag(tag: &str) -> String {
    let mut out = String::new();
    for c in tag.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_end_matches('_').to_string();
    out.truncate(32);
    out.trim_end_matches('_').to_string()
}

/// The toolsets of the catalog: the declared ones in their order (those with no tool left out,
/// with a warning), else one per tag in the order tools first use them.
pub(crate) fn collect(
    doc: &Value,
    root: &RootExt,
    operations: &[Operation],
    diags: &mut Diagnostics,
) -> Vec<Toolset> {
    let tools_of = |name: &str| -> Vec<String> {
        operations
            .iter()
            .filter(|op| op.toolset == name)
            .map(|op| op.name.as_str().to_string())
            .collect()
    };
    if !root.toolsets.is_empty() {
        let mut out = Vec::new();
        for decl in &root.toolsets {
            let tools = tools_of(&decl.name);
            if tools.is_empty() {
                diags.warn(
                    &decl.pointer,
                    format!("toolset `{}` has no tool", decl.name),
                );
                continue;
            }
            out.push(Toolset {
                name: decl.name.clone(),
                description: decl.description.trim().to_string(),
                always: decl.always,
                tools,
            });
        }
        return out;
    }
    let mut out: Vec<Toolset> = Vec::new();
    for op in operations {
        if op.toolset.is_empty() || out.iter().any(|t| t.name == op.toolset) {
            continue;
        }
        let description = tag_description(doc, &op.toolset)
            .unwrap_or_else(|| format!("The operations tagged `{}`.", op.toolset));
        out.push(Toolset {
            name: op.toolset.clone(),
            description,
            always: false,
            tools: tools_of(&op.toolset),
        });
    }
    out
}

/// The description of the document's tag whose name makes `toolset`.
fn tag_description(doc: &Value, toolset: &str) -> Option<String> {
    doc.get("tags")?
        .as_array()?
        .iter()
        .find(|t| {
            t.get("name")
                .and_then(Value::as_str)
                .map(from_tag)
                .as_deref()
                == Some(toolset)
        })?
        .get("description")?
        .as_str()
        .map(|d| d.trim().to_string())
}

/// The toolsets as the catalog snapshot shows them.
pub(crate) fn json(toolsets: &[Toolset]) -> Value {
    Value::Array(
        toolsets
            .iter()
            .map(|t| {
                let mut entry =
                    json!({ "name": t.name, "description": t.description, "tools": t.tools });
                if t.always {
                    entry["always"] = Value::Bool(true);
                }
                entry
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_become_toolset_names() {
        assert_eq!(from_tag("Pet Store"), "pet_store");
        assert_eq!(from_tag("collection_plans"), "collection_plans");
        assert_eq!(from_tag("  Média & Files!"), "m_dia_files");
        assert_eq!(from_tag("---"), "");
    }
}
