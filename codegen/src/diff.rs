//! What a change of catalog means **for an assistant**: tools added, removed or renamed,
//! arguments added, removed, renamed or newly required, types narrowed, enums shrunk,
//! annotations changed, output fields removed, MCP Apps views given, moved or hidden from the
//! model, search keywords changed — each classified breaking or compatible.
//!
//! A change is *breaking* when an assistant (or a host) that learned the old catalog can now
//! fail or be surprised: a call it used to make is refused, an answer lacks a field it read,
//! or an action it ran without confirmation now destroys something. Pure: two catalogs in,
//! a list of changes out.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value, json};

/// Whether a change can break a client of the old catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Impact {
    /// A client of the old catalog may fail or act differently.
    Breaking,
    /// Old clients keep working.
    Compatible,
}

/// One change, with where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Breaking or compatible.
    pub impact: Impact,
    /// `tool todos_x`, `tool todos_x argument a.b`, `prompt p`, ...
    pub place: String,
    /// What changed, in words.
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.impact {
            Impact::Breaking => "BREAKING  ",
            Impact::Compatible => "compatible",
        };
        write!(f, "{label} {}: {}", self.place, self.what)
    }
}

/// Every change from catalog `old` to catalog `new`, breaking ones first.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    let mut changes = Vec::new();
    diff_tools(old, new, &mut changes);
    diff_named(old, new, "prompts", "name", "prompt", &mut changes);
    diff_named(
        old,
        new,
        "resourceTemplates",
        "uriTemplate",
        "resource template",
        &mut changes,
    );
    diff_named(old, new, "resources", "uri", "resource", &mut changes);
    diff_keywords(old, new, &mut changes);
    changes.sort_by_key(|c| c.impact);
    changes
}

/// Whether any change is breaking.
pub fn has_breaking(changes: &[Change]) -> bool {
    changes.iter().any(|c| c.impact == Impact::Breaking)
}

fn push(changes: &mut Vec<Change>, impact: Impact, place: &str, what: String) {
    changes.push(Change {
        impact,
        place: place.to_string(),
        what,
    });
}

fn entries<'a>(catalog: &'a Value, list: &str) -> Vec<&'a Map<String, Value>> {
    catalog[list]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

fn find<'a>(
    items: &[&'a Map<String, Value>],
    key: &str,
    value: &str,
) -> Option<&'a Map<String, Value>> {
    items
        .iter()
        .copied()
        .find(|m| m.get(key).and_then(Value::as_str) == Some(value))
}

fn names(items: &[&Map<String, Value>], key: &str) -> BTreeSet<String> {
    items
        .iter()
        .filter_map(|m| m.get(key).and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// `x-mcp.keywords` of a tool found in both catalogs, changed: what a discovery search finds it
/// by, never what a call takes (compatible).
fn diff_keywords(old: &Value, new: &Value, changes: &mut Vec<Change>) {
    let words = |catalog: &Value, tool: &str| -> BTreeSet<String> {
        catalog["keywords"][tool]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (old_tools, new_tools) = (entries(old, "tools"), entries(new, "tools"));
    let kept = names(&old_tools, "name");
    for name in names(&new_tools, "name").intersection(&kept) {
        let (before, after) = (words(old, name), words(new, name));
        if before == after {
            continue;
        }
        let list = |set: BTreeSet<&String>| {
            set.into_iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let added = list(after.difference(&before).collect());
        let removed = list(before.difference(&after).collect());
        let what = match (added.is_empty(), removed.is_empty()) {
            (false, true) => format!("keywords added: {added}"),
            (true, false) => format!("keywords removed: {removed}"),
            _ => format!("keywords added: {added}; removed: {removed}"),
        };
        push(changes, Impact::Compatible, &format!("tool {name}"), what);
    }
}

/// The tools of `catalog`, each with the input schema its calls are checked against
/// (`checkedInputSchemas`, where the listing says less): a bound tightened is a breaking
/// change even when the listing leaves bounds out.
fn checked_tools(catalog: &Value) -> Vec<Map<String, Value>> {
    entries(catalog, "tools")
        .into_iter()
        .map(|tool| {
            let mut tool = tool.clone();
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            if let Some(checked) = catalog.get("checkedInputSchemas").and_then(|c| c.get(name)) {
                tool.insert("inputSchema".into(), checked.clone());
            }
            tool
        })
        .collect()
}

/// A tool's display title: `title`, else `annotations.title`.
fn title(tool: &Map<String, Value>) -> Option<&Value> {
    tool.get("title")
        .or_else(|| tool.get("annotations").and_then(|a| a.get("title")))
}

fn diff_tools(old: &Value, new: &Value, changes: &mut Vec<Change>) {
    let (old_checked, new_checked) = (checked_tools(old), checked_tools(new));
    let old_tools: Vec<&Map<String, Value>> = old_checked.iter().collect();
    let new_tools: Vec<&Map<String, Value>> = new_checked.iter().collect();
    let (old_names, new_names) = (names(&old_tools, "name"), names(&new_tools, "name"));
    let mut added: Vec<&String> = new_names.difference(&old_names).collect();
    for name in old_names.difference(&new_names) {
        let tool = find(&old_tools, "name", name).expect("listed");
        // A tool under another name with the same title is the same operation renamed.
        let renamed = added.iter().position(|candidate| {
            let other = find(&new_tools, "name", candidate).expect("listed");
            title(tool).is_some() && title(other) == title(tool)
        });
        match renamed {
            Some(index) => {
                let to = added.remove(index);
                push(
                    changes,
                    Impact::Breaking,
                    &format!("tool {name}"),
                    format!("renamed to {to}"),
                );
                let other = find(&new_tools, "name", to).expect("listed");
                diff_tool(&format!("tool {to}"), tool, other, changes);
            }
            None => push(
                changes,
                Impact::Breaking,
                &format!("tool {name}"),
                "removed".into(),
            ),
        }
    }
    for name in added {
        push(
            changes,
            Impact::Compatible,
            &format!("tool {name}"),
            "added".into(),
        );
    }
    for name in old_names.intersection(&new_names) {
        let (a, b) = (
            find(&old_tools, "name", name).expect("listed"),
            find(&new_tools, "name", name).expect("listed"),
        );
        diff_tool(&format!("tool {name}"), a, b, changes);
    }
}

fn diff_tool(
    place: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    changes: &mut Vec<Change>,
) {
    diff_annotations(
        place,
        &old["annotations"],
        new.get("annotations").unwrap_or(&Value::Null),
        changes,
    );
    if old.get("description") != new.get("description") {
        push(
            changes,
            Impact::Compatible,
            place,
            "description changed".into(),
        );
    }
    diff_view(
        place,
        old.get("_meta").and_then(|m| m.get("ui")),
        new.get("_meta").and_then(|m| m.get("ui")),
        changes,
    );
    let empty = Value::Null;
    diff_input(
        &format!("{place} argument"),
        "",
        old.get("inputSchema").unwrap_or(&empty),
        new.get("inputSchema").unwrap_or(&empty),
        changes,
    );
    diff_output(
        &format!("{place} output"),
        "",
        old.get("outputSchema").unwrap_or(&empty),
        new.get("outputSchema").unwrap_or(&empty),
        changes,
    );
}

fn diff_annotations(place: &str, old: &Value, new: &Value, changes: &mut Vec<Change>) {
    let flag = |v: &Value, key: &str| v.get(key).and_then(Value::as_bool);
    // A host decides from these whether to ask the user first: a tool that becomes
    // destructive (or stops being read-only) runs where it used to be waved through.
    for (key, dangerous) in [
        ("destructiveHint", true),
        ("readOnlyHint", false),
        ("openWorldHint", true),
        ("idempotentHint", false),
    ] {
        let (before, after) = (flag(old, key), flag(new, key));
        if before != after {
            let impact = if after == Some(dangerous) {
                Impact::Breaking
            } else {
                Impact::Compatible
            };
            push(
                changes,
                impact,
                place,
                format!("annotation {key} {} → {}", show(before), show(after)),
            );
        }
    }
}

/// The tool's MCP Apps view (`_meta.ui`): a view given, moved or taken away changes what a
/// host shows beside the result, not what a call does (compatible); a tool the model could call
/// that becomes `visibility: [app]` disappears from the model's hands in hosts that honour it
/// (breaking).
fn diff_view(place: &str, old: Option<&Value>, new: Option<&Value>, changes: &mut Vec<Change>) {
    let uri = |ui: Option<&Value>| {
        ui.and_then(|ui| ui.get("resourceUri"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    // Without `visibility`, both the model and the view may call the tool.
    let for_model = |ui: Option<&Value>| {
        ui.and_then(|ui| ui.get("visibility"))
            .and_then(Value::as_array)
            .is_none_or(|v| v.iter().any(|a| a.as_str() == Some("model")))
    };
    match (uri(old), uri(new)) {
        (None, Some(new)) => push(
            changes,
            Impact::Compatible,
            place,
            format!("view {new} added (MCP Apps hosts show it beside the result)"),
        ),
        (Some(old), None) => push(
            changes,
            Impact::Compatible,
            place,
            format!("view {old} removed"),
        ),
        (Some(old), Some(new)) if old != new => push(
            changes,
            Impact::Compatible,
            place,
            format!("view {old} → {new}"),
        ),
        _ => {}
    }
    match (for_model(old), for_model(new)) {
        (true, false) => push(
            changes,
            Impact::Breaking,
            place,
            "visibility no longer includes `model`: hosts keep the tool from the model".into(),
        ),
        (false, true) => push(
            changes,
            Impact::Compatible,
            place,
            "visibility now includes `model`".into(),
        ),
        _ => {}
    }
}

fn show(flag: Option<bool>) -> &'static str {
    match flag {
        Some(true) => "true",
        Some(false) => "false",
        None => "unset",
    }
}

fn properties(schema: &Value) -> Map<String, Value> {
    schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn required(schema: &Value) -> BTreeSet<String> {
    schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Arguments: what a client sends. Removing or requiring is breaking, adding an optional
/// one is not; narrowing a type or an enum refuses values that used to pass.
fn diff_input(place: &str, prefix: &str, old: &Value, new: &Value, changes: &mut Vec<Change>) {
    let (old_props, new_props) = (properties(old), properties(new));
    let (old_required, new_required) = (required(old), required(new));
    let mut added: Vec<&String> = new_props
        .keys()
        .filter(|k| !old_props.contains_key(*k))
        .collect();
    for (name, schema) in &old_props {
        if new_props.contains_key(name) {
            continue;
        }
        let renamed = added
            .iter()
            .position(|candidate| &new_props[*candidate] == schema);
        let at = format!("{place} {}", join(prefix, name));
        match renamed {
            Some(index) => {
                let to = added.remove(index);
                push(
                    changes,
                    Impact::Breaking,
                    &at,
                    format!("renamed to {}", join(prefix, to)),
                );
            }
            None => push(changes, Impact::Breaking, &at, "removed".into()),
        }
    }
    for name in added {
        let at = format!("{place} {}", join(prefix, name));
        if new_required.contains(name) {
            push(changes, Impact::Breaking, &at, "added, required".into());
        } else {
            push(changes, Impact::Compatible, &at, "added, optional".into());
        }
    }
    for (name, before) in &old_props {
        let Some(after) = new_props.get(name) else {
            continue;
        };
        let at = format!("{place} {}", join(prefix, name));
        match (old_required.contains(name), new_required.contains(name)) {
            (false, true) => push(changes, Impact::Breaking, &at, "now required".into()),
            (true, false) => push(changes, Impact::Compatible, &at, "now optional".into()),
            _ => {}
        }
        let (mut before, after) = (or_null(before), or_null(after));
        // The contract reads `null` for an optional argument as "not given", whether or not its
        // schema says so (strict-mode schemas do, the compact ones leave it to the
        // instructions): no longer declaring it changes what a model reads, not what it may
        // send.
        let optional = !old_required.contains(name) && !new_required.contains(name);
        if optional && types(&before).contains("null") && !types(&after).contains("null") {
            before = without_null(&before);
            push(
                changes,
                Impact::Compatible,
                &at,
                "null no longer declared (an optional argument's null still means not given)"
                    .into(),
            );
        }
        diff_constraints(&at, &before, &after, Direction::Input, changes);
        diff_input(place, &join(prefix, name), &before, &after, changes);
    }
    if old.get("additionalProperties") != Some(&Value::Bool(false))
        && new.get("additionalProperties") == Some(&Value::Bool(false))
        && !prefix.is_empty()
    {
        push(
            changes,
            Impact::Breaking,
            &format!("{place} {prefix}"),
            "no longer takes other members".into(),
        );
    }
}

/// Outputs: what a client reads. Removing a field, or making it optional, is breaking;
/// adding one is not; widening a type or an enum hands the client values it never saw.
fn diff_output(place: &str, prefix: &str, old: &Value, new: &Value, changes: &mut Vec<Change>) {
    let (old_props, new_props) = (properties(old), properties(new));
    // An object whose members are no longer described (a depth budget) still carries them:
    // the promise is looser, not broken.
    if !old_props.is_empty() && new.get("properties").is_none() && new.is_object() {
        let at = format!(
            "{place} {}",
            if prefix.is_empty() { "(top)" } else { prefix }
        );
        push(
            changes,
            Impact::Compatible,
            &at,
            "members no longer described".into(),
        );
        return;
    }
    let (old_required, new_required) = (required(old), required(new));
    for (name, before) in &old_props {
        let at = format!("{place} {}", join(prefix, name));
        let Some(after) = new_props.get(name) else {
            push(changes, Impact::Breaking, &at, "field removed".into());
            continue;
        };
        if old_required.contains(name) && !new_required.contains(name) {
            push(changes, Impact::Breaking, &at, "may now be absent".into());
        }
        let (before, after) = (&or_null(before), &or_null(after));
        diff_constraints(&at, before, after, Direction::Output, changes);
        diff_output(place, &join(prefix, name), before, after, changes);
    }
    for name in new_props.keys().filter(|k| !old_props.contains_key(*k)) {
        push(
            changes,
            Impact::Compatible,
            &format!("{place} {}", join(prefix, name)),
            "field added".into(),
        );
    }
    if let (Some(a), Some(b)) = (old.get("items"), new.get("items")) {
        diff_output(place, &join(prefix, "[]"), a, b, changes);
    }
}

/// `{"anyOf": [X, {"type": "null"}]}` (annotations beside it), the form the generator gives
/// nullable enumerations and optional arguments, read as X that also admits `null`, so that
/// wrapping a schema shows as what it is (`type string → null|string`) and not as X's
/// constraints lost.
fn or_null(schema: &Value) -> Value {
    let Some(Value::Array(branches)) = schema.get("anyOf") else {
        return schema.clone();
    };
    let null = json!({"type": "null"});
    let [a, b] = branches.as_slice() else {
        return schema.clone();
    };
    let inner = match (a == &null, b == &null) {
        (false, true) => a,
        (true, false) => b,
        _ => return schema.clone(),
    };
    let (Value::Object(outer), Value::Object(inner)) = (schema, inner) else {
        return schema.clone();
    };
    let mut folded = inner.clone();
    for (key, value) in outer.iter().filter(|(k, _)| *k != "anyOf") {
        folded.entry(key.clone()).or_insert_with(|| value.clone());
    }
    let mut types = match folded.get("type") {
        Some(Value::String(t)) => vec![Value::String(t.clone())],
        Some(Value::Array(list)) => list.clone(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.contains(&Value::from("null")) {
        types.push(Value::from("null"));
        folded.insert("type".into(), Value::Array(types));
    }
    if let Some(Value::Array(values)) = folded.get_mut("enum") {
        values.push(Value::Null);
    }
    Value::Object(folded)
}

/// `schema` without `null` among its types and enumerated values (the reverse of [`or_null`]).
fn without_null(schema: &Value) -> Value {
    let mut out = schema.clone();
    let Some(object) = out.as_object_mut() else {
        return out;
    };
    if let Some(Value::Array(list)) = object.get("type") {
        let kept: Vec<Value> = list.iter().filter(|t| *t != "null").cloned().collect();
        let kept = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept),
        };
        object.insert("type".into(), kept);
    }
    if object.get("nullable") == Some(&Value::Bool(true)) {
        object.remove("nullable");
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Input,
    Output,
}

fn types(schema: &Value) -> BTreeSet<String> {
    let mut set: BTreeSet<String> = match &schema["type"] {
        Value::String(t) => [t.clone()].into(),
        Value::Array(list) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => BTreeSet::new(),
    };
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        set.insert("null".into());
    }
    // An integer is a number: "number" → "integer" narrows, the other way widens.
    if set.contains("number") {
        set.insert("integer".into());
    }
    set
}

fn enum_values(schema: &Value) -> Option<BTreeSet<String>> {
    schema["enum"]
        .as_array()
        .map(|v| v.iter().map(Value::to_string).collect())
}

/// Type, enum and bounds of one value. For an input a narrower set of accepted values is
/// breaking; for an output a wider set of possible values is.
fn diff_constraints(
    at: &str,
    old: &Value,
    new: &Value,
    direction: Direction,
    changes: &mut Vec<Change>,
) {
    let narrowing_breaks = direction == Direction::Input;
    let impact = |narrowed: bool| {
        if narrowed == narrowing_breaks {
            Impact::Breaking
        } else {
            Impact::Compatible
        }
    };
    let (before, after) = (types(old), types(new));
    if !before.is_empty() && !after.is_empty() && before != after {
        let narrowed = !after.is_superset(&before);
        let widened = !before.is_superset(&after);
        let what = format!("type {} → {}", list(&before), list(&after));
        if narrowed && widened {
            push(changes, Impact::Breaking, at, what);
        } else {
            push(changes, impact(narrowed), at, what);
        }
    }
    match (enum_values(old), enum_values(new)) {
        (Some(a), Some(b)) if a != b => {
            let lost: Vec<&String> = a.difference(&b).collect();
            let gained: Vec<&String> = b.difference(&a).collect();
            if !lost.is_empty() {
                push(
                    changes,
                    impact(true),
                    at,
                    format!(
                        "enum loses {}",
                        lost.iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            if !gained.is_empty() {
                push(
                    changes,
                    impact(false),
                    at,
                    format!(
                        "enum gains {}",
                        gained
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        (None, Some(_)) => push(changes, impact(true), at, "now limited to an enum".into()),
        (Some(_), None) => push(
            changes,
            impact(false),
            at,
            "no longer limited to an enum".into(),
        ),
        _ => {}
    }
    // Upper bounds that drop, lower bounds that rise, a new or changed pattern: narrower.
    for (key, upper) in [
        ("maxLength", true),
        ("maximum", true),
        ("maxItems", true),
        ("minLength", false),
        ("minimum", false),
        ("minItems", false),
    ] {
        let (a, b) = (
            old.get(key).and_then(Value::as_f64),
            new.get(key).and_then(Value::as_f64),
        );
        let narrowed = match (a, b) {
            (Some(a), Some(b)) if a != b => Some(if upper { b < a } else { b > a }),
            (None, Some(_)) => Some(true),
            (Some(_), None) => Some(false),
            _ => None,
        };
        if let Some(narrowed) = narrowed {
            push(
                changes,
                impact(narrowed),
                at,
                format!("{key} {} → {}", bound(a), bound(b)),
            );
        }
    }
    if old.get("pattern") != new.get("pattern") && new.get("pattern").is_some() {
        push(changes, impact(true), at, "pattern changed".into());
    }
}

fn list(set: &BTreeSet<String>) -> String {
    set.iter()
        .filter(|t| !(t.as_str() == "integer" && set.contains("number")))
        .cloned()
        .collect::<Vec<_>>()
        .join("|")
}

fn bound(value: Option<f64>) -> String {
    value.map_or("unset".into(), |v| v.to_string())
}

fn diff_named(
    old: &Value,
    new: &Value,
    list_name: &str,
    key: &str,
    what: &str,
    changes: &mut Vec<Change>,
) {
    let (a, b) = (entries(old, list_name), entries(new, list_name));
    let (before, after) = (names(&a, key), names(&b, key));
    for name in before.difference(&after) {
        push(
            changes,
            Impact::Breaking,
            &format!("{what} {name}"),
            "removed".into(),
        );
    }
    for name in after.difference(&before) {
        push(
            changes,
            Impact::Compatible,
            &format!("{what} {name}"),
            "added".into(),
        );
    }
    if list_name == "prompts" {
        for name in before.intersection(&after) {
            let (p, q) = (
                find(&a, key, name).expect("listed"),
                find(&b, key, name).expect("listed"),
            );
            let arguments = |m: &Map<String, Value>| -> Vec<(String, bool)> {
                m.get("arguments")
                    .and_then(Value::as_array)
                    .map(|args| {
                        args.iter()
                            .map(|x| {
                                (
                                    x["name"].as_str().unwrap_or_default().to_string(),
                                    x["required"].as_bool().unwrap_or(false),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (old_args, new_args) = (arguments(p), arguments(q));
            for (arg, _) in &old_args {
                if !new_args.iter().any(|(n, _)| n == arg) {
                    push(
                        changes,
                        Impact::Breaking,
                        &format!("{what} {name} argument {arg}"),
                        "removed".into(),
                    );
                }
            }
            for (arg, req) in &new_args {
                match old_args.iter().find(|(n, _)| n == arg) {
                    None if *req => push(
                        changes,
                        Impact::Breaking,
                        &format!("{what} {name} argument {arg}"),
                        "added, required".into(),
                    ),
                    None => push(
                        changes,
                        Impact::Compatible,
                        &format!("{what} {name} argument {arg}"),
                        "added, optional".into(),
                    ),
                    Some((_, false)) if *req => push(
                        changes,
                        Impact::Breaking,
                        &format!("{what} {name} argument {arg}"),
                        "now required".into(),
                    ),
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog(tools: Value) -> Value {
        json!({ "tools": tools, "resourceTemplates": [], "resources": [] })
    }

    fn tool(name: &str, input: Value, output: Value, destructive: bool) -> Value {
        json!({
            "name": name, "title": format!("Title of {name}"), "description": "d",
            "inputSchema": input, "outputSchema": output,
            "annotations": { "readOnlyHint": !destructive, "destructiveHint": destructive }
        })
    }

    fn object(props: Value, required: &[&str]) -> Value {
        json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false })
    }

    fn lines(changes: &[Change]) -> Vec<String> {
        changes.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn changed_keywords_are_compatible_and_named() {
        let tools = json!([tool("t_a", object(json!({}), &[]), json!({}), false)]);
        let mut old = catalog(tools.clone());
        old["keywords"] = json!({"t_a": ["boleto", "fatura"]});
        let mut new = catalog(tools);
        new["keywords"] = json!({"t_a": ["boleto", "segunda via"]});
        assert_eq!(
            lines(&diff(&old, &new)),
            ["compatible tool t_a: keywords added: `segunda via`; removed: `fatura`"]
        );
        new.as_object_mut().unwrap().remove("keywords");
        assert_eq!(
            lines(&diff(&old, &new)),
            ["compatible tool t_a: keywords removed: `boleto`, `fatura`"]
        );
    }

    #[test]
    fn the_same_catalog_has_no_change() {
        let c = catalog(json!([tool("a", object(json!({}), &[]), json!({}), false)]));
        assert!(diff(&c, &c).is_empty());
    }

    #[test]
    fn each_kind_of_change_is_classified() {
        let old = catalog(json!([
            tool(
                "get",
                object(
                    json!({
                        "id": {"type": "string"},
                        "status": {"type": "string", "enum": ["a", "b"]},
                        "note": {"type": "string", "maxLength": 100},
                        "old_name": {"type": "integer"}
                    }),
                    &["id"]
                ),
                object(
                    json!({"id": {"type": "string"}, "gone": {"type": "string"}}),
                    &["id", "gone"]
                ),
                false
            ),
            tool("cancel", object(json!({}), &[]), json!({}), false),
            tool("old_tool", object(json!({}), &[]), json!({}), false),
        ]));
        let new = catalog(json!([
            tool("get", object(json!({
                "id": {"type": "string"},
                "status": {"type": "string", "enum": ["a"]},
                "note": {"type": "string", "maxLength": 50},
                "new_name": {"type": "integer"},
                "extra": {"type": "string"},
                "must": {"type": "string"}
            }), &["id", "must"]), object(json!({"id": {"type": "string"}, "more": {"type": "string"}}), &["id"]), false),
            tool("cancel", object(json!({}), &[]), json!({}), true),
            {"name": "new_tool", "title": "Title of old_tool", "description": "d", "inputSchema": object(json!({}), &[]), "outputSchema": {}, "annotations": {"readOnlyHint": true, "destructiveHint": false}},
            tool("brand_new", object(json!({}), &[]), json!({}), false),
        ]));
        let changes = diff(&old, &new);
        let text = lines(&changes).join("\n");
        for expected in [
            "BREAKING   tool get argument status: enum loses \"b\"",
            "BREAKING   tool get argument note: maxLength 100 → 50",
            "BREAKING   tool get argument old_name: renamed to new_name",
            "BREAKING   tool get argument must: added, required",
            "compatible tool get argument extra: added, optional",
            "BREAKING   tool get output gone: field removed",
            "compatible tool get output more: field added",
            "BREAKING   tool cancel: annotation destructiveHint false → true",
            "BREAKING   tool cancel: annotation readOnlyHint true → false",
            "BREAKING   tool old_tool: renamed to new_tool",
            "compatible tool brand_new: added",
        ] {
            assert!(
                text.contains(expected.trim_end()) || text.contains(expected),
                "missing `{expected}` in\n{text}"
            );
        }
        assert!(has_breaking(&changes));
        assert_eq!(
            changes[0].impact,
            Impact::Breaking,
            "breaking changes come first"
        );
    }

    #[test]
    fn a_view_given_or_moved_is_compatible_and_hiding_a_tool_from_the_model_is_breaking() {
        let with_ui = |ui: Value| {
            let mut t = tool("t_a", object(json!({}), &[]), json!({}), false);
            t["_meta"] = json!({ "ui": ui });
            t
        };
        let plain = catalog(json!([tool(
            "t_a",
            object(json!({}), &[]),
            json!({}),
            false
        )]));
        let board = catalog(json!([with_ui(json!({"resourceUri": "ui://a/board"}))]));
        let moved = catalog(json!([with_ui(
            json!({"resourceUri": "ui://a/list", "visibility": ["model", "app"]})
        )]));
        let app_only = catalog(json!([with_ui(
            json!({"resourceUri": "ui://a/list", "visibility": ["app"]})
        )]));
        assert_eq!(
            lines(&diff(&plain, &board)),
            [
                "compatible tool t_a: view ui://a/board added (MCP Apps hosts show it beside the result)"
            ]
        );
        assert_eq!(
            lines(&diff(&board, &moved)),
            ["compatible tool t_a: view ui://a/board → ui://a/list"]
        );
        assert_eq!(
            lines(&diff(&moved, &app_only)),
            [
                "BREAKING   tool t_a: visibility no longer includes `model`: hosts keep the tool from the model"
            ]
        );
        assert_eq!(
            lines(&diff(&app_only, &plain)),
            [
                "compatible tool t_a: view ui://a/list removed",
                "compatible tool t_a: visibility now includes `model`"
            ]
        );
    }

    #[test]
    fn an_optional_argument_wrapped_to_admit_null_is_one_compatible_type_change() {
        let old = catalog(json!([tool(
            "t",
            object(
                json!({"q": {"type": "string", "maxLength": 9, "description": "d"}}),
                &[]
            ),
            object(json!({}), &[]),
            false
        )]));
        let new = catalog(json!([tool(
            "t",
            object(
                json!({"q": {"description": "d", "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]}}),
                &[]
            ),
            object(json!({}), &[]),
            false
        )]));
        let changes = diff(&old, &new);
        assert_eq!(
            lines(&changes),
            ["compatible tool t argument q: type string → null|string"]
        );
    }

    #[test]
    fn an_optional_argument_no_longer_declaring_null_is_compatible_and_a_required_one_is_not() {
        let with_null = json!({"description": "d", "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]});
        let plain = json!({"type": "string", "maxLength": 9, "description": "d"});
        let catalog_of = |q: &Value, required: &[&str]| {
            catalog(json!([tool(
                "t",
                object(json!({ "q": q }), required),
                object(json!({}), &[]),
                false
            )]))
        };
        assert_eq!(
            lines(&diff(
                &catalog_of(&with_null, &[]),
                &catalog_of(&plain, &[])
            )),
            [
                "compatible tool t argument q: null no longer declared (an optional argument's null still means not given)"
            ]
        );
        assert_eq!(
            lines(&diff(
                &catalog_of(&with_null, &["q"]),
                &catalog_of(&plain, &["q"])
            )),
            ["BREAKING   tool t argument q: type null|string → string"]
        );
    }

    #[test]
    fn widening_an_input_and_narrowing_an_output_are_compatible() {
        let old = catalog(json!([tool(
            "t",
            object(json!({"n": {"type": "integer", "maximum": 10}}), &[]),
            object(json!({"s": {"type": ["string", "null"]}}), &["s"]),
            false
        )]));
        let new = catalog(json!([tool(
            "t",
            object(json!({"n": {"type": "number", "maximum": 20}}), &[]),
            object(json!({"s": {"type": "string"}}), &["s"]),
            false
        )]));
        let changes = diff(&old, &new);
        assert!(!has_breaking(&changes), "{}", lines(&changes).join("\n"));
        assert_eq!(changes.len(), 3, "{}", lines(&changes).join("\n"));
    }

    #[test]
    fn a_bound_tightened_where_the_listing_leaves_bounds_out_is_breaking() {
        let listed = object(json!({"n": {"type": "integer"}}), &[]);
        let checked = |max: u32| object(json!({"n": {"type": "integer", "maximum": max}}), &[]);
        let with_checks = |max: u32| {
            let mut c = catalog(json!([tool("t", listed.clone(), json!({}), false)]));
            c["checkedInputSchemas"] = json!({ "t": checked(max) });
            c
        };
        assert_eq!(
            lines(&diff(&with_checks(100), &with_checks(50))),
            ["BREAKING   tool t argument n: maximum 100 → 50"]
        );
        // A catalog from before the listing left bounds out compares with the checked form:
        // nothing changed for a caller.
        let before = catalog(json!([tool("t", checked(100), json!({}), false)]));
        assert!(diff(&before, &with_checks(100)).is_empty());
    }

    #[test]
    fn a_rename_is_found_by_the_title_in_annotations() {
        let named = |name: &str| {
            let mut t = tool(name, object(json!({}), &[]), json!({}), false);
            // As the generator writes a tool now: the title only in `annotations`.
            t.as_object_mut().unwrap().remove("title");
            t["annotations"]["title"] = json!("Do the thing");
            t
        };
        let changes = diff(
            &catalog(json!([named("old_name")])),
            &catalog(json!([named("new_name")])),
        );
        assert_eq!(
            lines(&changes),
            ["BREAKING   tool old_name: renamed to new_name"]
        );
    }
}
