//! Exports: CSV files of charges and customers with the list filters applied, built by the
//! worker (stepped with `tick`, or a `Builder` a step at a time), parsed back with a real CSV
//! reader, over REST and MCP; files of many pages and pieces, their progress, a takeover
//! after a dead builder, Range requests, and a file stored whole before the pieces.

use std::sync::Arc;

use dunning_engine::exports::{
    Builder, CHARGE_HEADER, CUSTOMER_HEADER, DELIVERY_HEADER, Progress, Sizes, tick,
};
use dunning_engine::{Engine, Settings};
use dunning_store::Db;
use http::StatusCode;
use kobana_dunning::demo_bulk;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::common::TestServer;

fn admin(server: &TestServer) -> String {
    server.token(0, "admin", "api")
}

/// Records of a CSV file as maps from header to cell, after checking the BOM.
fn parse(text: &str) -> (Vec<String>, Vec<std::collections::HashMap<String, String>>) {
    let body = text
        .strip_prefix('\u{feff}')
        .expect("a UTF-8 byte-order mark first");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(body.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| {
            let record = r.expect("a well-formed CSV record");
            assert_eq!(record.len(), header.len(), "every row has every column");
            header
                .iter()
                .cloned()
                .zip(record.iter().map(str::to_string))
                .collect()
        })
        .collect();
    (header, rows)
}

async fn start_export(server: &TestServer, body: Value) -> Value {
    let answer = server
        .rest("POST", "/v1/exports", &admin(server), Some(body))
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text);
    assert!(answer.header("etag").is_some());
    answer.body["data"].clone()
}

async fn finish_exports(server: &TestServer) -> usize {
    tick(&server.state.engine, OffsetDateTime::now_utc())
        .await
        .expect("tick")
}

#[tokio::test]
async fn a_charges_export_is_a_spreadsheet_ready_csv_with_the_filters_applied() {
    charges_export(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_a_charges_export_is_the_same_csv() {
    if let Some(server) = crate::postgres::postgres_server().await {
        charges_export(&server).await;
    }
}

async fn charges_export(server: &TestServer) {
    let token = admin(server);
    let customer = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({ "name": "Padaria \"Pão, Café\" & Cia — Conceição", "document": "111.444.777-35" })),
        )
        .await;
    assert_eq!(customer.status, StatusCode::CREATED, "{}", customer.text);
    let customer_id = customer.body["data"]["id"].as_str().unwrap().to_string();
    let mut created = Vec::new();
    for (description, amount, due) in [
        (
            "Mensalidade de março,\ncom \"desconto\"",
            1234.56,
            "2031-03-10",
        ),
        ("=HYPERLINK(\"http://evil\")", 250.0, "2031-04-10"),
        ("Taxa pequena", 10.0, "2031-05-10"),
    ] {
        let answer = server
            .rest(
                "POST",
                "/v1/charges",
                &token,
                Some(json!({ "customer_id": customer_id, "description": description, "amount": amount, "due_date": due, "tags": ["açaí", "vip"] })),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
        created.push(answer.body["data"]["id"].as_str().unwrap().to_string());
    }

    let filters =
        json!({ "customer_id": customer_id, "amount_min": 100, "status": "pending,overdue" });
    let export = start_export(server, json!({ "kind": "charges", "filters": filters })).await;
    let id = export["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("exp_") && id.len() == 20);
    assert_eq!(export["status"], "pending");
    assert_eq!(export["kind"], "charges");
    assert_eq!(export["filters"], filters);
    assert!(export["row_count"].is_null() && export["byte_size"].is_null());
    assert!(export["completed_at"].is_null());

    // Not before it is built.
    let early = server
        .rest("GET", &format!("/v1/exports/{id}/download"), &token, None)
        .await;
    assert_eq!(early.status, StatusCode::CONFLICT);
    assert_eq!(early.body["code"], "export_not_ready");

    assert_eq!(finish_exports(server).await, 1);
    assert_eq!(finish_exports(server).await, 0, "built once");
    let status = server
        .rest("GET", &format!("/v1/exports/{id}"), &token, None)
        .await;
    assert_eq!(status.status, StatusCode::OK);
    assert_eq!(status.body["data"]["status"], "completed");
    assert_eq!(status.body["data"]["row_count"], 2);
    assert!(status.body["data"]["completed_at"].is_string());

    let file = server
        .rest("GET", &format!("/v1/exports/{id}/download"), &token, None)
        .await;
    assert_eq!(file.status, StatusCode::OK);
    assert!(
        file.header("content-type")
            .unwrap()
            .starts_with("text/csv; charset=utf-8")
    );
    assert!(
        file.header("content-disposition")
            .unwrap()
            .contains(&format!("charges-{id}.csv"))
    );
    assert_eq!(
        status.body["data"]["byte_size"].as_u64().unwrap(),
        file.text.len() as u64
    );
    assert!(file.text.contains("\r\n"), "RFC 4180 line ends");
    let (header, rows) = parse(&file.text);
    assert_eq!(header, CHARGE_HEADER);
    assert_eq!(rows.len(), 2, "the charge under R$ 100 is filtered out");

    // The same records as the list with the same filters, in due-date order.
    let listed = server
        .rest(
            "GET",
            &format!("/v1/charges?customer_id={customer_id}&amount_min=100&status=pending,overdue"),
            &token,
            None,
        )
        .await;
    let listed_ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let exported_ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str()).collect();
    assert_eq!(exported_ids, listed_ids);
    assert_eq!(exported_ids, vec![created[0].as_str(), created[1].as_str()]);

    let first = &rows[0];
    assert_eq!(
        first["customer_name"],
        "Padaria \"Pão, Café\" & Cia — Conceição"
    );
    assert_eq!(first["customer_document"], "111.444.777-35");
    assert_eq!(
        first["description"],
        "Mensalidade de março,\ncom \"desconto\""
    );
    assert_eq!(first["amount"], "1234.56");
    assert_eq!(first["paid_amount"], "0.00");
    assert_eq!(first["amount_due"], "1234.56");
    assert_eq!(first["fine_percent"], "2.00");
    assert_eq!(first["due_date"], "2031-03-10");
    assert_eq!(first["status"], "pending");
    assert_eq!(first["tags"], "açaí, vip");
    assert!(first["created_at"].ends_with('Z'));
    assert_eq!(first["paid_at"], "");
    assert_eq!(
        rows[1]["description"], "'=HYPERLINK(\"http://evil\")",
        "a formula is shown as text, never run"
    );
    assert_eq!(rows[1]["amount"], "250.00");

    let trail: Vec<String> =
        sqlx::query_scalar("SELECT type FROM events WHERE subject_id = $1 ORDER BY type")
            .bind(&id)
            .fetch_all(&server.state.db.pool)
            .await
            .unwrap();
    assert_eq!(trail, vec!["export.completed", "export.created"]);
}

#[tokio::test]
async fn a_customers_export_has_one_row_per_matching_customer() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let export = start_export(
        &server,
        json!({ "kind": "customers", "filters": { "tag": "varejo" } }),
    )
    .await;
    let id = export["id"].as_str().unwrap();
    finish_exports(&server).await;
    let file = server
        .rest("GET", &format!("/v1/exports/{id}/download"), &token, None)
        .await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.text);
    let (header, rows) = parse(&file.text);
    assert_eq!(header, CUSTOMER_HEADER);
    let listed = server
        .rest("GET", "/v1/customers?tag=varejo&per_page=100", &token, None)
        .await;
    let mut listed_ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let mut exported_ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str()).collect();
    listed_ids.sort();
    exported_ids.sort();
    assert_eq!(exported_ids, listed_ids);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["tags"] == "varejo"));
    let conceicao = rows
        .iter()
        .find(|r| r["name"] == "Conceição Araújo")
        .expect("accents survive");
    assert_eq!(conceicao["document"], "529.982.247-25");
    assert_eq!(conceicao["document_type"], "cpf");
    assert_eq!(conceicao["city"], "São Paulo");
    assert_eq!(conceicao["email"], "conceicao.araujo@example.com.br");
    assert_eq!(conceicao["zip_code"].len(), 8);
}

#[tokio::test]
async fn invalid_exports_are_refused_field_by_field_and_nothing_is_created() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let cases = [
        (json!({}), "kind", "required"),
        (json!({ "kind": "invoices" }), "kind", "enum"),
        (
            json!({ "kind": "charges", "filters": { "status": "lost" } }),
            "filters.status",
            "enum",
        ),
        (
            json!({ "kind": "charges", "filters": { "sort_by": "amount" } }),
            "filters.sort_by",
            "unknown",
        ),
        (
            json!({ "kind": "customers", "filters": { "amount_min": 10 } }),
            "filters.amount_min",
            "unknown",
        ),
        (
            json!({ "kind": "charges", "filters": { "amount_min": [1] } }),
            "filters.amount_min",
            "type",
        ),
        (
            json!({ "kind": "charges", "filters": { "due_date_from": "2025-02-01", "due_date_to": "2025-01-01" } }),
            "filters.due_date_to",
            "range",
        ),
        (
            json!({ "kind": "charges", "filters": { "due_date_from": "01/02/2025" } }),
            "filters.due_date_from",
            "format",
        ),
        (
            json!({ "kind": "charges", "filters": "status=paid" }),
            "filters",
            "type",
        ),
        (
            json!({ "kind": "charges", "format": "xlsx" }),
            "format",
            "unknown",
        ),
    ];
    for (body, field, code) in cases {
        let answer = server
            .rest("POST", "/v1/exports", &token, Some(body.clone()))
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.body["code"], "VALIDATION_ERROR");
        let errors = answer.body["errors"].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e["field"] == field && e["code"] == code),
            "{body}: {errors:?}"
        );
    }
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM exports")
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(count, 0);
    let events: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE type LIKE 'export.%'")
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(events, 0);

    // Viewers read exports but cannot start one.
    let viewer = server
        .rest(
            "POST",
            "/v1/exports",
            &server.token(0, "viewer", "api"),
            Some(json!({ "kind": "charges" })),
        )
        .await;
    assert_eq!(viewer.status, StatusCode::FORBIDDEN);
    for path in [
        "/v1/exports/exp_0000000000000000",
        "/v1/exports/exp_0000000000000000/download",
    ] {
        let answer = server.rest("GET", path, &token, None).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn an_export_of_another_organization_is_not_found() {
    let server = TestServer::start().await;
    let export = start_export(&server, json!({ "kind": "customers" })).await;
    let id = export["id"].as_str().unwrap();
    finish_exports(&server).await;
    let other = server.token(1, "admin", "api");
    for path in [
        format!("/v1/exports/{id}"),
        format!("/v1/exports/{id}/download"),
    ] {
        let answer = server.rest("GET", &path, &other, None).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn through_mcp_an_export_is_created_polled_and_read_as_a_text_resource() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let created = server
        .call_tool(
            &token,
            "dunning_exports_create",
            json!({ "kind": "charges", "filters": { "status": "paid" } }),
        )
        .await;
    let export = &created["structuredContent"]["data"];
    assert_eq!(export["status"], "pending", "{created}");
    let id = export["id"].as_str().unwrap().to_string();

    let not_ready = server
        .call_tool(&token, "dunning_exports_download", json!({ "id": id }))
        .await;
    assert_eq!(
        crate::common::tool_problem(&not_ready)["code"],
        "export_not_ready"
    );

    finish_exports(&server).await;
    let polled = server
        .call_tool(&token, "dunning_exports_get", json!({ "id": id }))
        .await;
    let rest = server
        .rest("GET", &format!("/v1/exports/{id}"), &admin(&server), None)
        .await;
    assert_eq!(polled["structuredContent"]["data"], rest.body["data"]);
    assert_eq!(polled["structuredContent"]["data"]["status"], "completed");

    let described = server
        .call_tool(&token, "dunning_exports_download", json!({ "id": id }))
        .await;
    let descriptor = &described["structuredContent"];
    let uri = format!("kobana://dunning/exports/{id}/download.csv");
    assert_eq!(descriptor["resource_uri"], uri);
    assert!(
        descriptor["content_type"]
            .as_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert_eq!(
        descriptor["byte_size"], rest.body["data"]["byte_size"],
        "{described}"
    );

    let read = server
        .mcp(&token, "resources/read", json!({ "uri": uri }))
        .await;
    let content = &read.body["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/csv", "{}", read.text);
    let text = content["text"].as_str().expect("CSV comes back as text");
    let (header, rows) = parse(text);
    assert_eq!(header, CHARGE_HEADER);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["status"] == "paid"));
    assert_eq!(
        rows.len() as u64,
        polled["structuredContent"]["data"]["row_count"]
            .as_u64()
            .unwrap()
    );

    // The export id completes in the resource template.
    let completion = server
        .mcp(
            &token,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/exports/{id}/download.csv"}, "argument": {"name": "id", "value": &id[..6]}}),
        )
        .await;
    let values = &completion.body["result"]["completion"]["values"];
    assert!(
        values.as_array().unwrap().iter().any(|v| v == &json!(id)),
        "{}",
        completion.text
    );
}

#[tokio::test]
async fn a_deliveries_export_has_the_messages_of_the_list_with_its_filters() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let customers = server
        .rest("GET", "/v1/customers?q=conceicao", &token, None)
        .await;
    let customer = customers.body["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let charge = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(json!({ "customer_id": customer, "description": "Mensalidade, abril", "amount": 99.9, "due_date": "2031-04-10" })),
        )
        .await;
    let charge = charge.body["data"]["id"].as_str().unwrap().to_string();
    for template in [
        "Olá {{customer.name}}, lembrete: \"{{charge.description}}\".",
        "Segunda mensagem,\ncom quebra de linha.",
    ] {
        let notified = server
            .rest(
                "POST",
                &format!("/v1/charges/{charge}/notify"),
                &token,
                Some(json!({ "channel": "email", "template": template })),
            )
            .await;
        assert!(notified.status.is_success(), "{}", notified.text);
    }
    let export = start_export(
        &server,
        json!({ "kind": "deliveries", "filters": { "charge_id": charge, "channel": "email" } }),
    )
    .await;
    let id = export["id"].as_str().unwrap();
    finish_exports(&server).await;
    let file = server
        .rest("GET", &format!("/v1/exports/{id}/download"), &token, None)
        .await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.text);
    let (header, rows) = parse(&file.text);
    assert_eq!(header, DELIVERY_HEADER);
    let listed = server
        .rest(
            "GET",
            &format!("/v1/deliveries?charge_id={charge}&channel=email&per_page=100"),
            &token,
            None,
        )
        .await;
    let listed_ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    let exported_ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str()).collect();
    assert_eq!(exported_ids, listed_ids, "the list's rows, in its order");
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r["customer_name"] == "Conceição Araújo")
    );
    let bodies: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["body"].as_str().unwrap())
        .collect();
    let exported_bodies: Vec<&str> = rows.iter().map(|r| r["body"].as_str()).collect();
    assert_eq!(exported_bodies, bodies, "quotes and line breaks survive");

    let refused = server
        .rest(
            "POST",
            "/v1/exports",
            &token,
            Some(json!({ "kind": "deliveries", "filters": { "channel": "pigeon", "charge_id": "42" } })),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let mut fields: Vec<&str> = refused.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, vec!["filters.channel", "filters.charge_id"]);
}

/// The worker builds the file from the filter the API checked and stored with the export
/// (`exports.filter`), not by reading the client's `filters` again: a stored `filters` that
/// no longer reads changes nothing, and an export from before the checked filter was stored
/// is refused with a message, not guessed at.
#[tokio::test]
async fn the_file_is_built_from_the_filter_checked_when_the_export_was_created() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let checked = start_export(
        &server,
        json!({ "kind": "customers", "filters": { "q": "nobody-has-this-name" } }),
    )
    .await;
    let older = start_export(&server, json!({ "kind": "customers" })).await;
    sqlx::query("UPDATE exports SET filters = $1 WHERE id = $2")
        .bind(r#"{"q":"","no_such_filter":[1]}"#)
        .bind(checked["id"].as_str().unwrap())
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE exports SET filter = NULL WHERE id = $1")
        .bind(older["id"].as_str().unwrap())
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(finish_exports(&server).await, 2);

    let built = server
        .rest(
            "GET",
            &format!("/v1/exports/{}", checked["id"].as_str().unwrap()),
            &token,
            None,
        )
        .await;
    assert_eq!(built.body["data"]["status"], "completed", "{}", built.text);
    assert_eq!(built.body["data"]["row_count"], 0, "{}", built.text);

    let refused = server
        .rest(
            "GET",
            &format!("/v1/exports/{}", older["id"].as_str().unwrap()),
            &token,
            None,
        )
        .await;
    assert_eq!(refused.body["data"]["status"], "failed", "{}", refused.text);
    assert!(
        refused.body["data"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("earlier version")),
        "{}",
        refused.text
    );
}

/// The server's engine with other page and piece sizes.
fn engine_sized(server: &TestServer, sizes: Sizes) -> Engine {
    let mut engine = server.state.engine.clone();
    engine.settings = Arc::new(Settings {
        exports: sizes,
        ..(*engine.settings).clone()
    });
    engine
}

/// Small pages and pieces (a page size that divides nothing): a few thousand rows make a
/// file of many of each, every piece boundary inside a page.
const SMALL: Sizes = Sizes {
    page_rows: 97,
    chunk_bytes: 8 * 1024,
};

/// One read of the whole list and one stored value: what the builder before pieces did.
const WHOLE: Sizes = Sizes {
    page_rows: 1_000_000,
    chunk_bytes: usize::MAX,
};

/// Build every pending export with `engine` (a tick at `now`).
async fn build_with(engine: &Engine, now: OffsetDateTime) -> usize {
    tick(engine, now).await.expect("tick")
}

async fn download(server: &TestServer, id: &str, range: Option<&str>) -> crate::common::Answer {
    let headers: Vec<(&str, &str)> = range.map(|r| ("range", r)).into_iter().collect();
    server
        .rest_with(
            "GET",
            &format!("/v1/exports/{id}/download"),
            &admin(server),
            &headers,
            None,
        )
        .await
}

/// Every charge of organization 0 as its list gives them (due date, then id), 100 a page:
/// what an unfiltered charges export must hold, in that order.
async fn listed_charges(server: &TestServer) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let answer = server
            .rest(
                "GET",
                &format!("/v1/charges?per_page=100&page={page}"),
                &admin(server),
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        let items = answer.body["data"].as_array().unwrap().clone();
        if items.is_empty() {
            break;
        }
        all.extend(items);
    }
    all
}

/// An export as `exports_get` shows it.
async fn shown(server: &TestServer, id: &str) -> Value {
    let answer = server
        .rest("GET", &format!("/v1/exports/{id}"), &admin(server), None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["data"].clone()
}

/// The pieces of an export as stored: (seq, byte_offset, byte_size), in order.
async fn pieces(server: &TestServer, id: &str) -> Vec<(i64, i64, i64)> {
    sqlx::query_as(
        "SELECT seq, byte_offset, byte_size FROM export_chunks WHERE export_id = $1 ORDER BY seq",
    )
    .bind(id)
    .fetch_all(&server.state.db.pool)
    .await
    .unwrap()
}

/// The pieces follow each other from byte 0 with no gap or overlap, number from 0, and add
/// up to the size the export says.
fn assert_one_file(pieces: &[(i64, i64, i64)], byte_size: i64) {
    let mut at = 0;
    for (n, (seq, offset, size)) in pieces.iter().enumerate() {
        assert_eq!(*seq, n as i64, "{pieces:?}");
        assert_eq!(*offset, at, "{pieces:?}");
        at += size;
    }
    assert_eq!(at, byte_size, "{pieces:?}");
}

#[tokio::test]
async fn an_export_of_many_pages_and_pieces_is_the_list_whole_byte_for_byte() {
    many_pages_and_pieces(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_an_export_of_many_pages_and_pieces_is_the_list_whole() {
    if let Some(server) = crate::postgres::postgres_server().await {
        many_pages_and_pieces(&server).await;
    }
}

/// 2 500 generated charges (due dates shared by many: the id breaks the ties), exported
/// through pages of 97 rows into pieces of 8 KiB, and again as the builder before pieces
/// did, in one read and one value: the same bytes, the rows of the list in its order, every
/// Range answered from the pieces.
async fn many_pages_and_pieces(server: &TestServer) {
    demo_bulk::generate(&server.state.db, server.org_id(0), 60, 2_500, |_, _, _| {})
        .await
        .expect("generate");
    let now = OffsetDateTime::now_utc();
    let small = start_export(server, json!({ "kind": "charges" })).await;
    let small = small["id"].as_str().unwrap().to_string();
    assert_eq!(build_with(&engine_sized(server, SMALL), now).await, 1);
    let whole = start_export(server, json!({ "kind": "charges" })).await;
    let whole = whole["id"].as_str().unwrap().to_string();
    assert_eq!(build_with(&engine_sized(server, WHOLE), now).await, 1);

    let file = download(server, &small, None).await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.text);
    assert_eq!(file.header("accept-ranges"), Some("bytes"));
    assert_eq!(
        file.header("content-length"),
        Some(file.text.len().to_string().as_str())
    );
    let once = download(server, &whole, None).await;
    assert_eq!(once.status, StatusCode::OK);
    assert!(
        file.text == once.text,
        "the same bytes, built in pieces or whole"
    );
    assert_eq!(pieces(server, &whole).await.len(), 1);

    let listed = listed_charges(server).await;
    assert!(listed.len() > 2_500);
    let (header, rows) = parse(&file.text);
    assert_eq!(header, CHARGE_HEADER);
    assert_eq!(rows.len(), listed.len(), "every charge, once");
    for (row, charge) in rows.iter().zip(&listed) {
        assert_eq!(
            row["id"],
            charge["id"].as_str().unwrap(),
            "the list's order"
        );
        assert_eq!(row["customer_id"], charge["customer_id"].as_str().unwrap());
        assert_eq!(
            row["amount"],
            format!("{:.2}", charge["amount"].as_f64().unwrap())
        );
        assert_eq!(row["due_date"], charge["due_date"].as_str().unwrap());
        assert_eq!(row["status"], charge["status"].as_str().unwrap());
    }

    let export = server
        .rest("GET", &format!("/v1/exports/{small}"), &admin(server), None)
        .await;
    let data = &export.body["data"];
    let size = file.text.len() as i64;
    assert_eq!(data["row_count"], listed.len());
    assert_eq!(data["byte_size"], size);
    assert_eq!(
        data["progress"],
        json!({ "rows_done": listed.len(), "rows_total": listed.len() })
    );
    let stored = pieces(server, &small).await;
    assert!(stored.len() > 20, "{} pieces", stored.len());
    assert_one_file(&stored, size);

    // The MCP tool describes the file: its size, never its bytes.
    let described = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_exports_download",
            json!({ "id": small }),
        )
        .await;
    assert_eq!(described["structuredContent"]["byte_size"], size);
    assert!(!described.to_string().contains(CHARGE_HEADER[2]));

    ranges(server, &small, file.text.as_bytes(), &stored).await;
}

/// Ranges of the file `whole` of export `id` (stored as `pieces`): its first bytes, a middle
/// across a piece boundary, a suffix, to the end, and one past the end.
async fn ranges(server: &TestServer, id: &str, whole: &[u8], pieces: &[(i64, i64, i64)]) {
    let size = whole.len();
    let boundary = pieces[3].1 as usize;
    let cases = [
        ("bytes=0-99".to_string(), 0, 99),
        (
            format!("bytes={}-{}", boundary - 50, boundary + 49),
            boundary - 50,
            boundary + 49,
        ),
        (
            format!("bytes={}-{}", pieces[1].1, size * 2),
            pieces[1].1 as usize,
            size - 1,
        ),
        ("bytes=-300".to_string(), size - 300, size - 1),
        (format!("bytes={}-", size - 1), size - 1, size - 1),
    ];
    for (range, first, last) in cases {
        let part = download(server, id, Some(&range)).await;
        assert_eq!(part.status, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            part.header("content-range"),
            Some(format!("bytes {first}-{last}/{size}").as_str()),
            "{range}"
        );
        assert_eq!(
            part.header("content-length"),
            Some((last - first + 1).to_string().as_str())
        );
        assert!(part.raw == whole[first..=last], "{range}: the very bytes");
    }
    let past = download(server, id, Some(&format!("bytes={size}-"))).await;
    assert_eq!(past.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(
        past.header("content-range"),
        Some(format!("bytes */{size}").as_str())
    );
    assert_eq!(past.body["code"], "range_not_satisfiable");
    // Two ranges at once are not served as such: the whole file.
    let two = download(server, id, Some("bytes=0-1,5-6")).await;
    assert_eq!(two.status, StatusCode::OK);
    assert_eq!(two.text.len(), size);
}

#[tokio::test]
async fn progress_shows_while_building_and_a_takeover_after_a_dead_builder_makes_one_file() {
    takeover(&TestServer::start().await).await;
}

#[tokio::test]
async fn on_postgres_a_takeover_after_a_dead_builder_makes_one_file() {
    if let Some(server) = crate::postgres::postgres_server().await {
        takeover(&server).await;
    }
}

/// A builder stopped after a few pages (as a killed process would) leaves its export running
/// with its progress; once its lease is over another takes the export over, deletes the
/// pieces and builds the file anew; the first, woken again, can store nothing more.
async fn takeover(server: &TestServer) {
    demo_bulk::generate(&server.state.db, server.org_id(0), 30, 1_200, |_, _, _| {})
        .await
        .expect("generate");
    let engine = engine_sized(server, SMALL);
    let now = OffsetDateTime::now_utc();
    let export = start_export(server, json!({ "kind": "charges" })).await;
    let id = export["id"].as_str().unwrap().to_string();
    assert!(
        shown(server, &id).await["progress"].is_null(),
        "not counted yet"
    );

    let mut first = Builder::claim(&engine, &id, now)
        .await
        .expect("claim")
        .expect("free");
    for _ in 0..4 {
        assert_eq!(first.step().await.expect("step"), Progress::Building);
    }
    let running = shown(server, &id).await;
    assert_eq!(running["status"], "running");
    let total = running["progress"]["rows_total"].as_i64().unwrap();
    let done = running["progress"]["rows_done"].as_i64().unwrap();
    assert!(total > 1_200, "{running}");
    assert!(done > 0 && done < total, "{running}");
    // The same through MCP, where an assistant polls.
    let tool = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_exports_get",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(
        tool["structuredContent"]["data"]["progress"],
        running["progress"]
    );
    let left_behind = pieces(server, &id).await.len();
    assert!(left_behind >= 2);

    // Not before the lease is over; then another builder takes it over.
    assert_eq!(build_with(&engine, now).await, 0);
    let later = now + time::Duration::minutes(11);
    assert_eq!(build_with(&engine, later).await, 1);
    let rebuilt = shown(server, &id).await;
    assert_eq!(rebuilt["status"], "completed", "{rebuilt}");

    // The first builder wakes: its next piece is refused, nothing of it is stored.
    let stored = pieces(server, &id).await;
    let outcome = loop {
        match first.step().await.expect("step") {
            Progress::Building => {}
            other => break other,
        }
    };
    assert_eq!(outcome, Progress::Lost);
    assert!(!first.finish(Ok(outcome), later).await.expect("finish"));
    assert_eq!(pieces(server, &id).await, stored);
    let size = rebuilt["byte_size"].as_i64().unwrap();
    assert_one_file(&stored, size);

    // One clean file: the same bytes as a build that nobody interrupted.
    let file = download(server, &id, None).await;
    let again = start_export(server, json!({ "kind": "charges" })).await;
    let again = again["id"].as_str().unwrap().to_string();
    assert_eq!(build_with(&engine_sized(server, WHOLE), later).await, 1);
    assert!(file.text == download(server, &again, None).await.text);
    let (_, rows) = parse(&file.text);
    let ids: std::collections::HashSet<&str> = rows.iter().map(|r| r["id"].as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "no row twice");
    assert_eq!(rows.len() as i64, rebuilt["row_count"].as_i64().unwrap());
}

/// A file completed before migration 21 (one `exports.content` value) is moved into one
/// piece by the migration and downloads as it was, whole and by ranges.
#[tokio::test]
async fn a_file_stored_whole_before_the_pieces_downloads_as_it_was() {
    let server = TestServer::start().await;
    let export = start_export(&server, json!({ "kind": "customers" })).await;
    let id = export["id"].as_str().unwrap().to_string();
    let content = "\u{feff}id,name\r\ncus_1,Conceição\r\n";
    // The database as migration 20 left it, with a file completed then.
    for sql in [
        "DROP TABLE export_chunks",
        "ALTER TABLE exports DROP COLUMN rows_done",
        "ALTER TABLE exports DROP COLUMN rows_total",
        "DELETE FROM schema_migrations WHERE version = 21",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&server.state.db.pool)
            .await
            .expect(sql);
    }
    sqlx::query(
        "UPDATE exports SET status = 'completed', content = $1, row_count = 1, byte_size = $2,
             completed_at = created_at WHERE id = $3",
    )
    .bind(content)
    .bind(content.len() as i64)
    .bind(&id)
    .execute(&server.state.db.pool)
    .await
    .unwrap();
    Db::open(&server.state.config.database_url)
        .await
        .expect("migration 21 applied");

    let file = download(&server, &id, None).await;
    assert_eq!(file.status, StatusCode::OK, "{}", file.text);
    assert_eq!(file.text, content);
    let tail = download(&server, &id, Some("bytes=-13")).await;
    assert_eq!(tail.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(tail.raw, content.as_bytes()[content.len() - 13..]);
    let shown = server
        .rest("GET", &format!("/v1/exports/{id}"), &admin(&server), None)
        .await;
    assert_eq!(
        shown.body["data"]["progress"],
        json!({ "rows_done": 1, "rows_total": 1 })
    );
    let left: Option<String> = sqlx::query_scalar("SELECT content FROM exports WHERE id = $1")
        .bind(&id)
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap();
    assert_eq!(left, None, "the old column is emptied");
}

/// More rows than the 200 000 the builder before pieces refused (customers: the cheapest
/// rows to make, one statement), built with the server's own sizes and parsed back whole.
#[tokio::test]
async fn an_export_past_the_old_limit_of_200_000_rows_completes() {
    let server = TestServer::start().await;
    let before: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM customers WHERE organization_id = $1")
            .bind(server.org_id(0))
            .fetch_one(&server.state.db.pool)
            .await
            .unwrap();
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200001)
         INSERT INTO customers (organization_id, created_at, updated_at, version, notes, document_type,
             id, name, search_name, document, email, phone, address, channel_opt_outs, tags)
         SELECT $1, $2, $2, 1, NULL, 'cpf', printf('cus_big%09d', i), 'Cliente ' || i, 'cliente ' || i,
             printf('%011d', i), NULL, NULL, NULL, '[]', '[]' FROM n",
    )
    .bind(server.org_id(0))
    .bind("2025-01-01T00:00:00.000000Z")
    .execute(&server.state.db.pool)
    .await
    .expect("200 001 customers");
    let export = start_export(&server, json!({ "kind": "customers" })).await;
    let id = export["id"].as_str().unwrap().to_string();
    assert_eq!(finish_exports(&server).await, 1);
    let data = shown(&server, &id).await;
    assert_eq!(data["status"], "completed", "{data}");
    let expected = before + 200_001;
    assert_eq!(data["row_count"], expected);
    let file = download(&server, &id, None).await;
    assert_eq!(file.status, StatusCode::OK);
    let (_, rows) = parse(&file.text);
    assert_eq!(rows.len() as i64, expected);
    assert!(pieces(&server, &id).await.len() > 10);
}

/// A process told to stop gives the export it was building back, pending, instead of
/// holding the shutdown for the rest of the file; the next builder begins it anew.
#[tokio::test]
async fn a_stopping_worker_gives_its_export_back_and_the_next_builds_it_whole() {
    let server = TestServer::start().await;
    let export = start_export(&server, json!({ "kind": "customers" })).await;
    let id = export["id"].as_str().unwrap().to_string();
    let mut stopping = engine_sized(&server, SMALL);
    stopping.status = Arc::new(dunning_engine::status::EngineStatus::default());
    stopping.status.stop();
    let now = OffsetDateTime::now_utc();
    assert_eq!(build_with(&stopping, now).await, 0);
    let given_back = shown(&server, &id).await;
    assert_eq!(given_back["status"], "pending", "{given_back}");
    assert!(given_back["progress"].is_null());

    assert_eq!(build_with(&engine_sized(&server, SMALL), now).await, 1);
    let built = shown(&server, &id).await;
    assert_eq!(built["status"], "completed", "{built}");
    assert_one_file(
        &pieces(&server, &id).await,
        built["byte_size"].as_i64().unwrap(),
    );
}
