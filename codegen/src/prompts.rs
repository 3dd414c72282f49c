//! Prompts: ready-made scripts kept as Markdown files with a YAML front matter, checked
//! against the catalog (every tool they rely on must exist, every `{{placeholder}}` must be a
//! declared argument) and emitted as a table like the tools.
//!
//! ```text
//! ---
//! name: stale_triage
//! title: Triage stale todos
//! description: ...
//! arguments:
//!   - name: min_days_stale
//!     description: ...
//!     required: false
//!     complete: projects        # optional: where completion values come from
//!     like: projects_get.id     # optional: the value is what this tool argument takes
//!   - name: week_start
//!     description: ...
//!     schema: {type: string, format: date}  # optional: or a JSON Schema of its own
//! tools: [todos_list, projects_get]
//! ---
//! The text, with {{min_days_stale}} placeholders.
//! ```

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::diagnostics::Diagnostics;
use crate::ir::{Operation, ResponseKind};
use crate::names;

/// One prompt file as the caller read it.
#[derive(Debug, Clone)]
pub struct PromptSource {
    /// File name, for messages (e.g. `overdue_triage.md`).
    pub file: String,
    /// The whole text: front matter and body.
    pub text: String,
}

/// A checked prompt.
#[derive(Debug, Clone)]
pub struct Prompt {
    /// Name used in `prompts/get`.
    pub name: String,
    /// Human title.
    pub title: String,
    /// What the prompt is for.
    pub description: String,
    /// Its arguments, in declaration order.
    pub arguments: Vec<PromptArgument>,
    /// Tools the script uses: the prompt is listed only to callers who can run them all.
    pub tools: Vec<String>,
    /// The body with `{{argument}}` placeholders (empty for a prompt served by an operation).
    pub template: String,
    /// The tool name of the operation that serves the prompt (`x-mcp.prompt`), if any: then
    /// `prompts/get` runs that operation instead of filling in `template`.
    pub operation: Option<String>,
}

/// An argument of a prompt.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgument {
    /// Argument name (snake_case).
    pub name: String,
    /// What to give.
    pub description: String,
    /// Whether `prompts/get` needs it.
    #[serde(default)]
    pub required: bool,
    /// Source of completion values (e.g. `projects`, `todos`), if any.
    #[serde(default)]
    pub complete: Option<String>,
    /// JSON Schema the value must fit before it is inserted. Values are strings on the wire;
    /// a schema of type `integer`, `number` or `boolean` means a string that reads as one.
    /// Given in the file, taken from a tool argument (`like`), or, for a prompt served by an
    /// operation, the parameter's own.
    #[serde(default)]
    pub schema: Option<Value>,
    /// `<tool>.<argument>`: the value is what that tool argument takes (its schema is used).
    #[serde(default)]
    pub like: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    name: String,
    title: String,
    description: String,
    #[serde(default)]
    arguments: Vec<PromptArgument>,
    #[serde(default)]
    tools: Vec<String>,
}

/// Parse and check every prompt; problems go to `diags` as errors naming the file.
pub(crate) fn build(
    sources: &[PromptSource],
    ops: &[Operation],
    diags: &mut Diagnostics,
) -> Vec<Prompt> {
    let tool_names: BTreeSet<&str> = ops.iter().map(|op| op.name.as_str()).collect();
    let mut seen = BTreeSet::new();
    let mut prompts = Vec::new();
    for source in sources {
        let at = format!(
            "/x-prompts/{}",
            source.file.replace('~', "~0").replace('/', "~1")
        );
        let Some((front, body)) = split_front_matter(&source.text) else {
            diags.error(
                at,
                format!("{}: no front matter between '---' lines", source.file),
            );
            continue;
        };
        let front: FrontMatter = match serde_yaml_ng::from_str(front) {
            Ok(front) => front,
            Err(e) => {
                diags.error(at, format!("{}: front matter: {e}", source.file));
                continue;
            }
        };
        if !names::is_valid_tool_name(&front.name) {
            diags.error(
                &at,
                format!(
                    "{}: prompt name '{}' must be 1 to 64 characters of [a-z0-9_]",
                    source.file, front.name
                ),
            );
        }
        if !seen.insert(front.name.clone()) {
            diags.error(
                &at,
                format!(
                    "{}: a prompt named '{}' already exists",
                    source.file, front.name
                ),
            );
        }
        for tool in &front.tools {
            if !tool_names.contains(tool.as_str()) {
                diags.error(
                    &at,
                    format!(
                        "{}: uses tool '{tool}', which the document does not have",
                        source.file
                    ),
                );
            }
        }
        let mut front = front;
        for argument in &mut front.arguments {
            if let Err(why) = resolve_schema(argument, ops) {
                diags.error(
                    &at,
                    format!("{}: argument '{}': {why}", source.file, argument.name),
                );
            }
        }
        let declared: BTreeSet<&str> = front.arguments.iter().map(|a| a.name.as_str()).collect();
        for placeholder in placeholders(body) {
            if !declared.contains(placeholder.as_str()) {
                diags.error(
                    &at,
                    format!(
                        "{}: placeholder '{{{{{placeholder}}}}}' is not a declared argument",
                        source.file
                    ),
                );
            }
        }
        prompts.push(Prompt {
            name: front.name,
            title: front.title,
            description: front.description,
            arguments: front.arguments,
            tools: front.tools,
            template: body.trim().to_string(),
            operation: None,
        });
    }
    prompts
}

/// The prompts served by operations (`x-mcp.prompt`), in document order. Their arguments
/// are the operation's path and query parameters, named as in the document (prompt
/// arguments are strings the client fills in, not tool arguments).
pub(crate) fn from_operations(ops: &[Operation]) -> Vec<Prompt> {
    ops.iter()
        .filter(|op| op.response == ResponseKind::PromptResult)
        .map(|op| Prompt {
            name: op.name.to_string(),
            title: op.title.clone(),
            description: op.description.clone(),
            arguments: op
                .args
                .iter()
                .map(|arg| PromptArgument {
                    name: arg.wire_name.clone(),
                    description: arg
                        .schema
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    required: arg.required,
                    complete: None,
                    schema: Some(arg.schema.clone()),
                    like: None,
                })
                .collect(),
            tools: Vec::new(),
            template: String::new(),
            operation: Some(op.name.to_string()),
        })
        .collect()
}

/// Fill `argument.schema` from `like`, and check that a schema describes a string, or a
/// number, integer or boolean written as one.
fn resolve_schema(argument: &mut PromptArgument, ops: &[Operation]) -> Result<(), String> {
    if let Some(like) = &argument.like {
        if argument.schema.is_some() {
            return Err("give `schema` or `like`, not both".into());
        }
        let found = like.split_once('.').and_then(|(tool, name)| {
            let op = ops.iter().find(|op| op.name.as_str() == tool)?;
            op.args.iter().find(|a| a.name == name)
        });
        let Some(arg) = found else {
            return Err(format!(
                "like '{like}' names no tool argument (write <tool>.<argument>)"
            ));
        };
        argument.schema = Some(arg.schema.clone());
    }
    let Some(schema) = &argument.schema else {
        return Ok(());
    };
    if !schema.is_object() {
        return Err("`schema` must be a JSON Schema object".into());
    }
    let scalar = |t: &Value| {
        matches!(
            t.as_str(),
            Some("string" | "number" | "integer" | "boolean" | "null")
        )
    };
    match schema.get("type") {
        None => Ok(()),
        Some(Value::Array(types)) if types.iter().all(scalar) => Ok(()),
        Some(t) if scalar(t) && t != "null" => Ok(()),
        Some(t) => Err(format!(
            "a prompt argument is text: its schema's type must be string, number, integer or boolean, not {t}"
        )),
    }
}

/// A prompt served by an operation may not take the name of a prompt file.
pub(crate) fn check_unique(files: &[Prompt], served: &[Prompt], diags: &mut Diagnostics) {
    let mut seen: BTreeSet<&str> = files.iter().map(|p| p.name.as_str()).collect();
    for prompt in served {
        if !seen.insert(prompt.name.as_str()) {
            diags.error(
                "/x-prompts",
                format!(
                    "the `x-mcp.prompt` operation `{}` has the name of a prompt file",
                    prompt.name
                ),
            );
        }
    }
}

fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let end = rest.find("\n---")?;
    let front = &rest[..end];
    let after = &rest[end + 4..];
    let body = after.split_once('\n').map_or("", |(_, body)| body);
    Some((front, body))
}

/// The names inside `{{...}}` in a body.
pub fn placeholders(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

/// The prompt as `prompts/list` returns it.
pub(crate) fn json(prompt: &Prompt) -> Value {
    let arguments: Vec<Value> = prompt
        .arguments
        .iter()
        .map(|a| json!({ "name": a.name, "description": a.description, "required": a.required }))
        .collect();
    json!({
        "name": prompt.name,
        "title": prompt.title,
        "description": prompt.description,
        "arguments": arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_in_order() {
        assert_eq!(placeholders("a {{x}} b {{ y }} c {{x}}"), ["x", "y", "x"]);
        assert!(placeholders("no braces { here }").is_empty());
    }

    #[test]
    fn front_matter_is_split_from_the_body() {
        let (front, body) = split_front_matter("---\nname: a\n---\nBody {{x}}\n").unwrap();
        assert_eq!(front, "name: a");
        assert_eq!(body, "Body {{x}}\n");
        assert!(split_front_matter("no front matter").is_none());
    }
}
