//! Reading the `x-mcp` vendor extension (see `codegen/X-MCP.md`) into typed settings.
//!
//! Every key is checked: an unknown key or a value of the wrong type is an error with the
//! pointer of that key, because a typo in a first-party spec (`destuctive: true`) must never
//! silently change what a tool does.

use serde_json::{Map, Value};

use crate::diagnostics::{Diagnostics, join};

/// `x-mcp` on the document root.
#[derive(Debug, Default)]
pub(crate) struct RootExt {
    /// Whether the root has an `x-mcp` at all (a first-party document).
    pub(crate) present: bool,
    pub(crate) tool_prefix: String,
    /// `toolsets`: the groups a connection chooses tools by, in the order declared.
    pub(crate) toolsets: Vec<ToolsetDecl>,
}

/// One `x-mcp.toolsets` entry: a group of tools a connection may load or leave out.
#[derive(Debug, Clone)]
pub(crate) struct ToolsetDecl {
    pub(crate) name: String,
    pub(crate) description: String,
    /// Operations whose first tag is one of these belong here (unless `x-mcp.toolset` says
    /// otherwise).
    pub(crate) tags: Vec<String>,
    /// Loaded whatever a connection chooses (`context`: who am I).
    pub(crate) always: bool,
    pub(crate) pointer: String,
}

/// `x-mcp` on an operation. `None` means "not said": the default applies.
#[derive(Debug, Default)]
pub(crate) struct OperationExt {
    pub(crate) name: Option<String>,
    /// `description`: the tool's description, instead of the operation's.
    pub(crate) description: Option<String>,
    /// `toolset`: the toolset this operation's tool belongs to, overriding its first tag.
    pub(crate) toolset: Option<String>,
    pub(crate) exclude: bool,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) server_idempotency_key: bool,
    pub(crate) confirm: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) max_result_chars: Option<u64>,
    pub(crate) meta: Map<String, Value>,
    /// Argument renames: (location, wire name, new name, pointer of the entry).
    pub(crate) rename: Vec<Rename>,
    /// `result: mcp`: the 2xx JSON body already is an MCP result.
    pub(crate) mcp_result: bool,
    /// `prompt: true`: the operation serves a prompt instead of a tool.
    pub(crate) prompt: bool,
    /// `arguments: body`: the arguments are the JSON body, its schema kept verbatim.
    pub(crate) body_arguments: bool,
    /// `param_headers`: arguments mirrored into `Mcp-Param-<Name>` headers.
    pub(crate) param_headers: Vec<ParamHeader>,
    /// `ui`: the MCP Apps view that shows this tool's results.
    pub(crate) ui: Option<crate::ir::ViewRef>,
    /// `keywords`: words people use for what the tool does, for a catalog search.
    pub(crate) keywords: Vec<String>,
}

/// One `x-mcp.param_headers` entry: the argument, the `<Name>` of `Mcp-Param-<Name>`, and
/// the pointer of the entry.
#[derive(Debug, Clone)]
pub(crate) struct ParamHeader {
    pub(crate) argument: String,
    pub(crate) header: String,
    pub(crate) pointer: String,
}

/// One `x-mcp.rename` entry.
#[derive(Debug, Clone)]
pub(crate) struct Rename {
    pub(crate) location: String,
    pub(crate) wire_name: String,
    pub(crate) new_name: String,
    pub(crate) pointer: String,
    /// Set when an argument took the rename, to report the ones that matched nothing.
    pub(crate) used: bool,
}

/// The locations a rename key may start with.
pub(crate) const RENAME_LOCATIONS: &[&str] = &["path", "query", "header", "body"];

pub(crate) fn root(doc: &Value, diags: &mut Diagnostics) -> RootExt {
    let Some(ext) = doc.get("x-mcp") else {
        return RootExt::default();
    };
    let ptr = "/x-mcp";
    let mut out = RootExt {
        present: true,
        ..RootExt::default()
    };
    let Some(ext) = as_object(ext, ptr, diags) else {
        return out;
    };
    for (key, value) in ext {
        let kp = join(ptr, key);
        match key.as_str() {
            "tool_prefix" => {
                if let Some(prefix) = string(value, &kp, diags) {
                    if prefix
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                    {
                        out.tool_prefix = prefix;
                    } else {
                        diags.error(kp, "`tool_prefix` may only contain a-z, 0-9 and _");
                    }
                }
            }
            "resource_scheme" => {
                // Informative only: resource URIs are written out in full on operations.
                string(value, &kp, diags);
            }
            // Read by `budget`, which checks its keys.
            "budget" => {}
            "toolsets" => {
                if let Some(map) = as_object(value, &kp, diags) {
                    out.toolsets = toolsets(map, &kp, diags);
                }
            }
            _ => unknown(
                key,
                &kp,
                &["tool_prefix", "resource_scheme", "budget", "toolsets"],
                diags,
            ),
        }
    }
    out
}

/// A toolset name: what a connection writes in a header or a URL (`todos`, `read_only`...).
pub(crate) fn is_toolset_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn toolsets(map: &Map<String, Value>, ptr: &str, diags: &mut Diagnostics) -> Vec<ToolsetDecl> {
    let mut out = Vec::new();
    for (name, value) in map {
        let kp = join(ptr, name);
        if !is_toolset_name(name) || name == "all" {
            diags.error(
                kp.clone(),
                format!("toolset name `{name}` must be 1-32 of a-z, 0-9 and _, and not `all`"),
            );
        }
        let Some(entry) = as_object(value, &kp, diags) else {
            continue;
        };
        let mut decl = ToolsetDecl {
            name: name.clone(),
            description: String::new(),
            tags: Vec::new(),
            always: false,
            pointer: kp.clone(),
        };
        for (key, value) in entry {
            let ep = join(&kp, key);
            match key.as_str() {
                "description" => decl.description = string(value, &ep, diags).unwrap_or_default(),
                "always" => decl.always = boolean(value, &ep, diags).unwrap_or(false),
                "tags" => match value.as_array() {
                    Some(tags) => {
                        for (i, tag) in tags.iter().enumerate() {
                            if let Some(tag) = string(tag, &join(&ep, &i.to_string()), diags) {
                                decl.tags.push(tag);
                            }
                        }
                    }
                    None => diags.error(ep, "`tags` must be a list of tag names"),
                },
                _ => unknown(key, &ep, &["description", "tags", "always"], diags),
            }
        }
        if decl.description.trim().is_empty() {
            diags.error(kp, format!("toolset `{name}` needs a `description`"));
        }
        out.push(decl);
    }
    out
}

const OPERATION_KEYS: &[&str] = &[
    "name",
    "toolset",
    "exclude",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "server_idempotency_key",
    "confirm",
    "resource",
    "resource_name",
    "max_result_chars",
    "meta",
    "rename",
    "result",
    "prompt",
    "arguments",
    "param_headers",
    "ui",
    "keywords",
    "description",
];

/// The keys of `x-mcp.ui`.
const UI_KEYS: &[&str] = &["template", "visibility", "prefers_border", "permissions"];

/// The audiences of `x-mcp.ui.visibility`, as SEP-1865 spells them.
const VISIBILITY: &[&str] = &["model", "app"];

/// Reads the `x-mcp` value of the operation at `op_ptr`, if it has one.
pub(crate) fn operation(
    ext: Option<&Value>,
    op_ptr: &str,
    diags: &mut Diagnostics,
) -> OperationExt {
    let mut out = OperationExt::default();
    let Some(ext) = ext else { return out };
    let ptr = join(op_ptr, "x-mcp");
    let Some(ext) = as_object(ext, &ptr, diags) else {
        return out;
    };
    for (key, value) in ext {
        let kp = join(&ptr, key);
        match key.as_str() {
            "name" => out.name = string(value, &kp, diags),
            "toolset" => out.toolset = string(value, &kp, diags),
            "description" => {
                out.description = string(value, &kp, diags)
                    .map(|d| d.trim().to_string())
                    .filter(|d| !d.is_empty());
                if value.is_string() && out.description.is_none() {
                    diags.error(&kp, "`description` must not be blank");
                }
            }
            "exclude" => out.exclude = boolean(value, &kp, diags).unwrap_or(false),
            "read_only" => out.read_only = boolean(value, &kp, diags),
            "destructive" => out.destructive = boolean(value, &kp, diags),
            "idempotent" => out.idempotent = boolean(value, &kp, diags),
            "open_world" => out.open_world = boolean(value, &kp, diags),
            "server_idempotency_key" => {
                out.server_idempotency_key = boolean(value, &kp, diags).unwrap_or(false);
            }
            "confirm" => out.confirm = string(value, &kp, diags),
            "resource" => out.resource = string(value, &kp, diags),
            "resource_name" => out.resource_name = string(value, &kp, diags),
            "max_result_chars" => match value.as_u64() {
                Some(n) if n > 0 => out.max_result_chars = Some(n),
                _ => diags.error(kp, "`max_result_chars` must be a positive integer"),
            },
            "meta" => {
                if let Some(meta) = as_object(value, &kp, diags) {
                    out.meta = meta.clone();
                }
            }
            "rename" => {
                if let Some(map) = as_object(value, &kp, diags) {
                    out.rename = renames(map, &kp, diags);
                }
            }
            "result" => {
                out.mcp_result = choice(value, &kp, &["structured", "mcp"], diags) == Some(1);
            }
            "prompt" => out.prompt = boolean(value, &kp, diags).unwrap_or(false),
            "arguments" => {
                out.body_arguments = choice(value, &kp, &["flat", "body"], diags) == Some(1);
            }
            "param_headers" => {
                if let Some(map) = as_object(value, &kp, diags) {
                    out.param_headers = param_headers(map, &kp, diags);
                }
            }
            "ui" => {
                if let Some(map) = as_object(value, &kp, diags) {
                    out.ui = ui(map, &kp, diags);
                }
            }
            "keywords" => out.keywords = keywords(value, &kp, diags),
            _ => unknown(key, &kp, OPERATION_KEYS, diags),
        }
    }
    if out.ui.is_some() && out.meta.contains_key("ui") {
        diags.error(
            join(&join(&ptr, "meta"), "ui"),
            "`meta.ui` and `ui` both set the tool's `_meta.ui`: keep `ui`",
        );
    }
    out
}

/// `x-mcp.ui`: `template` (required), `visibility`, `prefers_border` and `permissions`.
fn ui(map: &Map<String, Value>, ptr: &str, diags: &mut Diagnostics) -> Option<crate::ir::ViewRef> {
    let mut template = None;
    let mut visibility = VISIBILITY.iter().map(|v| (*v).to_owned()).collect();
    let mut prefers_border = None;
    let mut permissions = Vec::new();
    for (key, value) in map {
        let kp = join(ptr, key);
        match key.as_str() {
            "template" => template = string(value, &kp, diags),
            "visibility" => {
                if let Some(list) = visibility_list(value, &kp, diags) {
                    visibility = list;
                }
            }
            "prefers_border" => prefers_border = boolean(value, &kp, diags),
            "permissions" => permissions = permission_list(value, &kp, diags),
            _ => unknown(key, &kp, UI_KEYS, diags),
        }
    }
    let Some(template) = template else {
        if !map.contains_key("template") {
            diags.error(ptr, "`ui` needs a `template`: the view's file name");
        }
        return None;
    };
    Some(crate::ir::ViewRef {
        template,
        visibility,
        prefers_border,
        permissions,
        pointer: ptr.to_owned(),
    })
}

/// `x-mcp.keywords`: a list of distinct, non-blank strings (a word or a phrase each), kept as
/// written but trimmed. Twice the same keyword (ignoring case) is an error: it would only
/// weigh the tool up in a search.
fn keywords(value: &Value, ptr: &str, diags: &mut Diagnostics) -> Vec<String> {
    let Some(items) = value.as_array() else {
        diags.error(
            ptr,
            format!(
                "`keywords` must be a list of strings, found {}",
                kind(value)
            ),
        );
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = join(ptr, &i.to_string());
        let Some(word) = string(item, &ip, diags) else {
            continue;
        };
        let word = word.trim();
        if word.is_empty() {
            diags.error(ip, "a keyword must not be empty");
        } else if word.chars().any(char::is_control) {
            diags.error(ip, "a keyword must be one line without control characters");
        } else if out.iter().any(|o| o.to_lowercase() == word.to_lowercase()) {
            diags.error(ip, format!("keyword `{word}` is listed twice"));
        } else {
            out.push(word.to_owned());
        }
    }
    out
}

/// `x-mcp.ui.permissions`: distinct words of [`crate::views::PERMISSIONS`].
fn permission_list(value: &Value, ptr: &str, diags: &mut Diagnostics) -> Vec<String> {
    let known = crate::views::PERMISSIONS.map(|(word, _)| word).join(", ");
    let Some(items) = value.as_array() else {
        diags.error(ptr, format!("`permissions` must be a list of: {known}"));
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = join(ptr, &i.to_string());
        match item.as_str() {
            Some(word) if crate::views::PERMISSIONS.iter().any(|(w, _)| *w == word) => {
                if out.iter().any(|o| o == word) {
                    diags.error(ip, format!("`{word}` is listed twice"));
                } else {
                    out.push(word.to_owned());
                }
            }
            _ => diags.error(ip, format!("unknown permission {item}: one of {known}")),
        }
    }
    out
}

/// A non-empty list of distinct [`VISIBILITY`] words.
fn visibility_list(value: &Value, ptr: &str, diags: &mut Diagnostics) -> Option<Vec<String>> {
    let Some(items) = value.as_array() else {
        diags.error(
            ptr,
            "`visibility` must be a list: [model], [app] or [model, app]",
        );
        return None;
    };
    if items.is_empty() {
        diags.error(ptr, "`visibility` must name `model`, `app` or both");
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = join(ptr, &i.to_string());
        let index = choice(item, &ip, VISIBILITY, diags)?;
        let word = VISIBILITY[index].to_owned();
        if out.contains(&word) {
            diags.error(ip, format!("`{word}` is listed twice"));
            return None;
        }
        out.push(word);
    }
    Some(out)
}

fn renames(map: &Map<String, Value>, ptr: &str, diags: &mut Diagnostics) -> Vec<Rename> {
    let mut out = Vec::new();
    for (key, value) in map {
        let kp = join(ptr, key);
        let Some(new_name) = string(value, &kp, diags) else {
            continue;
        };
        let Some((location, wire_name)) = key.split_once('.') else {
            diags.error(
                kp,
                format!("rename key `{key}` must be `<location>.<wire name>`, e.g. `body.id`"),
            );
            continue;
        };
        if !RENAME_LOCATIONS.contains(&location) {
            diags.error(
                kp,
                format!(
                    "rename location `{location}` is not one of {}",
                    RENAME_LOCATIONS.join(", ")
                ),
            );
            continue;
        }
        if new_name.is_empty()
            || !new_name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            diags.error(
                kp,
                format!("argument name `{new_name}` must be snake_case (a-z, 0-9 and _)"),
            );
            continue;
        }
        out.push(Rename {
            location: location.to_owned(),
            wire_name: wire_name.to_owned(),
            new_name,
            pointer: kp,
            used: false,
        });
    }
    out
}

fn param_headers(map: &Map<String, Value>, ptr: &str, diags: &mut Diagnostics) -> Vec<ParamHeader> {
    let mut out: Vec<ParamHeader> = Vec::new();
    for (argument, value) in map {
        let kp = join(ptr, argument);
        let Some(header) = string(value, &kp, diags) else {
            continue;
        };
        // RFC 9110 `token`: the name becomes part of the header field name `Mcp-Param-<Name>`.
        let is_tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if header.is_empty() || !header.bytes().all(is_tchar) {
            diags.error(
                kp,
                format!(
                    "header name `{header}` must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
                ),
            );
            continue;
        }
        if let Some(first) = out.iter().find(|p| p.header.eq_ignore_ascii_case(&header)) {
            diags.error(
                kp,
                format!(
                    "header name `{header}` is already used by argument `{}` (names are case-insensitive)",
                    first.argument
                ),
            );
            continue;
        }
        out.push(ParamHeader {
            argument: argument.clone(),
            header,
            pointer: kp,
        });
    }
    out
}

/// The index of `value` among `allowed` (a string enumeration), or an error.
fn choice(value: &Value, ptr: &str, allowed: &[&str], diags: &mut Diagnostics) -> Option<usize> {
    let text = string(value, ptr, diags)?;
    let found = allowed.iter().position(|a| *a == text);
    if found.is_none() {
        diags.error(
            ptr,
            format!("`{text}` is not one of {}", allowed.join(", ")),
        );
    }
    found
}

fn unknown(key: &str, ptr: &str, known: &[&str], diags: &mut Diagnostics) {
    diags.error(
        ptr,
        format!(
            "unknown `x-mcp` key `{key}` (known keys: {})",
            known.join(", ")
        ),
    );
}

fn as_object<'v>(
    value: &'v Value,
    ptr: &str,
    diags: &mut Diagnostics,
) -> Option<&'v Map<String, Value>> {
    let object = value.as_object();
    if object.is_none() {
        diags.error(ptr, format!("expected an object, found {}", kind(value)));
    }
    object
}

fn string(value: &Value, ptr: &str, diags: &mut Diagnostics) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        other => {
            diags.error(ptr, format!("expected a string, found {}", kind(other)));
            None
        }
    }
}

fn boolean(value: &Value, ptr: &str, diags: &mut Diagnostics) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        other => {
            diags.error(
                ptr,
                format!("expected true or false, found {}", kind(other)),
            );
            None
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keywords_are_a_list_of_distinct_non_blank_strings() {
        let mut diags = Diagnostics::default();
        let ext = json!({"keywords": [" boleto ", "Pix", "segunda via"]});
        let read = operation(Some(&ext), "/paths/~1x/get", &mut diags);
        assert!(!diags.has_errors());
        assert_eq!(read.keywords, ["boleto", "Pix", "segunda via"]);

        let table = [
            (json!("boleto"), "/paths/~1x/get/x-mcp/keywords"),
            (json!(["ok", 3]), "/paths/~1x/get/x-mcp/keywords/1"),
            (json!(["ok", "  "]), "/paths/~1x/get/x-mcp/keywords/1"),
            (json!(["Pix", "pix"]), "/paths/~1x/get/x-mcp/keywords/1"),
            (json!(["a\nb"]), "/paths/~1x/get/x-mcp/keywords/0"),
        ];
        for (keywords, pointer) in table {
            let mut diags = Diagnostics::default();
            operation(
                Some(&json!({ "keywords": keywords })),
                "/paths/~1x/get",
                &mut diags,
            );
            let (errors, _) = diags.into_parts();
            let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
            assert_eq!(pointers, [pointer], "{keywords}");
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_errors_with_pointers() {
        let mut diags = Diagnostics::default();
        let ext = json!({"destuctive": true, "exclude": "yes", "rename": {"cookie.a": "b"}});
        operation(Some(&ext), "/paths/~1x/get", &mut diags);
        let (errors, _) = diags.into_parts();
        let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/paths/~1x/get/x-mcp/destuctive",
                "/paths/~1x/get/x-mcp/exclude",
                "/paths/~1x/get/x-mcp/rename/cookie.a"
            ]
        );
    }

    #[test]
    fn a_tool_description_is_trimmed_and_a_blank_one_is_an_error() {
        let mut diags = Diagnostics::default();
        let ext = json!({"description": "  Says less.\n"});
        let read = operation(Some(&ext), "/paths/~1x/get", &mut diags);
        assert_eq!(read.description.as_deref(), Some("Says less."));
        assert!(!diags.has_errors());
        for blank in [json!(" "), json!(3)] {
            let mut diags = Diagnostics::default();
            operation(Some(&json!({ "description": blank })), "/x", &mut diags);
            let (errors, _) = diags.into_parts();
            let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
            assert_eq!(pointers, ["/x/x-mcp/description"], "{blank}");
        }
    }
}
