//! How one tool is written for one request: the generated `Tool` object, with its view's
//! `_meta.ui` only for a host that shows views, its strict-mode `inputSchema` (every optional
//! argument admitting `null`) when the request asked for it, and an object another listed
//! tool has in full named instead of repeated. The generator wrote each form; this only
//! chooses.

use std::collections::HashSet;

use mcpgen_catalog::ToolSpec;
use serde_json::Value;

use super::views;

/// What a request's listing depends on besides which tools it lists.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offer<'a> {
    /// The host shows MCP Apps views: `_meta.ui` stays.
    pub views: bool,
    /// Strict-mode input schemas (see `toolsets`).
    pub strict_schemas: bool,
    /// The tools listed beside this one, whose objects it may name instead of repeating
    /// (`None`: write every schema in full, the input schema with every check the arguments
    /// meet, as discovery mode's `describe` does).
    pub listed: Option<&'a HashSet<&'static str>>,
}

/// `tool`'s `Tool` object as `offer` has it written.
pub(crate) fn tool(tool: &ToolSpec, offer: Offer) -> Result<Value, serde_json::Error> {
    let mut json: Value = serde_json::from_str(tool.tool_json)?;
    if !offer.views {
        views::without_ui(&mut json);
    }
    if offer.strict_schemas
        && let Some(strict) = tool.strict_input_schema
    {
        json["inputSchema"] = serde_json::from_str(strict)?;
    } else if offer.listed.is_none() {
        // `describe` says everything: the bounds and patterns the listing leaves out too.
        json["inputSchema"] = serde_json::from_str(tool.input_schema)?;
    }
    if let (Some(shared), Some(listed)) = (&tool.shared_output, offer.listed)
        && listed.contains(shared.like)
    {
        json["outputSchema"] = serde_json::from_str(shared.output_schema)?;
    }
    Ok(json)
}

#[cfg(test)]
mod tests {
    use mcpgen_catalog::{HttpMethod, SharedOutput};
    use serde_json::json;

    use super::*;
    use crate::test_catalog::tool as path_tool;

    static TOOL: ToolSpec = ToolSpec {
        input_schema: r#"{"type":"object","properties":{"id":{"type":"string","pattern":"^t_"},"note":{"type":"string","maxLength":10}},"required":["id"]}"#,
        strict_input_schema: Some(
            r#"{"type":"object","properties":{"id":{"type":"string"},"note":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["id"]}"#,
        ),
        shared_output: Some(SharedOutput {
            like: "todos_get",
            output_schema: r#"{"type":"object","properties":{"data":{"type":"object","description":"Same as `data` of todos_get."}}}"#,
        }),
        ..path_tool(
            "todos_update",
            HttpMethod::Post,
            "/todos/{id}",
            &[],
            "",
            &[],
            r#"{"name":"todos_update","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]},"outputSchema":{"type":"object","properties":{"data":{"type":"object","properties":{"id":{"type":"string"}}}}},"_meta":{"ui":{"resourceUri":"ui://t/todo.html"}}}"#,
        )
    };

    fn offered(views: bool, strict_schemas: bool, listed: Option<&[&'static str]>) -> Value {
        let listed: Option<HashSet<&'static str>> = listed.map(|l| l.iter().copied().collect());
        let offer = Offer {
            views,
            strict_schemas,
            listed: listed.as_ref(),
        };
        tool(&TOOL, offer).unwrap()
    }

    #[test]
    fn the_strict_form_replaces_the_input_schema_only_when_asked() {
        let listed = Some(&["todos_update"][..]);
        assert_eq!(
            offered(true, false, listed)["inputSchema"]["properties"]["note"],
            json!({"type": "string"})
        );
        assert_eq!(
            offered(true, true, listed)["inputSchema"]["properties"]["note"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }

    #[test]
    fn describe_gives_the_input_schema_with_every_check_and_a_listing_the_lean_one() {
        let described = offered(true, false, None);
        assert_eq!(
            described["inputSchema"]["properties"]["note"],
            json!({"type": "string", "maxLength": 10})
        );
        assert_eq!(
            described["inputSchema"]["properties"]["id"]["pattern"],
            json!("^t_")
        );
        let listed = offered(true, false, Some(&["todos_update"]));
        assert!(
            listed["inputSchema"]["properties"]["id"]
                .get("pattern")
                .is_none()
        );
    }

    #[test]
    fn an_output_names_the_tool_with_the_object_only_when_that_tool_is_listed() {
        let full = offered(true, false, Some(&["todos_update"]));
        assert_eq!(
            full["outputSchema"]["properties"]["data"]["properties"]["id"],
            json!({"type": "string"})
        );
        assert_eq!(
            offered(true, false, None)["outputSchema"],
            full["outputSchema"]
        );
        let named = offered(true, false, Some(&["todos_update", "todos_get"]));
        assert_eq!(
            named["outputSchema"]["properties"]["data"]["description"],
            json!("Same as `data` of todos_get.")
        );
    }

    #[test]
    fn a_view_stays_only_for_hosts_that_show_views() {
        assert_eq!(
            offered(true, false, None)["_meta"]["ui"]["resourceUri"],
            json!("ui://t/todo.html")
        );
        assert!(offered(false, false, None).get("_meta").is_none());
    }
}
