//! MCP Apps views (the `io.modelcontextprotocol/ui` extension, SEP-1865): the `ui://`
//! resources that operations name in `x-mcp.ui`, and the tool `_meta.ui` that points at them.
//!
//! A view is an HTML file the caller read from its views folder (`Build::views`); the
//! generator embeds it whole, so the server serves the bytes reviewed in the repository and
//! no file is read at run time. Its resource declares the tightest content security policy
//! the extension has: no outside origin for anything, so a view gets its data only from the
//! host (the tool's result) and reaches no network.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::diagnostics::{Diagnostics, join};
use crate::ir::Operation;

/// The media type of a view's resource, as SEP-1865 requires it.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Where view URIs start unless [`Settings::ui_uri_prefix`](crate::Settings::ui_uri_prefix)
/// says otherwise: `ui://app/board` for `board.html`.
pub const DEFAULT_URI_PREFIX: &str = "ui://app/";

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
    /// The HTML, embedded as the resource's text.
    pub html: String,
    /// `_meta.ui.prefersBorder` (`true` unless an operation naming the view says otherwise).
    pub prefers_border: bool,
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
                views.push(View {
                    uri: uri.clone(),
                    name: name.to_owned(),
                    title: html_title(&source.text).unwrap_or_else(|| name.to_owned()),
                    description: String::new(),
                    html: source.text.clone(),
                    prefers_border: true,
                    tools: Vec::new(),
                });
                views.len() - 1
            }
        };
        let view = &mut views[index];
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
/// empty, and written out so a reviewer sees the choice) and the border preference.
fn meta(view: &View) -> Value {
    json!({
        "ui": {
            "csp": {
                "connectDomains": [],
                "resourceDomains": [],
                "frameDomains": [],
                "baseUriDomains": [],
            },
            "prefersBorder": view.prefers_border,
        }
    })
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
    fn the_title_comes_from_the_html_title_element() {
        assert_eq!(
            html_title("<html><head><TITLE> Board </TITLE></head></html>").as_deref(),
            Some("Board")
        );
        assert_eq!(html_title("<title></title>"), None);
        assert_eq!(html_title("<p>no title</p>"), None);
    }
}
