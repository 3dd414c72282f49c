//! Rewrites a document into the OpenAPI 3.0 shape that `openapiv3` reads, repairing known
//! real-world faults on the way.
//!
//! `openapiv3` (2.x) understands 3.0 only: it rejects `type` arrays, numeric
//! `exclusiveMinimum` and a missing `paths`, and silently drops `$ref` siblings, `const` and
//! `examples`. Real documents also carry faults that no parser accepts (`required: true` on a
//! property, `items` on an object). This pass works on `serde_json::Value` before any typed
//! parsing, walks exactly the places where the OpenAPI structure puts schemas (never example
//! values, which may look like schemas), and records a warning for every repair that changes
//! meaning, so that a spec author can fix the source.

use serde_json::{Map, Value, json};

use crate::diagnostics::{Diagnostics, join};

/// Keywords a schema may carry: JSON Schema 2020-12 (all vocabularies) plus OpenAPI 3.0's own.
/// Anything else (bar `x-` extensions) is a fault in the document and is dropped.
const KNOWN_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "nullable",
    "discriminator",
    "xml",
    "externalDocs",
    "example",
];

/// Keywords whose value is a single schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "contentSchema",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is a map of name to schema.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
];

const TYPES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Returns the normalised copy of `doc`. Faults that cannot be repaired become errors.
pub(crate) fn normalise(doc: &Value, diags: &mut Diagnostics) -> Value {
    let mut doc = doc.clone();
    let Some(root) = doc.as_object_mut() else {
        diags.error("", "the document is not a JSON object");
        return doc;
    };
    let is_31 = root
        .get("openapi")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("3.1"));
    let mut n = Normaliser { diags, is_31 };

    // 3.1 lets a document have only `webhooks` (or only components); openapiv3 needs `paths`.
    if !root.contains_key("paths") {
        root.insert("paths".into(), json!({}));
    }
    if let Some(paths) = root.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            n.path_item(item, &join("/paths", path));
        }
    }
    // 3.1's `webhooks`: path items for the requests the service sends.
    if let Some(webhooks) = root.get_mut("webhooks").and_then(Value::as_object_mut) {
        for (name, item) in webhooks.iter_mut() {
            n.path_item(item, &join("/webhooks", name));
        }
    }
    if let Some(components) = root.get_mut("components").and_then(Value::as_object_mut) {
        n.components(components);
    }
    doc
}

struct Normaliser<'a> {
    diags: &'a mut Diagnostics,
    is_31: bool,
}

impl Normaliser<'_> {
    fn components(&mut self, components: &mut Map<String, Value>) {
        let base = "/components";
        type Walk<'d> = fn(&mut Normaliser<'d>, &mut Value, &str);
        let sections: [(&str, Walk<'_>); 6] = [
            ("schemas", Self::schema),
            ("parameters", Self::parameter),
            ("requestBodies", Self::with_content),
            ("responses", Self::response),
            ("headers", Self::parameter),
            ("callbacks", Self::callback),
        ];
        for (section, walk) in sections {
            if let Some(entries) = components.get_mut(section).and_then(Value::as_object_mut) {
                let ptr = join(base, section);
                for (name, entry) in entries.iter_mut() {
                    walk(self, entry, &join(&ptr, name));
                }
            }
        }
    }

    fn path_item(&mut self, item: &mut Value, ptr: &str) {
        let Some(item) = item.as_object_mut() else {
            return;
        };
        if let Some(params) = item.get_mut("parameters").and_then(Value::as_array_mut) {
            let p = join(ptr, "parameters");
            for (i, param) in params.iter_mut().enumerate() {
                self.parameter(param, &join(&p, &i.to_string()));
            }
        }
        for method in METHODS {
            if let Some(op) = item.get_mut(*method) {
                self.operation(op, &join(ptr, method));
            }
        }
    }

    fn operation(&mut self, op: &mut Value, ptr: &str) {
        let Some(op) = op.as_object_mut() else {
            return;
        };
        // 3.1 made `responses` optional; openapiv3 still requires it.
        op.entry("responses").or_insert_with(|| json!({}));
        if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
            let p = join(ptr, "parameters");
            for (i, param) in params.iter_mut().enumerate() {
                self.parameter(param, &join(&p, &i.to_string()));
            }
        }
        if let Some(body) = op.get_mut("requestBody") {
            self.with_content(body, &join(ptr, "requestBody"));
        }
        if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
            let p = join(ptr, "responses");
            for (code, response) in responses.iter_mut() {
                self.response(response, &join(&p, code));
            }
        }
        if let Some(callbacks) = op.get_mut("callbacks").and_then(Value::as_object_mut) {
            let p = join(ptr, "callbacks");
            for (name, callback) in callbacks.iter_mut() {
                self.callback(callback, &join(&p, name));
            }
        }
    }

    fn callback(&mut self, callback: &mut Value, ptr: &str) {
        if let Some(items) = callback.as_object_mut() {
            for (expr, item) in items.iter_mut() {
                if expr != "$ref" {
                    self.path_item(item, &join(ptr, expr));
                }
            }
        }
    }

    /// A parameter or a header object: a `schema` or a `content` map.
    fn parameter(&mut self, param: &mut Value, ptr: &str) {
        if let Some(schema) = param.get_mut("schema") {
            self.schema(schema, &join(ptr, "schema"));
        }
        self.with_content(param, ptr);
    }

    fn response(&mut self, response: &mut Value, ptr: &str) {
        if let Some(headers) = response.get_mut("headers").and_then(Value::as_object_mut) {
            let p = join(ptr, "headers");
            for (name, header) in headers.iter_mut() {
                self.parameter(header, &join(&p, name));
            }
        }
        self.with_content(response, ptr);
    }

    /// Anything with a `content` map of media types (request bodies, responses, parameters).
    fn with_content(&mut self, object: &mut Value, ptr: &str) {
        if let Some(content) = object.get_mut("content").and_then(Value::as_object_mut) {
            let p = join(ptr, "content");
            for (media, media_type) in content.iter_mut() {
                if let Some(schema) = media_type.get_mut("schema") {
                    self.schema(schema, &join(&join(&p, media), "schema"));
                }
            }
        }
    }

    fn schema(&mut self, schema: &mut Value, ptr: &str) {
        // 3.1 boolean schemas: `true` accepts anything, `false` nothing.
        if let Value::Bool(b) = schema {
            *schema = if *b { json!({}) } else { json!({"not": {}}) };
            return;
        }
        let Some(obj) = schema.as_object_mut() else {
            self.diags
                .error(ptr, "a schema must be an object (or, in 3.1, a boolean)");
            return;
        };

        if obj.contains_key("$ref") && !self.ref_siblings(obj, ptr) {
            return;
        }
        nullable_reference(obj);
        self.type_keyword(obj, ptr);
        self.const_and_examples(obj);
        exclusive_bound(obj, "exclusiveMinimum", "minimum");
        exclusive_bound(obj, "exclusiveMaximum", "maximum");
        self.enum_with_null(obj, ptr);
        self.object_with_items(obj, ptr);
        self.stray_keys(obj, ptr);

        // Subschemas. `required: true` on a property is repaired here, where the parent's
        // `required` list can take it.
        if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
            let p = join(ptr, "properties");
            let mut now_required = Vec::new();
            for (name, prop) in props.iter_mut() {
                let pp = join(&p, name);
                let flag = match prop.as_object_mut() {
                    Some(o) if o.get("required").is_some_and(Value::is_boolean) => {
                        o.remove("required").and_then(|v| v.as_bool())
                    }
                    _ => None,
                };
                if let Some(flag) = flag {
                    if flag {
                        now_required.push(name.clone());
                        self.diags.warn(
                            join(&pp, "required"),
                            "`required: true` on a property is not OpenAPI: moved to the parent's `required` list",
                        );
                    } else {
                        self.diags.warn(
                            join(&pp, "required"),
                            "`required: false` on a property is not OpenAPI: removed",
                        );
                    }
                }
            }
            if !now_required.is_empty() {
                let list = obj
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = list {
                    for name in now_required {
                        if !list.iter().any(|v| v.as_str() == Some(&name)) {
                            list.push(Value::String(name));
                        }
                    }
                }
            }
        }
        if let Some(required) = obj.get("required")
            && !required.is_array()
        {
            self.diags.warn(
                join(ptr, "required"),
                "`required` must be a list of property names: removed",
            );
            obj.remove("required");
        }

        for key in SCHEMA_MAP_KEYWORDS {
            if let Some(map) = obj.get_mut(*key).and_then(Value::as_object_mut) {
                let p = join(ptr, key);
                for (name, sub) in map.iter_mut() {
                    self.schema(sub, &join(&p, name));
                }
            }
        }
        for key in SCHEMA_LIST_KEYWORDS {
            if let Some(list) = obj.get_mut(*key).and_then(Value::as_array_mut) {
                let p = join(ptr, key);
                for (i, sub) in list.iter_mut().enumerate() {
                    self.schema(sub, &join(&p, &i.to_string()));
                }
            }
        }
        for key in SCHEMA_KEYWORDS {
            if let Some(sub) = obj.get_mut(*key) {
                self.schema(sub, &join(ptr, key));
            }
        }
        // `false` is meaningful (closed object) and valid 3.0 here; only schemas are walked.
        for key in ["additionalProperties", "unevaluatedProperties"] {
            if let Some(sub) = obj.get_mut(key)
                && sub.is_object()
            {
                self.schema(sub, &join(ptr, key));
            }
        }
        self.items(obj, ptr);
    }

    /// 3.1 gives `$ref` siblings meaning; 3.0 says they are ignored. Returns whether the schema
    /// still needs walking (it does when it was rewritten into an `allOf`).
    fn ref_siblings(&mut self, obj: &mut Map<String, Value>, ptr: &str) -> bool {
        obj.retain(|k, _| !k.starts_with("x-"));
        if obj.len() == 1 {
            return false;
        }
        let reference = obj.remove("$ref").unwrap_or(Value::Null);
        if self.is_31 {
            // Keep the siblings' meaning: `allOf` with the reference, merged again later. An
            // `allOf` already among the siblings keeps its members after the reference.
            let mut all = vec![json!({ "$ref": reference })];
            if let Some(Value::Array(existing)) = obj.remove("allOf") {
                all.extend(existing);
            }
            obj.insert("allOf".into(), Value::Array(all));
            true
        } else {
            let keys: Vec<_> = obj.keys().cloned().collect();
            self.diags.warn(
                ptr,
                format!(
                    "keywords beside `$ref` are ignored in OpenAPI 3.0: dropped {}",
                    keys.join(", ")
                ),
            );
            obj.clear();
            obj.insert("$ref".into(), reference);
            false
        }
    }

    /// `type: [X, "null"]` becomes `type: X, nullable: true`; several types become an `anyOf`.
    /// The new keywords take the place of `type` in the schema (key order is what a tool's
    /// schema shows, and a document moved from 3.0 to 3.1 keeps its catalog).
    fn type_keyword(&mut self, obj: &mut Map<String, Value>, ptr: &str) {
        match obj.get("type").cloned() {
            Some(Value::Array(types)) => {
                let mut names: Vec<String> = Vec::new();
                let mut nullable = false;
                for t in &types {
                    match t.as_str() {
                        Some("null") => nullable = true,
                        Some(t) if TYPES.contains(&t) => {
                            if !names.iter().any(|n| n == t) {
                                names.push(t.to_owned());
                            }
                        }
                        _ => self
                            .diags
                            .warn(join(ptr, "type"), format!("unknown type {t} dropped")),
                    }
                }
                let at = obj.keys().position(|k| k == "type").unwrap_or(obj.len());
                obj.shift_remove("type");
                let mut put = Vec::new();
                match names.len() {
                    0 if nullable => {
                        put.push(("type", json!("null")));
                        nullable = false;
                    }
                    0 => {}
                    1 => put.push(("type", Value::String(names.remove(0)))),
                    _ => {
                        let branches: Vec<Value> =
                            names.iter().map(|t| json!({ "type": t })).collect();
                        if obj.contains_key("anyOf") {
                            // Both constraints must hold: keep the existing `anyOf` and add ours
                            // through `allOf`.
                            let all = obj
                                .entry("allOf")
                                .or_insert_with(|| Value::Array(Vec::new()));
                            if let Value::Array(all) = all {
                                all.push(json!({ "anyOf": branches }));
                            }
                        } else {
                            put.push(("anyOf", Value::Array(branches)));
                        }
                    }
                }
                if nullable {
                    put.push(("nullable", Value::Bool(true)));
                }
                for (offset, (key, value)) in put.into_iter().enumerate() {
                    obj.shift_insert((at + offset).min(obj.len()), key.to_owned(), value);
                }
            }
            Some(Value::String(t)) if !TYPES.contains(&t.as_str()) => {
                self.diags
                    .warn(join(ptr, "type"), format!("unknown type `{t}` dropped"));
                obj.remove("type");
            }
            Some(Value::String(_)) | None => {}
            Some(other) => {
                self.diags.warn(
                    join(ptr, "type"),
                    format!("`type` must be a string or a list of strings, not {other}: dropped"),
                );
                obj.remove("type");
            }
        }
    }

    fn const_and_examples(&mut self, obj: &mut Map<String, Value>) {
        if let Some(c) = obj.remove("const")
            && !obj.contains_key("enum")
        {
            obj.insert("enum".into(), Value::Array(vec![c]));
        }
        // 3.1 `examples` is a list; 3.0 has one `example`.
        match obj.remove("examples") {
            Some(Value::Array(mut list)) if !list.is_empty() && !obj.contains_key("example") => {
                obj.insert("example".into(), list.swap_remove(0));
            }
            _ => {}
        }
    }

    /// An `enum` listing `null` on a schema that is not nullable cannot match `null` in 3.0:
    /// the author clearly meant it to.
    fn enum_with_null(&mut self, obj: &mut Map<String, Value>, ptr: &str) {
        let lists_null = obj
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(Value::is_null));
        let nullable = obj.get("nullable") == Some(&Value::Bool(true))
            || obj.get("type").and_then(Value::as_str) == Some("null");
        if lists_null && !nullable && obj.contains_key("type") {
            self.diags.warn(
                join(ptr, "enum"),
                "`enum` lists null but the schema is not nullable: made nullable",
            );
            obj.insert("nullable".into(), Value::Bool(true));
        }
        if let Some(values) = obj.get("enum")
            && !values.is_array()
        {
            self.diags
                .warn(join(ptr, "enum"), "`enum` must be a list: dropped");
            obj.remove("enum");
        }
    }

    /// `type: object` with `items` is a map whose values are described by `items`: the author
    /// meant `additionalProperties`.
    fn object_with_items(&mut self, obj: &mut Map<String, Value>, ptr: &str) {
        if obj.get("type").and_then(Value::as_str) != Some("object") || !obj.contains_key("items") {
            return;
        }
        let items = obj.remove("items").unwrap_or(Value::Null);
        if obj.contains_key("additionalProperties") {
            self.diags.warn(
                join(ptr, "items"),
                "`items` on an object schema means nothing: dropped",
            );
        } else {
            self.diags.warn(
                join(ptr, "items"),
                "`items` on an object schema: read as `additionalProperties`",
            );
            obj.insert("additionalProperties".into(), items);
        }
    }

    /// Keys that are neither keywords nor extensions (often sub-schemas pasted one level too
    /// high) would reach clients as meaningless annotations.
    fn stray_keys(&mut self, obj: &mut Map<String, Value>, ptr: &str) {
        let stray: Vec<String> = obj
            .keys()
            .filter(|k| !k.starts_with("x-") && !KNOWN_KEYWORDS.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in stray {
            self.diags.warn(
                join(ptr, &key),
                format!("`{key}` is not a schema keyword: dropped"),
            );
            obj.remove(&key);
        }
        if let Some(format) = obj.get("format")
            && !format.is_string()
        {
            self.diags
                .warn(join(ptr, "format"), "`format` must be a string: dropped");
            obj.remove("format");
        }
        for key in [
            "nullable",
            "readOnly",
            "writeOnly",
            "deprecated",
            "uniqueItems",
        ] {
            if let Some(v) = obj.get(key)
                && !v.is_boolean()
            {
                self.diags.warn(
                    join(ptr, key),
                    format!("`{key}` must be a boolean: dropped"),
                );
                obj.remove(key);
            }
        }
    }

    fn items(&mut self, obj: &mut Map<String, Value>, ptr: &str) {
        match obj.get_mut("items") {
            Some(Value::Array(list)) => {
                // Draft-04 tuple form: 3.0 has no tuples, so any of the listed schemas.
                self.diags.warn(
                    join(ptr, "items"),
                    "`items` as a list (tuple) is not OpenAPI 3.0: read as `anyOf` of the list",
                );
                let list = std::mem::take(list);
                obj.insert("items".into(), json!({ "anyOf": list }));
                if let Some(items) = obj.get_mut("items") {
                    self.schema(items, &join(ptr, "items"));
                }
            }
            Some(items) => self.schema(items, &join(ptr, "items")),
            None => {}
        }
    }
}

/// 3.1's nullable reference, `anyOf` (or `oneOf`) of a `$ref` and `{type: "null"}`, becomes
/// 3.0's `allOf: [$ref]` with `nullable: true`: the same type, which may be `null`.
fn nullable_reference(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        let is_null = |b: &Value| {
            b.as_object()
                .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&json!("null")))
        };
        let is_ref = |b: &Value| {
            b.as_object()
                .is_some_and(|o| o.len() == 1 && o.contains_key("$ref"))
        };
        let [first, second] = branches.as_slice() else {
            continue;
        };
        let reference = match (
            is_ref(first) && is_null(second),
            is_null(first) && is_ref(second),
        ) {
            (true, _) => first.clone(),
            (_, true) => second.clone(),
            _ => continue,
        };
        if obj.contains_key("allOf") || obj.contains_key("type") {
            continue;
        }
        obj.remove(key);
        obj.insert("allOf".into(), json!([reference]));
        obj.insert("nullable".into(), Value::Bool(true));
        return;
    }
}

/// 3.1 numeric `exclusiveMinimum: 5` becomes 3.0 `minimum: 5, exclusiveMinimum: true`.
fn exclusive_bound(obj: &mut Map<String, Value>, exclusive: &str, inclusive: &str) {
    if let Some(bound @ Value::Number(_)) = obj.get(exclusive).cloned() {
        obj.insert(inclusive.into(), bound);
        obj.insert(exclusive.into(), Value::Bool(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(doc_version: &str, s: Value) -> (Value, Vec<String>) {
        let doc = json!({
            "openapi": doc_version,
            "paths": {},
            "components": {"schemas": {"S": s}}
        });
        let mut diags = Diagnostics::default();
        let out = normalise(&doc, &mut diags);
        let (_, warnings) = diags.into_parts();
        (
            out["components"]["schemas"]["S"].clone(),
            warnings.into_iter().map(|w| w.to_string()).collect(),
        )
    }

    #[test]
    fn type_array_with_null_becomes_nullable() {
        let (s, w) = schema("3.1.0", json!({"type": ["string", "null"]}));
        assert_eq!(s, json!({"type": "string", "nullable": true}));
        assert!(w.is_empty());
    }

    #[test]
    fn several_types_become_any_of() {
        let (s, _) = schema("3.1.0", json!({"type": ["string", "integer", "null"]}));
        assert_eq!(
            s,
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true})
        );
    }

    #[test]
    fn const_examples_and_exclusive_bounds_take_the_30_form() {
        let (s, _) = schema(
            "3.1.0",
            json!({"type": "number", "const": 3, "examples": [3, 4], "exclusiveMinimum": 1}),
        );
        assert_eq!(
            s,
            json!({"type": "number", "exclusiveMinimum": true, "enum": [3], "example": 3, "minimum": 1})
        );
    }

    #[test]
    fn ref_siblings_become_all_of_in_31_and_are_dropped_in_30() {
        let (s, w) = schema("3.1.0", json!({"$ref": "#/x", "description": "d"}));
        assert_eq!(s, json!({"description": "d", "allOf": [{"$ref": "#/x"}]}));
        assert!(w.is_empty());
        let (s, w) = schema("3.0.3", json!({"$ref": "#/x", "description": "d"}));
        assert_eq!(s, json!({"$ref": "#/x"}));
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn real_faults_are_repaired_with_a_warning() {
        let (s, w) = schema(
            "3.1.0",
            json!({
                "type": "object",
                "items": {"type": "string"},
                "create": {"type": "object"},
                "properties": {
                    "a": {"type": "string", "required": true},
                    "b": {"type": "integer", "enum": [null, 1]}
                }
            }),
        );
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "integer", "enum": [null, 1], "nullable": true}
                },
                "additionalProperties": {"type": "string"},
                "required": ["a"]
            })
        );
        assert_eq!(w.len(), 4, "{w:#?}");
    }

    #[test]
    fn boolean_schemas_become_objects() {
        let (s, _) = schema("3.1.0", json!({"properties": {"a": true, "b": false}}));
        assert_eq!(s, json!({"properties": {"a": {}, "b": {"not": {}}}}));
    }

    #[test]
    fn webhooks_only_document_gets_empty_paths() {
        let mut diags = Diagnostics::default();
        let out = normalise(&json!({"openapi": "3.1.0", "webhooks": {}}), &mut diags);
        assert_eq!(out["paths"], json!({}));
    }

    #[test]
    fn a_type_array_keeps_its_place_among_the_keywords() {
        let (s, _) = schema(
            "3.1.0",
            json!({"description": "d", "type": ["string", "null"], "format": "email"}),
        );
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["description", "type", "nullable", "format"]);
    }

    #[test]
    fn a_reference_or_null_becomes_a_nullable_all_of() {
        for key in ["anyOf", "oneOf"] {
            let (s, _) = schema(
                "3.1.0",
                json!({key: [{"type": "null"}, {"$ref": "#/components/schemas/A"}]}),
            );
            assert_eq!(
                s,
                json!({"allOf": [{"$ref": "#/components/schemas/A"}], "nullable": true})
            );
        }
        // Any other pair stays a choice.
        let (s, _) = schema(
            "3.1.0",
            json!({"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/A"}]}),
        );
        assert!(s.get("anyOf").is_some(), "{s}");
    }

    #[test]
    fn webhooks_schemas_are_normalised() {
        let mut diags = Diagnostics::default();
        let doc = json!({"openapi": "3.1.0", "webhooks": {"a.b": {"post": {"requestBody": {
            "content": {"application/json": {"schema": {"type": ["string", "null"]}}}
        }}}}});
        let out = normalise(&doc, &mut diags);
        assert_eq!(
            out.pointer("/webhooks/a.b/post/requestBody/content/application~1json/schema"),
            Some(&json!({"type": "string", "nullable": true}))
        );
    }
}
