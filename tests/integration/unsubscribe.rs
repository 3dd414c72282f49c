//! One-click unsubscribe (RFC 8058): a link signed for a customer, its confirmation page, the
//! POST a mailbox provider sends, and links that were tampered with.

use axum::body::Body;
use dunning_engine::unsubscribe::{self, Target};
use http::{Request, StatusCode};
use serde_json::Value;

use crate::common::{Answer, TestServer};

/// A customer of organization 0 who still receives e-mails, and another one.
pub(crate) async fn two_customers(server: &TestServer, token: &str) -> (String, String) {
    let list = server
        .rest("GET", "/v1/customers?per_page=100", token, None)
        .await;
    let ids: Vec<String> = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            !c["channel_opt_outs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x == "email")
        })
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    (ids[0].clone(), ids[1].clone())
}

pub(crate) fn link(server: &TestServer, customer: &str) -> String {
    let token = unsubscribe::sign(
        &server.state.config.unsubscribe_secret,
        &Target {
            organization_id: server.org_id(0).to_string(),
            customer_id: customer.to_string(),
            channel: "email".into(),
        },
    );
    format!("/unsubscribe/{token}")
}

async fn get(server: &TestServer, path: &str) -> Answer {
    server
        .send(Request::get(path).body(Body::empty()).unwrap())
        .await
}

/// What a mailbox provider sends: no cookie, no credential, no `Origin` of ours.
async fn one_click(server: &TestServer, path: &str) -> Answer {
    server
        .send(
            Request::post(path)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from("List-Unsubscribe=One-Click"))
                .unwrap(),
        )
        .await
}

pub(crate) async fn opt_outs(server: &TestServer, token: &str, customer: &str) -> Value {
    let answer = server
        .rest("GET", &format!("/v1/customers/{customer}"), token, None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["data"]["channel_opt_outs"].clone()
}

async fn unsubscribed_events(server: &TestServer, token: &str, customer: &str) -> Vec<Value> {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/events?subject_id={customer}&type=customer.unsubscribed"),
            token,
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    answer.body["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_signed_link_shows_a_form_and_its_one_click_post_opts_the_customer_out_once() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let (customer, _) = two_customers(&server, &token).await;
    let path = link(&server, &customer);

    let page = get(&server, &path).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(
        page.text.contains(r#"<html lang="pt-BR">"#),
        "{}",
        page.text
    );
    assert!(
        page.text
            .contains(&format!(r#"<form method="post" action="{path}">"#)),
        "{}",
        page.text
    );
    assert!(
        page.text
            .contains(r#"<input type="hidden" name="List-Unsubscribe" value="One-Click">"#)
    );
    assert!(!page.text.contains("<script") && !page.text.contains("http"));
    // A GET changes nothing: link scanners follow links.
    assert!(
        !opt_outs(&server, &token, &customer)
            .await
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "email")
    );

    let done = one_click(&server, &path).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    assert!(
        done.text
            .contains("Pronto: você não receberá mais e-mails de cobrança de"),
        "{}",
        done.text
    );
    let after = opt_outs(&server, &token, &customer).await;
    assert_eq!(
        after
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| *c == "email")
            .count(),
        1,
        "{after}"
    );
    let events = unsubscribed_events(&server, &token, &customer).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["actor"]["type"], "system");
    assert_eq!(events[0]["data"]["channel"], "email");

    // Again: the same page, nothing more written.
    let again = one_click(&server, &path).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    assert_eq!(opt_outs(&server, &token, &customer).await, after);
    assert_eq!(
        unsubscribed_events(&server, &token, &customer).await.len(),
        1
    );
    // The page now says it is done, without a form.
    let page = get(&server, &path).await;
    assert!(page.text.contains("Pronto:") && !page.text.contains("<form"));
}

#[tokio::test]
async fn the_forms_own_post_works_without_any_cookie_or_origin_check() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let (customer, _) = two_customers(&server, &token).await;
    let path = link(&server, &customer);
    // A browser submitting the form from a mail client's preview, cross-site.
    let answer = server
        .send(
            Request::post(&path)
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", "null")
                .header("sec-fetch-site", "cross-site")
                .body(Body::from("List-Unsubscribe=One-Click"))
                .unwrap(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(
        opt_outs(&server, &token, &customer)
            .await
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "email")
    );
}

#[tokio::test]
async fn a_tampered_or_malformed_unsubscribe_link_is_refused_and_changes_nothing() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let (first, second) = two_customers(&server, &token).await;
    let path = link(&server, &first);
    let signature = path.rsplit('.').next().unwrap();
    let org = server.org_id(0);
    let mut one_changed = path.clone().into_bytes();
    let last = one_changed.len() - 1;
    one_changed[last] = if one_changed[last] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let one_changed = String::from_utf8(one_changed).unwrap();
    let tampered = [
        one_changed,
        // The second customer with the first one's signature.
        format!("/unsubscribe/u1.{org}.{second}.email.{signature}"),
        format!("/unsubscribe/u1.{org}.{first}.sms.{signature}"),
        // The other organization, the first customer's id.
        format!(
            "/unsubscribe/u1.{}.{first}.email.{signature}",
            server.org_id(1)
        ),
        "/unsubscribe/not-a-token".to_string(),
        format!("/unsubscribe/{}", "a".repeat(300)),
    ];
    let before = (
        opt_outs(&server, &token, &first).await,
        opt_outs(&server, &token, &second).await,
    );
    let mut pages = Vec::new();
    for bad in &tampered {
        let page = get(&server, bad).await;
        assert_eq!(
            page.status,
            StatusCode::NOT_FOUND,
            "GET {bad}: {}",
            page.text
        );
        let post = one_click(&server, bad).await;
        assert_eq!(
            post.status,
            StatusCode::NOT_FOUND,
            "POST {bad}: {}",
            post.text
        );
        assert!(
            post.text.contains("Este link não é válido"),
            "{}",
            post.text
        );
        pages.push(post.text);
    }
    // Every refusal is the same page: it does not say which part was wrong, nor whom the
    // link named.
    assert!(pages.windows(2).all(|w| w[0] == w[1]));
    assert!(!pages[0].contains(&first) && !pages[0].contains("cus_"));
    let after = (
        opt_outs(&server, &token, &first).await,
        opt_outs(&server, &token, &second).await,
    );
    assert_eq!(before, after);
    assert!(
        unsubscribed_events(&server, &token, &first)
            .await
            .is_empty()
    );
    assert!(
        unsubscribed_events(&server, &token, &second)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn a_link_of_a_deleted_customer_is_refused_like_a_tampered_one() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let created = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(serde_json::json!({
                "name": "Cliente Sem Cobranças",
                "document": crate::webhooks::cpf(318_274_605),
                "email": "sem.cobrancas@example.com"
            })),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.body["data"]["id"].as_str().unwrap().to_string();
    let path = link(&server, &id);
    assert_eq!(get(&server, &path).await.status, StatusCode::OK);
    let deleted = server
        .rest("DELETE", &format!("/v1/customers/{id}"), &token, None)
        .await;
    assert!(deleted.status.is_success(), "{}", deleted.text);
    assert_eq!(
        one_click(&server, &path).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_unsubscribe_key_is_made_once_per_database_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("keys.db").display());
    let (db, _) = dunning_store::Db::open(&url).await.unwrap();
    let first = dunning_store::secrets::get_or_create(&db, "unsubscribe")
        .await
        .unwrap();
    assert_eq!(first.len(), 32);
    // Another replica, or the same server after a restart, on the same database.
    let (again, fresh) = dunning_store::Db::open(&url).await.unwrap();
    assert!(!fresh);
    let second = dunning_store::secrets::get_or_create(&again, "unsubscribe")
        .await
        .unwrap();
    assert_eq!(first, second);
    // A link signed under one is accepted under the other.
    let target = Target {
        organization_id: "org_a1".into(),
        customer_id: "cus_b2".into(),
        channel: "email".into(),
    };
    let token = unsubscribe::sign(&unsubscribe::Key::new(first.clone()), &target);
    assert_eq!(
        unsubscribe::verify(&unsubscribe::Key::new(second), &token),
        Some(target)
    );

    // The configuration's `Debug` (what a log of it would show) never holds the key.
    let secret = "an-operators-unsubscribe-secret";
    let config = kobana_dunning::Config {
        unsubscribe_secret: unsubscribe::Key::new(secret.as_bytes().to_vec()),
        ..kobana_dunning::Config::local()
    };
    let shown = format!("{config:?} {:?}", config.engine_settings());
    assert!(!shown.contains(secret), "{shown}");
    assert!(shown.contains("Key(<redacted>)"), "{shown}");
}

#[tokio::test]
async fn postgres_keeps_one_unsubscribe_key_and_opts_out_once() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    let first = dunning_store::secrets::get_or_create(&server.state.db, "unsubscribe")
        .await
        .unwrap();
    let second = dunning_store::secrets::get_or_create(&server.state.db, "unsubscribe")
        .await
        .unwrap();
    assert_eq!((first.len(), &first), (32, &second));

    let token = server.token(0, "admin", "api");
    let (customer, _) = two_customers(&server, &token).await;
    let path = link(&server, &customer);
    for _ in 0..2 {
        let done = one_click(&server, &path).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    }
    let after = opt_outs(&server, &token, &customer).await;
    let emails = after.as_array().unwrap().iter().filter(|c| *c == "email");
    assert_eq!(emails.count(), 1, "{after}");
    assert_eq!(
        unsubscribed_events(&server, &token, &customer).await.len(),
        1
    );
}
