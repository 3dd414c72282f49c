//! `tools/list` and `tools/call`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use mcpgen_catalog::{ArgLocation, Catalog, ResponseKind, ToolSpec};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::confirm::{self, Decision};
use super::input::{self, Reply, Round};
use super::jsonrpc::{ErrorCode, Outcome, RpcError};
use super::offer::{self, Offer};
use super::protocol::{self, Context};
#[cfg(test)]
use super::toolsets::Choice;
use super::toolsets::Selection;
use super::{Caller, Endpoint, Settings, bounds, dispatch, lifecycle, results, views};

/// The `tools/list` result for this caller, stateless-era fields included when `stateless`:
/// the tools it can use (all of them for an anonymous public-catalog listing), in the
/// generator's order, with their `_meta.ui` when `views` (see [`views::offered`]), as text
/// prepared on the first request of its kind (see [`Listings`]).
pub fn list(
    endpoint: &Endpoint,
    caller: Option<&Caller>,
    selection: &Selection,
    stateless: bool,
    views: bool,
    params: &Value,
) -> Result<Arc<RawValue>, RpcError> {
    reject_cursor(params)?;
    let (catalog, settings) = (&endpoint.catalog, &endpoint.settings);
    // Without views in the catalog there is nothing to take out: one listing serves both.
    let views = views || !views::any(catalog);
    endpoint
        .listings
        .get(catalog, settings, caller, selection, stateless, views)
}

/// The `tools/list` result built from the catalog, as every call once did: the reference the
/// prepared text must equal, byte for byte.
fn fresh_list(
    catalog: &Catalog,
    settings: &Settings,
    caller: Option<&Caller>,
    selection: &Selection,
    stateless: bool,
    views: bool,
) -> Result<Value, RpcError> {
    let listed_tools: Vec<&ToolSpec> = catalog
        .tools
        .iter()
        .filter(|t| listed(catalog, t, caller, selection))
        .collect();
    let names: HashSet<&'static str> = listed_tools.iter().map(|t| t.name).collect();
    let offer = Offer {
        views,
        strict_schemas: selection.strict_schemas(),
        listed: Some(&names),
    };
    let mut tools = Vec::with_capacity(listed_tools.len());
    for tool in listed_tools {
        tools.push(offer::tool(tool, offer).map_err(|e| internal(tool, e))?);
    }
    let result = json!({ "tools": tools });
    Ok(if stateless {
        lifecycle::stateless_result(settings, "tools/list", result)
    } else {
        result
    })
}

/// Whether `tool` is on this request's menu: a tool (not a prompt's operation), in the
/// toolsets chosen, and within the caller's scopes (anyone's, for an anonymous listing).
pub(crate) fn listed(
    catalog: &Catalog,
    tool: &ToolSpec,
    caller: Option<&Caller>,
    selection: &Selection,
) -> bool {
    tool.is_tool()
        && selection.admits(catalog, tool)
        && caller.is_none_or(|c| c.may_use(tool.scopes))
}

/// Which tools of the catalog `caller` sees on this request (its scopes, the toolsets and
/// read-only mode chosen), one bit per index: all a listing depends on besides the era.
fn visible(catalog: &Catalog, caller: Option<&Caller>, selection: &Selection) -> Box<[u64]> {
    let mut bits = vec![0u64; catalog.tools.len().div_ceil(64)];
    for (index, tool) in catalog.tools.iter().enumerate() {
        if listed(catalog, tool, caller, selection) {
            bits[index / 64] |= 1 << (index % 64);
        }
    }
    bits.into_boxed_slice()
}

/// Most listings kept: a server has a handful of roles and scope sets, but tokens may carry
/// any subset of scopes, so the number of distinct sets has no bound of its own.
const MAX_LISTINGS: usize = 64;

/// A set of visible tools (one bit per catalog index), whether the era is stateless, whether
/// the views are offered and whether the schemas are strict-mode ones.
type ListingKey = (Box<[u64]>, bool, bool, bool);

/// `tools/list` results serialised once per set of visible tools and era. The admin's listing
/// is some 200 KB of JSON: parsing and writing it again on every call cost more than the
/// rest of the request.
#[derive(Default)]
pub struct Listings {
    prepared: RwLock<HashMap<ListingKey, Arc<RawValue>>>,
}

impl Listings {
    /// The `tools/list` result for `caller` in this era, built on the first request of its
    /// kind.
    fn get(
        &self,
        catalog: &Catalog,
        settings: &Settings,
        caller: Option<&Caller>,
        selection: &Selection,
        stateless: bool,
        views: bool,
    ) -> Result<Arc<RawValue>, RpcError> {
        let key = (
            visible(catalog, caller, selection),
            stateless,
            views,
            selection.strict_schemas(),
        );
        if let Some(found) = self.find(&key) {
            return Ok(found);
        }
        let value = fresh_list(catalog, settings, caller, selection, stateless, views)?;
        let text = serde_json::value::to_raw_value(&value).map_err(|e| {
            tracing::error!("cannot serialise the tools/list result: {e}");
            RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
        })?;
        Ok(self.keep(key, Arc::from(text)))
    }

    fn find(&self, key: &ListingKey) -> Option<Arc<RawValue>> {
        let prepared = self.prepared.read().unwrap_or_else(|e| e.into_inner());
        prepared.get(key).cloned()
    }

    /// Keep `text` for `key` (when full, in place of some other set) and hand it back.
    fn keep(&self, key: ListingKey, text: Arc<RawValue>) -> Arc<RawValue> {
        let mut prepared = self.prepared.write().unwrap_or_else(|e| e.into_inner());
        if prepared.len() >= MAX_LISTINGS && !prepared.contains_key(&key) {
            let evicted = prepared.keys().next().cloned();
            if let Some(evicted) = evicted {
                prepared.remove(&evicted);
            }
        }
        prepared.entry(key).or_insert(text).clone()
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.prepared
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

/// Lists come in one page; a cursor can only be one we never issued.
pub fn reject_cursor(params: &Value) -> Result<(), RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(RpcError::invalid_params(
            "Invalid cursor: this server returns every list in one page",
        )),
    }
}

/// The 403 problem of a tool the caller holds no scope for (the API answers the same).
fn insufficient_scope(settings: &Settings, scope: &str) -> Value {
    json!({
        "type": settings.problem_type("insufficient-scope"),
        "title": "Forbidden",
        "status": 403,
        "detail": format!("This credential lacks the scope '{scope}' that this tool requires"),
        "code": "insufficient_scope",
        "errors": [],
    })
}

fn internal(tool: &ToolSpec, e: impl std::fmt::Display) -> RpcError {
    tracing::error!(tool = tool.name, "generated tool JSON is invalid: {e}");
    RpcError::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_status(500)
}

/// How a tool call reached [`call_through`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `tools/call` naming the tool.
    Direct,
    /// Discovery mode's `<prefix>call` naming it (see `discovery`): the request's
    /// `Mcp-Param-*` headers mirror that tool's arguments, not this one's, and are not checked.
    Discovery,
}

/// `tools/call`: see [`call_through`].
pub async fn call(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    params: Value,
) -> Result<Outcome, RpcError> {
    call_through(endpoint, context, caller, selection, params, Route::Direct).await
}

/// Find the tool, check that the caller may run it, check the arguments, ask for
/// confirmation when it is destructive, run the operation in-process, shape the result.
pub async fn call_through(
    endpoint: &Endpoint,
    context: &Context,
    caller: Option<&Caller>,
    selection: &Selection,
    mut params: Value,
    route: Route,
) -> Result<Outcome, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.name must be the name of a tool"))?;
    bounds::check("params.name", name, bounds::MAX_NAME_CHARS)?;
    let tool = find(&endpoint.catalog, name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
    // What the connection did not load is refused, as if it were not in the catalog.
    if let Some(why) = selection.refusal(&endpoint.catalog, tool) {
        return Err(RpcError::invalid_params(why));
    }
    // Taken out of `params`, not copied: nothing below reads `params.arguments` again.
    let mut arguments = match params.get_mut("arguments").map(Value::take) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.arguments must be an object",
            ));
        }
    };
    let Some(caller) = caller else {
        return Err(RpcError::invalid_params("tools/call needs a credential"));
    };
    // Authorization comes first: a caller who may not run the tool learns that and nothing
    // else — not which arguments are missing, not a confirmation form to fill in for nothing.
    if let Some(scope) = caller.missing_scope(tool.scopes) {
        return Ok(Outcome::Value(results::error(&insufficient_scope(
            &endpoint.settings,
            scope,
        ))));
    }
    endpoint.checks.unset_nulls(tool, &mut arguments);
    if route == Route::Direct {
        check_param_headers(endpoint, context, tool, &arguments)?;
    }
    if let Err(problem) = dispatch::check_arguments(endpoint, tool, &mut arguments) {
        return Ok(Outcome::Value(results::error(&problem)));
    }
    if tool.response == ResponseKind::McpResult {
        return call_mcp(endpoint, context, caller, tool, &arguments, &params)
            .await
            .map(Outcome::Value);
    }
    if let Decision::Answer(answer) = confirm::decide(
        &endpoint.settings,
        context,
        caller,
        tool,
        &arguments,
        &params,
    )? {
        return Ok(Outcome::Value(answer));
    }
    if tool.server_idempotency_key
        && let Some(arg) = idempotency_argument(tool).filter(|a| !arguments.contains_key(*a))
    {
        let key = confirm::derived_idempotency_key(caller, tool, &arguments);
        arguments.insert(arg.to_string(), Value::String(key));
    }
    let response = dispatch::run(endpoint, caller, tool, &arguments, Vec::new()).await;
    let tail = if context.version.is_stateless() {
        lifecycle::stateless_tail(&endpoint.settings)
    } else {
        String::new()
    };
    if let Some(prepared) = results::prepared(tool, &response, &tail) {
        return Ok(Outcome::Assembled(prepared.into()));
    }
    Ok(Outcome::Value(results::from_response(
        tool, &arguments, response,
    )))
}

/// A tool whose operation answers MCP results: its `CallToolResult` goes through as it is,
/// and its `InputRequiredResult` becomes the client's next round (see `input`).
async fn call_mcp(
    endpoint: &Endpoint,
    context: &Context,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    params: &Value,
) -> Result<Value, RpcError> {
    let round = Round::new(&endpoint.settings, context, caller, tool.name, arguments);
    let headers = round.headers(params)?;
    let answer = dispatch::run(endpoint, caller, tool, arguments, headers).await;
    if !answer.status.is_success() {
        return Ok(results::from_response(tool, arguments, answer));
    }
    match input::read(&answer) {
        Ok(Reply::Complete(result)) if result.get("content").is_some_and(Value::is_array) => {
            Ok(Value::Object(result))
        }
        Ok(Reply::Complete(_)) => Ok(results::error(&results::internal_problem(&format!(
            "{}: the operation's result has no content array",
            tool.name
        )))),
        Ok(Reply::InputRequired { requests, .. }) if !context.version.is_stateless() => {
            Ok(results::error(&json!({
                "type": endpoint.settings.problem_type("input-required"),
                "title": "Precondition Required",
                "status": 428,
                "detail": input::handshake_refusal(context, &requests),
                "code": "input_required",
                "errors": [],
            })))
        }
        Ok(Reply::InputRequired { requests, state }) => round.ask(requests, state),
        Err(why) => Ok(results::error(&results::internal_problem(&format!(
            "{}: {why}",
            tool.name
        )))),
    }
}

/// 2026-07-28: an argument the tool's schema marks with `x-mcp-header` must be repeated in
/// `Mcp-Param-<Name>` (decoded when Base64), and the header must hold exactly its value;
/// otherwise 400 with `HeaderMismatch` (-32020), as for the standard headers.
fn check_param_headers(
    endpoint: &Endpoint,
    context: &Context,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
) -> Result<(), RpcError> {
    if !context.version.is_stateless() {
        return Ok(());
    }
    let mismatch = |message: String| {
        RpcError::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {message}"),
        )
        .with_status(400)
    };
    for param in endpoint.checks.param_headers(tool.name) {
        let sent = context
            .param_headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(&param.name))
            .map(|(_, value)| value);
        let header = format!("Mcp-Param-{}", param.name);
        let expected = arguments.get(&param.argument).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        });
        match (expected, sent) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "{header} is missing but arguments.{} is set",
                    param.argument
                )));
            }
            (expected, Some(raw)) => {
                let decoded = raw
                    .as_deref()
                    .and_then(protocol::decode_header_value)
                    .ok_or_else(|| {
                        mismatch(format!("{header} is not a valid (Base64) header value"))
                    })?;
                if expected.as_deref() != Some(decoded.as_str()) {
                    return Err(mismatch(format!(
                        "{header} does not match arguments.{}",
                        param.argument
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The argument that carries the `Idempotency-Key` header, if the tool has one.
fn idempotency_argument(tool: &ToolSpec) -> Option<&'static str> {
    tool.args
        .iter()
        .find(|a| {
            a.location == ArgLocation::Header && a.wire_name.eq_ignore_ascii_case("idempotency-key")
        })
        .map(|a| a.name)
}

/// The tool called `name` (operations that serve prompts are not tools).
pub fn find(catalog: &Catalog, name: &str) -> Option<&'static ToolSpec> {
    catalog.tools.iter().find(|t| t.name == name && t.is_tool())
}

/// The operation called `name`, tool or not.
pub fn operation(catalog: &Catalog, name: &str) -> Option<&'static ToolSpec> {
    catalog.tools.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::jsonrpc::{self, Id, Message, Messages, Outcome};

    fn id(text: &str) -> Id {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"tools/list"}}"#);
        let Ok(Messages::Single(message)) = jsonrpc::parse(body.as_bytes()) else {
            panic!("not one message: {body}");
        };
        match jsonrpc::classify(message) {
            Ok(Message::Request(incoming)) => incoming.id,
            other => panic!("not a request: {other:?}"),
        }
    }

    fn caller(scopes: impl IntoIterator<Item = &'static str>) -> Caller {
        Caller {
            subject: "test".into(),
            scopes: std::sync::Arc::new(scopes.into_iter().map(str::to_string).collect()),
            toolsets: crate::toolsets::Toolsets::default(),
            extensions: http::Extensions::new(),
        }
    }

    /// The permission sets of the demo roles (admin, a reader, one scope, none) and the
    /// anonymous public-catalog listing.
    fn callers() -> Vec<Option<Caller>> {
        let catalog = crate::test_catalog::CATALOG;
        let all: BTreeSet<&'static str> = catalog
            .tools
            .iter()
            .flat_map(|t| t.scopes.iter().copied())
            .collect();
        let reads = all.iter().copied().filter(|s| s.ends_with(":read"));
        vec![
            Some(caller(all.iter().copied())),
            Some(caller(reads)),
            Some(caller(["things:read"])),
            Some(caller([])),
            None,
        ]
    }

    /// Everything, one toolset, read-only.
    fn selections() -> Vec<Selection> {
        let settings = crate::test_catalog::settings();
        let catalog = crate::test_catalog::CATALOG;
        let none = http::HeaderMap::new();
        let mut strict = http::HeaderMap::new();
        strict.insert(
            super::super::toolsets::STRICT_SCHEMAS_HEADER,
            http::HeaderValue::from_static("true"),
        );
        [
            ("/mcp", &none),
            ("/mcp/x/others", &none),
            ("/mcp/readonly", &none),
            ("/mcp", &strict),
        ]
        .into_iter()
        .map(|(path, headers)| {
            let choice = Choice::of_request(&catalog, "/mcp", path, headers).unwrap();
            Selection::resolve(&settings, None, &choice)
        })
        .collect()
    }

    #[test]
    fn a_prepared_listing_answers_the_same_bytes_as_one_built_afresh() {
        let catalog = crate::test_catalog::CATALOG;
        let settings = crate::test_catalog::settings();
        let listings = Listings::default();
        let ids = ["1", r#""a \"quoted\" id""#, "99999999999999999999", "-7"];
        // Twice: the first round fills the cache, the second answers from it.
        for round in 0..2 {
            for (stateless, views) in [(false, true), (true, true), (true, false)] {
                for (caller, selection) in callers()
                    .into_iter()
                    .flat_map(|c| selections().into_iter().map(move |s| (c.clone(), s)))
                {
                    let prepared = listings
                        .get(
                            &catalog,
                            &settings,
                            caller.as_ref(),
                            &selection,
                            stateless,
                            views,
                        )
                        .unwrap();
                    let fresh = fresh_list(
                        &catalog,
                        &settings,
                        caller.as_ref(),
                        &selection,
                        stateless,
                        views,
                    )
                    .unwrap();
                    for text in ids {
                        let id = id(text);
                        let expected: Box<str> = jsonrpc::success(&id, &fresh).into();
                        let outcome = Outcome::Prepared(prepared.clone());
                        let answered = jsonrpc::answer(&id, &outcome);
                        assert_eq!(
                            answered,
                            &*expected,
                            "round {round}, stateless {stateless}, views {views}, id {text}, scopes {:?}",
                            caller.as_ref().map(|c| &c.scopes)
                        );
                        // What is sent shares the kept listing: it is not copied per answer.
                        let pieces = jsonrpc::answer_pieces(&id, &outcome);
                        assert!(
                            pieces.iter().any(|p| p.as_ptr() == prepared.get().as_ptr()),
                            "the listing was copied into the answer"
                        );
                    }
                }
            }
        }
        // One entry per distinct set of tools, era and views, however it came about: the
        // admin's and the anonymous listing are one; read-only and the reader's are one;
        // `others` alone adds one; `things:read` and nobody the other two; strict-mode schemas
        // one more per set the plain endpoint gives (four).
        assert_eq!(listings.len(), 3 * (5 + 4));
    }

    #[test]
    fn the_listings_kept_are_bounded() {
        let listings = Listings::default();
        let text: Arc<RawValue> = Arc::from(RawValue::from_string("{}".into()).unwrap());
        for n in 0..(3 * MAX_LISTINGS as u64) {
            listings.keep(
                (vec![n].into_boxed_slice(), false, true, false),
                text.clone(),
            );
            assert!(listings.len() <= MAX_LISTINGS);
        }
        assert_eq!(listings.len(), MAX_LISTINGS);
    }
}
