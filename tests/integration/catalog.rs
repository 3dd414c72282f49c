//! The MCP catalog of `openapi/v1.yaml`, reviewed: every spec change shows its MCP diff in
//! `openapi/v1.catalog.json`. After a deliberate change, refresh it with
//! `EXPECTORATE=overwrite cargo test --test integration catalog` and review the diff. A
//! mismatch first prints what changes for an assistant (`codegen diff`), breaking ones first.

use serde_json::Value;

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

/// What each role's assistant reads in `tools/list`, against the budget: the admin's whole
/// catalog is at most half of what it was before the size budget (197 219 bytes of tools),
/// plus what saying each tool's rule for other fields costs (converters and models are not left
/// to guess whether extra fields are welcome) and the converter-friendly forms (see below),
/// plus the three Pix tools and the Pix words of `me` and `charges_notify` (≤ 3 800 bytes).
/// What the five tools of the PSP connection and the Pix received (issue 24) add, lean as
/// they are (descriptions of two lines).
const PIX_PSP_TOOLS: usize = 6_700;

/// What declaring every optional argument nullable costs the admin catalog (110 980 bytes
/// before, 114 837 after): `{"anyOf": [.., {"type": "null"}]}` around each of them, so that a
/// model in a strict function-calling mode can leave one out.
const NULLABLE_OPTIONALS: usize = 4_000;

/// What the money of a day (issue 45) adds to the admin catalog (114 944 bytes before, 122 498
/// after): the calendar's two tools and `pix_received_refund`, a charge's breakdown
/// (`principal_due`, `fine_due`, `interest_due`, `effective_due_date`) in every output schema
/// that shows a charge, the devoluções of each Pix received, and a step's `day_count`.
const MONEY_OF_A_DAY: usize = 7_600;

/// What the aging report (issue 47) adds to the admin catalog (123 926 bytes after): one
/// read-only tool whose output schema names its five ranges of days overdue, the two open
/// statuses and the top debtors, each with its count and amount, so that an assistant reads
/// the report without a second call.
const AGING_REPORT: usize = 1_500;

#[tokio::test]
async fn tools_list_per_role_fits_the_size_budget() {
    let server = crate::common::TestServer::start().await;
    let mut admin_bytes = 0;
    for role in ["admin", "manager", "collector", "viewer"] {
        let answer = server
            .mcp(
                &server.token(0, role, "mcp"),
                "tools/list",
                serde_json::json!({}),
            )
            .await;
        let tools = answer.body["result"]["tools"]
            .as_array()
            .expect("tools")
            .clone();
        let bytes: usize = tools.iter().map(|t| t.to_string().len()).sum();
        let tokens: usize = tools
            .iter()
            .map(|t| {
                let text = |k: &str| t[k].as_str().map_or(0, str::len);
                (text("name") + text("description") + t["inputSchema"].to_string().len())
                    .div_ceil(4)
            })
            .sum();
        eprintln!(
            "{role:<10} {:>3} tools {bytes:>7} bytes ~{tokens:>6} tokens",
            tools.len()
        );
        if role == "admin" {
            admin_bytes = bytes;
        }
    }
    // Half the 197 219 bytes of the catalog before the budget, plus what saying each write's
    // rule for other fields in words (OpenAI's strict mode refuses `additionalProperties:
    // true`) and the nullable enumerations as `anyOf` (Gemini converters) cost: 1.1 KB; and
    // the optional arguments declared nullable for strict function calling (3.9 KB).
    assert!(
        admin_bytes
            <= 197_219 / 2
                + 2_000
                + 3_800
                + PIX_PSP_TOOLS
                + NULLABLE_OPTIONALS
                + MONEY_OF_A_DAY
                + AGING_REPORT,
        "admin catalog is {admin_bytes} bytes"
    );
}
