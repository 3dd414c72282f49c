//! Disputes: opening one pauses the charge's collection; resolving it cancels the charge
//! (upheld) or resumes collection (rejected). Also customer deletion, which disputes and
//! agreements go with.

use dunning_store::charges;
use http::StatusCode;
use serde_json::{Value, json};

use crate::agreements::{charge, customer, day, event_types, get, pay};
use crate::common::{Answer, TestServer};

async fn post(server: &TestServer, path: &str, body: Value) -> Answer {
    server
        .rest("POST", path, &server.token(0, "admin", "api"), Some(body))
        .await
}

fn assert_refused(answer: &Answer, status: StatusCode, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.text);
    assert_eq!(answer.body["code"], code, "{}", answer.text);
}

async fn open_dispute(server: &TestServer, charge: &str) -> Value {
    let answer = post(
        server,
        "/v1/disputes",
        json!({"charge_id": charge, "reason": "already_paid", "description": "Cliente afirma ter pago via Pix."}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"].clone()
}

/// The charge's `open_dispute_id`, which collection checks (not part of the API's charge).
async fn open_dispute_id(server: &TestServer, charge: &str) -> Option<String> {
    charges::get(&server.state.db, server.org_id(0), charge)
        .await
        .unwrap()
        .unwrap()
        .open_dispute_id
}

/// `POST /v1/charges/{id}/notify` by e-mail.
async fn notify(server: &TestServer, charge: &str) -> Answer {
    post(
        server,
        &format!("/v1/charges/{charge}/notify"),
        json!({"channel": "email"}),
    )
    .await
}

#[tokio::test]
async fn an_open_dispute_pauses_collection_and_rejecting_it_resumes_collection() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let charge = charge(&server, &customer, 120.00, -20).await;
    let dispute = open_dispute(&server, &charge).await;
    let id = dispute["id"].as_str().unwrap();
    assert_eq!(dispute["status"], "open");
    assert_eq!(dispute["charge_id"], charge.as_str());
    assert_eq!(dispute["customer_id"], customer.as_str());
    assert_eq!(dispute["reason"], "already_paid");
    assert!(dispute["resolved_at"].is_null());
    assert_eq!(open_dispute_id(&server, &charge).await.as_deref(), Some(id));
    assert_eq!(event_types(&server, id).await, ["dispute.opened"]);

    // Notices, negativation and protest are refused while the dispute is open.
    let paused = notify(&server, &charge).await;
    assert_refused(&paused, StatusCode::CONFLICT, "charge_in_dispute");
    for (action, body) in [
        ("negativate", json!({"bureau": "serasa"})),
        ("protest", json!({})),
    ] {
        let answer = post(&server, &format!("/v1/charges/{charge}/{action}"), body).await;
        assert_refused(&answer, StatusCode::CONFLICT, "charge_in_dispute");
    }
    let charge_now = get(&server, &format!("/v1/charges/{charge}")).await;
    assert_eq!(charge_now["negativation_status"], "none");
    assert_eq!(charge_now["protest_status"], "none");

    let second = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": charge, "reason": "other"}),
    )
    .await;
    assert_refused(&second, StatusCode::CONFLICT, "charge_has_open_dispute");
    let list = server
        .rest(
            "GET",
            &format!("/v1/disputes?charge_id={charge}"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(list.body["meta"]["total"], 1, "still one dispute");

    let rejected = server
        .rest_with(
            "POST",
            &format!("/v1/disputes/{id}/resolve"),
            &server.token(0, "admin", "api"),
            &[("if-match", "\"v1\"")],
            Some(json!({"outcome": "rejected", "resolution_note": "Pagamento não localizado."})),
        )
        .await;
    assert_eq!(rejected.status, StatusCode::OK, "{}", rejected.text);
    assert_eq!(rejected.body["data"]["status"], "rejected");
    assert_eq!(
        rejected.body["data"]["resolution_note"],
        "Pagamento não localizado."
    );
    assert!(rejected.body["data"]["resolved_at"].is_string());
    assert_eq!(open_dispute_id(&server, &charge).await, None);
    assert_eq!(
        get(&server, &format!("/v1/charges/{charge}")).await["status"],
        "overdue"
    );
    assert_eq!(
        event_types(&server, id).await,
        ["dispute.opened", "dispute.rejected"]
    );
    let resumed = notify(&server, &charge).await;
    assert_eq!(resumed.status, StatusCode::ACCEPTED, "{}", resumed.text);

    let again = post(
        &server,
        &format!("/v1/disputes/{id}/resolve"),
        json!({"outcome": "upheld"}),
    )
    .await;
    assert_refused(&again, StatusCode::CONFLICT, "dispute_not_open");
    assert_eq!(
        get(&server, &format!("/v1/disputes/{id}")).await,
        rejected.body["data"]
    );
    assert_eq!(
        get(&server, &format!("/v1/charges/{charge}")).await["status"],
        "overdue"
    );
}

#[tokio::test]
async fn an_upheld_dispute_cancels_the_charge_and_withdraws_negativation_and_protest() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let charge = charge(&server, &customer, 120.00, -20).await;
    // As if the bureau and the notary had the debt before the debtor contested it.
    sqlx::query(
        "UPDATE charges SET negativation_status = 'active', protest_status = 'requested' WHERE id = $1",
    )
    .bind(&charge)
    .execute(&server.state.db.pool)
    .await
    .unwrap();
    let dispute = open_dispute(&server, &charge).await;
    let id = dispute["id"].as_str().unwrap();
    let upheld = post(
        &server,
        &format!("/v1/disputes/{id}/resolve"),
        json!({"outcome": "upheld"}),
    )
    .await;
    assert_eq!(upheld.status, StatusCode::OK, "{}", upheld.text);
    assert_eq!(upheld.body["data"]["status"], "upheld");
    let after = get(&server, &format!("/v1/charges/{charge}")).await;
    assert_eq!(after["status"], "canceled");
    assert!(after["canceled_at"].is_string());
    assert_eq!(after["negativation_status"], "removal_requested");
    assert_eq!(after["protest_status"], "cancel_requested");
    assert_eq!(open_dispute_id(&server, &charge).await, None);
    assert_eq!(
        event_types(&server, &charge).await,
        ["charge.created", "charge.canceled"]
    );
    assert_eq!(
        event_types(&server, id).await,
        ["dispute.opened", "dispute.upheld"]
    );
}

#[tokio::test]
async fn only_open_charges_can_be_disputed_and_input_is_checked() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let charge = charge(&server, &customer, 120.00, 5).await;
    let answer = post(&server, &format!("/v1/charges/{charge}/cancel"), json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let refused = post(
        &server,
        "/v1/disputes",
        json!({"charge_id": charge, "reason": "not_recognized"}),
    )
    .await;
    assert_refused(&refused, StatusCode::CONFLICT, "charge_not_open");
    for (body, field) in [
        (json!({"charge_id": charge, "reason": "bored"}), "reason"),
        (
            json!({"charge_id": "chg_0000000000000000", "reason": "other"}),
            "charge_id",
        ),
        (json!({"reason": "other"}), "charge_id"),
        (
            json!({"charge_id": charge, "reason": "other", "amount": 1}),
            "amount",
        ),
    ] {
        let answer = post(&server, "/v1/disputes", body.clone()).await;
        assert_refused(&answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(
            answer.body["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["field"] == field),
            "{body}: {}",
            answer.text
        );
    }
    let list = server
        .rest(
            "GET",
            "/v1/disputes",
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(list.body["meta"]["total"], 0, "nothing was stored");
    // A collector may read disputes but not open them.
    let collector = server
        .rest(
            "POST",
            "/v1/disputes",
            &server.token(0, "collector", "api"),
            Some(json!({"charge_id": charge, "reason": "other"})),
        )
        .await;
    assert_eq!(
        collector.status,
        StatusCode::FORBIDDEN,
        "{}",
        collector.text
    );
}

#[tokio::test]
async fn disputes_are_listed_newest_first_with_filters_and_the_same_through_mcp() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let first = charge(&server, &customer, 10.00, 5).await;
    let second = charge(&server, &customer, 20.00, 5).await;
    let older = open_dispute(&server, &first).await;
    // Timestamps have millisecond resolution: make "newest first" observable.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let newer = open_dispute(&server, &second).await;
    let token = server.token(0, "manager", "mcp");
    let resolved = server
        .call_tool(
            &token,
            "dunning_disputes_resolve",
            json!({"id": older["id"], "outcome": "rejected"}),
        )
        .await;
    assert_eq!(
        resolved["structuredContent"]["data"]["status"], "rejected",
        "{resolved}"
    );
    assert_eq!(
        get(
            &server,
            &format!("/v1/disputes/{}", older["id"].as_str().unwrap())
        )
        .await,
        resolved["structuredContent"]["data"]
    );

    let rest = server
        .rest(
            "GET",
            &format!("/v1/disputes?customer_id={customer}"),
            &server.token(0, "manager", "api"),
            None,
        )
        .await;
    let ids: Vec<&Value> = rest.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["id"])
        .collect();
    assert_eq!(ids, [&newer["id"], &older["id"]]);
    let mcp = server
        .call_tool(
            &token,
            "dunning_disputes_list",
            json!({"customer_id": customer}),
        )
        .await;
    assert_eq!(mcp["structuredContent"]["data"], rest.body["data"]);
    assert_eq!(mcp["structuredContent"]["meta"]["total"], 2);

    let open = server
        .rest(
            "GET",
            "/v1/disputes?status=open",
            &server.token(0, "manager", "api"),
            None,
        )
        .await;
    assert_eq!(open.body["meta"]["total"], 1);
    assert_eq!(open.body["data"][0]["id"], newer["id"]);
    let bad = server
        .rest(
            "GET",
            "/v1/disputes?status=closed",
            &server.token(0, "manager", "api"),
            None,
        )
        .await;
    assert_refused(&bad, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let completion = server
        .mcp(
            &token,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "kobana://dunning/disputes/{id}"},
                   "argument": {"name": "id", "value": "dsp_"}}),
        )
        .await;
    assert_eq!(
        completion.body["result"]["completion"]["total"], 2,
        "{}",
        completion.text
    );
    let foreign = server
        .rest(
            "GET",
            &format!("/v1/disputes/{}", newer["id"].as_str().unwrap()),
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_refused(&foreign, StatusCode::NOT_FOUND, "not_found");
}

/// (payments, deliveries) recorded for the customer's charges, read from the tables.
async fn records_of(server: &TestServer, customer: &str) -> (i64, i64) {
    let mut out = [0i64; 2];
    for (slot, table) in out.iter_mut().zip(["payments", "deliveries"]) {
        let sql = format!(
            "SELECT COUNT(*) FROM {table} WHERE charge_id IN (SELECT id FROM charges WHERE customer_id = $1)"
        );
        *slot = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(customer)
            .fetch_one(&server.state.db.pool)
            .await
            .unwrap();
    }
    (out[0], out[1])
}

#[tokio::test]
async fn a_customer_with_charges_still_collected_cannot_be_deleted() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let open = charge(&server, &customer, 50.00, 5).await;
    let before = get(&server, &format!("/v1/customers/{customer}")).await;
    let refused = server
        .rest("DELETE", &format!("/v1/customers/{customer}"), &token, None)
        .await;
    assert_refused(&refused, StatusCode::CONFLICT, "customer_has_open_charges");
    assert_eq!(
        get(&server, &format!("/v1/customers/{customer}")).await,
        before
    );
    assert_eq!(
        get(&server, &format!("/v1/charges/{open}")).await["status"],
        "pending"
    );

    // In an agreement counts as still collected.
    let answer = post(
        &server,
        "/v1/agreements",
        json!({"customer_id": customer, "charge_ids": [open], "installments": 1, "first_due_date": day(3)}),
    )
    .await;
    let agreement = answer.body["data"]["id"].as_str().unwrap().to_string();
    let answer = post(
        &server,
        &format!("/v1/agreements/{agreement}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let instalment = answer.body["data"]["installments_schedule"][0]["charge_id"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = post(
        &server,
        &format!("/v1/charges/{instalment}/cancel"),
        json!({}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(
        get(&server, &format!("/v1/charges/{open}")).await["status"],
        "in_agreement"
    );
    let refused = server
        .rest("DELETE", &format!("/v1/customers/{customer}"), &token, None)
        .await;
    assert_refused(&refused, StatusCode::CONFLICT, "customer_has_open_charges");
    assert_eq!(
        get(&server, &format!("/v1/customers/{customer}")).await,
        before
    );

    let missing = server
        .rest("DELETE", "/v1/customers/cus_0000000000000000", &token, None)
        .await;
    assert_refused(&missing, StatusCode::NOT_FOUND, "not_found");
    let viewer = server
        .rest(
            "DELETE",
            &format!("/v1/customers/{customer}"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(viewer.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn deleting_a_settled_customer_removes_its_records_and_keeps_the_events() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let disputed = charge(&server, &customer, 50.00, 5).await;
    let proposed = charge(&server, &customer, 70.00, 5).await;
    let dispute = open_dispute(&server, &disputed).await;
    let answer = post(
        &server,
        &format!("/v1/disputes/{}/resolve", dispute["id"].as_str().unwrap()),
        json!({"outcome": "upheld"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let answer = post(
        &server,
        "/v1/agreements",
        json!({"customer_id": customer, "charge_ids": [proposed], "installments": 2, "first_due_date": day(3)}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    let agreement = answer.body["data"]["id"].as_str().unwrap().to_string();
    let answer = post(
        &server,
        &format!("/v1/charges/{proposed}/cancel"),
        json!({}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    // A charge noticed and then paid leaves a delivery and a payment behind.
    let paid = charge(&server, &customer, 90.00, 5).await;
    let noticed = notify(&server, &paid).await;
    assert_eq!(noticed.status, StatusCode::ACCEPTED, "{}", noticed.text);
    pay(&server, &paid, 90.00).await;
    assert_eq!(
        get(&server, &format!("/v1/charges/{paid}")).await["status"],
        "paid"
    );
    assert_eq!(records_of(&server, &customer).await, (1, 1));

    let deleted = server
        .rest("DELETE", &format!("/v1/customers/{customer}"), &token, None)
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.text);
    assert!(deleted.text.is_empty());
    for path in [
        format!("/v1/customers/{customer}"),
        format!("/v1/charges/{disputed}"),
        format!("/v1/disputes/{}", dispute["id"].as_str().unwrap()),
        format!("/v1/agreements/{agreement}"),
    ] {
        let answer = server.rest("GET", &path, &token, None).await;
        assert_refused(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    assert_eq!(records_of(&server, &customer).await, (0, 0));
    assert_eq!(
        event_types(&server, &customer).await,
        ["customer.created", "customer.deleted"]
    );
    assert_eq!(
        event_types(&server, &disputed).await,
        ["charge.created", "charge.canceled"],
        "the audit trail stays"
    );
    let again = server
        .rest("DELETE", &format!("/v1/customers/{customer}"), &token, None)
        .await;
    assert_refused(&again, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn deleting_through_mcp_matches_rest() {
    let server = TestServer::start().await;
    let customer = customer(&server, "Joana Prado", "602214076").await;
    let result = server
        .call_tool(
            &server.token(0, "admin", "mcp"),
            "dunning_customers_delete",
            json!({"id": customer}),
        )
        .await;
    assert_ne!(result["isError"], json!(true), "{result}");
    assert_eq!(result["structuredContent"]["status"], 204, "{result}");
    let answer = server
        .rest(
            "GET",
            &format!("/v1/customers/{customer}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

/// A timeline is ordered by time, then id: events written within one millisecond (an
/// upheld dispute right after it was opened) must still come out in the order written.
#[tokio::test]
async fn events_written_within_one_millisecond_keep_their_order_in_the_timeline() {
    use dunning_store::events;
    let server = TestServer::start().await;
    let actor = events::Actor {
        kind: "system",
        id: None,
        name: None,
    };
    let mut conn = server.state.db.pool.acquire().await.expect("connection");
    let written: Vec<String> = (0..40).map(|i| format!("test.step{i:02}")).collect();
    for kind in &written {
        events::record(
            &mut conn,
            server.org_id(0),
            kind,
            ("test", "sub_one"),
            &actor,
            &json!({}),
        )
        .await
        .expect("recorded");
    }
    drop(conn);
    let read: Vec<String> = events::for_subject(&server.state.db, server.org_id(0), "sub_one")
        .await
        .expect("read")
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(read, written);
}
