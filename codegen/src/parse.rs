//! Typed reading of the normalised document with `openapiv3`, one operation at a time.
//!
//! Parsing piecewise (each path's parameters, each operation) rather than the whole document
//! at once means one bad operation is reported with its own pointer while the rest is still
//! read, so every error of a document comes out in one run. `$ref`s to parameters, bodies and
//! responses are resolved on demand by JSON pointer, wherever in the document they point.
//!
//! Schemas are *not* taken from the typed model: `openapiv3`'s `Schema` drops keywords it
//! does not know (`const`, `patternProperties`, `contentMediaType`, ...). The typed parse still
//! checks their shape; the `schema` module reads the schemas themselves from the normalised
//! JSON by pointer, with full fidelity.

use openapiv3::{Operation, Parameter, ReferenceOr, SecurityRequirement};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diagnostics::{Diagnostics, join};
use crate::ir::Method;

/// The operations of a document, in tool order, with what the IR stage needs around them.
pub(crate) struct Document<'a> {
    /// The normalised document, for `$ref` resolution and schemas.
    pub(crate) json: &'a Value,
    pub(crate) operations: Vec<RawOperation>,
    /// The document-wide `security`, used when an operation has none.
    pub(crate) security: Option<Vec<SecurityRequirement>>,
}

/// One operation as `openapiv3` reads it.
pub(crate) struct RawOperation {
    pub(crate) path: String,
    pub(crate) method: Method,
    /// Pointer to the operation object, e.g. `/paths/~1v1~1todos/get`.
    pub(crate) pointer: String,
    pub(crate) op: Operation,
    /// Parameters declared on the path item, each with its pointer; the operation's own
    /// parameters override them by name and location.
    pub(crate) path_params: Vec<(ReferenceOr<Parameter>, String)>,
}

/// Tool order: document path order, then this method order.
const METHOD_ORDER: [(&str, Method); 8] = [
    ("get", Method::Get),
    ("post", Method::Post),
    ("put", Method::Put),
    ("patch", Method::Patch),
    ("delete", Method::Delete),
    ("head", Method::Head),
    ("options", Method::Options),
    ("trace", Method::Trace),
];

pub(crate) fn parse<'a>(json: &'a Value, diags: &mut Diagnostics) -> Document<'a> {
    let mut operations = Vec::new();
    match json.get("paths") {
        Some(Value::Object(paths)) => {
            for (path, item) in paths {
                if path.starts_with("x-") {
                    continue;
                }
                let ptr = join("/paths", path);
                operations.extend(path_item(json, path, item, &ptr, diags));
            }
        }
        _ => diags.error("/paths", "`paths` must be an object"),
    }
    let security = match json.get("security") {
        None => None,
        Some(v) => typed::<Vec<SecurityRequirement>>(v, "/security", diags),
    };
    Document {
        json,
        operations,
        security,
    }
}

fn path_item(
    json: &Value,
    path: &str,
    item: &Value,
    ptr: &str,
    diags: &mut Diagnostics,
) -> Vec<RawOperation> {
    let Some(item) = item.as_object() else {
        diags.error(ptr, "a path item must be an object");
        return Vec::new();
    };
    let Some(item) = follow_object(json, item, &join(ptr, "$ref"), diags) else {
        return Vec::new();
    };
    let item = &item;
    if item.contains_key("x-mcp") {
        diags.error(
            join(ptr, "x-mcp"),
            "`x-mcp` belongs on an operation or on the document root, not on a path item",
        );
    }
    let mut path_params = Vec::new();
    if let Some(params) = item.get("parameters") {
        let pp = join(ptr, "parameters");
        if let Some(list) = typed::<Vec<ReferenceOr<Parameter>>>(params, &pp, diags) {
            path_params = list
                .into_iter()
                .enumerate()
                .map(|(i, p)| (p, join(&pp, &i.to_string())))
                .collect();
        }
    }
    let mut out = Vec::new();
    for (key, method) in METHOD_ORDER {
        let Some(op) = item.get(key) else { continue };
        let op_ptr = join(ptr, key);
        // Not in the specification, but written by real documents: an operation by `$ref`.
        let op = match op.as_object() {
            Some(obj) if obj.contains_key("$ref") => {
                match follow_object(json, obj, &join(&op_ptr, "$ref"), diags) {
                    Some(resolved) => Value::Object(resolved),
                    None => continue,
                }
            }
            _ => op.clone(),
        };
        if let Some(op) = typed::<Operation>(&op, &op_ptr, diags) {
            out.push(RawOperation {
                path: path.to_owned(),
                method,
                pointer: op_ptr,
                op,
                path_params: path_params.clone(),
            });
        }
    }
    out
}

/// `obj` with its local `$ref` (if any) written out: the target's keys, then `obj`'s own
/// siblings over them, following references to references; a loop is an error at `at`.
fn follow_object(
    json: &Value,
    obj: &serde_json::Map<String, Value>,
    at: &str,
    diags: &mut Diagnostics,
) -> Option<serde_json::Map<String, Value>> {
    let mut out = obj.clone();
    let mut seen: Vec<String> = Vec::new();
    while let Some(Value::String(reference)) = out.remove("$ref") {
        if seen.contains(&reference) {
            seen.push(reference);
            diags.error(at, format!("a loop of references: {}", seen.join(" → ")));
            return None;
        }
        let target = match ref_pointer(&reference) {
            Ok(p) => p,
            Err(message) => {
                diags.error(at, message);
                return None;
            }
        };
        let Some(Value::Object(target)) = json.pointer(&target) else {
            diags.error(
                at,
                format!("`$ref: {reference}` does not resolve to an object"),
            );
            return None;
        };
        seen.push(reference);
        for (k, v) in target {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Some(out)
}

/// Deserialises `value` as `T`, recording an error at `ptr` when it does not fit.
pub(crate) fn typed<T: DeserializeOwned>(
    value: &Value,
    ptr: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    match T::deserialize(value) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.error(ptr, format!("not a valid OpenAPI object here: {e}"));
            None
        }
    }
}

/// The JSON pointer a local `$ref` (`#/components/...`) names, or an error for anything else.
pub(crate) fn ref_pointer(reference: &str) -> Result<String, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "`$ref: {reference}` points outside this document: only local references (`#/...`) are supported"
        ));
    };
    Ok(percent_decode(fragment))
}

/// Resolves a `ReferenceOr<T>` found at `ptr` to the item and the pointer where it lives.
/// References to references are followed (a bounded number of times).
pub(crate) fn resolve<T: DeserializeOwned + Clone>(
    json: &Value,
    item: &ReferenceOr<T>,
    ptr: &str,
    diags: &mut Diagnostics,
) -> Option<(T, String)> {
    let mut reference = match item {
        ReferenceOr::Item(t) => return Some((t.clone(), ptr.to_owned())),
        ReferenceOr::Reference { reference } => reference.clone(),
    };
    for _ in 0..16 {
        let target = match ref_pointer(&reference) {
            Ok(p) => p,
            Err(message) => {
                diags.error(ptr, message);
                return None;
            }
        };
        let Some(value) = json.pointer(&target) else {
            diags.error(ptr, format!("`$ref: {reference}` does not resolve"));
            return None;
        };
        if let Some(next) = value.get("$ref").and_then(Value::as_str) {
            reference = next.to_owned();
            continue;
        }
        return typed::<T>(value, &target, diags).map(|t| (t, target));
    }
    diags.error(
        ptr,
        format!("`$ref: {reference}` is a chain of references too long to follow"),
    );
    None
}

/// `$ref` values are URI fragments: `%7B` and friends may appear in them.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_refs_are_decoded_and_remote_refs_refused() {
        assert_eq!(
            ref_pointer("#/components/schemas/a%20b").unwrap(),
            "/components/schemas/a b"
        );
        assert!(ref_pointer("other.yaml#/x").is_err());
    }
}
