//! MCP Apps views (the `io.modelcontextprotocol/ui` extension, SEP-1865): the `ui://`
//! resources that operations name in `x-mcp.ui`, and the tool `_meta.ui` that points at them.
//!
//! A view is an HTML file the caller read from its views folder (`Build::views`); the
//! generator embeds it whole, so the server serves the bytes reviewed in the repository and
//! no file is read at run time. Its resource declares the tightest content security policy
//! the extension has: no outside origin for anything, so a view gets its data only from the
//! host (the tool's result) and reaches no network.
//!
//! A host builds its policy from those lists and, to run the view's inline code at all, allows
//! inline scripts, which would allow inline event handlers too (`onerror=` in a debtor's name
//! that reached the page as markup). So the generator also **seals** each view: it puts a
//! `<meta http-equiv="Content-Security-Policy">` first in `<head>` naming the view's own
//! inline `<script>` and `<style>` elements by their SHA-256. A browser enforces both
//! policies, so in any host only those exact elements run: no handler attribute, no `eval`, no
//! injected element, no network.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::diagnostics::{Diagnostics, join};
use crate::ir::Operation;

/// The media type of a view's resource, as SEP-1865 requires it.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Where view URIs start unless [`Settings::ui_uri_prefix`](crate::Settings::ui_uri_prefix)
/// says otherwise: `ui://app/board` for `board.html`.
pub const DEFAULT_URI_PREFIX: &str = "ui://app/";

/// The browser permissions a view may ask for (`x-mcp.ui.permissions`), with their names in
/// `_meta.ui.permissions` (SEP-1865's `McpUiResourcePermissions`; a host maps them to the
/// iframe's `allow`).
pub const PERMISSIONS: [(&str, &str); 4] = [
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboard_write", "clipboardWrite"),
];

/// One view file as the caller read it.
#[derive(Debug, Clone)]
pub struct ViewSource {
    /// File name within the views folder, as `x-mcp.ui.template` names it (`board.html`).
    pub file: String,
    /// The whole HTML document.
    pub text: String,
}

/// A view the catalog serves: one per file some operation names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The resource's `uri` (`ui://app/board`).
    pub uri: String,
    /// The resource's `name`: the file name without `.html`.
    pub name: String,
    /// Its `title`: the document's `<title>`, else the name.
    pub title: String,
    /// Its `description`: which tools it shows.
    pub description: String,
    /// The HTML, sealed (see the module's documentation), embedded as the resource's text.
    pub html: String,
    /// `_meta.ui.prefersBorder` (`true` unless an operation naming the view says otherwise).
    pub prefers_border: bool,
    /// The permissions any operation naming the view asks for (`x-mcp.ui.permissions` words),
    /// in [`PERMISSIONS`] order.
    pub permissions: Vec<String>,
    /// The tools that name it, in catalog order.
    pub tools: Vec<String>,
}

/// Settles the views: every `x-mcp.ui` must name a file of `sources`; each operation that
/// names one gets `_meta.ui` (`resourceUri`, `visibility`), and each file named gets one
/// [`View`], in the order first named. A file no operation names is a warning.
pub(crate) fn build(
    operations: &mut [Operation],
    sources: &[ViewSource],
    prefix: &str,
    diags: &mut Diagnostics,
) -> Vec<View> {
    let named = operations.iter().any(|op| op.ui.is_some());
    if named && !prefix.starts_with("ui://") {
        diags.error(
            "",
            format!(
                "the views' URI prefix `{prefix}` must start with `ui://` (Settings::ui_uri_prefix)"
            ),
        );
    }
    let mut views: Vec<View> = Vec::new();
    // The pointer of the first `prefers_border` said for each view, to report a contradiction.
    let mut borders: BTreeMap<String, String> = BTreeMap::new();
    for op in operations.iter_mut() {
        let Some(decl) = op.ui.clone() else { continue };
        let template_ptr = join(&decl.pointer, "template");
        let Some(name) = view_name(&decl.template) else {
            diags.error(
                template_ptr,
                format!(
                    "template `{}` must be a file name in the views folder: a-z, 0-9, - and _, ending in .html",
                    decl.template
                ),
            );
            continue;
        };
        let Some(source) = sources.iter().find(|s| s.file == decl.template) else {
            let known: Vec<&str> = sources.iter().map(|s| s.file.as_str()).collect();
            let known = if known.is_empty() {
                "the views folder is empty or was not given (Build::views)".to_owned()
            } else {
                format!("the views folder has {}", known.join(", "))
            };
            diags.error(
                template_ptr,
                format!(
                    "template `{}` is not in the views folder: {known}",
                    decl.template
                ),
            );
            continue;
        };
        let uri = format!("{prefix}{name}");
        let index = match views.iter().position(|v| v.uri == uri) {
            Some(index) => index,
            None => {
                let html = match seal(&source.text) {
                    Ok(html) => html,
                    Err(problem) => {
                        diags.error(template_ptr, format!("view `{}`: {problem}", decl.template));
                        continue;
                    }
                };
                views.push(View {
                    uri: uri.clone(),
                    name: name.to_owned(),
                    title: html_title(&source.text).unwrap_or_else(|| name.to_owned()),
                    description: String::new(),
                    html,
                    prefers_border: true,
                    permissions: Vec::new(),
                    tools: Vec::new(),
                });
                views.len() - 1
            }
        };
        let view = &mut views[index];
        for word in &decl.permissions {
            if !view.permissions.contains(word) {
                view.permissions.push(word.clone());
            }
        }
        view.permissions.sort_by_key(|word| {
            PERMISSIONS
                .iter()
                .position(|(w, _)| w == word)
                .unwrap_or(usize::MAX)
        });
        if let Some(border) = decl.prefers_border {
            let at = join(&decl.pointer, "prefers_border");
            match borders.get(&uri) {
                Some(first) if view.prefers_border != border => diags.error(
                    at,
                    format!("`prefers_border` contradicts #{first}, which names the same view"),
                ),
                Some(_) => {}
                None => {
                    view.prefers_border = border;
                    borders.insert(uri.clone(), at);
                }
            }
        }
        view.tools.push(op.name.to_string());
        op.meta.insert(
            "ui".into(),
            json!({ "resourceUri": uri, "visibility": decl.visibility }),
        );
    }
    for view in &mut views {
        let tools: Vec<String> = view.tools.iter().map(|t| format!("`{t}`")).collect();
        view.description = format!(
            "Interactive view (MCP Apps) of the results of {}.",
            tools.join(", ")
        );
    }
    for source in sources {
        let used = view_name(&source.file)
            .is_some_and(|name| views.iter().any(|v| v.uri == format!("{prefix}{name}")));
        if !used {
            diags.warn(
                "",
                format!(
                    "view file `{}` is named by no operation's `x-mcp.ui`",
                    source.file
                ),
            );
        }
    }
    views
}

/// The markers of a line the generator replaces by a `.js` or `.css` file of the views folder:
/// `// @include _bridge.js` in a script, `/* @include _theme.css */` in a style. Views are
/// single self-contained documents, and what several views share (how they speak to the host,
/// their palette) is written once and put in each.
const INCLUDE: &str = "@include ";

/// The file a line includes, if the line is only an include marker.
fn included(line: &str) -> Option<&str> {
    let line = line.trim();
    let name = match line.strip_prefix("//") {
        Some(rest) => rest,
        None => line.strip_prefix("/*")?.strip_suffix("*/")?,
    };
    Some(name.trim().strip_prefix(INCLUDE)?.trim())
}

/// `html` with each line that is only an include marker replaced by the text of the views
/// folder's file it names (from `files`, as (file name, text)). A name not in the folder, and
/// an included file that includes again, are errors.
pub fn include(html: &str, files: &[(String, String)]) -> Result<String, String> {
    if !html.contains(INCLUDE) {
        return Ok(html.to_owned());
    }
    let mut out = String::with_capacity(html.len());
    for line in html.split_inclusive('\n') {
        let Some(name) = included(line) else {
            out.push_str(line);
            continue;
        };
        let Some((_, text)) = files.iter().find(|(file, _)| file == name) else {
            let known: Vec<&str> = files.iter().map(|(file, _)| file.as_str()).collect();
            return Err(format!(
                "`@include {name}`: no such file in the views folder (it has {})",
                if known.is_empty() {
                    "no .js or .css file".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        };
        if text.lines().any(|l| included(l).is_some()) {
            return Err(format!("`{name}` includes another file: one level only"));
        }
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

/// The view's name from its file name: `board.html` → `board`.
fn view_name(file: &str) -> Option<&str> {
    let name = file.strip_suffix(".html")?;
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    valid.then_some(name)
}

/// The text of the document's first `<title>`, trimmed, if it has a non-empty one.
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = html[start..end].trim();
    (!title.is_empty()).then(|| title.to_owned())
}

/// The view's `_meta`: the content security policy (no outside origin at all: the lists are
/// empty, and written out so a reviewer sees the choice), the permissions it asks for (when
/// it asks for any) and the border preference.
fn meta(view: &View) -> Value {
    let mut ui = json!({
        "csp": {
            "connectDomains": [],
            "resourceDomains": [],
            "frameDomains": [],
            "baseUriDomains": [],
        },
    });
    if !view.permissions.is_empty() {
        let permissions: Map<String, Value> = view
            .permissions
            .iter()
            .filter_map(|word| PERMISSIONS.iter().find(|(w, _)| w == word))
            .map(|(_, key)| ((*key).to_owned(), json!({})))
            .collect();
        ui["permissions"] = Value::Object(permissions);
    }
    ui["prefersBorder"] = json!(view.prefers_border);
    json!({ "ui": ui })
}

/// The view's HTML with its own content security policy first in `<head>`: nothing from
/// anywhere (`default-src 'none'`), images and fonts only as `data:` URLs, and scripts and
/// styles only the inline `<script>` and `<style>` elements the file has, named by their
/// SHA-256. Refused: a file without `<head>`, and `<script>` or `<style>` with attributes
/// (`src=`, `type=`: a view is one self-contained document whose code is what it shows).
fn seal(html: &str) -> Result<String, String> {
    let scripts = inline_elements(html, "script")?;
    let styles = inline_elements(html, "style")?;
    let sources = |texts: &[&str]| -> String {
        if texts.is_empty() {
            return "'none'".to_owned();
        }
        let hashes: Vec<String> = texts
            .iter()
            .map(|text| {
                let digest = Sha256::digest(text.as_bytes());
                format!(
                    "'sha256-{}'",
                    base64::engine::general_purpose::STANDARD.encode(digest)
                )
            })
            .collect();
        hashes.join(" ")
    };
    let policy = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; font-src data:; \
         form-action 'none'; base-uri 'none'",
        sources(&scripts),
        sources(&styles)
    );
    let lower = html.to_ascii_lowercase();
    let head = find_tag(&lower, "head", 0).ok_or("it has no `<head>` to put its policy in")?;
    let after_head = head
        + lower[head..]
            .find('>')
            .ok_or("its `<head>` is not closed")?
        + 1;
    Ok(format!(
        "{}\n<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">{}",
        &html[..after_head],
        &html[after_head..]
    ))
}

/// The text of every `<name>` element, which must have no attributes.
fn inline_elements<'a>(html: &'a str, name: &str) -> Result<Vec<&'a str>, String> {
    let lower = html.to_ascii_lowercase();
    let close = format!("</{name}");
    let mut texts = Vec::new();
    let mut at = 0;
    while let Some(open) = find_tag(&lower, name, at) {
        let tag_end = open
            + lower[open..]
                .find('>')
                .ok_or_else(|| format!("a `<{name}` tag is not closed"))?;
        if lower[open + 1 + name.len()..tag_end].trim() != "" {
            return Err(format!(
                "`{}`: a view's `<{name}>` has no attributes (everything inline, nothing loaded)",
                &html[open..=tag_end]
            ));
        }
        let start = tag_end + 1;
        let end = start
            + lower[start..]
                .find(&close)
                .ok_or_else(|| format!("a `<{name}>` element has no `</{name}>`"))?;
        texts.push(&html[start..end]);
        at = end + close.len();
    }
    Ok(texts)
}

/// Where the next `<name` tag starts at or after `from` in lowercased HTML (`<head` and not
/// `<header`).
fn find_tag(lower: &str, name: &str, from: usize) -> Option<usize> {
    let open = format!("<{name}");
    let mut at = from;
    while let Some(found) = lower[at..].find(&open) {
        let start = at + found;
        let next = lower[start + open.len()..].bytes().next();
        if matches!(next, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')) {
            return Some(start);
        }
        at = start + open.len();
    }
    None
}

/// The MCP `Resource` object of a view, as `resources/list` returns it.
pub(crate) fn json(view: &View) -> Value {
    json!({
        "uri": view.uri,
        "name": view.name,
        "title": view.title,
        "description": view.description,
        "mimeType": MIME_TYPE,
        "_meta": meta(view),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_names_are_plain_html_file_names() {
        let table = [
            ("board.html", Some("board")),
            ("todo-list_2.html", Some("todo-list_2")),
            ("board.htm", None),
            (".html", None),
            ("Board.html", None),
            ("../board.html", None),
            ("sub/board.html", None),
        ];
        for (file, expected) in table {
            assert_eq!(view_name(file), expected, "{file}");
        }
    }

    #[test]
    fn a_sealed_view_names_its_own_script_and_style_by_hash() {
        let html = "<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>\
                    <body><header>h</header><script>go()</script></body></html>";
        let sealed = seal(html).unwrap();
        // The policy comes first in <head>, and the document is otherwise untouched.
        let policy = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
                      script-src 'sha256-5KYv+PUboo5h+0+YAtGRPbwv5d/QxzHslP4YGnUaxRw='; \
                      style-src 'sha256-p0bF+un5yUb9MBO6xRb8kPHlY2BdpHVtLiFkDrZPF64='; \
                      img-src data:; font-src data:; form-action 'none'; base-uri 'none'\">";
        assert_eq!(
            sealed,
            html.replace("<head>", &format!("<head>\n{policy}")),
            "{sealed}"
        );
        // No script at all: none may run.
        let sealed = seal("<html><head></head><body>x</body></html>").unwrap();
        assert!(
            sealed.contains("script-src 'none'; style-src 'none';"),
            "{sealed}"
        );
    }

    #[test]
    fn a_view_that_loads_code_or_has_no_head_is_refused() {
        for (html, expected) in [
            (
                "<html><head><script src=\"https://cdn.example/x.js\"></script></head></html>",
                "has no attributes",
            ),
            (
                "<html><head><style media=print>p{}</style></head></html>",
                "has no attributes",
            ),
            (
                "<html><body><script>x()</script></body></html>",
                "no `<head>`",
            ),
            ("<html><head><script>x()</head></html>", "no `</script>`"),
        ] {
            let problem = seal(html).unwrap_err();
            assert!(problem.contains(expected), "{html}: {problem}");
        }
    }

    #[test]
    fn an_include_line_is_replaced_by_the_named_script_of_the_folder() {
        let scripts = vec![
            ("_bridge.js".to_owned(), "function post() {}\n".to_owned()),
            ("_loop.js".to_owned(), "// @include _bridge.js\n".to_owned()),
        ];
        let html = "<script>\n  // @include _bridge.js\npost();\n</script>";
        assert_eq!(
            include(html, &scripts).unwrap(),
            "<script>\nfunction post() {}\npost();\n</script>"
        );
        let styles = vec![("_theme.css".to_owned(), ":root { --bg: #fff; }".to_owned())];
        assert_eq!(
            include(
                "<style>\n/* @include _theme.css */\np {}\n</style>",
                &styles
            )
            .unwrap(),
            "<style>\n:root { --bg: #fff; }\np {}\n</style>"
        );
        // Only a whole line is a marker.
        let quoted = "<script>const s = 'x // @include _bridge.js';</script>";
        assert_eq!(include(quoted, &scripts).unwrap(), quoted);
        let missing = include("// @include _nothing.js\n", &scripts).unwrap_err();
        assert!(missing.contains("_bridge.js, _loop.js"), "{missing}");
        let nested = include("// @include _loop.js\n", &scripts).unwrap_err();
        assert!(nested.contains("one level only"), "{nested}");
    }

    #[test]
    fn the_title_comes_from_the_html_title_element() {
        assert_eq!(
            html_title("<html><head><TITLE> Board </TITLE></head></html>").as_deref(),
            Some("Board")
        );
        assert_eq!(html_title("<title></title>"), None);
        assert_eq!(html_title("<p>no title</p>"), None);
    }
}
