//! The generated models: a snapshot per feature fixture (`snapshots/<tag>.models.rs`), each
//! compiled here and exercised through serde, so a snapshot that does not compile or does not
//! read and write the document's JSON fails; and the errors of a misused `x-format`.

use expectorate::assert_contents;
use serde_json::json;

use crate::common::generate_fixture;

/// Generates `fixture` and compares its models with `snapshots/<tag>.models.rs`.
fn snapshot_models(fixture: &str, tag: &str) {
    let output = generate_fixture(fixture, None).unwrap_or_else(|r| panic!("{r}"));
    assert_contents(format!("tests/snapshots/{tag}.models.rs"), &output.models);
}

macro_rules! compiled {
    ($($module:ident => $file:literal),* $(,)?) => {
        $(
            #[allow(dead_code)]
            mod $module {
                include!($file);
            }
        )*
    };
}

compiled! {
    enums => "../snapshots/models_enums.models.rs",
    optional => "../snapshots/models_optional.models.rs",
    nested => "../snapshots/models_nested.models.rs",
    arrays => "../snapshots/models_arrays.models.rs",
    dates => "../snapshots/models_dates.models.rs",
    money => "../snapshots/models_money.models.rs",
    refs => "../snapshots/models_refs.models.rs",
    responses => "../snapshots/models_responses.models.rs",
    webhooks => "../snapshots/models_webhooks.models.rs",
}

#[test]
fn enumerated_strings_are_enums_with_the_exact_wire_words() {
    snapshot_models("models_enums.yaml", "models_enums");
    use enums::{Channel, ChargeStatus};
    let words: Vec<&str> = ChargeStatus::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        words,
        ["pending", "in_agreement", "customers:read", "2xx", ""]
    );
    let query: enums::charges_list::Query =
        serde_json::from_value(json!({"sort_order": "desc", "channel": "sms"})).unwrap();
    assert_eq!(query.sort_order, Some(enums::charges_list::SortOrder::Desc));
    assert_eq!(query.channel, Some(Channel::Sms));
    assert!(serde_json::from_value::<Channel>(json!("fax")).is_err());
    let scopes = [Channel::Email];
    let charge = enums::response::Charge {
        status: ChargeStatus::CustomersRead,
        stage: enums::Patch::Null,
        channel: Channel::Whatsapp,
        scopes: &scopes,
    };
    assert_eq!(
        serde_json::to_value(&charge).unwrap(),
        json!({"status": "customers:read", "stage": null, "channel": "whatsapp", "scopes": ["email"]})
    );
}

#[test]
fn optional_and_nullable_fields_keep_absent_apart_from_null() {
    snapshot_models("models_optional.yaml", "models_optional");
    use optional::Patch;
    use optional::customers_update::{Body, Response200};
    let absent: Body = serde_json::from_value(json!({"name": "Ana", "phone": null})).unwrap();
    assert_eq!(
        (absent.phone, absent.email, absent.notes),
        (None, None, Patch::Absent)
    );
    let cleared: Body =
        serde_json::from_value(json!({"name": "Ana", "phone": "+55", "notes": null})).unwrap();
    assert_eq!(cleared.notes, Patch::Null);
    let set: Body =
        serde_json::from_value(json!({"name": "A", "phone": null, "notes": "x"})).unwrap();
    assert_eq!(set.notes, Patch::Value("x".to_owned()));
    // `additionalProperties: false`: an unknown field is refused.
    assert!(serde_json::from_value::<Body>(json!({"name": "A", "phone": null, "nam": 1})).is_err());
    let answer = Response200 {
        name: "Ana",
        phone: None,
        email: None,
        notes: Patch::Null,
        total_exact: None,
    };
    assert_eq!(
        serde_json::to_string(&answer).unwrap(),
        r#"{"name":"Ana","phone":null,"notes":null}"#
    );
}

#[test]
fn inline_objects_are_named_where_they_sit_and_recursion_is_boxed() {
    snapshot_models("models_nested.yaml", "models_nested");
    use nested::response::{Me, MeOrganization};
    let metadata = serde_json::Map::new();
    let me = Me {
        organization: MeOrganization {
            id: "org_1",
            owner: None,
        },
        labels: None,
        metadata: Some(&metadata),
        anything: None,
        r#type: Some("person"),
    };
    assert_eq!(
        serde_json::to_value(&me).unwrap(),
        json!({"organization": {"id": "org_1"}, "metadata": {}, "type": "person"})
    );
    let node: nested::request::Node = serde_json::from_value(
        json!({"name": "a", "parent": {"name": "b"}, "children": [{"name": "c"}]}),
    )
    .unwrap();
    assert_eq!(node.parent.map(|p| p.name), Some("b".to_owned()));
}

#[test]
fn a_list_of_objects_holds_views_and_other_lists_borrow() {
    snapshot_models("models_arrays.yaml", "models_arrays");
    use arrays::charges_list::{Response200, Response200Meta};
    use arrays::response::Charge;
    let tags = vec!["a".to_owned()];
    let grid = vec![vec![1, 2]];
    let data = vec![Charge {
        id: "chg_1",
        tags: &tags,
        scores: None,
        grid: Some(&grid),
    }];
    let page = Response200 {
        data,
        meta: Response200Meta { total: 1 },
    };
    assert_eq!(
        serde_json::to_value(&page).unwrap(),
        json!({"data": [{"id": "chg_1", "tags": ["a"], "grid": [[1, 2]]}], "meta": {"total": 1}})
    );
    let body: arrays::charges_import::Body =
        serde_json::from_value(json!([{"description": "x", "tags": ["t"]}])).unwrap();
    assert_eq!(body[0].tags.as_deref(), Some(&["t".to_owned()][..]));
}

#[test]
fn dates_are_time_dates_and_instants_stay_text_by_default() {
    snapshot_models("models_dates.yaml", "models_dates");
    let query: dates::events_list::Query = serde_json::from_value(
        json!({"from": "2025-03-10", "after": "2025-03-10T10:00:00Z", "limit": 5}),
    )
    .unwrap();
    assert_eq!(query.from, Some(time::macros::date!(2025 - 03 - 10)));
    assert!(
        serde_json::from_value::<dates::events_list::Query>(json!({"from": "10/03/2025"})).is_err()
    );
    let event = dates::events_list::Response200 {
        due_date: time::macros::date!(2025 - 03 - 10),
        paid_on: dates::Patch::Null,
        created_at: "2025-03-10T10:00:00.000Z",
    };
    assert_eq!(
        serde_json::to_string(&event).unwrap(),
        r#"{"due_date":"2025-03-10","paid_on":null,"created_at":"2025-03-10T10:00:00.000Z"}"#
    );
}

#[test]
fn money_is_centavos_and_written_as_reais() {
    snapshot_models("models_money.yaml", "models_money");
    use money::Cents;
    let body: money::charges_create::Body =
        serde_json::from_value(json!({"amount": 1234.56, "fine_percent": 2})).unwrap();
    assert_eq!(body.amount, Cents(123456));
    assert_eq!(
        serde_json::from_value::<Cents>(json!(0.29)).unwrap(),
        Cents(29),
        "float noise is not a third decimal"
    );
    assert!(serde_json::from_value::<Cents>(json!(1.001)).is_err());
    let charge = money::response::Charge {
        amount: Cents(123456),
        amount_due: Cents(0),
    };
    // Exactly what the server writes today for `to_reais()` amounts.
    assert_eq!(
        serde_json::to_string(&charge).unwrap(),
        serde_json::to_string(&json!({"amount": 1234.56, "amount_due": 0.0})).unwrap()
    );
}

#[test]
fn components_have_a_request_and_a_response_form_and_all_of_merges() {
    snapshot_models("models_refs.yaml", "models_refs");
    let webhook: refs::request::Webhook =
        serde_json::from_value(json!({"url": "https://x", "secret": "s"})).unwrap();
    assert_eq!(webhook.secret.as_deref(), Some("s"));
    let shown = refs::response::Webhook {
        id: Some("whk_1"),
        url: "https://x",
    };
    assert_eq!(
        serde_json::to_value(&shown).unwrap(),
        json!({"id": "whk_1", "url": "https://x"})
    );
    let merged = refs::contacts_create::Response200 {
        name: "Ana",
        kind: refs::Patch::Null,
    };
    assert_eq!(
        serde_json::to_value(&merged).unwrap(),
        json!({"name": "Ana", "kind": null})
    );
    let contact: refs::request::Contact =
        serde_json::from_value(json!({"address": {"city": "Recife"}})).unwrap();
    assert_eq!(
        contact.address.and_then(|a| a.city).as_deref(),
        Some("Recife")
    );
}

#[test]
fn every_declared_json_response_has_a_type() {
    snapshot_models("models_responses.yaml", "models_responses");
    use responses::charges_get::{Response200, Response200Data, Response404, ResponseDefault};
    let found = Response200 {
        data: Response200Data { id: "chg_1" },
    };
    assert_eq!(
        serde_json::to_value(&found).unwrap(),
        json!({"data": {"id": "chg_1"}})
    );
    let missing: Response404<'_> = responses::response::Problem {
        status: 404,
        code: "not_found",
    };
    let other: ResponseDefault<'_> = missing.clone();
    assert_eq!(serde_json::to_value(&other).unwrap()["status"], 404);
    let count: responses::charges_count::Response200 = 3;
    assert_eq!(count, 3);
}

#[test]
fn a_misused_x_format_is_an_error_at_its_pointer() {
    let report = match generate_fixture("models_x_format_misuse.yaml", None) {
        Ok(_) => panic!("generated without errors"),
        Err(report) => report,
    };
    assert_contents(
        "tests/snapshots/models_x_format_misuse.errors.txt",
        &format!("{report}\n"),
    );
}

#[test]
fn webhooks_are_modules_with_their_name_schema_and_body_and_no_tool() {
    snapshot_models("models_webhooks.yaml", "models_webhooks");
    let output = generate_fixture("models_webhooks.yaml", None).unwrap_or_else(|r| panic!("{r}"));
    let tools = output.catalog["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1, "webhooks are not tools: {tools:?}");

    assert_eq!(webhooks::order_shipped::NAME, "order.shipped");
    assert_eq!(webhooks::order_canceled::NAME, "order.canceled");
    let names: Vec<&str> = webhooks::WEBHOOKS.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["order.shipped", "order.canceled"]);
    // The body the service writes, its `data` the payload's own type.
    let body = webhooks::order_shipped::Body {
        r#type: webhooks::order_shipped::BodyType::OrderShipped,
        data: webhooks::response::OrderShipped {
            order_id: "ord_1",
            carrier: "Correios",
            tracking: webhooks::Patch::Null,
        },
        id: "evt_1",
    };
    let written = serde_json::to_value(&body).unwrap();
    assert_eq!(
        written,
        json!({"type": "order.shipped", "data": {"order_id": "ord_1", "carrier": "Correios", "tracking": null}, "id": "evt_1"})
    );
    // The schema holds the body to the document: this one passes, a payload with a field the
    // document does not declare does not.
    let schema: serde_json::Value =
        serde_json::from_str(webhooks::order_shipped::SCHEMA).expect("SCHEMA is JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("SCHEMA compiles");
    assert!(validator.is_valid(&written), "{written}");
    let mut extra = written.clone();
    extra["data"]["weight"] = json!(3);
    assert!(!validator.is_valid(&extra));
    let mut wrong_type = written;
    wrong_type["type"] = json!("order.canceled");
    assert!(!validator.is_valid(&wrong_type));

    // 3.1's nullable reference (`anyOf` of it and `null`) is the referenced type, or null.
    let canceled = webhooks::order_canceled::Body {
        order_id: "ord_1",
        reason: None,
        refund: webhooks::Patch::Value(webhooks::order_canceled::BodyRefund { amount: 100 }),
    };
    assert_eq!(
        serde_json::to_value(&canceled).unwrap(),
        json!({"order_id": "ord_1", "reason": null, "refund": {"amount": 100}})
    );
}
