//! OpenAPI schemas (3.0 shape, after normalisation) to self-contained JSON Schema 2020-12.
//!
//! MCP clients validate arguments and results with ordinary JSON Schema validators and
//! cannot follow references into an OpenAPI document, so every schema a tool carries must
//! stand alone:
//!
//! - `$ref`s are inlined. A reference already being expanded on the current path (a cycle) is
//!   cut: replaced by a schema that keeps only the target's `type` and a description saying
//!   what was cut and why. Nesting is bounded too: each schema is expanded to the deepest
//!   level (at most [`MAX_REF_DEPTH`] references) at which it stays within [`MAX_NODES`]
//!   schema objects, else one level deep whatever its size, so documents whose objects all
//!   link to each other (Stripe) still give catalogs of a sensible size, deterministically.
//! - 3.0 `nullable` becomes a type union (`["string", "null"]`), a `null` branch of an
//!   `anyOf`/`oneOf`, or `null` added to an `enum`.
//! - `allOf` is merged into one schema when its parts do not contradict each other, and kept
//!   as it is otherwise; `oneOf`/`anyOf` are kept.
//! - Inputs lose `readOnly` properties (the server sets them); outputs lose `writeOnly` ones
//!   and are *opened*: no `additionalProperties: false` at any level, because official
//!   TypeScript clients reject a result with a field the schema forbids, and servers add
//!   fields over time.
//! - OpenAPI-only keywords go: `nullable`, `discriminator`, `xml`, `externalDocs`, `x-*`;
//!   `example` becomes `examples: [...]`; 3.0 boolean `exclusiveMinimum` becomes numeric.
//! - A fractional `multipleOf` (money's `0.01`) moves into the description: validators judge
//!   it in binary floating point and refuse valid amounts such as 258.65.

use serde_json::{Map, Value, json};

use crate::diagnostics::{Diagnostics, join};
use crate::parse::ref_pointer;

/// How many `$ref`s deep a schema is expanded before the rest is cut. Real documents (Stripe)
/// link nearly every object to every other; expanding all acyclic paths would make catalogs
/// of hundreds of megabytes for no benefit to a model reading them.
pub(crate) const MAX_REF_DEPTH: usize = 4;

/// How many schema objects one converted schema may hold before a shallower expansion is
/// tried instead. A detailed invoice with its customer is about 150; Stripe's
/// objects, expanded four levels, run to tens of thousands.
pub(crate) const MAX_NODES: usize = 500;

/// Which side of a call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Tool arguments: `readOnly` properties are dropped.
    Input,
    /// Tool results: `writeOnly` properties are dropped and objects opened.
    Output,
}

/// Keywords that only mean something to OpenAPI or to a multi-document JSON Schema setup.
const DROPPED: &[&str] = &[
    "nullable",
    "discriminator",
    "xml",
    "externalDocs",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
];

/// A tool's `inputSchema` without the patterns the document lists in its root
/// `x-text-patterns`: a character rule every free-text field carries (the text rule: no
/// control characters, no bidirectional overrides), said in the document for REST clients
/// and the request validator. In a catalog it would be said again in every text argument of
/// every tool, a large part of what an assistant reads for a rule it rarely meets; the
/// endpoint still judges it, naming the field. The REST body and query schemas keep them.
pub(crate) fn without_text_patterns(doc: &Value, mut input_schema: Value) -> Value {
    fn strip(schema: &mut Value, patterns: &[Value]) {
        match schema {
            Value::Object(obj) => {
                if obj.get("pattern").is_some_and(|p| patterns.contains(p)) {
                    obj.remove("pattern");
                }
                obj.values_mut().for_each(|v| strip(v, patterns));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| strip(v, patterns)),
            _ => {}
        }
    }
    let patterns: Vec<Value> = doc
        .get("x-text-patterns")
        .and_then(Value::as_object)
        .map(|p| p.values().cloned().collect())
        .unwrap_or_default();
    if !patterns.is_empty() {
        strip(&mut input_schema, &patterns);
    }
    input_schema
}

/// The tool input schema in forms every large framework's converter takes, each equivalent to
/// the one it replaces (`tests/python/test_converters.py` runs them all):
/// - a nullable type (`{"type": ["string", "null"]}`, what OpenAPI 3.0's `nullable` becomes,
///   with `null` in its `enum` when it has one) is written `{"anyOf": [{"type": "string"},
///   {"type": "null"}]}`, its annotations outside: LangChain's Gemini converter refuses a `null`
///   in `enum`, and pydantic-ai's Gemini Live path (the OpenAPI subset) a list of types;
/// - `additionalProperties: true`, which OpenAI's strict mode refuses, is left out (the same
///   to a validator);
/// - `writeOnly`, which Google's `Schema.from_json_schema` refuses, is said in the
///   description instead (every input is written, never read back, so nothing is lost).
pub(crate) fn converter_friendly(mut input_schema: Value) -> Value {
    fn rewrite(schema: &mut Value) {
        match schema {
            Value::Object(obj) => {
                obj.values_mut().for_each(rewrite);
                // The same as leaving it out, which strict converters take.
                if obj.get("additionalProperties") == Some(&Value::Bool(true)) {
                    obj.remove("additionalProperties");
                }
                // Said in words: Google's `Schema.from_json_schema` refuses the keyword.
                if obj.remove("writeOnly") == Some(Value::Bool(true)) {
                    let said = "Write-only: stored, never shown back.";
                    let description = match obj.get("description").and_then(Value::as_str) {
                        Some(text) => format!("{text} {said}"),
                        None => said.to_owned(),
                    };
                    obj.insert("description".into(), Value::String(description));
                }
                let Some(Value::Array(types)) = obj.get("type") else {
                    return;
                };
                if !types.iter().any(|t| t == "null") {
                    return;
                }
                let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                let mut branch = Map::new();
                let mut outer = Map::new();
                for (key, value) in std::mem::take(obj) {
                    match key.as_str() {
                        "type" => {
                            let single = others.len() == 1;
                            let types = Value::Array(others.clone());
                            branch.insert(key, if single { others[0].clone() } else { types });
                        }
                        "enum" => {
                            let values = value.as_array().into_iter().flatten();
                            let kept: Vec<Value> =
                                values.filter(|v| !v.is_null()).cloned().collect();
                            branch.insert(key, Value::Array(kept));
                        }
                        k if ANNOTATIONS.contains(&k) => {
                            outer.insert(key, value);
                        }
                        _ => {
                            branch.insert(key, value);
                        }
                    }
                }
                outer.insert(
                    "anyOf".into(),
                    serde_json::json!([Value::Object(branch), {"type": "null"}]),
                );
                *obj = outer;
            }
            Value::Array(items) => items.iter_mut().for_each(rewrite),
            _ => {}
        }
    }
    rewrite(&mut input_schema);
    input_schema
}

/// The strict-mode form of a tool's input schema: every property that is not required, and
/// does not accept `null` already, declared as also accepting it: `{"anyOf": [<its schema>,
/// {"type": "null"}]}`, its annotations outside. Strict function-calling modes (OpenAI's,
/// turned on by the OpenAI Agents SDK, LangChain and pydantic-ai) make every property
/// required, so without a `null` to send a model must invent a `project_id` to list todos; the
/// server reads `null` for such an argument as "not given" (`ArgSpec::admits_null` keeps the
/// document's own nulls apart). It costs ~30 bytes per optional argument, 4 % of the catalog,
/// so the MCP layer serves it to connections that ask (`ToolSpec::strict_input_schema`). A
/// property mirrored into a header (`x-mcp-header`) keeps its primitive type, which the MCP
/// specification requires there.
pub(crate) fn nullable_when_optional(mut input_schema: Value) -> Value {
    let required: Vec<Value> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(Value::Object(properties)) = input_schema.get_mut("properties") else {
        return input_schema;
    };
    for (name, property) in properties.iter_mut() {
        let optional = !required.iter().any(|r| r == name.as_str());
        if !optional || property.get("x-mcp-header").is_some() || admits_null(property) {
            continue;
        }
        let Value::Object(obj) = property else {
            continue;
        };
        let mut outer = Map::new();
        let mut branch = Map::new();
        for (key, value) in std::mem::take(obj) {
            if ANNOTATIONS.contains(&key.as_str()) {
                outer.insert(key, value);
            } else {
                branch.insert(key, value);
            }
        }
        outer.insert(
            "anyOf".into(),
            json!([Value::Object(branch), {"type": "null"}]),
        );
        *property = Value::Object(outer);
    }
    input_schema
}

/// Whether `schema` accepts `null`: `"null"` among its types, `nullable: true`, `null` among
/// its enum values, or a branch of its `anyOf`/`oneOf` that does.
pub(crate) fn admits_null(schema: &Value) -> bool {
    let types = match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    let branches = ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(admits_null))
    });
    types
        || branches
        || schema.get("nullable") == Some(&Value::Bool(true))
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(Value::is_null))
}

/// Converts the schema at `ptr` (a pointer into the normalised document `doc`).
pub(crate) fn convert(
    doc: &Value,
    schema: &Value,
    ptr: &str,
    dir: Direction,
    diags: &mut Diagnostics,
) -> Value {
    // Iterative deepening: the deepest expansion that stays within the size budget, else
    // one level of references whatever its size (inline schemas cannot be cut).
    for depth in (2..=MAX_REF_DEPTH).rev() {
        let mut cx = Converter {
            doc,
            dir,
            diags,
            refs: Vec::new(),
            nested: 0,
            cut_here: false,
            all_of_branch: false,
            loc: vec![Seg::Root(ptr.to_owned())],
            max_depth: depth,
            nodes_left: Some(MAX_NODES),
            exhausted: false,
        };
        let out = cx.schema(schema);
        if !cx.exhausted {
            return out;
        }
    }
    let mut cx = Converter {
        doc,
        dir,
        diags,
        refs: Vec::new(),
        nested: 0,
        cut_here: false,
        all_of_branch: false,
        loc: vec![Seg::Root(ptr.to_owned())],
        max_depth: 1,
        nodes_left: None,
        exhausted: false,
    };
    cx.schema(schema)
}

/// One step of the path to the schema being converted, kept as cheap segments and turned into
/// a pointer only when there is something to report.
enum Seg<'a> {
    Root(String),
    Key(&'a str),
    Index(usize),
}

struct Converter<'a, 'd> {
    doc: &'a Value,
    dir: Direction,
    diags: &'d mut Diagnostics,
    /// The `$ref`s being expanded, outermost first.
    refs: Vec<&'a str>,
    /// How many of them add a level of nesting: an `allOf` branch does not (its properties
    /// are the enclosing schema's own), so a depth cut never falls on one and never drops
    /// properties a sibling branch's merge would keep.
    nested: usize,
    /// Whether the reference just converted was cut (read right after `schema` returns).
    cut_here: bool,
    /// The schema about to be converted is a branch of an `allOf`: its `required` may name
    /// properties another branch declares.
    all_of_branch: bool,
    loc: Vec<Seg<'a>>,
    /// References nested deeper than this are cut.
    max_depth: usize,
    /// Schema objects this attempt may still produce (`None`: no limit).
    nodes_left: Option<usize>,
    /// The budget ran out: this attempt's result is abandoned.
    exhausted: bool,
}

impl<'a> Converter<'a, '_> {
    fn pointer(&self) -> String {
        let start = self
            .loc
            .iter()
            .rposition(|s| matches!(s, Seg::Root(_)))
            .unwrap_or(0);
        let mut out = String::new();
        for seg in &self.loc[start..] {
            match seg {
                Seg::Root(p) => out.clone_from(p),
                Seg::Key(k) => out = join(&out, k),
                Seg::Index(i) => out = join(&out, &i.to_string()),
            }
        }
        out
    }

    fn at<T>(&mut self, seg: Seg<'a>, f: impl FnOnce(&mut Self) -> T) -> T {
        self.loc.push(seg);
        let out = f(self);
        self.loc.pop();
        out
    }

    fn schema(&mut self, schema: &'a Value) -> Value {
        if let Some(left) = self.nodes_left.as_mut() {
            if *left == 0 {
                self.exhausted = true;
                return Value::Null;
            }
            *left -= 1;
        }
        let Some(obj) = schema.as_object() else {
            // Normalisation turned boolean schemas into objects; anything else was reported.
            return json!({});
        };
        let all_of_branch = std::mem::take(&mut self.all_of_branch);
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            // The referenced schema is the branch.
            self.all_of_branch = all_of_branch;
            return self.reference(reference);
        }

        let mut out = Map::new();
        let mut nullable = false;
        let mut fractional_step: Option<&Value> = None;
        let mut dropped_props: Vec<String> = Vec::new();
        for (key, value) in obj {
            let key_str = key.as_str();
            match key_str {
                "nullable" => nullable = value == &Value::Bool(true),
                // `multipleOf: 0.01` judged in binary floating point refuses valid values
                // (258.65 / 0.01 = 25864.999...), and client validators (Ajv, jsonschema) do
                // exactly that: say it in the description instead.
                "multipleOf" if value.as_f64().is_some_and(|m| m.fract() != 0.0) => {
                    fractional_step = Some(value);
                }
                _ if DROPPED.contains(&key_str) || key_str.starts_with("x-") => {}
                "example" => {
                    if !obj.contains_key("examples") {
                        out.insert("examples".into(), Value::Array(vec![value.clone()]));
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    let bound = if key_str == "exclusiveMinimum" {
                        "minimum"
                    } else {
                        "maximum"
                    };
                    match value {
                        Value::Bool(true) => {
                            if let Some(b) = obj.get(bound) {
                                out.insert(key.clone(), b.clone());
                            }
                        }
                        Value::Bool(false) => {}
                        other => {
                            out.insert(key.clone(), other.clone());
                        }
                    }
                }
                "minimum" | "maximum" => {
                    let exclusive = if key_str == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    };
                    // A 3.0 exclusive bound replaces the inclusive one (handled above).
                    if obj.get(exclusive) != Some(&Value::Bool(true)) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "properties" => {
                    let props = self.at(Seg::Key("properties"), |cx| {
                        cx.properties(value, &mut dropped_props)
                    });
                    out.insert(key.clone(), props);
                }
                "patternProperties" | "dependentSchemas" => {
                    let map = self.at(Seg::Key(key_str), |cx| cx.schema_map(value));
                    out.insert(key.clone(), map);
                }
                "additionalProperties" | "unevaluatedProperties" => match value {
                    Value::Bool(false) if self.dir == Direction::Output => {}
                    Value::Bool(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    sub => {
                        let s = self.at(Seg::Key(key_str), |cx| cx.schema(sub));
                        out.insert(key.clone(), s);
                    }
                },
                "items" | "contains" | "propertyNames" | "not" | "if" | "then" | "else"
                | "unevaluatedItems" | "contentSchema" => {
                    let s = self.at(Seg::Key(key_str), |cx| cx.schema(value));
                    out.insert(key.clone(), s);
                }
                "allOf" => {
                    let list = self.at(Seg::Key(key_str), |cx| cx.all_of(value));
                    out.insert(key.clone(), list);
                }
                "oneOf" | "anyOf" => {
                    let (list, cut) = self.at(Seg::Key(key_str), |cx| {
                        cx.alternatives(value, key_str == "oneOf")
                    });
                    // A cut branch accepts what its full schema may refuse, so a value valid
                    // for another branch would match two and fail `oneOf`: `anyOf` instead.
                    let key = if cut { "anyOf" } else { key_str };
                    match out.get_mut(key) {
                        Some(Value::Array(existing)) if key != key_str => {
                            existing.extend(list.as_array().cloned().unwrap_or_default());
                        }
                        _ => {
                            out.insert(key.to_owned(), list);
                        }
                    }
                }
                "prefixItems" => {
                    let list = self.at(Seg::Key(key_str), |cx| cx.schema_list(value));
                    out.insert(key.clone(), list);
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if !dropped_props.is_empty()
            && let Some(Value::Array(required)) = out.get_mut("required")
        {
            required.retain(|r| {
                !r.as_str()
                    .is_some_and(|r| dropped_props.iter().any(|d| d == r))
            });
        }
        if matches!(out.get("required"), Some(Value::Array(r)) if r.is_empty()) {
            out.remove("required");
        }
        if let Some(step) = fractional_step {
            let note = format!("A multiple of {step}.");
            let description = match out.get("description").and_then(Value::as_str) {
                Some(text) => format!("{} {note}", text.trim_end()),
                None => note,
            };
            out.insert("description".into(), Value::String(description));
        }
        let mut out = merge_all_of(out);
        if !all_of_branch {
            self.undeclared_required(&mut out);
        }
        if nullable {
            make_nullable(&mut out);
        }
        Value::Object(out)
    }

    fn properties(&mut self, value: &'a Value, dropped: &mut Vec<String>) -> Value {
        let Some(map) = value.as_object() else {
            return json!({});
        };
        let mut out = Map::new();
        for (name, sub) in map {
            let converted = self.at(Seg::Key(name), |cx| cx.schema(sub));
            let hidden = match self.dir {
                Direction::Input => "readOnly",
                Direction::Output => "writeOnly",
            };
            if converted.get(hidden) == Some(&Value::Bool(true)) {
                dropped.push(name.clone());
            } else {
                out.insert(name.clone(), converted);
            }
        }
        Value::Object(out)
    }

    fn schema_map(&mut self, value: &'a Value) -> Value {
        let Some(map) = value.as_object() else {
            return json!({});
        };
        let mut out = Map::new();
        for (name, sub) in map {
            let converted = self.at(Seg::Key(name), |cx| cx.schema(sub));
            out.insert(name.clone(), converted);
        }
        Value::Object(out)
    }

    fn schema_list(&mut self, value: &'a Value) -> Value {
        let Some(list) = value.as_array() else {
            return json!([]);
        };
        let mut out = Vec::with_capacity(list.len());
        for (i, sub) in list.iter().enumerate() {
            out.push(self.at(Seg::Index(i), |cx| cx.schema(sub)));
        }
        Value::Array(out)
    }

    /// `allOf` branches: a `$ref` branch is expanded whatever the nesting depth (only a
    /// cycle cuts it). A branch cut for recursion cannot say which properties it adds, so the
    /// other branches stop forbidding unknown properties (they would refuse valid values)
    /// and a warning says where the cut is.
    fn all_of(&mut self, value: &'a Value) -> Value {
        let Some(list) = value.as_array() else {
            return json!([]);
        };
        let mut out = Vec::with_capacity(list.len());
        let mut any_cut = false;
        for (i, sub) in list.iter().enumerate() {
            let is_ref = sub.get("$ref").is_some();
            let converted = self.at(Seg::Index(i), |cx| {
                cx.cut_here = false;
                let saved = cx.nested;
                if is_ref {
                    cx.nested = saved.saturating_sub(1);
                }
                cx.all_of_branch = true;
                let v = cx.schema(sub);
                cx.all_of_branch = false;
                cx.nested = saved;
                v
            });
            if is_ref && self.cut_here {
                any_cut = true;
                let at = join(&self.pointer(), &i.to_string());
                self.diags.warn(
                    at,
                    "an `allOf` branch refers back to a schema being expanded: cut here, so the result does not list that branch's properties and allows any others",
                );
            }
            out.push(converted);
        }
        if any_cut {
            for part in &mut out {
                if let Some(obj) = part.as_object_mut() {
                    for key in ["additionalProperties", "unevaluatedProperties"] {
                        if obj.get(key) == Some(&Value::Bool(false)) {
                            obj.remove(key);
                        }
                    }
                }
            }
        }
        Value::Array(out)
    }

    /// `oneOf`/`anyOf` branches, each on its own (no merging, so a cut never loses a
    /// sibling's properties). Returns the branches and whether a `$ref` branch was cut; a
    /// `oneOf` (which then changes to `anyOf`) says which, with its pointer. An `anyOf` with a
    /// cut branch stays correct, and the cut branch's description already says why it is
    /// short: no warning (Stripe's expandable fields would give hundreds).
    fn alternatives(&mut self, value: &'a Value, one_of: bool) -> (Value, bool) {
        let Some(list) = value.as_array() else {
            return (json!([]), false);
        };
        let mut out = Vec::with_capacity(list.len());
        let mut cut = Vec::new();
        for (i, sub) in list.iter().enumerate() {
            let is_ref = sub.get("$ref").is_some();
            let converted = self.at(Seg::Index(i), |cx| {
                cx.cut_here = false;
                cx.schema(sub)
            });
            if is_ref && self.cut_here {
                cut.push(i.to_string());
            }
            out.push(converted);
        }
        if one_of && !cut.is_empty() {
            let at = self.pointer();
            self.diags.warn(
                at,
                format!(
                    "`oneOf` branch{} {} {} cut here (recursion or nesting limit) and accept{} any value of {} type: read as `anyOf`, so a valid value is not refused for matching two branches",
                    if cut.len() == 1 { "" } else { "es" },
                    if cut.len() > 6 {
                        format!("{}, ... ({} of {})", cut[..3].join(", "), cut.len(), list.len())
                    } else {
                        cut.join(", ")
                    },
                    if cut.len() == 1 { "is" } else { "are" },
                    if cut.len() == 1 { "s" } else { "" },
                    if cut.len() == 1 { "its" } else { "their" },
                ),
            );
        }
        (Value::Array(out), !cut.is_empty())
    }

    /// `required` naming a property the schema does not declare (common in real documents):
    /// the property is added, unconstrained, with a warning. Dropping the requirement would
    /// let a model omit what the API insists on; adding it keeps the requirement and keeps
    /// the schema satisfiable under `additionalProperties: false`.
    fn undeclared_required(&mut self, out: &mut Map<String, Value>) {
        if ["allOf", "anyOf", "oneOf", "patternProperties"]
            .iter()
            .any(|k| out.contains_key(*k))
        {
            return;
        }
        let Some(Value::Array(required)) = out.get("required") else {
            return;
        };
        let Some(Value::Object(props)) = out.get("properties") else {
            return;
        };
        let missing: Vec<String> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| !props.contains_key(*r))
            .map(str::to_owned)
            .collect();
        if missing.is_empty() {
            return;
        }
        let at = join(&self.pointer(), "required");
        for name in missing {
            self.diags.warn(
                at.clone(),
                format!("`required` names `{name}`, which `properties` does not declare: added as a property that accepts any value"),
            );
            if let Some(Value::Object(props)) = out.get_mut("properties") {
                props.insert(
                    name,
                    json!({"description": "Required by the API; its schema does not describe it."}),
                );
            }
        }
    }

    fn reference(&mut self, reference: &'a str) -> Value {
        let target_ptr = match ref_pointer(reference) {
            Ok(p) => p,
            Err(message) => {
                let at = self.pointer();
                self.diags.error(at, message);
                return json!({});
            }
        };
        let Some(target) = self.doc.pointer(&target_ptr) else {
            let at = self.pointer();
            self.diags
                .error(at, format!("`$ref: {reference}` does not resolve"));
            return json!({});
        };
        if let Some(chain) = alias_loop(self.doc, reference) {
            let at = self.pointer();
            self.diags.error(
                at,
                format!(
                    "a loop of schemas that only refer to each other ({}): they describe no value",
                    chain.join(" → ")
                ),
            );
            return json!({});
        }
        let name = reference.rsplit('/').next().unwrap_or(reference);
        if self.refs.contains(&reference) {
            self.cut_here = true;
            return cut(
                target,
                format!(
                    "A `{name}`, the same schema as an enclosing value: not expanded again (recursive schema)."
                ),
            );
        }
        if self.nested >= self.max_depth {
            self.cut_here = true;
            return cut(
                target,
                format!("A `{name}`: not expanded here (nesting limit reached)."),
            );
        }
        self.refs.push(reference);
        self.nested += 1;
        let out = self.at(Seg::Root(target_ptr), |cx| cx.schema(target));
        self.nested -= 1;
        self.refs.pop();
        self.cut_here = false;
        out
    }
}

/// The chain of references, when `reference` starts a loop of schemas that are nothing but
/// a `$ref` (`A: {$ref: B}`, `B: {$ref: A}`).
fn alias_loop(doc: &Value, reference: &str) -> Option<Vec<String>> {
    let mut chain = vec![reference.to_owned()];
    let mut current = reference.to_owned();
    loop {
        let target = doc.pointer(&ref_pointer(&current).ok()?)?.as_object()?;
        if target.len() != 1 {
            return None;
        }
        let next = target.get("$ref")?.as_str()?.to_owned();
        let looped = chain.contains(&next);
        chain.push(next.clone());
        if looped {
            return Some(chain);
        }
        current = next;
    }
}

/// What stands in for a schema that is not expanded: its type, when it has a plain one, and
/// why the rest is missing. Anything else is allowed there.
fn cut(target: &Value, description: String) -> Value {
    let mut out = Map::new();
    if let Some(t @ Value::String(_)) = target.get("type") {
        if target.get("nullable") == Some(&Value::Bool(true)) {
            out.insert("type".into(), json!([t, "null"]));
        } else {
            out.insert("type".into(), t.clone());
        }
    }
    let description = match target.get("description").and_then(Value::as_str) {
        Some(d) => format!("{d}\n\n{description}"),
        None => description,
    };
    out.insert("description".into(), Value::String(description));
    Value::Object(out)
}

/// Keywords that describe a schema without constraining it. The first part of an `allOf` to
/// say one wins (the outer schema comes first, so `$ref` siblings override the referenced
/// schema's text); they stay outside an `anyOf` a schema is wrapped in.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Folds `allOf` into its parent when the parts agree; leaves it as it is otherwise.
fn merge_all_of(mut obj: Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Array(parts)) = obj.remove("allOf") else {
        return obj;
    };
    let mut merged = obj.clone();
    for part in &parts {
        let mergeable = match part {
            Value::Object(p) => merge_into(&mut merged, p),
            _ => false,
        };
        if !mergeable {
            obj.insert("allOf".into(), Value::Array(parts));
            return obj;
        }
    }
    merged
}

fn merge_into(into: &mut Map<String, Value>, part: &Map<String, Value>) -> bool {
    for (key, value) in part {
        let Some(existing) = into.get_mut(key) else {
            into.insert(key.clone(), value.clone());
            continue;
        };
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "properties" => {
                let (Value::Object(have), Value::Object(add)) = (existing, value) else {
                    return false;
                };
                for (name, schema) in add {
                    match have.get(name) {
                        Some(current) if current != schema => return false,
                        Some(_) => {}
                        None => {
                            have.insert(name.clone(), schema.clone());
                        }
                    }
                }
            }
            "required" => {
                let (Value::Array(have), Value::Array(add)) = (existing, value) else {
                    return false;
                };
                for name in add {
                    if !have.contains(name) {
                        have.push(name.clone());
                    }
                }
            }
            "type" => match intersect_types(existing, value) {
                Some(t) => *existing = t,
                None => return false,
            },
            _ if existing == value => {}
            _ => return false,
        }
    }
    true
}

fn type_list(t: &Value) -> Vec<&str> {
    match t {
        Value::String(s) => vec![s.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The types both `a` and `b` allow (`integer` is a `number`), or `None` if there are none.
fn intersect_types(a: &Value, b: &Value) -> Option<Value> {
    let (a, b) = (type_list(a), type_list(b));
    let mut out: Vec<&str> = Vec::new();
    for t in &a {
        let keep = if b.contains(t) {
            Some(*t)
        } else if (*t == "integer" && b.contains(&"number"))
            || (*t == "number" && b.contains(&"integer"))
        {
            Some("integer")
        } else {
            None
        };
        if let Some(k) = keep
            && !out.contains(&k)
        {
            out.push(k);
        }
    }
    match out.len() {
        0 => None,
        1 => Some(Value::String(out[0].to_owned())),
        _ => Some(Value::Array(out.into_iter().map(|t| json!(t)).collect())),
    }
}

/// Applies 3.0 `nullable: true` to a converted schema.
fn make_nullable(obj: &mut Map<String, Value>) {
    let null = json!("null");
    if let Some(t) = obj.get_mut("type") {
        match t {
            Value::String(s) if s != "null" => *t = json!([s.clone(), "null"]),
            Value::Array(list) if !list.contains(&null) => list.push(null.clone()),
            _ => {}
        }
        if let Some(Value::Array(values)) = obj.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key) {
            let null_branch = json!({"type": "null"});
            if !branches.contains(&null_branch) {
                branches.push(null_branch);
            }
            return;
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        return;
    }
    if obj.contains_key("allOf") || obj.contains_key("not") {
        // The constraints stay together in one branch; the annotations stay outside.
        let mut inner = Map::new();
        let keys: Vec<String> = obj
            .keys()
            .filter(|k| !ANNOTATIONS.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in keys {
            if let Some(v) = obj.remove(&k) {
                inner.insert(k, v);
            }
        }
        obj.insert(
            "anyOf".into(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
    }
    // No type and no composition: the schema accepts null already.
}

/// Whether a converted schema describes a JSON object and nothing else.
pub(crate) fn is_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
        None => {
            if schema.get("properties").is_some() {
                return schema.get("anyOf").is_none() && schema.get("oneOf").is_none();
            }
            ["anyOf", "oneOf"].iter().any(|k| {
                schema
                    .get(*k)
                    .and_then(Value::as_array)
                    .is_some_and(|branches| !branches.is_empty() && branches.iter().all(is_object))
            })
        }
    }
}

/// Marks an object schema (see [`is_object`]) with `type: object` at its root, as MCP
/// requires of `outputSchema`.
pub(crate) fn with_object_type(mut schema: Value) -> Value {
    if let Some(obj) = schema.as_object_mut()
        && !obj.contains_key("type")
    {
        // `type` first reads best; the map keeps insertion order.
        let rest = std::mem::take(obj);
        obj.insert("type".into(), json!("object"));
        obj.extend(rest);
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_inputs_lose_the_documents_text_patterns_and_keep_their_other_patterns() {
        let doc = json!({"x-text-patterns": {"line": "^[^\\x00-\\x1F]*$"}});
        let input = json!({"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 5, "pattern": "^[^\\x00-\\x1F]*$"},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[^\\x00-\\x1F]*$"}},
            "id": {"type": "string", "pattern": "^cus_[a-z0-9]{16}$"},
        }});
        assert_eq!(
            without_text_patterns(&doc, input.clone()),
            json!({"type": "object", "properties": {
                "name": {"type": "string", "maxLength": 5},
                "tags": {"type": "array", "items": {"type": "string"}},
                "id": {"type": "string", "pattern": "^cus_[a-z0-9]{16}$"},
            }})
        );
        assert_eq!(without_text_patterns(&json!({}), input.clone()), input);
    }

    fn conv(doc: Value, schema: Value, dir: Direction) -> Value {
        let mut diags = Diagnostics::default();
        let out = convert(&doc, &schema, "/s", dir, &mut diags);
        let (errors, _) = diags.into_parts();
        assert!(errors.is_empty(), "{errors:?}");
        out
    }

    #[test]
    fn refs_are_inlined_and_cycles_cut_with_a_description() {
        let doc = json!({"components": {"schemas": {"Node": {
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}
        }}}});
        let out = conv(
            doc,
            json!({"$ref": "#/components/schemas/Node"}),
            Direction::Output,
        );
        let inner = &out["properties"]["children"]["items"];
        assert_eq!(inner["type"], "object");
        assert!(inner["description"].as_str().unwrap().contains("recursive"));
        assert!(inner.get("properties").is_none());
    }

    #[test]
    fn nullable_becomes_a_type_union_and_enum_gains_null() {
        let out = conv(
            json!({}),
            json!({"type": "integer", "nullable": true, "enum": [1, 2]}),
            Direction::Input,
        );
        assert_eq!(
            out,
            json!({"type": ["integer", "null"], "enum": [1, 2, null]})
        );
        let out = conv(
            json!({}),
            json!({"anyOf": [{"type": "string"}], "nullable": true}),
            Direction::Input,
        );
        assert_eq!(
            out,
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }

    #[test]
    fn all_of_merges_with_outer_annotations_winning() {
        let doc = json!({"components": {"schemas": {"A": {
            "type": "object", "description": "inner", "properties": {"a": {"type": "string"}}, "required": ["a"]
        }}}});
        let out = conv(
            doc,
            json!({"description": "outer", "allOf": [
                {"$ref": "#/components/schemas/A"},
                {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
            ]}),
            Direction::Input,
        );
        assert_eq!(
            out,
            json!({"description": "outer", "type": "object",
                   "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                   "required": ["a", "b"]})
        );
    }

    #[test]
    fn conflicting_all_of_is_kept() {
        let out = conv(
            json!({}),
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
            Direction::Input,
        );
        assert_eq!(
            out,
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]})
        );
    }

    #[test]
    fn read_only_leaves_inputs_write_only_leaves_outputs_and_outputs_open() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "readOnly": true},
                "secret": {"type": "string", "writeOnly": true}
            },
            "required": ["id", "secret"]
        });
        let input = conv(json!({}), schema.clone(), Direction::Input);
        assert_eq!(
            input,
            json!({"type": "object", "additionalProperties": false,
                   "properties": {"secret": {"type": "string", "writeOnly": true}},
                   "required": ["secret"]})
        );
        let output = conv(json!({}), schema, Direction::Output);
        assert_eq!(
            output,
            json!({"type": "object",
                   "properties": {"id": {"type": "string", "readOnly": true}},
                   "required": ["id"]})
        );
    }

    #[test]
    fn openapi_keywords_are_translated_or_dropped() {
        let out = conv(
            json!({}),
            json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "example": 5,
                   "xml": {}, "x-foo": 1, "discriminator": {"propertyName": "k"}, "format": "double"}),
            Direction::Input,
        );
        assert_eq!(
            out,
            json!({"type": "number", "exclusiveMinimum": 0, "examples": [5], "format": "double"})
        );
    }

    #[test]
    fn a_fractional_multiple_of_moves_into_the_description() {
        let out = conv(
            json!({}),
            json!({"type": "number", "multipleOf": 0.01, "description": "Amount in BRL."}),
            Direction::Output,
        );
        assert_eq!(
            out,
            json!({"type": "number", "description": "Amount in BRL. A multiple of 0.01."})
        );
        let whole = conv(
            json!({}),
            json!({"type": "integer", "multipleOf": 5}),
            Direction::Input,
        );
        assert_eq!(whole, json!({"type": "integer", "multipleOf": 5}));
    }

    #[test]
    fn a_dangling_ref_is_an_error_at_its_pointer() {
        let mut diags = Diagnostics::default();
        convert(
            &json!({}),
            &json!({"properties": {"a": {"$ref": "#/components/schemas/Missing"}}}),
            "/s",
            Direction::Input,
            &mut diags,
        );
        let (errors, _) = diags.into_parts();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/s/properties/a");
    }
}
