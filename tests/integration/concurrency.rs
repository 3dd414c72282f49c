//! Concurrent writers on one row, on SQLite and on PostgreSQL: every "at most one" rule holds
//! whatever the interleaving (one live agreement per charge, one open dispute per charge,
//! one customer per document, never more paid than due), the losers get the problem the rule
//! gives one at a time, and writes that do not really conflict (PATCHes of different fields)
//! all succeed. The unique indexes hold where a writer skips the handler's checks, and a
//! transaction PostgreSQL aborts for a deadlock is run again.
//!
//! Each scenario is one function run twice: over a SQLite file and over a fresh PostgreSQL
//! database (skipped with a note when none answers on 127.0.0.1:5432). Requests go through
//! the real router, in-process, from tasks of a multi-threaded runtime so they really overlap.

use std::collections::BTreeMap;
use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::agreements::{charge, customer, day, get};
use crate::common::{Answer, TestServer};
use crate::postgres::postgres_server;

/// How many requests race in each scenario.
const RACERS: usize = 10;

/// How many times a race that is not certain to be lost by a broken server is run.
const ROUNDS: usize = 5;

/// Send every request at once and collect the answers in the order given.
async fn race(server: &Arc<TestServer>, requests: Vec<(&str, String, Value)>) -> Vec<Answer> {
    let token = server.token(0, "admin", "api");
    let mut set = JoinSet::new();
    for (i, (method, path, body)) in requests.into_iter().enumerate() {
        let (server, token, method) = (server.clone(), token.clone(), method.to_string());
        set.spawn(async move { (i, server.rest(&method, &path, &token, Some(body)).await) });
    }
    let mut answers: Vec<(usize, Answer)> = set.join_all().await;
    answers.sort_by_key(|(i, _)| *i);
    answers.into_iter().map(|(_, a)| a).collect()
}

/// `status code` of each answer, counted: e.g. `{"201": 1, "409 charge_in_agreement": 9}`.
fn tally(answers: &[Answer]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for a in answers {
        let key = match a.body["code"].as_str() {
            Some(code) if !a.status.is_success() => format!("{} {code}", a.status.as_u16()),
            _ => a.status.as_u16().to_string(),
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

fn expect(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

async fn one_live_agreement_per_charge(server: Arc<TestServer>) {
    let debtor = customer(&server, "Corrida de Acordos", "901357924").await;
    // A lost race is likely but not certain in one round: several rounds make it near certain.
    for _ in 0..ROUNDS {
        let first = charge(&server, &debtor, 300.0, 10).await;
        let second = charge(&server, &debtor, 200.0, 10).await;
        // Every proposal names `first`; some also name `second`, in either order, so that a
        // server locking charges in request order would deadlock.
        let requests = (0..RACERS)
            .map(|i| {
                let charge_ids = match i % 3 {
                    0 => json!([first]),
                    1 => json!([first, second]),
                    _ => json!([second, first]),
                };
                let body = json!({
                    "customer_id": debtor,
                    "charge_ids": charge_ids,
                    "installments": 3,
                    "first_due_date": day(30),
                });
                ("POST", "/v1/agreements".to_string(), body)
            })
            .collect();
        let answers = race(&server, requests).await;
        assert_eq!(
            tally(&answers),
            expect(&[("201", 1), ("409 charge_in_agreement", RACERS - 1)]),
            "{answers:#?}"
        );
        let all = get(
            &server,
            &format!("/v1/agreements?customer_id={debtor}&per_page=100"),
        )
        .await;
        let live: Vec<&Value> = all
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["status"] == "proposed" || a["status"] == "accepted")
            .filter(|a| a["charge_ids"].as_array().unwrap().contains(&json!(first)))
            .collect();
        assert_eq!(live.len(), 1, "{live:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_proposals_on_one_charge_leave_one_live_agreement_on_sqlite() {
    one_live_agreement_per_charge(Arc::new(TestServer::start().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_proposals_on_one_charge_leave_one_live_agreement_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    one_live_agreement_per_charge(Arc::new(server)).await;
}

async fn one_open_dispute_per_charge(server: Arc<TestServer>) {
    let debtor = customer(&server, "Corrida de Contestações", "902468135").await;
    for _ in 0..ROUNDS {
        let contested = charge(&server, &debtor, 150.0, 10).await;
        let requests = (0..RACERS)
            .map(|i| {
                let body = json!({
                    "charge_id": contested,
                    "reason": "not_recognized",
                    "description": format!("Contestação {i}"),
                });
                ("POST", "/v1/disputes".to_string(), body)
            })
            .collect();
        let answers = race(&server, requests).await;
        assert_eq!(
            tally(&answers),
            expect(&[("201", 1), ("409 charge_has_open_dispute", RACERS - 1)]),
            "{answers:#?}"
        );
        let open = get(
            &server,
            &format!("/v1/disputes?charge_id={contested}&status=open"),
        )
        .await;
        assert_eq!(open.as_array().unwrap().len(), 1, "{open:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_disputes_on_one_charge_leave_one_open_on_sqlite() {
    one_open_dispute_per_charge(Arc::new(TestServer::start().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_disputes_on_one_charge_leave_one_open_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    one_open_dispute_per_charge(Arc::new(server)).await;
}

async fn payments_never_exceed_the_amount_due(server: Arc<TestServer>) {
    let debtor = customer(&server, "Corrida de Pagamentos", "903579246").await;
    let owed = charge(&server, &debtor, 100.0, 10).await;
    // Ten payments of R$ 30,00 on R$ 100,00: three fit, the fourth would go over.
    let requests = (0..RACERS)
        .map(|_| {
            let body = json!({"amount": 30.0, "method": "pix"});
            ("POST", format!("/v1/charges/{owed}/pay"), body)
        })
        .collect();
    let answers = race(&server, requests).await;
    assert_eq!(
        tally(&answers),
        expect(&[("200", 3), ("422 payment_exceeds_amount_due", RACERS - 3)]),
        "{answers:#?}"
    );
    let after = get(&server, &format!("/v1/charges/{owed}")).await;
    assert_eq!(after["paid_amount"], 90.0, "{after:#?}");
    assert_eq!(after["amount_due"], 10.0, "{after:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_payments_never_exceed_the_amount_due_on_sqlite() {
    payments_never_exceed_the_amount_due(Arc::new(TestServer::start().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_payments_never_exceed_the_amount_due_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    payments_never_exceed_the_amount_due(Arc::new(server)).await;
}

/// Ten PATCHes of the customer and ten of one of its charges, each naming one field (a few
/// fields twice, with the same value), all at once and without `If-Match`.
async fn patches_of_different_fields_all_apply(server: Arc<TestServer>) {
    let debtor = customer(&server, "Corrida de Edições", "904681357").await;
    let owed = charge(&server, &debtor, 80.0, 10).await;
    let address = json!({"street": "Avenida Paulista", "number": "1000", "district": "Bela Vista",
                         "city": "São Paulo", "state": "SP", "zip_code": "01310-100"});
    let customer_fields = [
        json!({"name": "Corrida de Edições Ltda"}),
        json!({"email": "financeiro@example.com.br"}),
        json!({"phone": "+5511987654321"}),
        json!({"notes": "Prefere contato à tarde"}),
        json!({"tags": ["vip"]}),
        json!({"address": address}),
        json!({"channel_opt_outs": ["sms"]}),
        json!({"notes": "Prefere contato à tarde"}),
        json!({"tags": ["vip"]}),
        json!({"phone": "+5511987654321"}),
    ];
    let charge_fields = [
        json!({"description": "Mensalidade revista"}),
        json!({"amount": 85.5}),
        json!({"due_date": day(20)}),
        json!({"fine_percent": 1.5}),
        json!({"interest_percent": 0.5}),
        json!({"tags": ["revista"]}),
        json!({"description": "Mensalidade revista"}),
        json!({"amount": 85.5}),
        json!({"fine_percent": 1.5}),
        json!({"tags": ["revista"]}),
    ];
    let mut requests = Vec::new();
    for (c, ch) in customer_fields.iter().zip(&charge_fields) {
        requests.push(("PATCH", format!("/v1/customers/{debtor}"), c.clone()));
        requests.push(("PATCH", format!("/v1/charges/{owed}"), ch.clone()));
    }
    let answers = race(&server, requests).await;
    assert_eq!(tally(&answers), expect(&[("200", 20)]), "{answers:#?}");

    let after = get(&server, &format!("/v1/customers/{debtor}")).await;
    for patch in &customer_fields {
        for (field, value) in patch.as_object().unwrap() {
            let got = &after[field];
            if field == "address" {
                assert_eq!(got["street"], value["street"], "{after:#?}");
                assert_eq!(got["city"], value["city"], "{after:#?}");
            } else {
                assert_eq!(got, value, "{field}: {after:#?}");
            }
        }
    }
    let after = get(&server, &format!("/v1/charges/{owed}")).await;
    for patch in &charge_fields {
        for (field, value) in patch.as_object().unwrap() {
            assert_eq!(&after[field], value, "{field}: {after:#?}");
        }
    }
    // Each PATCH is one version: none was lost or merged away.
    let customer_answer = server
        .rest(
            "GET",
            &format!("/v1/customers/{debtor}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(customer_answer.header("etag"), Some("\"v11\""));
    let charge_answer = server
        .rest(
            "GET",
            &format!("/v1/charges/{owed}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(charge_answer.header("etag"), Some("\"v11\""));

    // A PATCH naming a version that is gone is still a real conflict.
    let stale = server
        .rest_with(
            "PATCH",
            &format!("/v1/charges/{owed}"),
            &server.token(0, "admin", "api"),
            &[("if-match", "\"v1\"")],
            Some(json!({"description": "Tarde demais"})),
        )
        .await;
    assert_eq!(
        stale.status,
        StatusCode::PRECONDITION_FAILED,
        "{}",
        stale.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_patches_of_different_fields_all_apply_on_sqlite() {
    patches_of_different_fields_all_apply(Arc::new(TestServer::start().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_patches_of_different_fields_all_apply_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    patches_of_different_fields_all_apply(Arc::new(server)).await;
}

/// The unique indexes hold where a writer skips the handler's check: a dispute opened on a
/// charge whose `open_dispute_id` was cleared behind the API's back is still the second one.
async fn the_index_keeps_one_open_dispute(server: Arc<TestServer>) {
    let debtor = customer(&server, "Índice de Contestações", "905792468").await;
    let contested = charge(&server, &debtor, 70.0, 10).await;
    let token = server.token(0, "admin", "api");
    let body = json!({"charge_id": contested, "reason": "wrong_amount"});
    let first = server
        .rest("POST", "/v1/disputes", &token, Some(body.clone()))
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    sqlx::query("UPDATE charges SET open_dispute_id = NULL WHERE id = $1")
        .bind(&contested)
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    let second = server
        .rest("POST", "/v1/disputes", &token, Some(body))
        .await;
    assert_eq!(second.status, StatusCode::CONFLICT, "{}", second.text);
    assert_eq!(second.body["code"], "charge_has_open_dispute");
    let open = get(
        &server,
        &format!("/v1/disputes?charge_id={contested}&status=open"),
    )
    .await;
    assert_eq!(open.as_array().unwrap().len(), 1, "{open:#?}");
}

#[tokio::test]
async fn a_second_open_dispute_is_refused_by_the_index_on_sqlite() {
    the_index_keeps_one_open_dispute(Arc::new(TestServer::start().await)).await;
}

#[tokio::test]
async fn a_second_open_dispute_is_refused_by_the_index_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    the_index_keeps_one_open_dispute(Arc::new(server)).await;
}

/// Storing a second live proposal on a charge, past the handler, is refused by the index;
/// once the first ends, the charge can be proposed again.
async fn the_index_keeps_one_live_agreement(server: Arc<TestServer>) {
    use dunning_store::agreements::{self, AgreedCharge, NewAgreement, Proposal};
    let debtor = customer(&server, "Índice de Acordos", "906813579").await;
    let owed = charge(&server, &debtor, 120.0, 10).await;
    let org = server.org_id(0).to_string();
    let due = dunning_domain::calendar::today() + time::Duration::days(30);
    let new = NewAgreement {
        customer_id: debtor.clone(),
        charges: vec![AgreedCharge {
            charge_id: owed.clone(),
            amount_cents: 120_00,
            paid_cents: 0,
            due_cents: 120_00,
        }],
        total_cents: 120_00,
        down_payment_cents: 0,
        installments: 1,
        first_due_date: due,
        discount_bp: 0,
        note: None,
        schedule: vec![(1, 120_00, due)],
    };
    let db = &server.state.db;
    let propose = async |id: &str| {
        let mut tx = db.begin().await.unwrap();
        let outcome = agreements::insert(&mut tx, &org, id, &new, "2030-01-01T00:00:00.000Z")
            .await
            .unwrap();
        if outcome == Proposal::Stored {
            tx.commit().await.unwrap();
        }
        outcome
    };
    let first = dunning_store::ids::new_id("agr");
    assert_eq!(propose(&first).await, Proposal::Stored);
    let second = dunning_store::ids::new_id("agr");
    assert_eq!(propose(&second).await, Proposal::ChargeTaken(owed.clone()));
    let canceled = server
        .rest(
            "POST",
            &format!("/v1/agreements/{first}/cancel"),
            &server.token(0, "admin", "api"),
            Some(json!({})),
        )
        .await;
    assert_eq!(canceled.status, StatusCode::OK, "{}", canceled.text);
    let third = dunning_store::ids::new_id("agr");
    assert_eq!(propose(&third).await, Proposal::Stored);
}

#[tokio::test]
async fn a_second_live_agreement_on_a_charge_is_refused_by_the_index_on_sqlite() {
    the_index_keeps_one_live_agreement(Arc::new(TestServer::start().await)).await;
}

#[tokio::test]
async fn a_second_live_agreement_on_a_charge_is_refused_by_the_index_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    the_index_keeps_one_live_agreement(Arc::new(server)).await;
}

async fn one_customer_per_document(server: Arc<TestServer>) {
    for round in 0..ROUNDS {
        let document = dunning_domain::document::cpf_with_check_digits(&format!("90792468{round}"));
        let requests = (0..RACERS)
            .map(|i| {
                let body =
                    json!({"name": format!("Corrida de Cadastros {i}"), "document": document});
                ("POST", "/v1/customers".to_string(), body)
            })
            .collect();
        let answers = race(&server, requests).await;
        assert_eq!(
            tally(&answers),
            expect(&[("201", 1), ("409 customer_document_taken", RACERS - 1)]),
            "{answers:#?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_customers_with_one_document_create_one_on_sqlite() {
    one_customer_per_document(Arc::new(TestServer::start().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_customers_with_one_document_create_one_on_postgres() {
    let Some(server) = postgres_server().await else {
        return;
    };
    one_customer_per_document(Arc::new(server)).await;
}

/// Two transactions that lock two charges in opposite orders deadlock on PostgreSQL, which
/// aborts one of them (40P01); `store::retry::run` runs that one again and both succeed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transaction_aborted_by_a_deadlock_is_run_again_on_postgres() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use dunning_store::locks::{self, Table};
    use dunning_store::retry::{self, Failure};
    use dunning_store::{Db, StoreError};
    use tokio::sync::Barrier;

    let Some(server) = postgres_server().await else {
        return;
    };
    let debtor = customer(&server, "Impasse", "908035792").await;
    let a = charge(&server, &debtor, 10.0, 10).await;
    let b = charge(&server, &debtor, 20.0, 10).await;
    let org = server.org_id(0).to_string();
    // Both first attempts hold their first lock before either asks for its second.
    let both_hold_one = Arc::new(Barrier::new(2));
    let attempts = Arc::new(AtomicUsize::new(0));
    let run = |first: String, second: String| {
        let (db, org): (Db, String) = (server.state.db.clone(), org.clone());
        let (barrier, attempts) = (both_hold_one.clone(), attempts.clone());
        async move {
            let (db, org, first, second) = (&db, &org, &first, &second);
            let (barrier, attempts) = (&barrier, &attempts);
            let mut mine = 0;
            let outcome: Result<(), StoreError> = retry::run(|| {
                mine += 1;
                let attempt = mine;
                async move {
                    attempts.fetch_add(1, Ordering::SeqCst);
                    let mut transaction = db.begin().await?;
                    let tx = &mut *transaction;
                    locks::lock(tx, Table::Charges, org, first).await?;
                    if attempt == 1 {
                        barrier.wait().await;
                    }
                    locks::lock(tx, Table::Charges, org, second).await?;
                    sqlx::query("UPDATE charges SET description = $1 WHERE id IN ($2, $3)")
                        .bind(format!("{first} antes de {second}"))
                        .bind(first)
                        .bind(second)
                        .execute(&mut *tx)
                        .await?;
                    transaction.commit().await?;
                    Ok::<_, Failure<StoreError>>(())
                }
            })
            .await;
            outcome
        }
    };
    let (one, other) = tokio::join!(run(a.clone(), b.clone()), run(b.clone(), a.clone()));
    one.expect("first transaction");
    other.expect("second transaction");
    assert_eq!(
        attempts.load(Ordering::SeqCst),
        3,
        "one of the two ran twice"
    );
}
