//! Third-party documents from `shared/fixtures/openapi/`: every one generates, with one valid
//! tool per operation, valid unique names and self-contained JSON Schema 2020-12 that
//! compiles to a validator.

use std::collections::HashSet;
use std::path::Path;

use mcpgen::{Settings, count_operations, generate, load_document, names};
use serde_json::Value;

use crate::common::has_ref;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/openapi");

/// The operation counts the fixtures' README gives, checked against our own count too.
const EXPECTED: &[(&str, usize)] = &[
    ("kobana-api-v1_0-openapi-3_1.json", 90),
    ("kobana-api-v2_0-openapi-3_1.json", 222),
    ("stripe-spec3-2022-04.json", 417),
    ("adyen-checkout-v71.json", 28),
    ("adyen-balanceplatform-config-notification-v1.json", 0),
    ("twilio-api-v2010.json", 197),
    ("box-openapi.json", 296),
];

fn check(path: &Path) {
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let doc = load_document(&text).unwrap_or_else(|r| panic!("{file}: {r}"));
    let output = generate(&doc, &Settings::default()).unwrap_or_else(|r| panic!("{file}: {r}"));

    let operations = count_operations(&doc);
    if let Some((_, expected)) = EXPECTED.iter().find(|(f, _)| *f == file) {
        assert_eq!(operations, *expected, "{file}: operations in the document");
    }
    let tools = output.catalog["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), operations, "{file}: one tool per operation");
    assert_eq!(
        output.operations.len(),
        operations,
        "{file}: one IR entry per tool"
    );

    let mut seen = HashSet::new();
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        assert!(names::is_valid_tool_name(name), "{file}: bad name {name}");
        assert!(seen.insert(name.to_owned()), "{file}: {name} twice");
        for key in ["inputSchema", "outputSchema"] {
            let schema = &tool[key];
            assert_eq!(schema["type"], "object", "{file}: {name} {key} root");
            if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                panic!("{file}: {name} {key} is not valid JSON Schema 2020-12: {e}");
            }
            assert!(!has_ref(schema), "{file}: {name} {key} has a $ref");
            // The server validates arguments with this crate: every pattern must compile.
            if let Err(e) = jsonschema::draft202012::new(schema) {
                panic!("{file}: {name} {key} does not compile to a validator: {e}");
            }
        }
        let hints = &tool["annotations"];
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(hints[hint].is_boolean(), "{file}: {name} {hint}");
        }
    }
}

fn documents() -> Option<Vec<std::path::PathBuf>> {
    let entries = std::fs::read_dir(DIR).ok()?;
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "json" || x == "yaml" || x == "yml")
        })
        .collect();
    files.sort();
    Some(files)
}

/// One test per document would not run faster (two cores, Stripe dominates) and would need
/// the list written twice; this checks every file present, known or new.
#[test]
fn every_real_document_generates_one_valid_tool_per_operation() {
    let Some(files) = documents() else {
        return absent(DIR);
    };
    for (file, _) in EXPECTED {
        assert!(
            files.iter().any(|p| p.ends_with(file)),
            "{file} is missing from {DIR}"
        );
    }
    for path in &files {
        check(path);
    }
}

/// Twilio's `UpdateIncomingPhoneNumber` takes `AccountSid` in the path and in the body: the
/// one real clash among the fixtures, renamed in lenient mode and an error in strict mode.
#[test]
fn twilio_path_and_body_account_sid_clash() {
    let path = Path::new(DIR).join("twilio-api-v2010.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return absent(&path.display().to_string());
    };
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let output = generate(&doc, &Settings::default()).unwrap_or_else(|r| panic!("{r}"));
    let op = output
        .operations
        .iter()
        .find(|o| o.operation_id.as_deref() == Some("UpdateIncomingPhoneNumber"))
        .expect("operation");
    assert!(op.args.iter().any(|a| a.name == "body_account_sid"));
    let strict = Settings {
        strict_clashes: Some(true),
        ..Settings::default()
    };
    let report = generate(&doc, &strict).expect_err("strict clash");
    assert!(
        report
            .errors
            .iter()
            .any(|e| e.message.contains("UpdateIncomingPhoneNumber")
                && e.message
                    .contains("path `AccountSid` and body `AccountSid`")),
        "{report}"
    );
}

/// The shared fixtures are CI's (beside the repository, never in it): there their absence is
/// a failure; elsewhere the test says it skipped.
fn absent(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is absent, and CI must have the shared OpenAPI fixtures"
    );
    eprintln!("skipped: {what} is absent");
}

/// Adyen's configuration notifications are a document of `webhooks` alone (26, no path): each
/// becomes a models module with its name, its body's schema (compiling to a validator) and
/// its `Body`, and the file is Rust.
#[test]
fn adyen_webhooks_become_typed_modules() {
    let path = Path::new(DIR).join("adyen-balanceplatform-config-notification-v1.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return absent(&path.display().to_string());
    };
    let doc = load_document(&text).unwrap_or_else(|r| panic!("{r}"));
    let webhooks = doc["webhooks"].as_object().expect("webhooks").len();
    assert_eq!(webhooks, 26);
    let output = generate(&doc, &Settings::default()).unwrap_or_else(|r| panic!("{r}"));
    let file = syn::parse_file(&output.models).expect("the models are Rust");
    let modules: Vec<&syn::ItemMod> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.ident != "request" && m.ident != "response" => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(modules.len(), webhooks, "one module per webhook");
    for module in modules {
        let items = &module.content.as_ref().expect("inline module").1;
        let consts: Vec<String> = items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Const(c) => Some(c.ident.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(consts, ["NAME", "SCHEMA"], "{}", module.ident);
        let has_body = items.iter().any(|item| match item {
            syn::Item::Struct(s) => s.ident == "Body",
            syn::Item::Type(t) => t.ident == "Body",
            _ => false,
        });
        assert!(has_body, "{} has no Body", module.ident);
        let schema = items
            .iter()
            .find_map(|item| match item {
                syn::Item::Const(c) if c.ident == "SCHEMA" => match &*c.expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .expect("SCHEMA is a string");
        let schema: Value = serde_json::from_str(&schema).expect("SCHEMA is JSON");
        if let Err(e) = jsonschema::draft202012::new(&schema) {
            panic!("{}: SCHEMA does not compile: {e}", module.ident);
        }
    }
}
