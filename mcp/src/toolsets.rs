//! Which tools one request sees: the catalog narrowed by toolsets and read-only mode.
//!
//! A whole catalog costs an assistant thousands of tokens on every turn, so a connection may
//! load only some toolsets (the document's `x-mcp.toolsets`). Four parties narrow, and none can
//! widen what another allowed:
//!
//! 1. the operator (`Settings::toolsets`, `Settings::read_only`): an upper bound for everyone;
//! 2. the credential (`Caller::toolsets.bound`): a token, or an OAuth grant, made for some
//!    toolsets only;
//! 3. the request: the `X-MCP-Toolsets` header (`todos,projects`, or `all`), the URL
//!    variant `/mcp/x/{toolsets}`, both intersected when both are given; and `X-MCP-Readonly:
//!    true` or `/mcp/readonly` (`/mcp/x/{toolsets}/readonly`);
//! 4. without a choice in the request, the credential's default (`Caller::toolsets.default`,
//!    the role's usual work); `all` asks for everything the bounds allow.
//!
//! Scopes still decide on top of this. A toolset marked `always` (`context`) stays, and so do
//! tools of no toolset. What is hidden is refused when called, and resources, templates and
//! prompts served by hidden tools are hidden too.
//!
//! A request also chooses how the tools are offered: the catalog, or discovery mode's three
//! tools (see `discovery`), by the `X-MCP-Discovery` header (`true`/`false`), the URL variants
//! `/mcp/discover`, `/mcp/readonly/discover`, `/mcp/x/{toolsets}/discover` and
//! `/mcp/x/{toolsets}/readonly/discover`, or else the operator's default
//! (`Settings::discovery`). It is a way of presenting what the bounds above leave, not a
//! bound: it neither widens nor narrows what may be called, so a request may turn the
//! operator's default off.
//!
//! And how the input schemas are written: an optional argument is written as the document
//! declares it, and the instructions say once that `null` for one means "not given". Strict
//! function-calling modes (OpenAI's, which the OpenAI Agents SDK, LangChain and pydantic-ai
//! turn on) make every property required, so a model there needs `null` in each optional
//! argument's schema to leave it out: `X-MCP-Strict-Schemas: true`, or the operator's default
//! (`Settings::strict_schemas`), writes them so (see `offer`). Another way of presenting, like
//! discovery mode.

use std::collections::BTreeSet;

use http::{HeaderMap, HeaderName};
use mcpgen_catalog::{Catalog, ToolSpec};
use serde_json::json;

use super::jsonrpc::{ErrorCode, RpcError};
use super::{Caller, Settings};

/// The request header naming toolsets.
pub const TOOLSETS_HEADER: HeaderName = HeaderName::from_static("x-mcp-toolsets");
/// The request header asking for read-only tools only.
pub const READ_ONLY_HEADER: HeaderName = HeaderName::from_static("x-mcp-readonly");
/// The request header asking for discovery mode (`true`) or the catalog (`false`).
pub const DISCOVERY_HEADER: HeaderName = HeaderName::from_static("x-mcp-discovery");
/// The request header asking for strict-mode input schemas (`true`) or the compact ones
/// (`false`).
pub const STRICT_SCHEMAS_HEADER: HeaderName = HeaderName::from_static("x-mcp-strict-schemas");
/// The last segment of the URL variants that ask for discovery mode.
pub const DISCOVERY_SEGMENT: &str = "/discover";
/// The word that asks for every toolset.
pub const ALL: &str = "all";

/// Toolsets a credential carries: an upper bound, and what it sees when a request does not
/// choose. `None` is "no bound" and "everything", respectively.
#[derive(Debug, Clone, Default)]
pub struct Toolsets {
    /// The credential may never see more than these.
    pub bound: Option<BTreeSet<String>>,
    /// What a request without a choice sees (within the bound).
    pub default: Option<BTreeSet<String>>,
    /// Discovery mode when the request does not say (`None`: as the operator says).
    pub discovery: Option<bool>,
}

/// What a request asks for: its header and URL, before bounds apply.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// `None`: no choice made; `Some(None)`: `all`; `Some(Some(set))`: these.
    toolsets: Option<Option<BTreeSet<String>>>,
    read_only: bool,
    /// Discovery mode asked for by the URL.
    discovery_url: bool,
    /// `X-MCP-Discovery`, when sent.
    discovery_header: Option<bool>,
    /// `X-MCP-Strict-Schemas`, when sent.
    strict_schemas: Option<bool>,
}

impl Choice {
    /// The choice of a request to `path` (the endpoint's own path, or one of its variants)
    /// with these headers. A name that is no toolset of `catalog` is refused with the list
    /// of names, so a typo does not silently give a smaller catalog.
    pub fn of_request(
        catalog: &Catalog,
        endpoint_path: &str,
        path: &str,
        headers: &HeaderMap,
    ) -> Result<Choice, RpcError> {
        let mut choice = Choice::default();
        let mut variant = path.strip_prefix(endpoint_path).unwrap_or_default();
        if let Some(rest) = variant.strip_suffix(DISCOVERY_SEGMENT) {
            choice.discovery_url = true;
            variant = rest;
        }
        if let Some(rest) = variant.strip_suffix("/readonly") {
            choice.read_only = true;
            variant = rest;
        }
        if let Some(list) = variant.strip_prefix("/x/") {
            choice.narrow(parse_list(catalog, list, "the URL's /x/{toolsets}")?);
        }
        let values: Vec<&str> = headers
            .get_all(TOOLSETS_HEADER)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{fffd}"))
            .collect();
        if !values.is_empty() {
            let list = values.join(",");
            choice.narrow(parse_list(catalog, &list, "X-MCP-Toolsets")?);
        }
        if let Some(value) = headers.get(READ_ONLY_HEADER) {
            match value.to_str().unwrap_or_default().trim() {
                "true" | "1" => choice.read_only = true,
                "false" | "0" => {}
                other => {
                    return Err(refused(format!(
                        "X-MCP-Readonly must be true or false, not `{other}`"
                    )));
                }
            }
        }
        choice.discovery_header = flag(headers, DISCOVERY_HEADER, "X-MCP-Discovery")?;
        choice.strict_schemas = flag(headers, STRICT_SCHEMAS_HEADER, "X-MCP-Strict-Schemas")?;
        Ok(choice)
    }

    fn narrow(&mut self, chosen: Option<BTreeSet<String>>) {
        self.toolsets = Some(match (self.toolsets.take().flatten(), chosen) {
            (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
            (a, b) => a.or(b),
        });
    }
}

/// A `true`/`false` header (`1`/`0` too), `None` when not sent; anything else is refused.
fn flag(headers: &HeaderMap, name: HeaderName, shown: &str) -> Result<Option<bool>, RpcError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    match value.to_str().unwrap_or_default().trim() {
        "true" | "1" => Ok(Some(true)),
        "false" | "0" => Ok(Some(false)),
        other => Err(refused(format!(
            "{shown} must be true or false, not `{other}`"
        ))),
    }
}

/// `todos, projects` or `all`: `None` for all, else the names, each one of the catalog's.
fn parse_list(
    catalog: &Catalog,
    list: &str,
    source: &str,
) -> Result<Option<BTreeSet<String>>, RpcError> {
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.contains(&ALL) {
        return Ok(None);
    }
    if names.is_empty() {
        return Err(refused(format!(
            "{source} names no toolset: give one or more of {}, or `all`",
            known(catalog)
        )));
    }
    let mut out = BTreeSet::new();
    for name in names {
        if !catalog.toolsets.iter().any(|t| t.name == name) {
            return Err(refused(format!(
                "{source} names `{name}`, which is no toolset: the toolsets are {}, or `all`",
                known(catalog)
            ))
            .with_data(json!({
                "toolsets": catalog.toolsets.iter().map(|t| t.name).collect::<Vec<_>>()
            })));
        }
        out.insert(name.to_string());
    }
    Ok(Some(out))
}

fn known(catalog: &Catalog) -> String {
    catalog
        .toolsets
        .iter()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn refused(message: String) -> RpcError {
    RpcError::new(ErrorCode::INVALID_PARAMS, message).with_status(400)
}

/// The tools one request may see and call, besides scopes.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `None`: every toolset.
    toolsets: Option<BTreeSet<String>>,
    read_only: bool,
    /// The tools are offered through discovery mode's three (see `discovery`).
    discovery: bool,
    /// Optional arguments are written as admitting `null` (see `offer`).
    strict_schemas: bool,
}

impl Selection {
    /// Everything the catalog has (no bound, no choice).
    pub fn everything() -> Selection {
        Selection::default()
    }

    /// The operator's bound ∩ the credential's bound ∩ (the request's choice, or else the
    /// credential's default); read-only when the operator or the request says so; discovery
    /// mode when the URL asks for it, else as the header says, else as the credential does,
    /// else as the operator does.
    pub fn resolve(settings: &Settings, caller: Option<&Caller>, choice: &Choice) -> Selection {
        let mut toolsets: Option<BTreeSet<String>> = None;
        let mut narrow = |by: Option<&BTreeSet<String>>| {
            if let Some(by) = by {
                toolsets = Some(match toolsets.take() {
                    Some(current) => current.intersection(by).cloned().collect(),
                    None => by.clone(),
                });
            }
        };
        let operator: Option<BTreeSet<String>> = settings
            .toolsets
            .as_ref()
            .map(|names| names.iter().cloned().collect());
        narrow(operator.as_ref());
        let credential = caller.map(|c| &c.toolsets);
        narrow(credential.and_then(|t| t.bound.as_ref()));
        match &choice.toolsets {
            Some(chosen) => narrow(chosen.as_ref()),
            None => narrow(credential.and_then(|t| t.default.as_ref())),
        }
        Selection {
            toolsets,
            read_only: settings.read_only || choice.read_only,
            discovery: choice.discovery_url
                || choice
                    .discovery_header
                    .or(credential.and_then(|t| t.discovery))
                    .unwrap_or(settings.discovery),
            strict_schemas: choice.strict_schemas.unwrap_or(settings.strict_schemas),
        }
    }

    /// Whether the tools are offered through discovery mode's three.
    pub fn discovery(&self) -> bool {
        self.discovery
    }

    /// Whether optional arguments are written as admitting `null`.
    pub fn strict_schemas(&self) -> bool {
        self.strict_schemas
    }

    /// Whether `tool` is on this request's menu (its scopes are checked elsewhere).
    pub fn admits(&self, catalog: &Catalog, tool: &ToolSpec) -> bool {
        self.refusal(catalog, tool).is_none()
    }

    /// Why `tool` is not on the menu, for a caller who names it anyway.
    pub fn refusal(&self, catalog: &Catalog, tool: &ToolSpec) -> Option<String> {
        if self.read_only && !tool.read_only {
            return Some(format!(
                "Tool not available: {} changes data, and this connection is read-only",
                tool.name
            ));
        }
        let toolsets = self.toolsets.as_ref()?;
        let always = catalog
            .toolsets
            .iter()
            .any(|t| t.name == tool.toolset && t.always);
        if tool.toolset.is_empty() || always || toolsets.contains(tool.toolset) {
            return None;
        }
        Some(format!(
            "Tool not available: {} is in the toolset `{}`, which this connection did not load (choose it with X-MCP-Toolsets or /mcp/x/{{toolsets}}, within what the token allows)",
            tool.name, tool.toolset
        ))
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;
    use crate::test_catalog::{self, CATALOG};

    fn names(selection: &Selection) -> Vec<&'static str> {
        CATALOG
            .tools
            .iter()
            .filter(|t| selection.admits(&CATALOG, t))
            .map(|t| t.name)
            .collect()
    }

    fn choice(path: &str, headers: &[(&'static str, &'static str)]) -> Result<Choice, RpcError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(*name, HeaderValue::from_static(value));
        }
        Choice::of_request(&CATALOG, "/mcp", path, &map)
    }

    fn set(names: &[&str]) -> Option<BTreeSet<String>> {
        Some(names.iter().map(|n| n.to_string()).collect())
    }

    fn caller(bound: Option<BTreeSet<String>>, default: Option<BTreeSet<String>>) -> Caller {
        Caller {
            subject: "t".into(),
            scopes: Default::default(),
            toolsets: Toolsets {
                bound,
                default,
                discovery: None,
            },
            extensions: http::Extensions::new(),
        }
    }

    #[test]
    fn without_any_choice_every_tool_is_on_the_menu() {
        let c = choice("/mcp", &[]).unwrap();
        let s = Selection::resolve(&test_catalog::settings(), None, &c);
        assert_eq!(names(&s), ["things_get", "others_get", "things_delete"]);
    }

    #[test]
    fn the_header_and_the_url_each_narrow_and_together_intersect() {
        let settings = test_catalog::settings();
        let header = choice("/mcp", &[("x-mcp-toolsets", "others")]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, None, &header)),
            ["others_get"]
        );
        let url = choice("/mcp/x/things", &[]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, None, &url)),
            ["things_get", "things_delete"]
        );
        let both = choice("/mcp/x/things,others", &[("x-mcp-toolsets", "things")]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, None, &both)),
            ["things_get", "things_delete"]
        );
        let apart = choice("/mcp/x/others", &[("x-mcp-toolsets", "things")]).unwrap();
        assert!(names(&Selection::resolve(&settings, None, &apart)).is_empty());
    }

    #[test]
    fn read_only_by_header_url_or_operator_drops_every_write() {
        let mut settings = test_catalog::settings();
        for c in [
            choice("/mcp/readonly", &[]).unwrap(),
            choice("/mcp", &[("x-mcp-readonly", "true")]).unwrap(),
            choice("/mcp/x/things/readonly", &[]).unwrap(),
        ] {
            let s = Selection::resolve(&settings, None, &c);
            assert!(!names(&s).contains(&"things_delete"), "{c:?}");
        }
        settings.read_only = true;
        // A request cannot turn the operator's read-only mode off.
        let c = choice("/mcp", &[("x-mcp-readonly", "false")]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, None, &c)),
            ["things_get", "others_get"]
        );
    }

    #[test]
    fn no_request_widens_the_operator_or_the_credential() {
        let mut settings = test_catalog::settings();
        settings.toolsets = Some(vec!["things".into()]);
        let all = choice("/mcp", &[("x-mcp-toolsets", "all")]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, None, &all)),
            ["things_get", "things_delete"]
        );
        let others = choice("/mcp/x/others", &[]).unwrap();
        assert!(names(&Selection::resolve(&settings, None, &others)).is_empty());

        let settings = test_catalog::settings();
        let token = caller(set(&["others"]), None);
        assert_eq!(
            names(&Selection::resolve(&settings, Some(&token), &all)),
            ["others_get"]
        );
    }

    #[test]
    fn the_credential_default_applies_only_without_a_choice_and_all_lifts_it() {
        let settings = test_catalog::settings();
        let role = caller(None, set(&["others"]));
        let none = choice("/mcp", &[]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, Some(&role), &none)),
            ["others_get"]
        );
        let all = choice("/mcp", &[("x-mcp-toolsets", "all")]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, Some(&role), &all)).len(),
            3
        );
        let things = choice("/mcp/x/things", &[]).unwrap();
        assert_eq!(
            names(&Selection::resolve(&settings, Some(&role), &things)),
            ["things_get", "things_delete"]
        );
    }

    #[test]
    fn an_unknown_toolset_or_read_only_word_is_refused_with_the_known_names() {
        let e = choice("/mcp", &[("x-mcp-toolsets", "things,thngs")]).unwrap_err();
        assert!(e.message.contains("`thngs`"), "{}", e.message);
        assert!(e.message.contains("things, others"), "{}", e.message);
        assert!(choice("/mcp/x/nope", &[]).is_err());
        assert!(choice("/mcp", &[("x-mcp-toolsets", " , ")]).is_err());
        assert!(choice("/mcp", &[("x-mcp-readonly", "yes")]).is_err());
    }

    #[test]
    fn strict_schemas_come_from_the_header_else_the_operator() {
        let mut settings = test_catalog::settings();
        let on = |headers: &[(&'static str, &'static str)], settings: &Settings| {
            Selection::resolve(settings, None, &choice("/mcp", headers).unwrap()).strict_schemas()
        };
        assert!(!on(&[], &settings));
        assert!(on(&[("x-mcp-strict-schemas", "true")], &settings));
        assert!(!on(&[("x-mcp-strict-schemas", "false")], &settings));
        settings.strict_schemas = true;
        assert!(on(&[], &settings));
        assert!(!on(&[("x-mcp-strict-schemas", "0")], &settings));
        let refused = choice("/mcp", &[("x-mcp-strict-schemas", "yes")]).unwrap_err();
        assert!(
            refused
                .message
                .contains("X-MCP-Strict-Schemas must be true or false"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn discovery_mode_comes_from_the_url_else_the_header_else_the_operator() {
        let mut settings = test_catalog::settings();
        let on = |path: &str, headers: &[(&'static str, &'static str)], settings: &Settings| {
            Selection::resolve(settings, None, &choice(path, headers).unwrap()).discovery()
        };
        assert!(!on("/mcp", &[], &settings));
        assert!(on("/mcp/discover", &[], &settings));
        assert!(on("/mcp/readonly/discover", &[], &settings));
        assert!(on("/mcp/x/things/discover", &[], &settings));
        assert!(on("/mcp/x/things/readonly/discover", &[], &settings));
        assert!(on("/mcp", &[("x-mcp-discovery", "true")], &settings));
        assert!(!on("/mcp", &[("x-mcp-discovery", "false")], &settings));
        settings.discovery = true;
        assert!(on("/mcp", &[], &settings));
        assert!(!on("/mcp", &[("x-mcp-discovery", "0")], &settings));
        // The URL is the stronger word: the header cannot undo it.
        assert!(on(
            "/mcp/discover",
            &[("x-mcp-discovery", "false")],
            &settings
        ));
        assert!(choice("/mcp", &[("x-mcp-discovery", "yes")]).is_err());
        // The URL's other choices still apply.
        let c = choice("/mcp/x/others/readonly/discover", &[]).unwrap();
        let s = Selection::resolve(&settings, None, &c);
        assert_eq!(names(&s), ["others_get"]);
    }

    #[test]
    fn a_credential_s_discovery_choice_sits_between_the_request_and_the_operator() {
        let with = |discovery: Option<bool>| {
            let mut c = caller(None, None);
            c.toolsets.discovery = discovery;
            c
        };
        let off = test_catalog::settings();
        let mut on = test_catalog::settings();
        on.discovery = true;
        // (operator, credential, path, headers, expected)
        type Case<'a> = (
            &'a Settings,
            Option<bool>,
            &'a str,
            &'a [(&'static str, &'static str)],
            bool,
        );
        let table: [Case<'_>; 8] = [
            (&off, Some(true), "/mcp", &[], true),
            (&on, Some(false), "/mcp", &[], false),
            (&off, None, "/mcp", &[], false),
            (&on, None, "/mcp", &[], true),
            // The request's header wins over the credential's choice, both ways.
            (
                &off,
                Some(true),
                "/mcp",
                &[("x-mcp-discovery", "false")],
                false,
            ),
            (
                &on,
                Some(false),
                "/mcp",
                &[("x-mcp-discovery", "true")],
                true,
            ),
            // The URL variant asks for it whatever else says.
            (&off, Some(false), "/mcp/discover", &[], true),
            (
                &on,
                Some(false),
                "/mcp/discover",
                &[("x-mcp-discovery", "false")],
                true,
            ),
        ];
        for (settings, credential, path, headers, expected) in table {
            let caller = with(credential);
            let chosen = choice(path, headers).unwrap();
            assert_eq!(
                Selection::resolve(settings, Some(&caller), &chosen).discovery(),
                expected,
                "{path} {headers:?} credential={credential:?} operator={}",
                settings.discovery
            );
        }
    }

    #[test]
    fn a_hidden_tool_says_why_it_is_refused() {
        let c = choice("/mcp/x/others/readonly", &[]).unwrap();
        let s = Selection::resolve(&test_catalog::settings(), None, &c);
        let delete = &CATALOG.tools[2];
        assert!(s.refusal(&CATALOG, delete).unwrap().contains("read-only"));
        let get = &CATALOG.tools[0];
        assert!(s.refusal(&CATALOG, get).unwrap().contains("`things`"));
    }
}
