//! The MCP Apps views (`templates/ui/`, `x-mcp.ui` in the document): which tools point at them,
//! what their resources declare, what a view file may contain (its size budget, its sealed
//! policy checked against hashes computed here, nothing loaded from outside), who is offered
//! them, and that tool results are the same bytes whether a client renders views or not.
//! How they behave in a host is tests/clients/test_views_browser.py.

use base64::Engine;
use http::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::TestServer;

/// What each view may weigh, its script and style included (docs/choosing-tools.md, "What the assistant shows: views").
const VIEW_BUDGET_BYTES: usize = 60 * 1024;

/// The tools with a view, and the view's URI.
const VIEWS: [(&str, &str); 3] = [
    ("dunning_reports_aging", "ui://dunning/aging"),
    ("dunning_charges_get", "ui://dunning/charge"),
    ("dunning_agreements_create", "ui://dunning/agreement"),
];

/// A client that renders views: the extension with its media type.
fn renders() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

async fn read_view(server: &TestServer, token: &str, uri: &str) -> Value {
    let answer = server
        .mcp26(token, "resources/read", json!({ "uri": uri }), renders())
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["result"]["contents"][0].clone()
}

/// The text of each `<tag>...</tag>` element of `html`.
fn elements<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    html.split(open.as_str())
        .skip(1)
        .map(|rest| rest.split(close.as_str()).next().expect("closed element"))
        .collect()
}

fn sha256_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

#[tokio::test]
async fn the_three_tools_point_at_their_views_for_the_model_and_the_view() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let answer = server
        .mcp26(&token, "tools/list", json!({}), renders())
        .await;
    let tools = &answer.body["result"]["tools"];
    for (name, uri) in VIEWS {
        assert_eq!(
            tool(tools, name)["_meta"]["ui"],
            json!({ "resourceUri": uri, "visibility": ["model", "app"] }),
            "{name}"
        );
    }
    let with_views = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["_meta"].get("ui").is_some())
        .count();
    assert_eq!(with_views, VIEWS.len());
}

#[tokio::test]
async fn each_view_is_one_sealed_file_under_its_budget_that_loads_nothing() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let listed = server
        .mcp26(&token, "resources/list", json!({}), renders())
        .await;
    let resources = listed.body["result"]["resources"].as_array().unwrap();
    for (_, uri) in VIEWS {
        let listed = resources
            .iter()
            .find(|r| r["uri"] == uri)
            .unwrap_or_else(|| panic!("{uri} not listed"));
        assert_eq!(listed["mimeType"], "text/html;profile=mcp-app");
        let csp = &listed["_meta"]["ui"]["csp"];
        for list in [
            "connectDomains",
            "resourceDomains",
            "frameDomains",
            "baseUriDomains",
        ] {
            assert_eq!(csp[list], json!([]), "{uri} {list}");
        }
        let content = read_view(&server, &token, uri).await;
        assert_eq!(content["uri"], uri);
        assert_eq!(content["_meta"], listed["_meta"]);
        let html = content["text"].as_str().expect("HTML as text");
        assert!(
            html.len() < VIEW_BUDGET_BYTES,
            "{uri}: {} bytes, over the {VIEW_BUDGET_BYTES}-byte budget",
            html.len()
        );
        assert!(html.contains("<html lang=\"pt-BR\">"), "{uri} is pt-BR");

        // Its own policy, first in <head>, names exactly its one script and its one style.
        let (scripts, styles) = (elements(html, "script"), elements(html, "style"));
        assert_eq!((scripts.len(), styles.len()), (1, 1), "{uri}");
        let policy = format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src {}; \
             style-src {}; img-src data:; font-src data:; form-action 'none'; base-uri 'none'\">",
            sha256_source(scripts[0]),
            sha256_source(styles[0])
        );
        let head = html.find("<head>").expect("<head>") + "<head>".len();
        assert_eq!(
            html[head..].trim_start().get(..policy.len()),
            Some(policy.as_str()),
            "{uri}"
        );

        // Nothing that a policy would have to forbid: loads, handlers, eval, network.
        // (The SVG namespace is a name, not an address: `createElementNS` needs it.)
        let lower = html
            .to_ascii_lowercase()
            .replace("\"http://www.w3.org/2000/svg\"", "svg_ns");
        for banned in [
            "src=",
            "href=",
            "http://",
            "https://",
            "innerhtml",
            "outerhtml",
            "insertadjacenthtml",
            "document.write",
            "eval(",
            "new function",
            "fetch(",
            "xmlhttprequest",
            "websocket",
            "eventsource",
            "style=\"",
            " onclick",
            " onerror",
            " onload",
            " oninput",
            " onchange",
            " onsubmit",
            " onkeydown",
        ] {
            assert!(!lower.contains(banned), "{uri} contains `{banned}`");
        }
    }
    // The charge's view may copy its Pix code; no view asks for anything else.
    let permissions: Vec<(&str, &Value)> = resources
        .iter()
        .filter(|r| r["_meta"]["ui"].get("permissions").is_some())
        .map(|r| (r["uri"].as_str().unwrap(), &r["_meta"]["ui"]["permissions"]))
        .collect();
    assert_eq!(
        permissions,
        [("ui://dunning/charge", &json!({"clipboardWrite": {}}))]
    );
}

#[tokio::test]
async fn only_a_client_that_renders_views_is_offered_them_in_the_2026_era() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    for capabilities in [
        json!({}),
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}}),
    ] {
        let tools = server
            .mcp26(&token, "tools/list", json!({}), capabilities.clone())
            .await;
        for (name, _) in VIEWS {
            let t = tool(&tools.body["result"]["tools"], name);
            assert!(
                t.get("_meta").is_none_or(|m| m.get("ui").is_none()),
                "{name}: {t}"
            );
        }
        let resources = server
            .mcp26(&token, "resources/list", json!({}), capabilities.clone())
            .await;
        let text = resources.body["result"].to_string();
        assert!(!text.contains("ui://"), "{text}");
        let read = server
            .mcp26(
                &token,
                "resources/read",
                json!({"uri": "ui://dunning/aging"}),
                capabilities,
            )
            .await;
        assert_eq!(read.body["error"]["code"], -32602, "{}", read.text);
    }
    // The handshake era cannot remember `initialize`: the views are always there.
    let tools = server.mcp(&token, "tools/list", json!({})).await;
    for (name, uri) in VIEWS {
        let t = tool(&tools.body["result"]["tools"], name);
        assert_eq!(t["_meta"]["ui"]["resourceUri"], uri);
    }
    let read = server
        .mcp(
            &token,
            "resources/read",
            json!({"uri": "ui://dunning/charge"}),
        )
        .await;
    assert_eq!(
        read.body["result"]["contents"][0]["mimeType"],
        "text/html;profile=mcp-app"
    );
}

#[tokio::test]
async fn tool_results_are_the_same_bytes_whether_the_client_renders_views_or_not() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let charges = server
        .rest(
            "GET",
            "/v1/charges?status=overdue&per_page=1",
            &token_api(&server),
            None,
        )
        .await;
    let charge = charges.body["data"][0]["id"].as_str().unwrap().to_owned();
    for (name, arguments) in [
        ("dunning_reports_aging", json!({})),
        ("dunning_charges_get", json!({ "id": charge })),
    ] {
        let call = json!({ "name": name, "arguments": arguments });
        let plain = server
            .mcp26(&token, "tools/call", call.clone(), json!({}))
            .await;
        let viewed = server.mcp26(&token, "tools/call", call, renders()).await;
        // Only the rate limit's remaining count moves between two calls.
        let without_rate_limit = |mut value: Value| {
            if let Some(meta) = value["meta"].as_object_mut() {
                meta.remove("rate_limit");
            }
            value
        };
        let result = |answer: &crate::common::Answer| {
            let result = &answer.body["result"];
            let text: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            let mut rest = result.clone();
            rest.as_object_mut().unwrap().remove("content");
            rest.as_object_mut().unwrap().remove("structuredContent");
            (
                without_rate_limit(result["structuredContent"].clone()),
                without_rate_limit(text),
                rest,
            )
        };
        assert_eq!(result(&plain), result(&viewed), "{name}");
    }
}

fn token_api(server: &TestServer) -> String {
    server.token(0, "admin", "api")
}
