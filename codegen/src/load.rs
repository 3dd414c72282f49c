//! Reading a document spread over several files into one, before [`crate::generate`].
//!
//! This is the crate's only file IO, kept apart so that `generate` stays a pure function of
//! one JSON value. Every `$ref` to another file (`paths/pets.yaml`, `../common.json#/Error`,
//! relative to the file it is written in) is *bundled*: its target is copied into the root
//! document and the reference rewritten to point there, recursively, so the generator only
//! ever sees local references.
//!
//! - A target used as a schema, parameter, request body, response, header, example, link or
//!   callback goes to `#/components/<kind>/<name>`, where the ordinary normalisation and
//!   `$ref` resolution treat it like any component (the kind comes from where the reference
//!   is used; `<name>` is the pointer's last token or the file's stem, made unique).
//! - A path item or an operation given by reference is written out in place, its sibling
//!   keys winning (OpenAPI 3.1 lets `summary`/`description` sit next to a path item `$ref`).
//! - Local references inside another file (`#/definitions/Pet` in `schemas.json`) name
//!   that file, and are bundled the same way.
//!
//! - Anywhere else (a `$ref` standing for a whole `properties` map, for a `description`'s
//!   text, ...), where OpenAPI allows no Reference Object, the reference is read as JSON
//!   Reference says (RFC 6901 pointers, the object replaced by its target, as Redocly and
//!   swagger-cli bundle it), with a warning naming the place: DigitalOcean's public
//!   document writes `properties: {$ref: 'models/attributes.yml#/...'}` and
//!   `description: {$ref: 'description.yml#/introduction'}`.
//!
//! Each (file, pointer) target is bundled once, before its own references are followed, so
//! cycles across files end in ordinary local references (and then in the schema module's
//! recursion cuts). A reference that cannot be resolved is an error naming the file, the
//! pointer and the place (a JSON pointer of the bundled document) where it was used.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diagnostics::{Diagnostics, join};
use crate::{Report, Result, load_document_bytes};

/// A document read from disk with every file it references bundled in.
#[derive(Debug, Clone)]
pub struct LoadedDocument {
    /// The bundled document, for [`crate::generate`].
    pub document: Value,
    /// Every file read, the root first: what a build script re-runs on
    /// (`cargo:rerun-if-changed`).
    pub files: Vec<PathBuf>,
    /// References read where OpenAPI allows none, each replaced by its target.
    pub warnings: Vec<crate::Diagnostic>,
}

/// Reads the document at `path` and every file its `$ref`s reach.
pub fn load(path: &Path) -> Result<LoadedDocument> {
    let bytes = std::fs::read(path)
        .map_err(|e| Report::single("", format!("cannot read {}: {e}", path.display())))?;
    let mut root = load_document_bytes(&bytes).map_err(|r| in_file(r, path))?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let mut bundler = Bundler {
        root_file: canonical.clone(),
        root_dir: canonical.parent().map(Path::to_owned).unwrap_or_default(),
        files: vec![canonical.clone()],
        cache: HashMap::new(),
        bundled: HashMap::new(),
        components: taken_names(&root),
        diags: Diagnostics::default(),
        inlining: Vec::new(),
        from: canonical.clone(),
    };
    bundler.cache.insert(canonical.clone(), Ok(root.clone()));
    bundler.walk(&mut root, &canonical, &mut Vec::new());
    if bundler.diags.has_errors() {
        let (errors, _) = bundler.diags.into_parts();
        return Err(Report { errors });
    }
    let (_, warnings) = std::mem::take(&mut bundler.diags).into_parts();
    if !bundler.components.added.is_empty() {
        let Some(obj) = root.as_object_mut() else {
            unreachable!("a document with references is an object")
        };
        let components = obj
            .entry("components")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(components) = components.as_object_mut() {
            for (kind, name, value) in bundler.components.added.drain(..) {
                if let Some(section) = components
                    .entry(kind)
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut()
                {
                    section.insert(name, value);
                }
            }
        }
    }
    Ok(LoadedDocument {
        document: root,
        files: bundler.files,
        warnings,
    })
}

/// Prefixes every error of a report about a whole file with the file's name.
fn in_file(report: Report, path: &Path) -> Report {
    Report {
        errors: report
            .errors
            .into_iter()
            .map(|mut e| {
                e.message = format!("{}: {}", path.display(), e.message);
                e
            })
            .collect(),
    }
}

/// Component names in use, by kind, and the bundled components waiting to be added.
struct Components {
    taken: HashMap<String, Vec<String>>,
    added: Vec<(String, String, Value)>,
}

fn taken_names(root: &Value) -> Components {
    let mut taken = HashMap::new();
    if let Some(components) = root.get("components").and_then(Value::as_object) {
        for (kind, section) in components {
            if let Some(section) = section.as_object() {
                taken.insert(kind.clone(), section.keys().cloned().collect());
            }
        }
    }
    Components {
        taken,
        added: Vec::new(),
    }
}

impl Components {
    /// A fresh name for a component of `kind`, from `wanted`.
    fn reserve(&mut self, kind: &str, wanted: &str) -> String {
        let base: String = wanted
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.is_empty() { "ref".into() } else { base };
        let names = self.taken.entry(kind.to_owned()).or_default();
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name.clone());
        name
    }
}

/// Where a reference is used decides what its target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Component(&'static str),
    /// Path items and operations: written out in place.
    Inline,
    /// Somewhere OpenAPI allows no Reference Object: the object becomes its target (JSON
    /// Reference), with a warning.
    Replace,
}

struct Bundler {
    root_file: PathBuf,
    /// The root document's folder: files are named relative to it in messages.
    root_dir: PathBuf,
    files: Vec<PathBuf>,
    /// Each file read, parsed (or why it could not be).
    cache: HashMap<PathBuf, std::result::Result<Value, String>>,
    /// (file, pointer, kind) → the local reference it was bundled as.
    bundled: HashMap<(PathBuf, String, &'static str), String>,
    components: Components,
    diags: Diagnostics,
    /// Inline targets being written out, against `$ref` loops between path items.
    inlining: Vec<(PathBuf, String)>,
    /// The file holding the reference being resolved, for messages.
    from: PathBuf,
}

impl Bundler {
    /// `file` as a reader of the root document would name it.
    fn name(&self, file: &Path) -> String {
        file.strip_prefix(&self.root_dir)
            .unwrap_or(file)
            .display()
            .to_string()
    }

    /// Rewrites the references in `value`, which lives in `file` at the bundled-document
    /// location `loc` (reference tokens).
    fn walk(&mut self, value: &mut Value, file: &Path, loc: &mut Vec<String>) {
        match value {
            Value::Object(obj) => {
                if let Some(Value::String(reference)) = obj.get("$ref")
                    && kind_of(loc) == Kind::Replace
                {
                    let reference = reference.clone();
                    if let Some(target) = self.replacement(obj, &reference, file, loc) {
                        *value = target;
                    }
                    return;
                }
                if let Some(Value::String(reference)) = obj.get("$ref") {
                    let reference = reference.clone();
                    // An inlined path item or operation was walked in its own file's terms.
                    if kind_of(loc) == Kind::Inline {
                        self.reference(obj, &reference, file, loc);
                        return;
                    }
                    self.reference(obj, &reference, file, loc);
                }
                // Under these, keys are names (a property may be called `default`).
                let names = loc
                    .last()
                    .is_some_and(|l| SCHEMA_MAPS.contains(&l.as_str()) || l == "responses");
                for (key, child) in obj.iter_mut() {
                    // Example values and enumerations are data, not schema: a `$ref` in them
                    // is text.
                    if !names && matches!(key.as_str(), "example" | "default" | "enum" | "const") {
                        continue;
                    }
                    loc.push(key.clone());
                    self.walk(child, file, loc);
                    loc.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter_mut().enumerate() {
                    loc.push(i.to_string());
                    self.walk(child, file, loc);
                    loc.pop();
                }
            }
            _ => {}
        }
    }

    fn reference(
        &mut self,
        obj: &mut Map<String, Value>,
        reference: &str,
        file: &Path,
        loc: &mut Vec<String>,
    ) {
        let (file_part, fragment) = match reference.split_once('#') {
            Some((f, p)) => (f, p),
            None => (reference, ""),
        };
        if file_part.is_empty() && file == self.root_file {
            // Local to the root document: the generator resolves it.
            let kind = kind_of(loc);
            if kind == Kind::Inline {
                self.from = file.to_owned();
                self.inline(obj, &self.root_file.clone(), fragment, reference, loc);
            }
            return;
        }
        let Some(target_file) = self.target_file(file_part, reference, file, loc) else {
            return;
        };
        self.from = file.to_owned();
        let kind = kind_of(loc);
        match kind {
            // Another file pointing back into the root document: a local reference.
            Kind::Component(_) if target_file == self.root_file => {
                obj.insert("$ref".into(), Value::String(format!("#{fragment}")));
            }
            Kind::Inline => self.inline(obj, &target_file, fragment, reference, loc),
            // `walk` replaces these before it gets here.
            Kind::Replace => {}
            Kind::Component(section) => {
                if let Some(local) = self.bundle(&target_file, fragment, section, reference, loc) {
                    obj.insert("$ref".into(), Value::String(local));
                }
            }
        }
    }

    /// The file `file_part` of a reference in `file` names (`file` itself when empty), or an
    /// error at the place of use: a URL, or a file that cannot be read.
    fn target_file(
        &mut self,
        file_part: &str,
        reference: &str,
        file: &Path,
        loc: &[String],
    ) -> Option<PathBuf> {
        if file_part.is_empty() {
            return Some(file.to_owned());
        }
        if file_part.contains("://") {
            self.diags.error(
                at(loc),
                format!("`$ref: {reference}`: only files are read, not URLs"),
            );
            return None;
        }
        let relative = percent_decode(file_part);
        let base = file.parent().unwrap_or(Path::new("."));
        match base.join(&relative).canonicalize() {
            Ok(p) => Some(p),
            Err(e) => {
                self.diags.error(
                    at(loc),
                    format!(
                        "`$ref: {reference}` does not resolve: cannot read {} (referred to from {}): {e}",
                        self.name(&base.join(&relative)),
                        self.name(file)
                    ),
                );
                None
            }
        }
    }

    /// What a `$ref` where OpenAPI allows none stands for: its target, its own references
    /// followed in its file's terms, with the object's other keys kept over the target's when
    /// both are objects. `None` after an error.
    fn replacement(
        &mut self,
        obj: &Map<String, Value>,
        reference: &str,
        file: &Path,
        loc: &mut Vec<String>,
    ) -> Option<Value> {
        let (file_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let target_file = self.target_file(file_part, reference, file, loc)?;
        let key = (target_file.clone(), percent_decode(fragment));
        if self.inlining.contains(&key) {
            self.diags.error(
                at(loc),
                format!("`$ref: {reference}` refers back to itself (a reference loop)"),
            );
            return None;
        }
        self.from = file.to_owned();
        let mut target = self.target(&target_file, fragment, reference, loc)?;
        self.diags.warn(
            at(loc),
            format!(
                "`$ref: {reference}` stands where OpenAPI allows no reference: replaced by its target, as JSON Reference reads it"
            ),
        );
        self.inlining.push(key);
        self.walk(&mut target, &target_file, loc);
        self.inlining.pop();
        if let Value::Object(target) = &mut target {
            for (k, v) in obj {
                if k != "$ref" {
                    target.insert(k.clone(), v.clone());
                }
            }
        }
        Some(target)
    }

    /// The value at `fragment` in `file`, or an error at the place of use.
    fn target(
        &mut self,
        file: &Path,
        fragment: &str,
        reference: &str,
        loc: &[String],
    ) -> Option<Value> {
        if !self.cache.contains_key(file) {
            let read = std::fs::read(file)
                .map_err(|e| e.to_string())
                .and_then(|bytes| load_document_bytes(&bytes).map_err(|r| r.to_string()));
            if read.is_ok() {
                self.files.push(file.to_owned());
            }
            self.cache.insert(file.to_owned(), read);
        }
        let pointer = percent_decode(fragment);
        match &self.cache[file] {
            Err(e) => {
                self.diags.error(
                    at(loc),
                    format!(
                        "`$ref: {reference}` does not resolve: {}: {e} (referred to from {})",
                        self.name(file),
                        self.name(&self.from)
                    ),
                );
                None
            }
            Ok(doc) => match doc.pointer(&pointer) {
                Some(v) => Some(v.clone()),
                None => {
                    self.diags.error(
                        at(loc),
                        format!(
                            "`$ref: {reference}` does not resolve: {} has nothing at the pointer `{pointer}` (referred to from {})",
                            self.name(file),
                            self.name(&self.from)
                        ),
                    );
                    None
                }
            },
        }
    }

    /// Copies the target into `components/<section>` (once) and returns its local reference.
    fn bundle(
        &mut self,
        file: &Path,
        fragment: &str,
        section: &'static str,
        reference: &str,
        loc: &[String],
    ) -> Option<String> {
        let pointer = percent_decode(fragment);
        let key = (file.to_owned(), pointer.clone(), section);
        if let Some(local) = self.bundled.get(&key) {
            return Some(local.clone());
        }
        let mut target = self.target(file, fragment, reference, loc)?;
        let wanted = pointer
            .rsplit('/')
            .next()
            .filter(|t| !t.is_empty())
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .unwrap_or_else(|| {
                file.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
        let name = self.components.reserve(section, &wanted);
        let local = format!("#{}", join(&join("/components", section), &name));
        // Registered before the target's own references are followed: a cycle back to this
        // target meets the local reference.
        self.bundled.insert(key, local.clone());
        let mut target_loc = vec!["components".into(), section.to_owned(), name.clone()];
        self.walk(&mut target, file, &mut target_loc);
        self.components
            .added
            .push((section.to_owned(), name, target));
        Some(local)
    }

    /// Replaces a path item or operation `$ref` by its target, keeping sibling keys.
    fn inline(
        &mut self,
        obj: &mut Map<String, Value>,
        file: &Path,
        fragment: &str,
        reference: &str,
        loc: &mut Vec<String>,
    ) {
        let pointer = percent_decode(fragment);
        let key = (file.to_owned(), pointer);
        if self.inlining.contains(&key) {
            self.diags.error(
                at(loc),
                format!("`$ref: {reference}` refers back to itself (a reference loop)"),
            );
            obj.remove("$ref");
            return;
        }
        let Some(mut target) = self.target(file, fragment, reference, loc) else {
            obj.remove("$ref");
            return;
        };
        self.inlining.push(key);
        // The target's own references are relative to its file.
        self.walk(&mut target, file, loc);
        self.inlining.pop();
        obj.remove("$ref");
        match target {
            Value::Object(target) => {
                for (k, v) in target {
                    obj.entry(k).or_insert(v);
                }
            }
            _ => self.diags.error(
                at(loc),
                format!("`$ref: {reference}`: a path item or operation must be an object"),
            ),
        }
    }
}

/// The JSON pointer of a location.
fn at(loc: &[String]) -> String {
    let mut out = String::new();
    for token in loc {
        out = join(&out, token);
    }
    join(&out, "$ref")
}

const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const SCHEMA_KEYS: &[&str] = &[
    "schema",
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "contentSchema",
];
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keys whose value is text in every OpenAPI object that has them.
const TEXTS: &[&str] = &["description", "summary", "title", "termsOfService"];
const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];
const SECTIONS: &[&str] = &[
    "schemas",
    "responses",
    "parameters",
    "examples",
    "requestBodies",
    "headers",
    "securitySchemes",
    "links",
    "callbacks",
    "pathItems",
];

/// What a reference at `loc` (the tokens of the object holding the `$ref`) stands for.
fn kind_of(loc: &[String]) -> Kind {
    let n = loc.len();
    let last = loc.last().map(String::as_str).unwrap_or_default();
    let parent = if n >= 2 { loc[n - 2].as_str() } else { "" };
    let grandparent = if n >= 3 { loc[n - 3].as_str() } else { "" };
    // `/components/<section>/<name>` itself.
    if n == 3
        && loc[0] == "components"
        && let Some(s) = SECTIONS.iter().find(|s| **s == parent)
    {
        return if *s == "pathItems" {
            Kind::Inline
        } else {
            Kind::Component(s)
        };
    }
    if n == 2 && (parent == "paths" || parent == "webhooks") {
        return Kind::Inline;
    }
    if n == 3 && (loc[0] == "paths" || loc[0] == "webhooks") && METHODS.contains(&last) {
        return Kind::Inline;
    }
    if SCHEMA_MAPS.contains(&parent) || SCHEMA_LISTS.contains(&parent) {
        return Kind::Component("schemas");
    }
    // A whole map of properties (or of definitions), or a text: no Reference Object may
    // stand there.
    if SCHEMA_MAPS.contains(&last) || TEXTS.contains(&last) {
        return Kind::Replace;
    }
    if SCHEMA_KEYS.contains(&last) {
        return Kind::Component("schemas");
    }
    match (parent, last) {
        ("parameters", _) => Kind::Component("parameters"),
        (_, "requestBody") => Kind::Component("requestBodies"),
        ("responses", _) => Kind::Component("responses"),
        ("headers", _) => Kind::Component("headers"),
        ("examples", _) => Kind::Component("examples"),
        ("links", _) => Kind::Component("links"),
        ("callbacks", _) => Kind::Component("callbacks"),
        // A callback's path item (`callbacks/<name>/<expression>`).
        _ if grandparent == "callbacks" => Kind::Inline,
        // Nowhere the specification names: keep it as a schema, the likeliest reading.
        _ => Kind::Component("schemas"),
    }
}

/// `$ref` values are URIs: `%20` and friends may appear in them.
fn percent_decode(s: &str) -> String {
    crate::parse::percent_decode(s)
}

/// Every `*.md` file directly in `dir`, sorted by file name so the prompt order is stable:
/// the prompt sources of [`crate::Settings::prompts`]. Build scripts of every catalog read
/// their prompts with this. A folder that does not exist has none.
pub fn read_prompts(dir: &Path) -> std::io::Result<Vec<crate::PromptSource>> {
    let files = read_folder(dir, "md")?;
    Ok(files
        .into_iter()
        .map(|(file, text)| crate::PromptSource { file, text })
        .collect())
}

/// The `.html` files of a views folder (see `x-mcp.ui`), sorted by name, with the folder's
/// `.js` and `.css` files they include put in place (`// @include _bridge.js`, see
/// [`crate::views::include`]); none when the folder does not exist.
pub fn read_views(dir: &Path) -> std::io::Result<Vec<crate::ViewSource>> {
    let mut scripts = read_folder(dir, "js")?;
    scripts.extend(read_folder(dir, "css")?);
    read_folder(dir, "html")?
        .into_iter()
        .map(|(file, text)| {
            let text = crate::views::include(&text, &scripts).map_err(|problem| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {problem}", dir.join(&file).display()),
                )
            })?;
            Ok(crate::ViewSource { file, text })
        })
        .collect()
}

/// The files directly in `dir` whose extension is `extension`, as (file name, text), sorted
/// by name. A service without prompts or views has no folder for them: none, not an error.
fn read_folder(dir: &Path, extension: &str) -> std::io::Result<Vec<(String, String)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == extension) {
            files.push(path);
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((name, std::fs::read_to_string(&path)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(path: &str) -> Kind {
        let loc: Vec<String> = path.split('/').skip(1).map(str::to_owned).collect();
        kind_of(&loc)
    }

    #[test]
    fn the_place_of_use_decides_the_kind() {
        assert_eq!(kind("/paths/~1pets"), Kind::Inline);
        assert_eq!(kind("/paths/~1pets/get"), Kind::Inline);
        assert_eq!(
            kind("/paths/~1pets/get/parameters/0"),
            Kind::Component("parameters")
        );
        assert_eq!(
            kind("/paths/p/get/requestBody"),
            Kind::Component("requestBodies")
        );
        assert_eq!(
            kind("/paths/p/get/responses/200"),
            Kind::Component("responses")
        );
        assert_eq!(
            kind("/paths/p/get/responses/200/headers/X-Rate"),
            Kind::Component("headers")
        );
        assert_eq!(
            kind("/components/schemas/A/properties/parameters"),
            Kind::Component("schemas")
        );
        assert_eq!(
            kind("/components/schemas/A/allOf/0"),
            Kind::Component("schemas")
        );
        assert_eq!(
            kind("/components/responses/NotFound"),
            Kind::Component("responses")
        );
    }
}
