//! The MCP catalog of `openapi/v1.yaml`, reviewed: every spec change shows its MCP diff in
//! `openapi/v1.catalog.json`. After a deliberate change, refresh it with
//! `EXPECTORATE=overwrite cargo test --test integration catalog` and review the diff. A
//! mismatch first prints what changes for an assistant (`codegen diff`), breaking ones first.

use serde_json::{Value, json};

#[test]
fn the_v1_catalog_matches_the_reviewed_snapshot() {
    let catalog: Value =
        serde_json::from_str(kobana_dunning::generated::CATALOG_JSON).expect("catalog JSON");
    let pretty = serde_json::to_string_pretty(&catalog).expect("serialise") + "\n";
    // What the change means for an assistant comes first, breaking changes at the top; the
    // text diff follows.
    if let Ok(reviewed) = std::fs::read_to_string("openapi/v1.catalog.json")
        && let Ok(reviewed) = serde_json::from_str::<Value>(&reviewed)
    {
        let changes = mcpgen::diff::diff(&reviewed, &catalog);
        if !changes.is_empty() {
            eprintln!("The catalog changed for assistants (codegen diff):");
            for change in &changes {
                eprintln!("  {change}");
            }
        }
    }
    expectorate::assert_contents("openapi/v1.catalog.json", &pretty);
}

#[test]
fn every_operation_of_the_document_is_a_tool() {
    let document: Value =
        serde_json::from_str(kobana_dunning::generated::OPENAPI_JSON).expect("document JSON");
    let operations: usize = document["paths"]
        .as_object()
        .expect("paths")
        .values()
        .map(|item| {
            item.as_object().map_or(0, |m| {
                m.keys()
                    .filter(|k| ["get", "post", "put", "patch", "delete"].contains(&k.as_str()))
                    .count()
            })
        })
        .sum();
    assert_eq!(kobana_dunning::generated::TOOLS.len(), operations);
}

/// What each role's assistant reads in `tools/list` (the `tools` array, compact JSON), at most.
/// The history: half of the 197 219 bytes of the admin catalog before the size budget, then what
/// was added on purpose, each time measured in `bench/RESULTS.md` (the rule for other fields in
/// words and the converter-friendly forms, the Pix and PSP tools, every optional argument
/// nullable for strict function calling, the money of a day, the aging report, the views'
/// `_meta.ui`, the export filters declared one by one, `fields` on the twelve lists) and taken
/// away (the idempotency key's and `If-Match`'s rules said once, in the instructions; then, in
/// issue 48, the `null` of optional arguments said once in the instructions, with the
/// strict-mode form on request, and an object a listed read tool answers named instead of
/// repeated: admin 121 962 → 94 838; then the listing's input schemas without the bounds and
/// patterns the server checks anyway, the title said once (in `annotations`), arguments whose
/// name says it all without a description, and tool descriptions for the model
/// (`x-mcp.description`, a refused call's result naming its code): admin → 74 483). The admin's
/// line was issue 48's 75 000 for 66 tools; the others each role's size on 2026-12-06 (manager
/// 61 198, collector 40 741, viewer 20 547) plus about 1 %: a change that grows a role past its
/// line raises it here, saying why. Raised once since, by what Pix Automático added (issue 51:
/// two tools, `dunning_agreements_automatic_pix` 994 bytes and its `_cancel` 733, the account of
/// `pix_psp_set` 115 and `automatic_pix` in two outputs): admin 76 613 bytes for 68 tools, 1 127
/// a tool against issue 48's 1 210 (75 000 / 62).
const BUDGETS: [(&str, usize); 4] = [
    ("admin", 77_000),
    ("manager", 63_500),
    ("collector", 43_000),
    ("viewer", 21_000),
];

/// What the strict-mode form (`X-MCP-Strict-Schemas: true`: every optional argument declares
/// `null`) may add to a role's budget: 5 124 bytes for the admin on 2026-12-06.
const STRICT_SCHEMAS_EXTRA_PERCENT: usize = 6;

#[tokio::test]
async fn tools_list_per_role_fits_the_size_budget() {
    let server = crate::common::TestServer::start().await;
    let mut over = Vec::new();
    for (role, budget) in BUDGETS {
        let token = server.token(0, role, "mcp");
        for (form, strict, budget) in [
            ("compact", "false", budget),
            (
                "strict",
                "true",
                budget * (100 + STRICT_SCHEMAS_EXTRA_PERCENT) / 100,
            ),
        ] {
            let headers = [("x-mcp-strict-schemas", strict)];
            let answer =
                crate::common::at(&server, "/mcp", &token, &headers, "tools/list", json!({})).await;
            let tools = answer.body["result"]["tools"]
                .as_array()
                .expect("tools")
                .clone();
            let bytes: usize = tools.iter().map(|t| t.to_string().len()).sum();
            eprintln!(
                "{role:<10} {form:<8} {:>3} tools {bytes:>7} bytes ~{:>6} tokens (budget {budget})",
                tools.len(),
                bytes / 4
            );
            if bytes > budget {
                over.push(format!("{role} ({form}): {bytes} bytes, budget {budget}"));
            }
        }
    }
    assert!(over.is_empty(), "over the budget: {over:?}");
}
