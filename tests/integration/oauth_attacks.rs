//! The built-in authorization server attacked as an attacker would (RFC 9700, RFC 6819, the
//! OWASP CSRF, authentication and session cheat sheets): forged forms, planted cookies,
//! guessing passwords at once and locking owners out, racing a code or a refresh token,
//! phishing through our redirects, stolen sessions, flooding registration, malformed
//! registrations and foreign hosts. Each test says what an attacker tried and checks what the
//! client saw and what the database holds. Cases where storage decides run on PostgreSQL too.

use std::collections::HashMap;
use std::time::Duration;

use http::StatusCode;
use kobana_dunning::Config;
use serde_json::{Value, json};

use crate::common::TestServer;
use crate::oauth::{
    Browser, Page, REDIRECT, authorize_url, exchange, hidden, mcp_status, person, pkce, query,
    refresh, register, sign_in, start, start_on, start_with, token, unescape,
};

const FOREIGN_ORIGINS: [&str; 4] = [
    "http://127.0.0.1:9",
    "https://evil.example",
    "null",
    "http://localhost:1",
];

/// A server on a fresh PostgreSQL database, or `None` (the test then says it skipped).
async fn on_postgres() -> Option<(TestServer, String)> {
    let url = crate::postgres::fresh_postgres_url().await?;
    Some(start_on(url, tempfile::tempdir().unwrap(), Config::local()).await)
}

/// One count of `/metrics` (0 when the series has not appeared yet).
async fn metric(base: &str, name: &str, labels: &[&str]) -> f64 {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// How many passwords the server has checked against a hash (stored or decoy).
async fn password_checks(base: &str) -> f64 {
    metric(
        base,
        "dunning_oauth_requests_total",
        &["step=\"password_check\""],
    )
    .await
}

async fn count(server: &TestServer, sql: &str, bind: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .bind(bind.to_string())
        .fetch_one(&server.state.db.pool)
        .await
        .unwrap()
}

/// A browser signed in as organization 0's person of `role` (through "Aplicativos
/// conectados"); it holds the session and a device cookie.
async fn signed_in(server: &TestServer, base: &str, role: &str) -> Browser {
    let (email, password) = person(server, role);
    let mut browser = Browser::new();
    let page = sign_in(
        &mut browser,
        base,
        &format!("{base}/oauth/apps"),
        &email,
        &password,
    )
    .await;
    assert!(
        page.text.contains("Aplicativos conectados"),
        "{}",
        page.text
    );
    assert!(browser.cookies.contains_key("kd_session"));
    assert!(browser.cookies.contains_key("kd_device"));
    browser
}

/// The consent page of a new authorization request of `client_id`, for a signed-in browser.
async fn consent_page(browser: &mut Browser, base: &str, client_id: &str, challenge: &str) -> Page {
    let page = browser
        .get(&authorize_url(base, client_id, challenge, &[]))
        .await;
    assert!(page.text.contains("Autorizar"), "{}", page.text);
    page
}

/// Every field a person would send to allow everything on `page`.
fn allow_all(page: &Page) -> Vec<(String, String)> {
    let mut fields = vec![
        ("csrf".to_string(), hidden(&page.text, "csrf")),
        ("request".to_string(), hidden(&page.text, "request")),
        ("decision".to_string(), "allow".to_string()),
    ];
    for (i, m) in page.text.match_indices("name=\"scope\" value=\"") {
        let rest = &page.text[i + m.len()..];
        fields.push(("scope".into(), rest[..rest.find('"').unwrap()].to_string()));
    }
    fields
}

fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// A fresh code for `client_id` from the signed-in `browser`, and its verifier.
async fn fresh_code(browser: &mut Browser, base: &str, client_id: &str) -> (String, String) {
    let (verifier, challenge) = pkce();
    let page = consent_page(browser, base, client_id, &challenge).await;
    let fields = allow_all(&page);
    let answer = browser
        .post(&format!("{base}/oauth/consent"), &pairs(&fields))
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text);
    (query(&answer.location.unwrap())["code"].clone(), verifier)
}

// ---------------------------------------------------------------------------------------
// Consent and sign-in cannot be forged.

#[tokio::test]
async fn a_consent_posted_from_another_origin_grants_nothing() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut victim = signed_in(&server, &base, "admin").await;
    let (_, challenge) = pkce();
    let page = consent_page(&mut victim, &base, &client_id, &challenge).await;
    // Even with the victim's own token in the form (the worst case), a browser that says the
    // form came from elsewhere is refused.
    let fields = allow_all(&page);
    let mut refusals: Vec<(&str, &str)> = FOREIGN_ORIGINS.iter().map(|o| ("origin", *o)).collect();
    refusals.extend([
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
    ]);
    for header in refusals {
        let answer = victim
            .post_with(&format!("{base}/oauth/consent"), &pairs(&fields), &[header])
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{header:?}");
        assert_eq!(answer.location, None, "{header:?}");
        assert!(
            answer.text.contains("não veio das páginas"),
            "{}",
            answer.text
        );
    }
    let grants = count(
        &server,
        "SELECT COUNT(*) FROM oauth_grants WHERE client_id = $1",
        &client_id,
    )
    .await;
    assert_eq!(grants, 0, "nothing was granted");
    // The same form from our own page works.
    let own = victim
        .post_with(
            &format!("{base}/oauth/consent"),
            &pairs(&fields),
            &[("origin", &base), ("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(own.status, StatusCode::SEE_OTHER, "{}", own.text);
}

#[tokio::test]
async fn a_planted_cookie_is_never_adopted_as_the_csrf_token() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut victim = signed_in(&server, &base, "admin").await;
    let (_, challenge) = pkce();
    let page = consent_page(&mut victim, &base, &client_id, &challenge).await;
    let planted = "A".repeat(43);
    // What the old double-submit check accepted: a cookie another origin of the site planted
    // and the same value in the form, with no Origin header at all.
    for cookie in ["kd_csrf", "kd_pre"] {
        victim.cookies.insert(cookie.into(), planted.clone());
        let answer = victim
            .post(
                &format!("{base}/oauth/consent"),
                &[
                    ("csrf", &planted),
                    ("request", &hidden(&page.text, "request")),
                    ("decision", "allow"),
                    ("scope", "charges:write"),
                ],
            )
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{cookie}");
        assert_eq!(answer.location, None);
    }
    let grants = count(
        &server,
        "SELECT COUNT(*) FROM oauth_grants WHERE client_id = $1",
        &client_id,
    )
    .await;
    assert_eq!(grants, 0);
    // A signed-out browser sent a planted pre-session gets one made by the server instead, and
    // a form carrying the planted value is refused.
    let mut stranger = Browser::new();
    stranger.cookies.insert("kd_pre".into(), planted.clone());
    let form = stranger.get(&format!("{base}/oauth/apps")).await;
    assert!(
        form.set_cookies.iter().any(|c| c.starts_with("kd_pre=")),
        "a new pre-session: {:?}",
        form.set_cookies
    );
    assert_ne!(stranger.cookies["kd_pre"], planted);
    assert_ne!(hidden(&form.text, "csrf"), planted);
    let mut planted_browser = Browser::new();
    planted_browser
        .cookies
        .insert("kd_pre".into(), planted.clone());
    let (email, password) = person(&server, "admin");
    let answer = planted_browser
        .post(
            &format!("{base}/oauth/sign-in"),
            &[
                ("csrf", &planted),
                ("return_to", "/oauth/apps"),
                ("email", &email),
                ("password", &password),
            ],
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(!planted_browser.cookies.contains_key("kd_session"));
}

#[tokio::test]
async fn a_sign_in_posted_from_another_origin_signs_nobody_in() {
    let (server, base) = start().await;
    // Login CSRF: the attacker takes a real pre-session and its token from our page, plants
    // both in the victim's browser and posts the attacker's own credentials from their site.
    let mut attacker = Browser::new();
    let form = attacker.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&form.text, "csrf");
    let (email, password) = person(&server, "viewer");
    for header in [
        ("origin", "http://127.0.0.1:9"),
        ("origin", "https://evil.example"),
        ("origin", "null"),
        ("sec-fetch-site", "same-site"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let mut victim = Browser::new();
        victim.cookies = attacker.cookies.clone();
        let answer = victim
            .post_with(
                &format!("{base}/oauth/sign-in"),
                &[
                    ("csrf", &csrf),
                    ("return_to", "/oauth/apps"),
                    ("email", &email),
                    ("password", &password),
                ],
                &[header],
            )
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{header:?}");
        assert!(!victim.cookies.contains_key("kd_session"), "{header:?}");
    }
    let sessions = count(
        &server,
        "SELECT COUNT(*) FROM oauth_sessions WHERE person_id <> $1",
        "",
    )
    .await;
    assert_eq!(sessions, 0, "nobody was signed in");
    let checks = password_checks(&base).await;
    assert_eq!(checks, 0.0, "no password was even checked");
}

#[tokio::test]
async fn revoking_an_application_and_signing_out_from_another_origin_are_refused() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let access = tokens["access_token"].as_str().unwrap();
    let apps = browser.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&apps.text, "csrf");
    let grant = hidden(&apps.text, "grant");
    let evil = [("origin", "https://evil.example")];
    let revoke = browser
        .post_with(
            &format!("{base}/oauth/apps/revoke"),
            &[("csrf", &csrf), ("grant", &grant)],
            &evil,
        )
        .await;
    assert_eq!(revoke.status, StatusCode::FORBIDDEN);
    assert_eq!(mcp_status(&server, access).await, StatusCode::OK);
    let out = browser
        .post_with(&format!("{base}/oauth/sign-out"), &[("csrf", &csrf)], &evil)
        .await;
    assert_eq!(out.status, StatusCode::FORBIDDEN);
    let still = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(
        still.text.contains("Aplicativos conectados"),
        "{}",
        still.text
    );
}

#[tokio::test]
async fn cookies_are_host_prefixed_and_secure_when_the_issuer_is_https() {
    let (_server, base) = start_with(Config {
        canonical_url: Some("https://dunning.example.com".into()),
        ..Config::local()
    })
    .await;
    let page = Browser::new().get(&format!("{base}/oauth/apps")).await;
    let pre = page
        .set_cookies
        .iter()
        .find(|c| c.contains("kd_pre="))
        .expect("a pre-session cookie");
    assert!(pre.starts_with("__Host-kd_pre="), "{pre}");
    for attribute in ["Path=/;", "Secure", "HttpOnly", "SameSite=Lax"] {
        assert!(pre.contains(attribute), "{pre}");
    }
    assert!(!pre.contains("Domain"), "{pre}");
}

// ---------------------------------------------------------------------------------------
// Guessing passwords stays slow, and strangers cannot lock owners out.

async fn concurrent_wrong_passwords_cannot_pass_the_budget(server: TestServer, base: String) {
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let form = browser.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&form.text, "csrf");
    let cookie = browser.cookie_header();
    let attempts = (0..12).map(|i| {
        let (base, email, csrf, cookie) =
            (base.clone(), email.clone(), csrf.clone(), cookie.clone());
        tokio::spawn(async move {
            let body = form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("csrf", csrf.as_str()),
                    ("return_to", "/oauth/apps"),
                    ("email", email.as_str()),
                    ("password", &format!("wrong password {i}")),
                ])
                .finish();
            reqwest::Client::new()
                .post(format!("{base}/oauth/sign-in"))
                .header("cookie", cookie)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .unwrap()
                .status()
        })
    });
    let mut statuses = Vec::new();
    for attempt in attempts.collect::<Vec<_>>() {
        statuses.push(attempt.await.unwrap());
    }
    let refused_unchecked = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    let checks = password_checks(&base).await;
    assert_eq!(checks, 5.0, "five guesses checked, {statuses:?}");
    assert_eq!(refused_unchecked, 7, "{statuses:?}");
    // The account is locked for browsers without a device cookie, the right password too.
    let locked =
        crate::oauth::post_sign_in(&mut browser, &base, &csrf, "/oauth/apps", &email, &password)
            .await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(password_checks(&base).await, 5.0);
}

#[tokio::test]
async fn twelve_wrong_passwords_at_once_check_five_and_lock() {
    let (server, base) = start().await;
    concurrent_wrong_passwords_cannot_pass_the_budget(server, base).await;
}

#[tokio::test]
async fn postgres_twelve_wrong_passwords_at_once_check_five_and_lock() {
    let Some((server, base)) = on_postgres().await else {
        return;
    };
    concurrent_wrong_passwords_cannot_pass_the_budget(server, base).await;
}

#[tokio::test]
async fn a_stranger_cannot_lock_the_owner_out_of_a_browser_they_signed_in_from() {
    let (server, base) = start().await;
    let (email, password) = person(&server, "admin");
    let mut owner = signed_in(&server, &base, "admin").await;
    let apps = owner.get(&format!("{base}/oauth/apps")).await;
    owner
        .post(
            &format!("{base}/oauth/sign-out"),
            &[("csrf", &hidden(&apps.text, "csrf"))],
        )
        .await;
    assert!(!owner.cookies.contains_key("kd_session"));
    // A stranger guesses until the address is locked for browsers like theirs.
    let mut stranger = Browser::new();
    let form = stranger.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&form.text, "csrf");
    let mut last = StatusCode::OK;
    for _ in 0..8 {
        last = crate::oauth::post_sign_in(
            &mut stranger,
            &base,
            &csrf,
            "/oauth/apps",
            &email,
            "not the password",
        )
        .await
        .status;
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS);
    // The owner, from the browser that holds their device cookie, signs in at once.
    let form = owner.get(&format!("{base}/oauth/apps")).await;
    let back = crate::oauth::post_sign_in(
        &mut owner,
        &base,
        &hidden(&form.text, "csrf"),
        "/oauth/apps",
        &email,
        &password,
    )
    .await;
    assert_eq!(back.status, StatusCode::SEE_OTHER, "{}", back.text);
    assert!(owner.cookies.contains_key("kd_session"));
    // A device cookie counts only for the person it was given to: with the owner's cookie,
    // guesses at another person's address are an untrusted browser's, and lock it out.
    let (other_email, other_password) = person(&server, "viewer");
    let mut borrowed = Browser::new();
    borrowed
        .cookies
        .insert("kd_device".into(), owner.cookies["kd_device"].clone());
    let form = borrowed.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&form.text, "csrf");
    for _ in 0..5 {
        let wrong = crate::oauth::post_sign_in(
            &mut borrowed,
            &base,
            &csrf,
            "/oauth/apps",
            &other_email,
            "not the password",
        )
        .await;
        assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    }
    let locked = crate::oauth::post_sign_in(
        &mut borrowed,
        &base,
        &csrf,
        "/oauth/apps",
        &other_email,
        &other_password,
    )
    .await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
}

/// What one sign-in attempt looked like from outside: status, page, whether it said when to
/// retry, and how many password hashes the server verified for it.
type Seen = (StatusCode, String, Option<String>, f64);

#[tokio::test]
async fn known_and_unknown_addresses_get_the_same_answers_for_the_same_work() {
    let (server, base) = start().await;
    let (known, _) = person(&server, "manager");
    let unknown = "ninguem@paodourado.com.br".to_string();
    let mut browser = Browser::new();
    let form = browser.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&form.text, "csrf");
    let mut answers: HashMap<&str, Vec<Seen>> = HashMap::new();
    for email in [&known, &unknown] {
        for _ in 0..6 {
            let before = password_checks(&base).await;
            let body = form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("csrf", csrf.as_str()),
                    ("return_to", "/oauth/apps"),
                    ("email", email.as_str()),
                    ("password", "wrong password"),
                ])
                .finish();
            let response = reqwest::Client::new()
                .post(format!("{base}/oauth/sign-in"))
                .header("cookie", browser.cookie_header())
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            let retry = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            let text = response.text().await.unwrap();
            let work = password_checks(&base).await - before;
            answers.entry(email.as_str()).or_default().push((
                status,
                text,
                retry.map(|r| (!r.is_empty()).to_string()),
                work,
            ));
        }
    }
    assert_eq!(answers[known.as_str()], answers[unknown.as_str()]);
    let seen = &answers[known.as_str()];
    assert!(
        seen[..5]
            .iter()
            .all(|a| a.0 == StatusCode::BAD_REQUEST && a.3 == 1.0),
        "{seen:?}"
    );
    assert_eq!(seen[5].0, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(seen[5].3, 0.0, "a throttled attempt checks nothing");
}

#[tokio::test]
async fn failures_are_forgotten_a_day_after_the_last_one_and_locks_end() {
    use dunning_store::sign_in::{Attempt, count_attempt};
    use kobana_dunning::oauth::throttle::POLICY;
    let server = TestServer::start().await;
    let db = &server.state.db;
    let t = 1_000_000;
    for _ in 0..4 {
        assert_eq!(
            count_attempt(db, "k", t, POLICY).await.unwrap(),
            Attempt::Counted
        );
    }
    // A day and a second later the four are forgotten: four more do not lock.
    let later = t + 86_401;
    for _ in 0..4 {
        assert_eq!(
            count_attempt(db, "k", later, POLICY).await.unwrap(),
            Attempt::Counted
        );
    }
    assert_eq!(
        count_attempt(db, "k", later, POLICY).await.unwrap(),
        Attempt::Counted
    );
    assert_eq!(
        count_attempt(db, "k", later, POLICY).await.unwrap(),
        Attempt::Locked(later + 60)
    );
    // After the lock one more attempt is counted, and its failure doubles the lock.
    let after = later + 61;
    assert_eq!(
        count_attempt(db, "k", after, POLICY).await.unwrap(),
        Attempt::Counted
    );
    assert_eq!(
        count_attempt(db, "k", after, POLICY).await.unwrap(),
        Attempt::Locked(after + 120)
    );
}

// ---------------------------------------------------------------------------------------
// A revoked grant leaves no live token.

/// Send the same grant `fields` to the token endpoint 8 times at once; the access tokens
/// of the answers that succeeded.
async fn eight_at_once(base: &str, fields: Vec<(String, String)>) -> Vec<String> {
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
    let sends = (0..8).map(|_| {
        let (base, fields, barrier) = (base.to_string(), fields.clone(), barrier.clone());
        tokio::spawn(async move {
            barrier.wait().await;
            token(&base, &pairs(&fields)).await
        })
    });
    let mut issued = Vec::new();
    for send in sends.collect::<Vec<_>>() {
        let (status, answer) = send.await.unwrap();
        if status == StatusCode::OK {
            issued.push(answer["access_token"].as_str().unwrap().to_string());
        } else {
            assert_eq!(answer["error"], "invalid_grant", "{answer}");
        }
    }
    issued
}

async fn reused_grants_leave_no_live_token(server: TestServer, base: String, rounds: usize) {
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    for round in 0..rounds {
        let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
        let fields = vec![
            ("grant_type".into(), "authorization_code".into()),
            ("client_id".into(), client_id.clone()),
            ("code".into(), code),
            ("redirect_uri".into(), REDIRECT.into()),
            ("code_verifier".into(), verifier),
        ];
        let issued = eight_at_once(&base, fields).await;
        assert!(issued.len() <= 1, "round {round}: {} winners", issued.len());
        for access in &issued {
            assert_eq!(
                mcp_status(&server, access).await,
                StatusCode::UNAUTHORIZED,
                "round {round}: a token of a revoked grant works"
            );
        }
        // The same with one refresh token sent 8 times at once.
        let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
        let (_, first) = exchange(&base, &client_id, &code, &verifier).await;
        let refresh = vec![
            ("grant_type".into(), "refresh_token".into()),
            ("client_id".into(), client_id.clone()),
            (
                "refresh_token".into(),
                first["refresh_token"].as_str().unwrap().to_string(),
            ),
        ];
        let issued = eight_at_once(&base, refresh).await;
        assert!(issued.len() <= 1, "round {round}: {} winners", issued.len());
        let first_access = first["access_token"].as_str().unwrap().to_string();
        for access in issued.iter().chain([&first_access]) {
            assert_eq!(
                mcp_status(&server, access).await,
                StatusCode::UNAUTHORIZED,
                "round {round}: a token of a revoked grant works"
            );
        }
    }
    let live = count(
        &server,
        "SELECT COUNT(*) FROM tokens t JOIN oauth_grants g ON g.id = t.grant_id
         WHERE g.client_id = $1 AND t.revoked_at IS NULL",
        &client_id,
    )
    .await;
    assert_eq!(live, 0, "no live token of a revoked grant in the database");
}

#[tokio::test]
async fn a_code_or_refresh_token_sent_eight_times_at_once_leaves_no_live_token() {
    let (server, base) = start().await;
    reused_grants_leave_no_live_token(server, base, 20).await;
}

#[tokio::test]
async fn postgres_a_code_or_refresh_token_sent_eight_times_at_once_leaves_no_live_token() {
    let Some((server, base)) = on_postgres().await else {
        return;
    };
    reused_grants_leave_no_live_token(server, base, 20).await;
}

#[tokio::test]
async fn a_refused_exchange_or_refresh_does_not_spend_the_code_or_the_refresh_token() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "viewer").await;
    let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
    let (wrong, _) = pkce();
    let (status, _) = exchange(&base, &client_id, &code, &wrong).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let ask = |scope: Option<&'static str>| {
        let (base, client_id, refresh) = (base.clone(), client_id.clone(), refresh.to_string());
        async move {
            let mut fields = vec![
                ("grant_type", "refresh_token".to_string()),
                ("client_id", client_id),
                ("refresh_token", refresh),
            ];
            if let Some(scope) = scope {
                fields.push(("scope", scope.to_string()));
            }
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            token(&base, &fields).await
        }
    };
    let (status, refused) = ask(Some("customers:write")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "invalid_scope");
    let (status, renewed) = ask(None).await;
    assert_eq!(status, StatusCode::OK, "the retry is not theft: {renewed}");
    assert_eq!(
        mcp_status(&server, renewed["access_token"].as_str().unwrap()).await,
        StatusCode::OK
    );
}

// ---------------------------------------------------------------------------------------
// No redirect before the person is known.

#[tokio::test]
async fn before_sign_in_a_bad_request_is_shown_here_and_never_redirected() {
    let (server, base) = start().await;
    let client_id = register(&base, "https://phishing.example/landing").await;
    let (_, challenge) = pkce();
    let redirect = "https://phishing.example/landing";
    let request = |extra: &[(&str, &str)], drop: &str| {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in [
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ] {
            if k != drop && !extra.iter().any(|(e, _)| *e == k) {
                q.append_pair(k, v);
            }
        }
        q.extend_pairs(extra);
        format!("{base}/oauth/authorize?{}", q.finish())
    };
    let cases = [
        (request(&[("scope", "bogus")], ""), "invalid_scope"),
        (
            request(&[("response_type", "token")], ""),
            "unsupported_response_type",
        ),
        (request(&[], "code_challenge"), "invalid_request"),
        (
            request(&[("resource", "https://other.example/mcp")], ""),
            "invalid_target",
        ),
    ];
    for (url, error) in &cases {
        let page = Browser::new().get(url).await;
        assert_eq!(
            page.status,
            StatusCode::BAD_REQUEST,
            "{error}: {}",
            page.text
        );
        assert_eq!(page.location, None, "{error}");
        assert!(page.text.contains(error), "{}", page.text);
        assert!(!page.text.contains("phishing.example"), "{}", page.text);
    }
    // Once the person is signed in, the errors the RFC allows go back to the client.
    let mut browser = signed_in(&server, &base, "admin").await;
    for (url, error) in &cases {
        let page = browser.get(url).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{error}");
        let location = page.location.unwrap();
        assert!(location.starts_with(redirect), "{location}");
        assert_eq!(query(&location)["error"], *error);
    }
}

// ---------------------------------------------------------------------------------------
// Sessions end, grants expire, registrations are bounded.

async fn signing_out_ends_the_session_on_the_server(server: TestServer, base: String) {
    let mut browser = signed_in(&server, &base, "admin").await;
    let copied = browser.cookies["kd_session"].clone();
    let apps = browser.get(&format!("{base}/oauth/apps")).await;
    let out = browser
        .post(
            &format!("{base}/oauth/sign-out"),
            &[("csrf", &hidden(&apps.text, "csrf"))],
        )
        .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    let mut thief = Browser::new();
    thief.cookies.insert("kd_session".into(), copied);
    let page = thief.get(&format!("{base}/oauth/apps")).await;
    assert!(
        page.text.contains("Entrar no Kobana Dunning"),
        "{}",
        page.text
    );
    assert!(!page.text.contains("Aplicativos conectados"));
}

#[tokio::test]
async fn signing_out_ends_the_session_for_a_copied_cookie_too() {
    let (server, base) = start().await;
    signing_out_ends_the_session_on_the_server(server, base).await;
}

#[tokio::test]
async fn postgres_signing_out_ends_the_session_for_a_copied_cookie_too() {
    let Some((server, base)) = on_postgres().await else {
        return;
    };
    signing_out_ends_the_session_on_the_server(server, base).await;
}

#[tokio::test]
async fn a_password_change_ends_the_persons_sessions_and_grants() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.db");
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let (server, base) = start_on(url.clone(), dir, Config::local()).await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&server, access).await, StatusCode::OK);
    let (email, _) = person(&server, "admin");
    let organization = server.credentials.organizations[0].name.clone();
    let mut cli = std::process::Command::new(env!("CARGO_BIN_EXE_kobana-dunning"))
        .args(["person", "set-password", "--organization", &organization])
        .args(["--person", &email, "--database-url", &url])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    cli.stdin
        .take()
        .unwrap()
        .write_all(b"a brand new password 42\n")
        .unwrap();
    let output = cli.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(
        page.text.contains("Entrar no Kobana Dunning"),
        "{}",
        page.text
    );
    assert_eq!(mcp_status(&server, access).await, StatusCode::UNAUTHORIZED);
    let (status, refused) =
        refresh(&base, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
}

#[tokio::test]
async fn a_grant_unused_for_its_idle_time_ends_with_its_tokens() {
    let (server, base) = start_with(Config {
        oauth_grant_idle_ttl: Duration::from_secs(1),
        ..Config::local()
    })
    .await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&server, access).await, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (status, refused) =
        refresh(&base, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        refused["error_description"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{refused}"
    );
    let report =
        dunning_engine::housekeeping::tick(&server.state.engine, time::OffsetDateTime::now_utc())
            .await
            .unwrap();
    assert_eq!(report.oauth.grants, 1);
    assert_eq!(mcp_status(&server, access).await, StatusCode::UNAUTHORIZED);
    let apps = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(
        apps.text.contains("Nenhum aplicativo conectado."),
        "{}",
        apps.text
    );
    assert_eq!(
        metric(&base, "dunning_oauth_expired_total", &["what=\"grants\""]).await,
        1.0
    );
}

#[tokio::test]
async fn registrations_are_limited_per_address_and_unused_ones_expire() {
    let (server, base) = start().await;
    let http = reqwest::Client::new();
    let mut statuses = HashMap::new();
    let mut retry_after = None;
    for i in 0..200 {
        let response = http
            .post(format!("{base}/oauth/register"))
            .json(&json!({"client_name": format!("Flood {i}"), "redirect_uris": [REDIRECT]}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        *statuses.entry(status).or_insert(0) += 1;
        if status == StatusCode::TOO_MANY_REQUESTS {
            retry_after = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().parse::<i64>().unwrap());
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"], "invalid_request");
        }
    }
    // The window may turn over once during the loop.
    let accepted = statuses[&StatusCode::CREATED];
    assert!((10..=20).contains(&accepted), "{statuses:?}");
    assert_eq!(accepted + statuses[&StatusCode::TOO_MANY_REQUESTS], 200);
    assert!(retry_after.is_some_and(|s| (1..=60).contains(&s)));
    assert_eq!(
        metric(
            &base,
            "dunning_oauth_requests_total",
            &["step=\"register\"", "outcome=\"rate_limited\""]
        )
        .await,
        f64::from(200 - accepted)
    );
    // A day later the registrations no grant used are gone; one that was used stays.
    let registered = count(
        &server,
        "SELECT COUNT(*) FROM oauth_clients WHERE kind = $1",
        "registered",
    )
    .await;
    assert_eq!(registered, i64::from(accepted));
    let used: String =
        sqlx::query_scalar("SELECT id FROM oauth_clients ORDER BY created_at LIMIT 1")
            .fetch_one(&server.state.db.pool)
            .await
            .unwrap();
    let mut browser = signed_in(&server, &base, "admin").await;
    fresh_code(&mut browser, &base, &used).await;
    let later = time::OffsetDateTime::now_utc() + time::Duration::days(2);
    let report = dunning_engine::housekeeping::tick(&server.state.engine, later)
        .await
        .unwrap();
    assert_eq!(report.oauth.clients, u64::try_from(accepted - 1).unwrap());
    let left: Vec<String> =
        sqlx::query_scalar("SELECT id FROM oauth_clients WHERE kind = 'registered'")
            .fetch_all(&server.state.db.pool)
            .await
            .unwrap();
    assert_eq!(left, vec![used]);
}

// ---------------------------------------------------------------------------------------
// Input the registry must refuse.

#[tokio::test]
async fn redirect_uris_with_fragments_controls_spaces_or_non_ascii_are_refused() {
    let (_server, base) = start().await;
    let http = reqwest::Client::new();
    for uri in [
        "http://127.0.0.1:4999/callback#x",
        "http://127.0.0.1:4999/call\nback",
        "http://127.0.0.1:4999/call\rback",
        "http://127.0.0.1:4999/call\u{1}back",
        "http://127.0.0.1:4999/call\u{7f}back",
        "http://127.0.0.1:4999/call back",
        "https://app.example.com/retorno-é",
    ] {
        let response = http
            .post(format!("{base}/oauth/register"))
            .json(&json!({"client_name": "X", "redirect_uris": [uri]}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri:?}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "invalid_redirect_uri", "{uri:?}");
    }
    // A registered loopback URI with a fragment added is not that URI.
    let client_id = register(&base, REDIRECT).await;
    let (_, challenge) = pkce();
    let url = authorize_url(&base, &client_id, &challenge, &[]).replace(
        &form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect::<String>(),
        &form_urlencoded::byte_serialize(format!("{REDIRECT}#x").as_bytes()).collect::<String>(),
    );
    let page = Browser::new().get(&url).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert_eq!(page.location, None);
}

#[tokio::test]
async fn a_client_name_with_a_bidirectional_override_is_refused() {
    let (_server, base) = start().await;
    let response = reqwest::Client::new()
        .post(format!("{base}/oauth/register"))
        .json(&json!({"client_name": "Banco \u{202e}lanoicaN", "redirect_uris": [REDIRECT]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_client_metadata");
}

/// Markup, quotes and ampersands, as a hostile registration would send them.
const MARKUP: &str = "<script>alert(\"x\")</script> & 'Co'";

/// Whether `html` shows `text` only as text: none of its tags, quotes or ampersands appears
/// as written, and the page's visible text (its tags dropped, its character references read
/// as a browser reads them) holds `text` whole.
fn shows_as_text(html: &str, text: &str) -> bool {
    let raw = ["<script", "<img", "\"x\"", "'Co'", "& '", "\"&'"];
    let mut visible = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => visible.push(c),
            _ => {}
        }
    }
    !raw.iter().any(|r| html.contains(r)) && unescape(&visible).contains(text)
}

#[tokio::test]
async fn a_hostile_client_name_redirect_uri_and_scope_are_shown_as_text_on_every_page() {
    let (server, base) = start().await;
    let name = format!("{MARKUP} Assistente");
    // A private-use scheme has no host, so the pages name the whole URI.
    let redirect = "com.example.app:/cb?next=<img/src=x/onerror=alert(1)>\"&'";
    let answer = reqwest::Client::new()
        .post(format!("{base}/oauth/register"))
        .json(&json!({"client_name": name, "redirect_uris": [redirect]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::CREATED);
    let client_id = answer.json::<Value>().await.unwrap()["client_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, challenge) = pkce();
    let request = |scope: &str| {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("response_type", "code"),
                ("client_id", &client_id),
                ("redirect_uri", redirect),
                ("code_challenge", &challenge),
                ("code_challenge_method", "S256"),
                ("state", "s"),
                ("scope", scope),
            ])
            .finish()
    };
    let url = |query: &str| format!("{base}/oauth/authorize?{query}");

    // Signed out: the sign-in page names the application, and an unknown scope is an error
    // shown here (it is never sent back to the hostile redirect).
    let mut browser = Browser::new();
    let page = browser.get(&url(&request("charges:read"))).await;
    assert!(
        shows_as_text(&page.text, &format!("Para conectar {name} à sua conta")),
        "{}",
        page.text
    );
    let scope = "<script>alert(\"x\")</script>&'Co'";
    let page = browser.get(&url(&request(scope))).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.text);
    assert!(
        shows_as_text(&page.text, &format!("unknown scope '{scope}'")),
        "{}",
        page.text
    );

    // Signed in: the consent page, which shows the name twice and the URI twice.
    let mut browser = signed_in(&server, &base, "admin").await;
    let query = request("charges:read");
    let page = browser.get(&url(&query)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(
        shows_as_text(&page.text, &format!("Autorizar {name}")),
        "{}",
        page.text
    );
    assert!(
        shows_as_text(&page.text, &format!("leva de volta a {redirect}.")),
        "{}",
        page.text
    );
    assert!(
        shows_as_text(&page.text, &format!("Depois você volta para {redirect}.")),
        "{}",
        page.text
    );
    // The hidden field carries the request back exactly: its `&`s escaped in the attribute.
    assert_eq!(hidden(&page.text, "request"), query);
    let fields = allow_all(&page);
    let answer = browser
        .post(&format!("{base}/oauth/consent"), &pairs(&fields))
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text);
    assert!(answer.location.unwrap().starts_with("com.example.app:/cb?"));

    // The connected applications: the name in the list and in the button's label.
    let page = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(shows_as_text(&page.text, &name), "{}", page.text);
    let label = format!("aria-label=\"Revogar o acesso de {name}\"");
    assert!(unescape(&page.text).contains(&label), "{}", page.text);
}

#[tokio::test]
async fn redirect_uri_is_repeated_at_the_token_endpoint_only_when_the_request_sent_it() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    // Without redirect_uri (the client has one): the exchange needs none.
    let (verifier, challenge) = pkce();
    let url = authorize_url(&base, &client_id, &challenge, &[]).replace(
        &format!(
            "redirect_uri={}&",
            form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect::<String>()
        ),
        "",
    );
    assert!(!url.contains("redirect_uri"), "{url}");
    let page = browser.get(&url).await;
    let fields = allow_all(&page);
    let answer = browser
        .post(&format!("{base}/oauth/consent"), &pairs(&fields))
        .await;
    let code = query(&answer.location.unwrap())["code"].clone();
    let (status, tokens) = token(
        &base,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", &verifier),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    // With it: the exchange must repeat it.
    let (code, verifier) = fresh_code(&mut browser, &base, &client_id).await;
    let (status, refused) = token(
        &base,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("code_verifier", &verifier),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "invalid_grant");
}

#[tokio::test]
async fn with_no_scope_asked_only_the_scopes_that_change_nothing_are_ticked() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let mut browser = signed_in(&server, &base, "admin").await;
    let (_, challenge) = pkce();
    let page = consent_page(&mut browser, &base, &client_id, &challenge).await;
    let mut offered = 0;
    for (i, m) in page.text.match_indices("name=\"scope\" value=\"") {
        let rest = &page.text[i + m.len()..];
        let scope = &rest[..rest.find('"').unwrap()];
        let ticked = rest[..rest.find('>').unwrap()].contains("checked");
        assert_eq!(ticked, scope.ends_with(":read"), "{scope}");
        offered += 1;
    }
    assert_eq!(offered, kobana_dunning::auth::roles::ALL_SCOPES.len());
    // The application registered itself: the page says nobody vouched for its name.
    assert!(page.text.contains("se registrou sozinho"), "{}", page.text);
    // Asked for, a scope that changes data is ticked.
    let url = authorize_url(&base, &client_id, &challenge, &[("scope", "charges:write")]);
    let page = browser.get(&url).await;
    assert!(
        page.text.contains("value=\"charges:write\" checked"),
        "{}",
        page.text
    );
}

#[tokio::test]
async fn the_token_endpoint_names_its_scheme_on_401_and_speaks_json_about_a_large_body() {
    let (_server, base) = start().await;
    let http = reqwest::Client::new();
    let unauthorized = http
        .post(format!("{base}/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=authorization_code&code=x")
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    assert!(unauthorized.headers().contains_key("www-authenticate"));
    let large = format!("grant_type=refresh_token&pad={}", "x".repeat(17 * 1024));
    for path in ["/oauth/token", "/oauth/revoke", "/oauth/register"] {
        let response = http
            .post(format!("{base}{path}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(large.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_eq!(body["error"], "invalid_request", "{path}");
    }
    let page = http
        .post(format!("{base}/oauth/sign-in"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(large)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(page.text().await.unwrap().contains("<html"));
}

// ---------------------------------------------------------------------------------------
// Where the issuer comes from.

#[tokio::test]
async fn the_oauth_routes_refuse_a_foreign_host_when_bound_to_loopback() {
    let (_server, base) = start().await;
    let http = reqwest::Client::new();
    for (method, path) in [
        ("GET", "/.well-known/oauth-authorization-server"),
        ("GET", "/oauth/authorize?client_id=x"),
        ("POST", "/oauth/token"),
        ("POST", "/oauth/register"),
        ("GET", "/oauth/apps"),
    ] {
        let response = http
            .request(method.parse().unwrap(), format!("{base}{path}"))
            .header("host", "evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
    }
    let metadata: Value = http
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["issuer"], base);
}

#[tokio::test]
async fn a_public_bind_without_a_canonical_url_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kobana-dunning"))
        .args([
            "serve",
            "--bind",
            "0.0.0.0:0",
            "--no-demo",
            "--database-url",
            &url,
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--canonical-url"), "{stderr}");
    assert!(
        !dir.path().join("t.db").exists(),
        "refused before opening anything"
    );
}

#[tokio::test]
async fn client_metadata_urls_have_their_own_private_network_opt_in() {
    // Webhooks may reach private networks here; client metadata documents still may not.
    let (_server, base) = start_with(Config {
        allow_private_webhook_targets: true,
        ..Config::local()
    })
    .await;
    let (_, challenge) = pkce();
    let page = Browser::new()
        .get(&authorize_url(
            &base,
            "https://10.0.0.7/client.json",
            &challenge,
            &[],
        ))
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert!(page.text.contains("cannot be fetched"), "{}", page.text);
}
