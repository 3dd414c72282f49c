//! The Pix tables, the callback endpoint and the Pix worker's queries on both engines,
//! in-process. The flows against a real PSP (mutual TLS, cobvs, the sweep) are
//! `tests/python/test_pix_psp.py`, with the test PSP of `tests/pix_psp/`; here a connection is
//! written straight into the store, its certificate one no TLS client takes, so that every
//! query the worker runs meets SQLite and PostgreSQL, and so does its failure path.

use http::{Request, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::common::TestServer;
use dunning_engine::pix::connect::secret_hash;
use dunning_engine::pix::sealed::context;
use dunning_store::ids;
use dunning_store::pix_psp::{self as store, Mirrored, NewConnection};

const KEY: &str = "cobranca@paodourado.com.br";

/// A connection for organization 0 whose certificate cannot make a client, and the
/// organization's Pix key: the callback's secret.
pub(crate) async fn connect(server: &TestServer) -> String {
    let org = server.org_id(0).to_string();
    let key = server
        .state
        .engine
        .settings
        .pix
        .secrets_key
        .clone()
        .expect("a secrets key");
    let seal = |field: &str, value: &str| key.seal(&context(&org, field), value.as_bytes());
    let secret = ids::new_secret(32);
    let mut tx = server.state.db.begin().await.unwrap();
    store::upsert(
        &mut tx,
        &org,
        &NewConnection {
            id: "pxc_test0000000000000",
            api_url: "https://127.0.0.1:1/api/v2",
            token_url: "https://127.0.0.1:1/api/v2/oauth/token",
            client_id: "client",
            client_secret_sealed: &seal("client_secret", "secret"),
            certificate_sealed: &seal("certificate", "not a certificate"),
            private_key_sealed: &seal("private_key", "not a key"),
            webhook_secret_sealed: &seal("webhook_secret", &secret),
            sealed_with: key.fingerprint(),
            webhook_secret_hash: &secret_hash(&secret),
        },
        &dunning_store::now_text(),
    )
    .await
    .unwrap();
    // The demo organizations have a key already: this test's own replaces it.
    sqlx::query("DELETE FROM pix_settings WHERE organization_id = $1")
        .bind(&org)
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO pix_settings (organization_id, key, key_type, merchant_name, merchant_city, updated_at)
         VALUES ($1, $2, 'email', 'PADARIA PAO DOURADO', 'SAO PAULO', '2026-01-01T00:00:00.000Z')",
    )
    .bind(&org)
    .bind(KEY)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    secret
}

/// A new pending charge of organization 0, due in ten days: its id.
pub(crate) async fn charge(server: &TestServer, amount: f64) -> String {
    let token = server.token(0, "admin", "api");
    let customers = server
        .rest("GET", "/v1/customers?per_page=1", &token, None)
        .await;
    let customer = customers.body["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let due = (dunning_domain::calendar::today() + time::Duration::days(10)).to_string();
    let created = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(json!({"customer_id": customer, "description": "Pix", "amount": amount, "due_date": due})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    created.body["data"]["id"].as_str().unwrap().to_string()
}

pub(crate) async fn callback(server: &TestServer, path: &str, body: &Value) -> (StatusCode, Value) {
    let request = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let answer = server.send(request).await;
    (answer.status, answer.body)
}

pub(crate) fn pix(e2e: &str, txid: &str, valor: &str) -> Value {
    json!({"pix": [{"endToEndId": e2e, "txid": txid, "valor": valor, "horario": "2026-01-02T10:00:00.000Z"}]})
}

async fn a_callback_pays_its_charge_once_and_a_forged_one_changes_nothing(server: TestServer) {
    let secret = connect(&server).await;
    let id = charge(&server, 42.5).await;
    let static_txid = id.replace('_', "");
    let body = pix("E12345678202601021000aaaaaaaaaaa", &static_txid, "42.50");
    let forged = format!("/pix/webhook/{}/pix", ids::new_secret(32));
    assert_eq!(
        callback(&server, &forged, &body).await.0,
        StatusCode::NOT_FOUND
    );
    let token = server.token(0, "admin", "api");
    let listed = server.rest("GET", "/v1/pix/received", &token, None).await;
    assert_eq!(listed.body["meta"]["total"], 0, "{}", listed.text);
    let good = format!("/pix/webhook/{secret}/pix");
    assert_eq!(
        callback(&server, &good, &body).await,
        (StatusCode::OK, json!({"received": 1, "duplicates": 0}))
    );
    assert_eq!(
        callback(&server, &good, &body).await,
        (StatusCode::OK, json!({"received": 0, "duplicates": 1}))
    );
    let charge = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    assert_eq!(charge.body["data"]["status"], "paid", "{}", charge.text);
    let unknown = pix("E12345678202601021000bbbbbbbbbbb", "notoneofours", "1.00");
    assert_eq!(callback(&server, &good, &unknown).await.0, StatusCode::OK);
    let listed = server.rest("GET", "/v1/pix/received", &token, None).await;
    let statuses: Vec<(&str, &str)> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap(),
                r["end_to_end_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("review", "E12345678202601021000bbbbbbbbbbb"),
            ("applied", "E12345678202601021000aaaaaaaaaaa")
        ]
    );
    let review = server
        .rest("GET", "/v1/pix/received?status=review", &token, None)
        .await;
    assert_eq!(review.body["data"][0]["reason"], "unknown_txid");
    assert_eq!(review.body["meta"]["total"], 1);
    // Another organization sees none of it.
    let other = server
        .rest(
            "GET",
            "/v1/pix/received",
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(other.body["meta"]["total"], 0);
}

#[tokio::test]
async fn a_callback_pays_its_charge_once_and_a_forged_one_changes_nothing_on_sqlite() {
    a_callback_pays_its_charge_once_and_a_forged_one_changes_nothing(TestServer::start().await)
        .await;
}

#[tokio::test]
async fn a_callback_pays_its_charge_once_and_a_forged_one_changes_nothing_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    a_callback_pays_its_charge_once_and_a_forged_one_changes_nothing(server).await;
}

async fn the_pix_worker_keeps_its_work_in_the_database(server: TestServer) {
    connect(&server).await;
    // `me` reads the setup and the connection on every call, outside a transaction (the
    // engine's own reads on PostgreSQL, on this thread on SQLite).
    let token = server.token(0, "viewer", "api");
    let me = server.rest("GET", "/v1/me", &token, None).await;
    assert_eq!(
        me.body["data"]["pix"],
        json!({"configured": true, "key_type": "email", "dynamic": true}),
        "{}",
        me.text
    );
    let org = server.org_id(0).to_string();
    let id = charge(&server, 10.0).await;
    let engine = &server.state.engine;
    // Past the time a write settles: the charge just made is seen.
    let now = OffsetDateTime::now_utc() + time::Duration::seconds(5);
    let report = dunning_engine::pix::tick(engine, now)
        .await
        .expect("a tick");
    assert!(
        report.noticed >= 1 && report.failed >= 1 && report.upkept == 1,
        "{report:?}"
    );
    let row = store::cobv(&server.state.db, &org, &id)
        .await
        .unwrap()
        .expect("a cobv row");
    assert_eq!(row.txid, format!("{}cobv000", id.replace('_', "")));
    assert_eq!(row.attempts, 1);
    assert!(
        row.last_error
            .as_deref()
            .unwrap()
            .starts_with("the client certificate cannot be used"),
        "{:?}",
        row.last_error
    );
    let shown = server
        .rest("GET", "/v1/pix/psp", &server.token(0, "admin", "api"), None)
        .await;
    let webhook = &shown.body["data"]["webhook"];
    assert_eq!(webhook["registered"], false, "{}", shown.text);
    assert!(
        webhook["error"].as_str().unwrap().contains("certificate"),
        "{}",
        shown.text
    );
    assert!(
        shown.body["data"]["sweep"]["error"].is_string(),
        "{}",
        shown.text
    );
    // Retried after its wait, not before.
    let again = dunning_engine::pix::tick(engine, now).await.unwrap();
    assert_eq!(again.failed, 0, "{again:?}");
    // As a PSP's answer leaves it: the code is the charge's.
    let later = dunning_store::timestamp_text(now + time::Duration::hours(2));
    let claimed = store::claim_cobv(&server.state.db, (&org, &id), "clm_test", &later, &later)
        .await
        .unwrap()
        .expect("due again");
    let mut tx = server.state.db.begin().await.unwrap();
    assert!(
        store::cobv_mirrored(
            &mut tx,
            (&org, &id),
            "clm_test",
            &Mirrored {
                txid: &claimed.txid,
                txid_revision: 0,
                psp_status: Some("ATIVA"),
                psp_revision: Some(0),
                location: Some("psp.example.com/qr/v2/cobv/1"),
                synced_version: 1,
                valid_until: Some("2099-01-01"),
                next_attempt_at: None,
            },
            &later,
        )
        .await
        .unwrap()
    );
    store::set_charge_code(
        &mut tx,
        &org,
        &id,
        Some("000201...6304ABCD"),
        Some("psp.example.com/qr/v2/cobv/1"),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        store::charge_code(&server.state.db, &org, &id)
            .await
            .unwrap(),
        (
            Some("000201...6304ABCD".into()),
            Some("psp.example.com/qr/v2/cobv/1".into())
        )
    );
    // Paid through that cobv: concluded, the code cleared.
    let mut tx = server.state.db.begin().await.unwrap();
    assert!(
        store::cobv_paid(&mut tx, &org, &id, &claimed.txid, &later)
            .await
            .unwrap()
    );
    tx.commit().await.unwrap();
    let row = store::cobv(&server.state.db, &org, &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.psp_status.as_deref(), Some("CONCLUIDA"));
    assert_eq!(
        store::charge_code(&server.state.db, &org, &id)
            .await
            .unwrap(),
        (None, None)
    );
    // The full look finds nothing new, and removing the connection takes its rows.
    assert_eq!(
        store::open_charges_without_cobv(&server.state.db, &org, 10)
            .await
            .unwrap(),
        Vec::<String>::new()
    );
    let mut tx = server.state.db.begin().await.unwrap();
    assert!(store::delete(&mut tx, &org).await.unwrap());
    tx.commit().await.unwrap();
    assert!(
        store::cobv(&server.state.db, &org, &id)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn the_pix_worker_keeps_its_work_in_the_database_on_sqlite() {
    the_pix_worker_keeps_its_work_in_the_database(TestServer::start().await).await;
}

#[tokio::test]
async fn the_pix_worker_keeps_its_work_in_the_database_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    the_pix_worker_keeps_its_work_in_the_database(server).await;
}
