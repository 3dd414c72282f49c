//! JWT access tokens from an organization's own identity provider: a test issuer whose P-256
//! key the test creates serves its JWKS on 127.0.0.1; the server fetches it and checks the
//! signature, `iss`, `aud`, `exp`, `nbf` (a minute of clock skew either way) and the person
//! claim, and refuses `alg: none`, HS256 signed with the issuer's public key, and a `kid` the
//! issuer does not have.

use axum::Json;
use axum::routing::get;
use base64::Engine;
use http::StatusCode;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};

use crate::common::TestServer;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn new_key() -> SigningKey {
    loop {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).unwrap();
        if let Ok(key) = SigningKey::from_slice(&secret) {
            return key;
        }
    }
}

fn sign(key: &SigningKey, claims: &Value) -> String {
    sign_as(
        key,
        &json!({"alg": "ES256", "typ": "JWT", "kid": "k1"}),
        claims,
    )
}

fn sign_as(key: &SigningKey, header: &Value, claims: &Value) -> String {
    let head = b64(header.to_string().as_bytes());
    let body = b64(claims.to_string().as_bytes());
    let signature: Signature = key.sign(format!("{head}.{body}").as_bytes());
    format!("{head}.{body}.{}", b64(&signature.to_bytes()))
}

/// A token with `header` whose signature is HMAC-SHA256 under `secret` (the attack of an
/// `alg` confusion: the issuer's public key, which anyone has, used as the HMAC secret).
fn sign_hmac(secret: &[u8], header: &Value, claims: &Value) -> String {
    use hmac::Mac;
    let head = b64(header.to_string().as_bytes());
    let body = b64(claims.to_string().as_bytes());
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
    mac.update(format!("{head}.{body}").as_bytes());
    format!("{head}.{body}.{}", b64(&mac.finalize().into_bytes()))
}

/// Serve the key's JWKS on 127.0.0.1; returns its URL.
async fn serve_jwks(key: &SigningKey) -> String {
    let point = key.verifying_key().to_encoded_point(false);
    let jwks = json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
        "x": b64(point.x().unwrap()), "y": b64(point.y().unwrap()),
    }]});
    let app = axum::Router::new().route("/jwks.json", get(move || async move { Json(jwks) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/jwks.json")
}

async fn status(server: &TestServer, token: &str) -> (StatusCode, String) {
    let auth = format!("Bearer {token}");
    let answer = server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        )
        .await;
    (answer.status, answer.text)
}

#[tokio::test]
async fn an_organizations_identity_provider_signs_tokens_the_mcp_endpoint_accepts() {
    let server = TestServer::start().await;
    let key = new_key();
    let jwks_uri = serve_jwks(&key).await;
    let issuer = format!("https://idp.test/{}", server.org_id(0));
    dunning_store::oauth::set_external_issuer(
        &server.state.db,
        &dunning_store::oauth::ExternalIssuer {
            organization_id: server.org_id(0).to_string(),
            issuer: issuer.clone(),
            jwks_uri,
            audience: "kobana-dunning".into(),
            person_claim: "email".into(),
        },
    )
    .await
    .unwrap();
    let person = &server.credentials.organizations[0].people[2];
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let claims = |changes: Value| {
        let mut c = json!({"iss": issuer, "aud": ["kobana-dunning"], "exp": now + 300, "email": person.email, "scope": "charges:read customers:read"});
        for (k, v) in changes.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let good = sign(&key, &claims(json!({})));
    let (ok, text) = status(&server, &good).await;
    assert_eq!(ok, StatusCode::OK, "{text}");
    let listed: Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"dunning_charges_list") && !names.contains(&"dunning_customers_create"),
        "{names:?}"
    );
    let me = server.call_tool(&good, "dunning_me", json!({})).await;
    assert!(me.to_string().contains(&person.email), "{me}");

    // The clocks may disagree by a minute: just expired, or valid from a few seconds
    // ahead, still passes.
    for token in [
        sign(&key, &claims(json!({"exp": now - 5}))),
        sign(&key, &claims(json!({"nbf": now + 5}))),
    ] {
        let (ok, text) = status(&server, &token).await;
        assert_eq!(ok, StatusCode::OK, "within the clock skew: {text}");
    }
    let point = key.verifying_key().to_encoded_point(false);
    let public_jwk = json!({"kty": "EC", "crv": "P-256", "kid": "k1",
        "x": b64(point.x().unwrap()), "y": b64(point.y().unwrap())})
    .to_string();
    let unsigned = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT"}"#),
        b64(claims(json!({})).to_string().as_bytes())
    );
    for (why, token) in [
        ("Only ES256", unsigned),
        (
            "Only ES256",
            sign_hmac(
                public_jwk.as_bytes(),
                &json!({"alg": "HS256", "typ": "JWT", "kid": "k1"}),
                &claims(json!({})),
            ),
        ),
        (
            "Only ES256",
            sign_hmac(
                point.as_bytes(),
                &json!({"alg": "HS256", "typ": "JWT"}),
                &claims(json!({})),
            ),
        ),
        (
            "kid names no key",
            sign_as(
                &key,
                &json!({"alg": "ES256", "typ": "JWT", "kid": "k2"}),
                &claims(json!({})),
            ),
        ),
        (
            "not valid yet",
            sign(&key, &claims(json!({"nbf": now + 120}))),
        ),
        (
            "has expired",
            sign(&key, &claims(json!({"exp": now - 120}))),
        ),
        (
            "for another audience",
            sign(&key, &claims(json!({"aud": "someone-else"}))),
        ),
        (
            "No organization trusts",
            sign(&key, &claims(json!({"iss": "https://evil.test/"}))),
        ),
        (
            "names nobody",
            sign(&key, &claims(json!({"email": "ninguem@example.com"}))),
        ),
        ("does not verify", sign(&new_key(), &claims(json!({})))),
    ] {
        let (refused, text) = status(&server, &token).await;
        assert_eq!(refused, StatusCode::UNAUTHORIZED, "{why}: {text}");
        assert!(text.contains(why), "{why}: {text}");
    }
}
