//! The unauthenticated inbound doors (Pix callbacks, Twilio callbacks, unsubscribe links):
//! bodies of the wrong media type are refused with 415 and change nothing.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::json;

use crate::common::{Answer, TestServer};
use crate::pix_psp::{charge, connect, pix};
use crate::unsubscribe::{link, opt_outs, two_customers};

/// A path of the Pix door whose secret no connection has (a 404 after a lookup).
fn forged_pix_path() -> String {
    format!("/pix/webhook/{}/pix", dunning_store::ids::new_secret(32))
}

/// An `endToEndId` of the API Pix's shape, numbered.
fn e2e(n: u32) -> String {
    format!("E12345678202601021000{n:011}")
}

async fn pix_received(server: &TestServer) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM pix_received")
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap()
}

async fn charge_status(server: &TestServer, id: &str) -> String {
    let token = server.token(0, "admin", "api");
    let answer = server
        .rest("GET", &format!("/v1/charges/{id}"), &token, None)
        .await;
    answer.body["data"]["status"].as_str().unwrap().to_string()
}

async fn post_in_process(
    server: &TestServer,
    path: &str,
    media: Option<&str>,
    body: String,
) -> Answer {
    let mut request = Request::post(path);
    if let Some(media) = media {
        request = request.header("content-type", media);
    }
    server.send(request.body(Body::from(body)).unwrap()).await
}

#[tokio::test]
async fn a_pix_callback_whose_body_is_not_declared_json_is_refused_with_415_and_pays_nothing() {
    let server = TestServer::start().await;
    let secret = connect(&server).await;
    let id = charge(&server, 42.5).await;
    let body = pix(&e2e(1), &id.replace('_', ""), "42.50").to_string();
    let good = format!("/pix/webhook/{secret}/pix");
    let multipart = format!(
        "--kd\r\nContent-Disposition: form-data; name=\"pix\"\r\nContent-Type: application/json\r\n\r\n{body}\r\n--kd--\r\n"
    );
    let refused = [
        (None, body.clone()),
        (Some("text/plain"), body.clone()),
        (Some("text/plain; charset=utf-8"), body.clone()),
        (Some("application/x-www-form-urlencoded"), body.clone()),
        (Some("multipart/form-data; boundary=kd"), multipart),
        (Some("application/json; charset=iso-8859-1"), body.clone()),
    ];
    let mut answers = Vec::new();
    for (media, sent) in refused {
        for path in [good.as_str(), &forged_pix_path()] {
            let answer = post_in_process(&server, path, media, sent.clone()).await;
            assert_eq!(
                answer.status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{media:?}: {}",
                answer.text
            );
            assert_eq!(
                answer.header("content-type"),
                Some("application/problem+json")
            );
            assert_eq!(answer.body["code"], "unsupported_media_type");
            answers.push(answer.text);
        }
    }
    // The same answer whether the secret is right or not: a 415 tells nothing about it.
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:#?}");
    assert_eq!(pix_received(&server).await, 0, "nothing was recorded");
    assert_eq!(charge_status(&server, &id).await, "pending");

    // The same bytes declared JSON (parameters allowed) are a payment.
    let paid = post_in_process(
        &server,
        &good,
        Some("application/json; charset=utf-8"),
        body,
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.text);
    assert_eq!(paid.body, json!({"received": 1, "duplicates": 0}));
    assert_eq!(pix_received(&server).await, 1);
    assert_eq!(charge_status(&server, &id).await, "paid");
}

#[tokio::test]
async fn an_unsubscribe_post_that_is_not_a_form_is_refused_with_415_and_both_form_encodings_work() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "api");
    let (first, second) = two_customers(&server, &token).await;
    let before = opt_outs(&server, &token, &first).await;
    let path = link(&server, &first);
    for (media, body) in [
        (None, "List-Unsubscribe=One-Click"),
        (Some("text/plain"), "List-Unsubscribe=One-Click"),
        (
            Some("application/json"),
            r#"{"List-Unsubscribe": "One-Click"}"#,
        ),
    ] {
        let answer = post_in_process(&server, &path, media, body.to_string()).await;
        assert_eq!(
            answer.status,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{media:?}: {}",
            answer.text
        );
        assert!(answer.text.contains("formulário"), "{}", answer.text);
    }
    assert_eq!(
        opt_outs(&server, &token, &first).await,
        before,
        "nobody opted out"
    );

    // RFC 8058's two encodings: multipart (what it says providers SHOULD send) and the
    // urlencoded form (what our own page's form sends).
    let multipart = "--kd\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--kd--\r\n";
    let answer = post_in_process(
        &server,
        &path,
        Some("multipart/form-data; boundary=kd"),
        multipart.to_string(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(
        opt_outs(&server, &token, &first)
            .await
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "email")
    );
    let answer = post_in_process(
        &server,
        &link(&server, &second),
        Some("application/x-www-form-urlencoded"),
        "List-Unsubscribe=One-Click".to_string(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(
        opt_outs(&server, &token, &second)
            .await
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "email")
    );
}
