//! The bulk data generator (`kobana-dunning demo --customers N --charges M`): the rows it
//! writes are counted, listed, filtered, sorted and read through the API like any other, on
//! SQLite and, where it runs, PostgreSQL.

use http::StatusCode;
use kobana_dunning::demo_bulk;
use serde_json::Value;

use crate::common::TestServer;
use crate::postgres::postgres_server;

async fn total(server: &TestServer, token: &str, path: &str) -> u64 {
    let answer = server.rest("GET", path, token, None).await;
    assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text);
    answer.body["meta"]["total"].as_u64().expect("meta.total")
}

/// Generate 40 customers and 900 charges (fewer than the count cap, so totals are exact) into organization 0 and read them back.
async fn generated_data_reads_like_any_other(server: &TestServer) {
    let token = server.token(0, "admin", "api");
    let customers_before = total(server, &token, "/v1/customers?per_page=1").await;
    let charges_before = total(server, &token, "/v1/charges?per_page=1").await;
    let other_before = total(
        server,
        &server.token(1, "admin", "api"),
        "/v1/charges?per_page=1",
    )
    .await;

    let mut reports = 0;
    let generated = demo_bulk::generate(&server.state.db, server.org_id(0), 40, 900, |_, _, _| {
        reports += 1
    })
    .await
    .expect("generate");
    assert_eq!(generated.customers, 40);
    assert_eq!(generated.charges, 900);
    assert!(reports >= 2, "progress is reported");

    assert_eq!(
        total(server, &token, "/v1/customers?per_page=1").await,
        customers_before + 40
    );
    assert_eq!(
        total(server, &token, "/v1/charges?per_page=1").await,
        charges_before + 900
    );
    // The other organization is untouched.
    assert_eq!(
        total(
            server,
            &server.token(1, "admin", "api"),
            "/v1/charges?per_page=1"
        )
        .await,
        other_before
    );

    // Every status occurs, and the statuses add up to the whole.
    let mut by_status = 0;
    for status in ["pending", "overdue", "paid", "canceled", "in_agreement"] {
        let n = total(
            server,
            &token,
            &format!("/v1/charges?per_page=1&status={status}"),
        )
        .await;
        assert!(n > 0, "no {status} charge generated");
        by_status += n;
    }
    assert_eq!(by_status, charges_before + 900);

    // The customers are valid (a list answers them all) and each has charges to filter on.
    let customers = server
        .rest("GET", "/v1/customers?per_page=100", &token, None)
        .await;
    assert_eq!(customers.status, StatusCode::OK, "{}", customers.text);
    let generated_customer = customers.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["document"].as_str().is_some_and(|d| d.starts_with("000")))
        .expect("a generated customer")
        .clone();
    let id = generated_customer["id"].as_str().unwrap();
    let mine = server
        .rest(
            "GET",
            &format!("/v1/charges?per_page=100&customer_id={id}"),
            &token,
            None,
        )
        .await;
    let rows = mine.body["data"].as_array().unwrap();
    assert!(!rows.is_empty(), "{}", mine.text);
    assert!(rows.iter().all(|c| c["customer_id"] == id));

    // Sorting by amount works over the generated amounts.
    let sorted = server
        .rest(
            "GET",
            "/v1/charges?per_page=50&sort_by=amount&sort_order=desc",
            &token,
            None,
        )
        .await;
    let amounts: Vec<f64> = sorted.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["amount"].as_f64().unwrap())
        .collect();
    assert!(amounts.windows(2).all(|w| w[0] >= w[1]), "{amounts:?}");

    // An overdue charge's detail computes what is owed: at least the unpaid principal.
    let overdue = server
        .rest("GET", "/v1/charges?per_page=1&status=overdue", &token, None)
        .await;
    let charge_id = overdue.body["data"][0]["id"].as_str().unwrap().to_string();
    let detail = server
        .rest("GET", &format!("/v1/charges/{charge_id}"), &token, None)
        .await;
    assert_eq!(detail.status, StatusCode::OK, "{}", detail.text);
    let charge: &Value = &detail.body["data"];
    let amount = charge["amount"].as_f64().unwrap();
    let paid = charge["paid_amount"].as_f64().unwrap_or(0.0);
    let due = charge["amount_due"].as_f64().expect("amount_due");
    assert!(due > amount - paid, "{charge}");

    // A second run continues the CPF series instead of colliding with the first.
    demo_bulk::generate(&server.state.db, server.org_id(0), 10, 0, |_, _, _| {})
        .await
        .expect("a second run adds more customers");
    assert_eq!(
        total(server, &token, "/v1/customers?per_page=1").await,
        customers_before + 50
    );
}

#[tokio::test]
async fn demo_generator_fills_an_organization_on_sqlite() {
    generated_data_reads_like_any_other(&TestServer::start().await).await;
}

#[tokio::test]
async fn demo_generator_fills_an_organization_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    generated_data_reads_like_any_other(&server).await;
}
