//! Outputs said once: an object a read tool's `outputSchema` has in full is named, not
//! repeated, in the `outputSchema` of the other tools that answer it.
//!
//! Writes answer the object a read returns (recording a payment answers the charge that
//! reading it does) and lists return it per item: in our own document a charge's 23 fields
//! were written out in twelve tools, a sixth of the admin's `tools/list`. The read tool keeps
//! the object; every other tool answering the same object carries, in its place,
//! `{"type": "object", "description": "Same as `data` of <read tool>."}` (or "as the
//! items of `data` of <list>", for an object only a list reads, such as a webhook's
//! deliveries) — still true
//! of what it returns (the object stays open), so a client validating `structuredContent`
//! accepts the answer, and a model finds the fields one tool away.
//!
//! The MCP layer serves this form only when the named tool is listed in the same `tools/list`
//! (a toolset or a scope may hide it); otherwise the tool keeps its full `outputSchema`.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::ir::{Operation, SharedOutput};

/// Fills `Operation::shared_output` of every tool that answers an object a read tool (an
/// earlier one, when two reads answer it) has in full at the top of its `outputSchema`, or as
/// the items of a list there.
pub(crate) fn find(ops: &mut [Operation]) {
    // The objects read tools have in full, first tool in catalog order wins: canonical text →
    // (tool, where). A read's top-level member first (`data` of the charge's read), then the
    // items of a read's list for an object no read answers alone (a webhook's deliveries).
    let mut full: HashMap<String, (String, String)> = HashMap::new();
    let reads = || {
        ops.iter()
            .filter(|op| op.response.is_tool() && op.annotations.read_only)
    };
    for op in reads() {
        for (member, schema) in members(op) {
            if is_object(schema) {
                full.entry(schema.to_string())
                    .or_insert_with(|| (op.name.as_str().to_owned(), format!("`{member}`")));
            }
        }
    }
    for op in reads() {
        for (member, schema) in members(op) {
            if let Some(items) = schema.get("items").filter(|items| is_object(items)) {
                full.entry(items.to_string()).or_insert_with(|| {
                    (
                        op.name.as_str().to_owned(),
                        format!("the items of `{member}`"),
                    )
                });
            }
        }
    }
    for op in ops.iter_mut().filter(|op| op.response.is_tool()) {
        op.shared_output = shared(op, &full);
    }
}

/// The top-level members of `op`'s `outputSchema` and their schemas.
fn members(op: &Operation) -> impl Iterator<Item = (&str, &Value)> {
    op.output_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, schema)| (name.as_str(), schema))
}

/// Below this many bytes of schema an object stays where it is: naming it would save little
/// and send a model to another tool for it (a list's `meta` with its five counts is 181).
const WORTH_NAMING: usize = 200;

/// An object schema with fields, long enough to be worth saying once.
fn is_object(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
        && schema.to_string().len() >= WORTH_NAMING
}

/// `op`'s `outputSchema` with the first member (or a member's items) that another tool has in
/// full named instead; only that tool's objects are named, so one tool must be listed beside
/// it, not several.
fn shared(op: &Operation, full: &HashMap<String, (String, String)>) -> Option<SharedOutput> {
    let mut schema = op.output_schema.clone()?;
    let properties = schema.get_mut("properties")?.as_object_mut()?;
    let mut like: Option<String> = None;
    for member in properties.values_mut() {
        let target = match member.get("type").and_then(Value::as_str) {
            Some("array") => match member.get_mut("items") {
                Some(items) => items,
                None => continue,
            },
            _ => member,
        };
        if !is_object(target) {
            continue;
        }
        let Some((tool, their_member)) = full.get(&target.to_string()) else {
            continue;
        };
        if tool == op.name.as_str() || like.as_ref().is_some_and(|l| l != tool) {
            continue;
        }
        *target = json!({
            "type": "object",
            "description": format!("Same as {their_member} of {tool}."),
        });
        like = Some(tool.clone());
    }
    like.map(|like| SharedOutput {
        like,
        output_schema: schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Settings, generate};

    /// An object with these string fields.
    fn object(fields: &[&str]) -> Value {
        let properties: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| (f.to_string(), json!({"type": "string"})))
            .collect();
        json!({"type": "object", "properties": properties})
    }

    const TODO: &[&str] = &[
        "id",
        "title",
        "notes",
        "owner",
        "priority",
        "created_at",
        "updated_at",
        "done_at",
    ];

    fn document() -> Value {
        let item = object(TODO);
        assert!(item.to_string().len() >= WORTH_NAMING);
        let one = json!({"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"data": item.clone()}
        }}}});
        let many = json!({"description": "ok", "content": {"application/json": {"schema": {
            "type": "object",
            "properties": {"data": {"type": "array", "items": item}, "total": {"type": "integer"}}
        }}}});
        json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/todos": {
                    "get": {"operationId": "todos_list", "responses": {"200": many}},
                    "post": {"operationId": "todos_create", "requestBody": {"content": {
                        "application/json": {"schema": {"type": "object", "properties": {
                            "title": {"type": "string"}}}}}},
                        "responses": {"201": one.clone()}}
                },
                "/todos/{id}": {
                    "parameters": [{"name": "id", "in": "path", "required": true,
                                    "schema": {"type": "string"}}],
                    "get": {"operationId": "todos_get", "responses": {"200": one.clone()}},
                    "delete": {"operationId": "todos_delete", "responses": {"204": {
                        "description": "gone"}}}
                }
            }
        })
    }

    fn shared_of(name: &str) -> Option<SharedOutput> {
        let output = generate(&document(), &Settings::default()).unwrap();
        let op = output.operations.iter().find(|op| op.name.as_str() == name);
        op.unwrap().shared_output.clone()
    }

    #[test]
    fn a_write_and_a_list_name_the_read_that_has_the_object_in_full() {
        let named = json!({"type": "object", "description": "Same as `data` of todos_get."});
        let create = shared_of("todos_create").expect("the write names the read");
        assert_eq!(create.like, "todos_get");
        assert_eq!(create.output_schema["properties"]["data"], named);
        let list = shared_of("todos_list").expect("the list names the read");
        assert_eq!(list.like, "todos_get");
        assert_eq!(list.output_schema["properties"]["data"]["items"], named);
        // What is not the object stays.
        assert_eq!(
            list.output_schema["properties"]["total"],
            json!({"type": "integer"})
        );
    }

    #[test]
    fn an_object_only_a_list_answers_is_named_as_its_items() {
        let mut document = document();
        let entry = object(&[
            "at", "by", "what", "before", "after", "reason", "source", "note",
        ]);
        // A list's small `meta` stays where it is.
        let meta = object(&["total", "page"]);
        let done = json!({"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"data": entry.clone(), "meta": meta.clone()}
        }}}});
        let history = json!({"description": "ok", "content": {"application/json": {"schema": {
            "type": "object",
            "properties": {"data": {"type": "array", "items": entry}, "meta": meta.clone()}
        }}}});
        document["paths"]["/todos/{id}/history"] = json!({
            "parameters": [{"name": "id", "in": "path", "required": true,
                            "schema": {"type": "string"}}],
            "get": {"operationId": "history_list", "responses": {"200": history}},
            "post": {"operationId": "history_add", "responses": {"201": done}}
        });
        let output = generate(&document, &Settings::default()).unwrap();
        let add = output
            .operations
            .iter()
            .find(|op| op.name.as_str() == "history_add");
        let shared = add.unwrap().shared_output.clone().expect("named");
        assert_eq!(shared.like, "history_list");
        assert_eq!(
            shared.output_schema["properties"]["data"]["description"],
            json!("Same as the items of `data` of history_list.")
        );
        assert_eq!(
            shared.output_schema["properties"]["meta"],
            object(&["total", "page"])
        );
    }

    #[test]
    fn the_read_that_has_it_and_a_tool_with_nothing_shared_keep_their_own() {
        assert_eq!(shared_of("todos_get"), None);
        assert_eq!(shared_of("todos_delete"), None);
    }
}
