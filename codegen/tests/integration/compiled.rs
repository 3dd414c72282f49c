//! The generated Rust of the snapshot fixtures compiles against the real catalog types
//! (the `catalog` crate, what the server and the MCP layer use), and its tables agree with
//! the catalog.

macro_rules! generated {
    ($($module:ident => $file:literal),* $(,)?) => {
        $(
            #[allow(dead_code)]
            mod $module {
                use mcpgen_catalog::*;
                include!($file);
            }
        )*
    };
}

generated! {
    x_mcp => "../snapshots/x_mcp.rs",
    binary => "../snapshots/binary.rs",
    no_content => "../snapshots/no_content.rs",
    openapi31 => "../snapshots/openapi31.rs",
    clash_lenient => "../snapshots/clash_lenient.rs",
    no_operation_id => "../snapshots/no_operation_id.rs",
    recursive => "../snapshots/recursive.rs",
    bodies => "../snapshots/bodies.rs",
    result_mcp => "../snapshots/result_mcp.rs",
    prompt_operation => "../snapshots/prompt_operation.rs",
    arguments_body => "../snapshots/arguments_body.rs",
    param_headers => "../snapshots/param_headers.rs",
    multi => "../snapshots/multi.rs",
    big_int => "../snapshots/big_int.rs",
    allof_cut => "../snapshots/allof_cut.rs",
    required_undeclared => "../snapshots/required_undeclared.rs",
    oneof_cut => "../snapshots/oneof_cut.rs",
    ui_views => "../snapshots/ui_views.rs",
    keywords => "../snapshots/keywords.rs",
}

#[test]
fn keywords_and_the_prefix_reach_the_tables_and_stay_out_of_the_tool_objects() {
    assert_eq!(keywords::CATALOG.tool_prefix, "library_");
    let search = &keywords::TOOLS[0];
    assert_eq!(search.name, "library_books_search");
    assert_eq!(
        search.keywords,
        ["find a book", "livro", "acervo", "título", "autor", "ISBN"]
    );
    assert!(!search.tool_json.contains("acervo"), "{}", search.tool_json);
    let give_back = keywords::TOOLS
        .iter()
        .find(|t| t.name == "library_loans_return")
        .expect("loans_return");
    assert!(give_back.keywords.is_empty());
    let catalog: serde_json::Value =
        serde_json::from_str(keywords::CATALOG_JSON).expect("CATALOG_JSON is JSON");
    for spec in keywords::TOOLS {
        let listed = catalog["keywords"].get(spec.name).cloned();
        let expected = (!spec.keywords.is_empty()).then(|| serde_json::json!(spec.keywords));
        assert_eq!(listed, expected, "{}", spec.name);
    }
}

#[test]
fn views_are_fixed_resources_with_their_html_and_no_tool() {
    let views: Vec<_> = ui_views::RESOURCES.iter().filter(|r| r.is_view()).collect();
    let uris: Vec<&str> = views.iter().map(|r| r.uri).collect();
    assert_eq!(uris, ["ui://app/board", "ui://app/todo"]);
    // The file's HTML, sealed: its own policy first in <head>, the rest as written.
    let board = std::fs::read_to_string("tests/fixtures/views/board.html").expect("board.html");
    let (head, rest) = board.split_once("<head>").expect("<head>");
    let text = views[0].text.expect("embedded HTML");
    assert!(
        text.starts_with(&format!(
            "{head}<head>\n<meta http-equiv=\"Content-Security-Policy\""
        )) && text.ends_with(&format!("\">{rest}")),
        "{text}"
    );
    assert!(
        views
            .iter()
            .all(|v| v.tool.is_empty() && v.mime_type == "text/html;profile=mcp-app")
    );
    let listing: serde_json::Value = serde_json::from_str(views[0].json).expect("json");
    assert_eq!(
        listing["_meta"]["ui"]["csp"]["connectDomains"],
        serde_json::json!([])
    );
}

#[test]
fn generated_tables_agree_with_the_catalog_json() {
    let catalog: serde_json::Value =
        serde_json::from_str(x_mcp::CATALOG_JSON).expect("CATALOG_JSON is JSON");
    let tools = catalog["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), x_mcp::TOOLS.len());
    for (spec, json) in x_mcp::TOOLS.iter().zip(tools) {
        let tool: serde_json::Value = serde_json::from_str(spec.tool_json).expect("tool_json");
        assert_eq!(&tool, json);
        assert_eq!(spec.name, json["name"]);
        let input: serde_json::Value = serde_json::from_str(spec.input_schema).expect("input");
        assert_eq!(input, json["inputSchema"]);
    }
    let templates = catalog["resourceTemplates"].as_array().expect("templates");
    assert_eq!(templates.len(), x_mcp::RESOURCE_TEMPLATES.len());
    assert_eq!(x_mcp::RESOURCES.len(), 1);
    assert_eq!(x_mcp::RESOURCES[0].uri, "demo://me");
    let notify = x_mcp::TOOLS
        .iter()
        .find(|t| t.name == "demo_charges_notify")
        .expect("notify");
    assert!(notify.destructive && notify.server_idempotency_key);
    assert_eq!(notify.method, mcpgen_catalog::HttpMethod::Post);
    assert_eq!(
        binary::TOOLS[0].response,
        mcpgen_catalog::ResponseKind::Binary {
            content_type: "application/pdf"
        }
    );
    let original: serde_json::Value =
        serde_json::from_str(x_mcp::OPENAPI_JSON).expect("OPENAPI_JSON");
    assert_eq!(original["info"]["title"], "x-mcp overrides");
    assert!(x_mcp::INSTRUCTIONS.starts_with("Test instructions"));
}

#[test]
fn mcp_results_prompts_and_verbatim_body_schemas_reach_the_tables() {
    use mcpgen_catalog::ResponseKind;

    let picture = &result_mcp::CATALOG.tools[0];
    assert_eq!(picture.response, ResponseKind::McpResult);
    assert!(picture.is_tool() && picture.output_schema.is_none());

    let served = prompt_operation::CATALOG
        .tools
        .iter()
        .find(|t| t.name == "summary_prompt")
        .expect("the operation stays in the table, for dispatch");
    assert_eq!(served.response, ResponseKind::PromptResult);
    assert!(!served.is_tool());
    let prompt = &prompt_operation::PROMPTS[0];
    assert_eq!(prompt.operation, Some("summary_prompt"));
    assert_eq!(prompt.arguments[1].name, "resourceUri");

    let schema: serde_json::Value =
        serde_json::from_str(arguments_body::TOOLS[0].input_schema).expect("inputSchema");
    let validator = jsonschema::validator_for(&schema).expect("the verbatim schema compiles");
    assert!(validator.is_valid(&serde_json::json!({"name": "Ana", "email": "a@b.c"})));
    assert!(!validator.is_valid(&serde_json::json!({"name": "Ana", "contactMethod": "phone"})));
    assert!(!validator.is_valid(&serde_json::json!({"name": "Ana", "email": "a@b.c", "x": 1})));

    let headers: serde_json::Value =
        serde_json::from_str(param_headers::TOOLS[0].input_schema).expect("inputSchema");
    assert_eq!(headers["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(
        headers["properties"]["priority"]["x-mcp-header"],
        "Priority"
    );
}
