//! The document's schemas to the models IR: one module per operation (its path parameters,
//! query string, request body and every response body it declares) and the component
//! schemas those reach, each in the form of the side that uses it.
//!
//! Schemas are read from the normalised document (3.0 shape) by pointer, with their `$ref`s
//! kept as names: a component schema becomes one named type per side, an inline object a type
//! named after where it sits (`Me.organization` → `MeOrganization`). What Rust cannot say
//! about a value (`oneOf` of several shapes) stays JSON (`serde_json::Value`); constraints
//! that do not change a value's shape (`allOf` of `required` lists, `if`/`then`) are the
//! schema check's and are left out here.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::ir::{
    Field, Item, Kind, Models, OperationModule, Place, Presence, Side, Ty, WebhookConsts,
};
use crate::FormatType;
use crate::diagnostics::{Diagnostics, join};
use crate::ir::Operation;
use crate::names::{self, IdentSet};
use crate::parse::ref_pointer;

/// The methods of a path item, in the order the tools take them.
const METHODS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "head", "options", "trace",
];

/// The types every models file holds, whose names the document's types cannot take.
pub(crate) const HELPERS: &[&str] = &["Patch", "Cents", "WEBHOOKS"];

/// The vendor key naming a format that matters to code but not to a validator (see
/// `codegen/X-MCP.md`, "Formats for the models").
pub(crate) const X_FORMAT: &str = "x-format";

/// Builds the models of `ops` (in tool order; `prefix` starts their names) from the
/// normalised document `doc`.
pub(crate) fn build(
    doc: &Value,
    ops: &[Operation],
    prefix: &str,
    formats: &[FormatType],
    diags: &mut Diagnostics,
) -> Models {
    let mut builder = Builder {
        doc,
        formats,
        diags,
        models: Models::default(),
        done: HashMap::new(),
        names: HashMap::new(),
        following: Vec::new(),
    };
    let root = builder.names.entry(Place::Root).or_default();
    for helper in HELPERS {
        root.reserve(helper);
    }
    let mut modules = IdentSet::default();
    modules.reserve("request");
    modules.reserve("response");
    for (index, op) in ops.iter().enumerate() {
        let name = op.name.as_str();
        let ident = modules.claim(&names::module_ident(
            name.strip_prefix(prefix).unwrap_or(name),
        ));
        builder.models.operations.push(OperationModule {
            ident,
            doc: format!(
                "`{}`: {} {}",
                op.name.as_str(),
                op.method.as_str().to_uppercase(),
                op.path
            ),
            webhook: None,
        });
        builder.operation(op, index);
    }
    builder.webhooks(&mut modules);
    builder.settle();
    builder.models
}

struct Builder<'a, 'd> {
    doc: &'a Value,
    formats: &'a [FormatType],
    diags: &'d mut Diagnostics,
    models: Models,
    /// Items already made for a schema, by its pointer and side (enums: always
    /// [`Side::Request`], one form serving both).
    done: HashMap<(String, Side), usize>,
    /// The names taken in each place.
    names: HashMap<Place, IdentSet>,
    /// The references being followed, outermost first.
    following: Vec<String>,
}

/// Where a schema sits, for naming what it becomes: the place of its item and the words its
/// name is made of.
#[derive(Clone)]
struct At {
    place: Place,
    /// The name of the enclosing type, or nothing directly inside an operation's own type.
    prefix: Vec<String>,
    /// The component whose `$defs` a `#/$defs/...` reference means.
    root: Option<String>,
}

impl Builder<'_, '_> {
    fn operation(&mut self, op: &Operation, index: usize) {
        let place = Place::Operation(index);
        let at = At {
            place: place.clone(),
            prefix: Vec::new(),
            root: None,
        };
        let Some(raw) = self.doc.pointer(&op.pointer) else {
            return;
        };
        let params = self.parameters(&op.pointer);
        for (location, name) in [("path", "Path"), ("query", "Query")] {
            let fields: Vec<(String, String, bool, Option<String>)> = params
                .iter()
                .filter(|p| p.location == location)
                .map(|p| {
                    (
                        p.name.clone(),
                        p.schema.clone(),
                        p.required || location == "path",
                        p.description.clone(),
                    )
                })
                .collect();
            if fields.is_empty() {
                continue;
            }
            let doc = match location {
                "path" => "The path parameters.",
                _ => "The query string.",
            };
            self.parameter_struct(name, doc, &fields, &at);
        }
        if let Some(body) = raw.get("requestBody") {
            let (body, body_ptr) = self.follow(body, &join(&op.pointer, "requestBody"));
            if let Some(schema_ptr) = json_schema(body.as_ref(), &body_ptr) {
                let description = text(body.as_ref().and_then(|b| b.get("description")));
                self.named(&schema_ptr, "Body", description, Side::Request, &at);
            }
        }
        if let Some(Value::Object(responses)) = raw.get("responses") {
            let responses_ptr = join(&op.pointer, "responses");
            for (status, response) in responses {
                if status.starts_with("x-") {
                    continue;
                }
                let ptr = join(&responses_ptr, status);
                let (response, at_ptr) = self.follow(response, &ptr);
                let Some(schema_ptr) = json_schema(response.as_ref(), &at_ptr) else {
                    continue;
                };
                let name = names::type_ident(&["response", status]);
                let description = text(response.as_ref().and_then(|r| r.get("description")));
                self.named(&schema_ptr, &name, description, Side::Response, &at);
            }
        }
    }

    /// The document's `webhooks` (OpenAPI 3.1), after the operations: a module per webhook
    /// and method, named after the webhook (`charge.paid` → `charge_paid`), holding its
    /// request body as `Body` in the form the server writes (it is the service that sends a
    /// webhook), with the webhook's `NAME` and its body's `SCHEMA`.
    fn webhooks(&mut self, modules: &mut IdentSet) {
        let Some(Value::Object(webhooks)) = self.doc.get("webhooks") else {
            return;
        };
        for (name, item) in webhooks {
            let item_ptr = join("/webhooks", name);
            let methods: Vec<&str> = METHODS
                .iter()
                .copied()
                .filter(|m| item.get(*m).is_some_and(Value::is_object))
                .collect();
            for method in &methods {
                let words = if methods.len() == 1 {
                    name.clone()
                } else {
                    format!("{name} {method}")
                };
                let ident = modules.claim(&names::module_ident(&words));
                let op_ptr = join(&item_ptr, method);
                let op = &item[*method];
                let summary = text(op.get("summary")).unwrap_or_default();
                let index = self.models.operations.len();
                let at = At {
                    place: Place::Operation(index),
                    prefix: Vec::new(),
                    root: None,
                };
                let mut schema = None;
                let mut body_type = None;
                if let Some(body) = op.get("requestBody") {
                    let (body, body_ptr) = self.follow(body, &join(&op_ptr, "requestBody"));
                    if let Some(schema_ptr) = json_schema(body.as_ref(), &body_ptr) {
                        let raw = self.doc.pointer(&schema_ptr).cloned().unwrap_or_default();
                        let converted = crate::schema::convert(
                            self.doc,
                            &raw,
                            &schema_ptr,
                            crate::schema::Direction::Input,
                            self.diags,
                        );
                        schema = Some(converted.to_string());
                        body_type = Some((
                            schema_ptr,
                            text(body.as_ref().and_then(|b| b.get("description"))),
                        ));
                    }
                }
                self.models.operations.push(OperationModule {
                    ident,
                    doc: format!(
                        "The `{name}` webhook: {} by the service{}",
                        method.to_uppercase(),
                        if summary.is_empty() {
                            String::new()
                        } else {
                            format!(". {summary}")
                        }
                    ),
                    webhook: Some(WebhookConsts {
                        name: name.clone(),
                        schema,
                    }),
                });
                if let Some((schema_ptr, description)) = body_type {
                    self.named(&schema_ptr, "Body", description, Side::Response, &at);
                }
            }
        }
    }

    /// A parameter struct (`Path`, `Query`): one field per parameter, by wire name.
    fn parameter_struct(
        &mut self,
        name: &str,
        doc: &str,
        params: &[(String, String, bool, Option<String>)],
        at: &At,
    ) {
        let index = self.push(name, at.place.clone(), Side::Request, Some(doc.to_owned()));
        let inner = At {
            place: at.place.clone(),
            prefix: Vec::new(),
            root: None,
        };
        let mut idents = IdentSet::default();
        let mut fields = Vec::new();
        for (wire, schema_ptr, required, description) in params {
            let schema = self.doc.pointer(schema_ptr).cloned().unwrap_or_default();
            let (ty, nullable) = self.ty(schema_ptr, &schema, wire, Side::Request, &inner);
            fields.push(Field {
                wire: wire.clone(),
                ident: idents.claim(&names::field_ident(wire)),
                ty,
                presence: Presence {
                    required: *required,
                    nullable,
                },
                boxed: false,
                doc: description
                    .clone()
                    .or_else(|| text(schema.get("description"))),
            });
        }
        self.models.items[index].kind = Kind::Struct {
            fields,
            closed: false,
        };
    }

    /// The item called `name` in an operation's module for the schema at `ptr`: the struct or
    /// enum itself when it is written inline, an alias of the component it refers to
    /// otherwise.
    fn named(&mut self, ptr: &str, name: &str, doc: Option<String>, side: Side, at: &At) {
        let schema = self.doc.pointer(ptr).cloned().unwrap_or_default();
        let is_ref = schema.get("$ref").is_some();
        let (ty, nullable) = if is_ref {
            self.ty(ptr, &schema, name, side, at)
        } else {
            // Written inline: the operation's own type takes the name as it is.
            let at = At {
                prefix: vec![name.to_owned()],
                ..at.clone()
            };
            self.ty_named(ptr, &schema, name, side, &at)
        };
        let is_own = matches!(ty, Ty::Item(i) if self.models.items[i].name == name && self.models.items[i].place == at.place);
        if !is_own || nullable {
            let index = self.push(name, at.place.clone(), side, doc);
            self.models.items[index].kind = Kind::Alias { ty, nullable };
        } else if let Ty::Item(i) = ty
            && self.models.items[i].doc.is_none()
        {
            self.models.items[i].doc = doc;
        }
    }

    /// The path item's parameters overridden by the operation's own, resolved.
    fn parameters(&mut self, op_ptr: &str) -> Vec<Param> {
        let item_ptr = op_ptr.rsplit_once('/').map_or("", |(item, _)| item);
        let mut out: Vec<Param> = Vec::new();
        for list_ptr in [join(item_ptr, "parameters"), join(op_ptr, "parameters")] {
            let Some(Value::Array(list)) = self.doc.pointer(&list_ptr) else {
                continue;
            };
            for (i, param) in list.iter().enumerate() {
                let (param, at) = self.follow(param, &join(&list_ptr, &i.to_string()));
                let Some(param) = param else { continue };
                let (Some(name), Some(location)) = (
                    param.get("name").and_then(Value::as_str),
                    param.get("in").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let schema = if param.get("schema").is_some() {
                    join(&at, "schema")
                } else {
                    match json_schema(Some(&param), &at) {
                        Some(schema) => schema,
                        None => continue,
                    }
                };
                let entry = Param {
                    name: name.to_owned(),
                    location: location.to_owned(),
                    schema,
                    required: param.get("required") == Some(&Value::Bool(true)),
                    description: text(param.get("description")),
                };
                match out
                    .iter_mut()
                    .find(|p| p.name == entry.name && p.location == entry.location)
                {
                    Some(slot) => *slot = entry,
                    None => out.push(entry),
                }
            }
        }
        out
    }

    /// `value` with its `$ref`s followed (the document's own pointers), and the pointer where
    /// the object found lives.
    fn follow(&mut self, value: &Value, ptr: &str) -> (Option<Value>, String) {
        let mut current = value.clone();
        let mut at = ptr.to_owned();
        for _ in 0..16 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                return (Some(current), at);
            };
            let Ok(target) = ref_pointer(reference) else {
                return (None, at);
            };
            let Some(found) = self.doc.pointer(&target) else {
                return (None, at);
            };
            current = found.clone();
            at = target;
        }
        (None, at)
    }

    /// A new item, named uniquely in its place.
    fn push(&mut self, name: &str, place: Place, side: Side, doc: Option<String>) -> usize {
        let name = self.names.entry(place.clone()).or_default().claim(name);
        self.models.items.push(Item {
            name,
            place,
            side,
            kind: Kind::Alias {
                ty: Ty::Json,
                nullable: false,
            },
            doc,
            borrows: false,
        });
        self.models.items.len() - 1
    }

    /// The type of the schema `schema` found at `ptr`, for the property (or parameter) `name`
    /// of the type `at` describes; and whether it may be `null`.
    fn ty(&mut self, ptr: &str, schema: &Value, name: &str, side: Side, at: &At) -> (Ty, bool) {
        let mut words = at.prefix.clone();
        words.push(name.to_owned());
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let type_name = names::type_ident(&refs);
        let at = At {
            prefix: vec![type_name.clone()],
            ..at.clone()
        };
        self.ty_named(ptr, schema, &type_name, side, &at)
    }

    /// As [`ty`](Self::ty), the name of a type it makes already chosen.
    fn ty_named(
        &mut self,
        ptr: &str,
        schema: &Value,
        type_name: &str,
        side: Side,
        at: &At,
    ) -> (Ty, bool) {
        let Some(obj) = schema.as_object() else {
            return (Ty::Json, false);
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, side, at);
        }
        let mut nullable = obj.get("nullable") == Some(&Value::Bool(true));
        // `anyOf`/`oneOf` of one shape and `null` is that shape, nullable; of shapes that
        // add only constraints (`required` lists) it is the schema itself.
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = obj.get(key) else {
                continue;
            };
            let shaped: Vec<(usize, &Value)> = branches
                .iter()
                .enumerate()
                .filter(|(_, b)| b.get("type") != Some(&Value::String("null".into())))
                .filter(|(_, b)| has_shape(b))
                .collect();
            nullable |= branches
                .iter()
                .any(|b| b.get("type") == Some(&Value::String("null".into())));
            match shaped.as_slice() {
                [] => {}
                [(i, branch)] if !has_shape(&strip(obj, &[key])) => {
                    let branch_ptr = join(&join(ptr, key), &i.to_string());
                    let (ty, null) = self.ty_named(&branch_ptr, branch, type_name, side, at);
                    return (ty, nullable || null);
                }
                _ => return (Ty::Json, nullable),
            }
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            return self.all_of(ptr, obj, parts, type_name, side, at, nullable);
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            let words: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            nullable |= values.contains(&Value::Null);
            let all_strings = words.len() == values.iter().filter(|v| !v.is_null()).count();
            if all_strings && !words.is_empty() {
                return (self.enumeration(ptr, obj, &words, type_name, at), nullable);
            }
        }
        let type_word = obj.get("type").and_then(Value::as_str);
        if obj.contains_key(X_FORMAT) && !matches!(type_word, Some("string" | "number" | "integer"))
        {
            self.diags.error(
                join(ptr, X_FORMAT),
                "`x-format` belongs on a schema of type string, number or integer",
            );
        }
        let ty = match type_word {
            Some("string") | Some("number") | Some("integer") => match self.format(ptr, obj) {
                Some(ty) => ty,
                None => match obj.get("type").and_then(Value::as_str) {
                    Some("string") => Ty::String,
                    Some("number") => Ty::F64,
                    _ if obj.get("format").and_then(Value::as_str) == Some("int32") => Ty::I32,
                    _ => Ty::I64,
                },
            },
            Some("boolean") => Ty::Bool,
            Some("array") => match obj.get("items") {
                Some(items) => {
                    let item_name = format!("{type_name}Item");
                    let (item, _) = self.ty_named(&join(ptr, "items"), items, &item_name, side, at);
                    Ty::Array(Box::new(item))
                }
                None => Ty::Array(Box::new(Ty::Json)),
            },
            Some("object") | None if obj.get("properties").is_some() => {
                self.structure(ptr, obj, &[], type_name, side, at)
            }
            Some("object") => match obj.get("additionalProperties") {
                Some(values @ Value::Object(map)) if !map.is_empty() => {
                    let value_name = format!("{type_name}Value");
                    let (value, _) = self.ty_named(
                        &join(ptr, "additionalProperties"),
                        values,
                        &value_name,
                        side,
                        at,
                    );
                    Ty::Map(Box::new(value))
                }
                _ => Ty::JsonObject,
            },
            _ => Ty::Json,
        };
        (ty, nullable)
    }

    /// A `$ref`: the component's item, made on first use.
    fn reference(&mut self, reference: &str, side: Side, at: &At) -> (Ty, bool) {
        let Ok(mut target) = ref_pointer(reference) else {
            return (Ty::Json, false);
        };
        // `#/$defs/x` inside a component means that component's own `$defs`.
        if self.doc.pointer(&target).is_none()
            && let (Some(rest), Some(root)) = (target.strip_prefix("/$defs/"), &at.root)
        {
            target = join(&join(root, "$defs"), rest);
        }
        // A reference that does not resolve, or a loop of schemas that are only references,
        // is reported by the catalog's conversion (`schema`), once.
        let Some(schema) = self.doc.pointer(&target).cloned() else {
            return (Ty::Json, false);
        };
        let made = [side, Side::Request]
            .iter()
            .any(|s| self.done.contains_key(&(target.clone(), *s)));
        if self.following.contains(&target) && !made {
            return (Ty::Json, false);
        }
        let name = component_name(&target);
        let root = if target.starts_with("/components/schemas/") {
            Some(target.clone())
        } else {
            at.root.clone()
        };
        let place = match side {
            Side::Request => Place::Request,
            Side::Response => Place::Response,
        };
        let inner = At {
            place,
            prefix: vec![name.clone()],
            root,
        };
        self.following.push(target.clone());
        let out = self.ty_named(&target, &schema, &name, side, &inner);
        self.following.pop();
        out
    }

    /// An `allOf`: the properties of every branch (references followed) and of the schema
    /// itself in one struct; branches that only add constraints are the schema check's.
    #[allow(clippy::too_many_arguments)]
    fn all_of(
        &mut self,
        ptr: &str,
        obj: &Map<String, Value>,
        parts: &[Value],
        type_name: &str,
        side: Side,
        at: &At,
        nullable: bool,
    ) -> (Ty, bool) {
        let mut branches: Vec<(String, Value)> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let (part, part_ptr) = self.follow(part, &join(&join(ptr, "allOf"), &i.to_string()));
            if let Some(part) = part.filter(has_shape) {
                branches.push((part_ptr, part));
            }
        }
        let own = strip(obj, &["allOf"]);
        if branches.len() == 1 && !has_shape(&own) {
            let (branch_ptr, branch) = branches.remove(0);
            let (ty, null) = self.ty_named(&branch_ptr, &branch, type_name, side, at);
            return (ty, nullable || null);
        }
        if branches.iter().all(|(_, b)| is_object_like(b)) {
            let own = own.as_object().cloned().unwrap_or_default();
            return (
                self.structure(ptr, &own, &branches, type_name, side, at),
                nullable,
            );
        }
        (Ty::Json, nullable)
    }

    /// An enum of wire words; one item per schema, serving both sides.
    fn enumeration(
        &mut self,
        ptr: &str,
        obj: &Map<String, Value>,
        words: &[&str],
        type_name: &str,
        at: &At,
    ) -> Ty {
        let key = (ptr.to_owned(), Side::Request);
        if let Some(&index) = self.done.get(&key) {
            return Ty::Item(index);
        }
        // Enums of a component live at the root: both sides name the same type.
        let place = match at.place {
            Place::Operation(_) => at.place.clone(),
            _ => Place::Root,
        };
        let index = self.push(
            type_name,
            place,
            Side::Request,
            text(obj.get("description")),
        );
        self.done.insert(key, index);
        let mut idents = IdentSet::default();
        let mut variants = Vec::new();
        for word in words {
            if variants.iter().any(|(_, w): &(String, String)| w == word) {
                continue;
            }
            variants.push((
                idents.claim(&names::variant_ident(word)),
                (*word).to_owned(),
            ));
        }
        self.models.items[index].kind = Kind::Enum { variants };
        Ty::Item(index)
    }

    /// A struct of the properties of `obj` and of `branches` (an `allOf`'s, in order).
    fn structure(
        &mut self,
        ptr: &str,
        obj: &Map<String, Value>,
        branches: &[(String, Value)],
        type_name: &str,
        side: Side,
        at: &At,
    ) -> Ty {
        let key = (ptr.to_owned(), side);
        if let Some(&index) = self.done.get(&key) {
            return Ty::Item(index);
        }
        let index = self.push(
            type_name,
            at.place.clone(),
            side,
            text(obj.get("description")),
        );
        self.done.insert(key, index);
        let inner = At {
            prefix: vec![self.models.items[index].name.clone()],
            ..at.clone()
        };
        let mut sources: Vec<(String, &Map<String, Value>)> = branches
            .iter()
            .filter_map(|(p, b)| b.as_object().map(|b| (p.clone(), b)))
            .collect();
        sources.push((ptr.to_owned(), obj));
        let mut required: Vec<&str> = Vec::new();
        for (_, source) in &sources {
            if let Some(Value::Array(list)) = source.get("required") {
                required.extend(list.iter().filter_map(Value::as_str));
            }
        }
        let hidden = match side {
            Side::Request => "readOnly",
            Side::Response => "writeOnly",
        };
        let mut idents = IdentSet::default();
        let mut fields: Vec<Field> = Vec::new();
        let mut closed = false;
        for (source_ptr, source) in &sources {
            closed |= source.get("additionalProperties") == Some(&Value::Bool(false));
            let Some(Value::Object(props)) = source.get("properties") else {
                continue;
            };
            let props_ptr = join(source_ptr, "properties");
            for (wire, prop) in props {
                if fields.iter().any(|f| &f.wire == wire) || self.hidden(prop, hidden) {
                    continue;
                }
                let prop_ptr = join(&props_ptr, wire);
                let (ty, nullable) = self.ty(&prop_ptr, prop, wire, side, &inner);
                let doc = text(prop.get("description")).or_else(|| {
                    self.follow(prop, &prop_ptr)
                        .0
                        .and_then(|p| text(p.get("description")))
                });
                fields.push(Field {
                    wire: wire.clone(),
                    ident: idents.claim(&names::field_ident(wire)),
                    ty,
                    presence: Presence {
                        required: required.contains(&wire.as_str()),
                        nullable,
                    },
                    boxed: false,
                    doc,
                });
            }
        }
        self.models.items[index].kind = Kind::Struct { fields, closed };
        Ty::Item(index)
    }

    /// Whether a property is left out of this side's form (`readOnly` in requests,
    /// `writeOnly` in responses), its reference followed.
    fn hidden(&mut self, prop: &Value, keyword: &str) -> bool {
        if prop.get(keyword) == Some(&Value::Bool(true)) {
            return true;
        }
        match self.follow(prop, "") {
            (Some(target), _) => target.get(keyword) == Some(&Value::Bool(true)),
            _ => false,
        }
    }

    /// The type the settings give the schema's format (`x-format` first, then `format`).
    fn format(&mut self, ptr: &str, obj: &Map<String, Value>) -> Option<Ty> {
        if let Some(vendor) = obj.get(X_FORMAT) {
            let at = join(ptr, X_FORMAT);
            let Some(word) = vendor.as_str() else {
                self.diags.error(at, "`x-format` must be a string");
                return None;
            };
            return match self.formats.iter().position(|f| f.format == word) {
                Some(index) => Some(Ty::Format(index)),
                None => {
                    let known: Vec<&str> = self.formats.iter().map(|f| f.format.as_str()).collect();
                    self.diags.error(
                        at,
                        format!(
                            "`x-format: {word}` names no Rust type (the settings have {}): add it to `Settings::models.formats`",
                            known.join(", ")
                        ),
                    );
                    None
                }
            };
        }
        let word = obj.get("format").and_then(Value::as_str)?;
        self.formats
            .iter()
            .position(|f| f.format == word)
            .map(Ty::Format)
    }

    /// What can be known only once every item exists: which fields hold their own struct
    /// (they are boxed) and which response forms borrow.
    fn settle(&mut self) {
        let count = self.models.items.len();
        for index in 0..count {
            let Kind::Struct { fields, .. } = &self.models.items[index].kind else {
                continue;
            };
            let boxed: Vec<bool> = fields
                .iter()
                .map(|f| reaches(&self.models, &f.ty, index, &mut vec![false; count]))
                .collect();
            if let Kind::Struct { fields, .. } = &mut self.models.items[index].kind {
                for (field, boxed) in fields.iter_mut().zip(boxed) {
                    field.boxed = boxed;
                }
            }
        }
        loop {
            let mut changed = false;
            for index in 0..count {
                let item = &self.models.items[index];
                if item.borrows || item.side != Side::Response {
                    continue;
                }
                let borrows = match &item.kind {
                    Kind::Struct { fields, .. } => {
                        fields.iter().any(|f| borrows(&self.models, &f.ty))
                    }
                    Kind::Alias { ty, .. } => borrows(&self.models, ty),
                    Kind::Enum { .. } => false,
                };
                if borrows {
                    self.models.items[index].borrows = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
}

/// One parameter, resolved.
struct Param {
    name: String,
    location: String,
    /// Pointer of its schema.
    schema: String,
    required: bool,
    description: Option<String>,
}

/// Whether a value of type `ty` holds (not behind a `Vec` or map) the item `target`.
fn reaches(models: &Models, ty: &Ty, target: usize, seen: &mut Vec<bool>) -> bool {
    let Ty::Item(index) = ty else {
        return false;
    };
    if *index == target {
        return true;
    }
    if std::mem::replace(&mut seen[*index], true) {
        return false;
    }
    match &models.items[*index].kind {
        Kind::Struct { fields, .. } => fields.iter().any(|f| reaches(models, &f.ty, target, seen)),
        Kind::Alias { ty, .. } => reaches(models, ty, target, seen),
        Kind::Enum { .. } => false,
    }
}

/// Whether the response form of `ty` borrows from the server's values.
pub(crate) fn borrows(models: &Models, ty: &Ty) -> bool {
    match ty {
        Ty::String | Ty::Json | Ty::JsonObject | Ty::Array(_) | Ty::Map(_) => true,
        Ty::Bool | Ty::I32 | Ty::I64 | Ty::F64 | Ty::Format(_) => false,
        Ty::Item(index) => models.items[*index].borrows,
    }
}

/// The type name of a component schema (`/components/schemas/TodoList` → `TodoList`, a
/// `$defs` entry → its component and its key).
fn component_name(pointer: &str) -> String {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let words: Vec<&str> = match tokens.as_slice() {
        [components, schemas, name] if components == "components" && schemas == "schemas" => {
            vec![name]
        }
        [_, _, name, defs, key] if defs == "$defs" => vec![name, key],
        other => other.iter().rev().take(1).map(String::as_str).collect(),
    };
    names::type_ident(&words)
}

/// The pointer of the JSON media type's schema in a body's, response's or parameter's
/// `content` (`ptr` is where the object lives).
fn json_schema(object: Option<&Value>, ptr: &str) -> Option<String> {
    let content = object?.get("content")?.as_object()?;
    let media = content.keys().find(|m| is_json(m))?;
    content.get(media)?.get("schema")?;
    Some(join(&join(&join(ptr, "content"), media), "schema"))
}

/// `application/json` and `*+json`, parameters ignored.
fn is_json(media: &str) -> bool {
    let media = media.split(';').next().unwrap_or_default().trim();
    media == "application/json" || media.ends_with("+json")
}

/// Whether a schema says something about a value's shape (a type, properties, items, an
/// enum, a reference, a composition of shapes), not only constraints.
fn has_shape(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    let shaped = [
        "$ref",
        "type",
        "properties",
        "items",
        "enum",
        "additionalProperties",
    ]
    .iter()
    .any(|k| obj.contains_key(*k));
    shaped
        || ["allOf", "anyOf", "oneOf"].iter().any(|k| {
            obj.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(has_shape))
        })
}

/// Whether a schema describes an object (or gives properties).
fn is_object_like(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || schema.get("properties").is_some()
}

/// `obj` without `keys`.
fn strip(obj: &Map<String, Value>, keys: &[&str]) -> Value {
    let mut out = obj.clone();
    for key in keys {
        out.remove(*key);
    }
    Value::Object(out)
}

/// A description, trimmed; none when blank.
fn text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}
