//! The built-in OAuth authorization server over real HTTP: discovery, registration, the
//! sign-in and consent forms submitted as a browser would (cookies, CSRF field), the token
//! endpoint, and each way it must refuse.

use std::collections::HashMap;

use base64::Engine;
use http::StatusCode;
use kobana_dunning::Config;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::{TestServer, tool_problem};

pub(crate) const REDIRECT: &str = "http://127.0.0.1:4999/callback";

/// A server on a real socket whose token lookups are never cached (a revocation shows at
/// once), and its base URL.
pub(crate) async fn start_with(config: Config) -> (TestServer, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
    start_on(url, dir, config).await
}

pub(crate) async fn start_on(
    url: String,
    dir: tempfile::TempDir,
    config: Config,
) -> (TestServer, String) {
    let config = Config {
        token_cache_ttl: std::time::Duration::ZERO,
        ..config
    };
    let server = TestServer::start_configured(url, dir, config).await;
    let base = server.listen().await;
    (server, base)
}

pub(crate) async fn start() -> (TestServer, String) {
    start_with(Config::local()).await
}

/// A browser: keeps cookies, never follows redirects (the test looks at each).
pub(crate) struct Browser {
    pub http: reqwest::Client,
    pub cookies: HashMap<String, String>,
}

pub(crate) struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub text: String,
    pub set_cookies: Vec<String>,
}

impl Browser {
    pub(crate) fn new() -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: HashMap::new(),
        }
    }

    pub(crate) fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub(crate) async fn keep(&mut self, response: reqwest::Response) -> Page {
        let mut set_cookies = Vec::new();
        for set in response.headers().get_all("set-cookie") {
            set_cookies.push(set.to_str().unwrap().to_string());
            let pair = set.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || set.to_str().unwrap().contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_string(), value.to_string());
            }
        }
        let status = response.status();
        let location = response
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_string());
        Page {
            status,
            location,
            text: response.text().await.unwrap(),
            set_cookies,
        }
    }

    pub(crate) async fn get(&mut self, url: &str) -> Page {
        let response = self
            .http
            .get(url)
            .header("cookie", self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep(response).await
    }

    pub(crate) async fn post(&mut self, url: &str, fields: &[(&str, &str)]) -> Page {
        self.post_with(url, fields, &[]).await
    }

    /// A form post with extra request headers (what a browser adds: `Origin`,
    /// `Sec-Fetch-Site`).
    pub(crate) async fn post_with(
        &mut self,
        url: &str,
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Page {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut request = self
            .http
            .post(url)
            .header("cookie", self.cookie_header())
            .header("content-type", "application/x-www-form-urlencoded");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.body(body).send().await.unwrap();
        self.keep(response).await
    }
}

/// The value of the hidden field `name` in a page.
pub(crate) fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {html}"))
        + marker.len();
    let end = start + html[start..].find('"').unwrap();
    unescape(&html[start..end])
}

/// HTML text as a browser reads it: character references (`&#38;`, `&#x26;`, `&amp;`, the
/// few named ones markup needs) become their characters, in one pass.
pub(crate) fn unescape(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => match name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => name.strip_prefix('#').and_then(|d| d.parse().ok()),
                }
                .and_then(char::from_u32),
            }?;
            Some((c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The query parameters of a URL.
pub(crate) fn query(url: &str) -> HashMap<String, String> {
    let url = reqwest::Url::parse(url).unwrap();
    url.query_pairs().into_owned().collect()
}

pub(crate) fn pkce() -> (String, String) {
    let verifier = dunning_store::ids::new_secret(32);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

pub(crate) async fn register(base: &str, redirect: &str) -> String {
    let answer: Value = reqwest::Client::new()
        .post(format!("{base}/oauth/register"))
        .json(&json!({"client_name": "Assistente de Teste", "redirect_uris": [redirect]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["client_id"].as_str().expect("client_id").to_string()
}

pub(crate) fn authorize_url(
    base: &str,
    client_id: &str,
    challenge: &str,
    extra: &[(&str, &str)],
) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    q.extend_pairs([
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", challenge),
        ("code_challenge_method", "S256"),
        ("state", "xyz-state"),
        ("resource", &format!("{base}/mcp")),
    ]);
    q.extend_pairs(extra);
    format!("{base}/oauth/authorize?{}", q.finish())
}

/// Organization 0's person of `role`: (email, password).
pub(crate) fn person(server: &TestServer, role: &str) -> (String, String) {
    let p = server.credentials.organizations[0]
        .people
        .iter()
        .find(|p| p.role == role)
        .unwrap();
    (p.email.clone(), p.password.clone())
}

/// Submit the sign-in form as its page would: `csrf` and `return_to` are its hidden fields.
pub(crate) async fn post_sign_in(
    browser: &mut Browser,
    base: &str,
    csrf: &str,
    return_to: &str,
    email: &str,
    password: &str,
) -> Page {
    browser
        .post(
            &format!("{base}/oauth/sign-in"),
            &[
                ("csrf", csrf),
                ("return_to", return_to),
                ("email", email),
                ("password", password),
            ],
        )
        .await
}

/// Sign in on the page `url` leads to; returns the consent page.
pub(crate) async fn sign_in(
    browser: &mut Browser,
    base: &str,
    url: &str,
    email: &str,
    password: &str,
) -> Page {
    let page = browser.get(url).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(
        page.text.contains("Entrar no Kobana Dunning"),
        "{}",
        page.text
    );
    let csrf = hidden(&page.text, "csrf");
    let return_to = hidden(&page.text, "return_to");
    let signed = post_sign_in(browser, base, &csrf, &return_to, email, password).await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", signed.text);
    let next = signed.location.unwrap();
    browser.get(&format!("{base}{next}")).await
}

/// Allow the scopes on the consent page except `untick`; returns the redirect.
pub(crate) async fn consent(
    browser: &mut Browser,
    base: &str,
    page: &Page,
    untick: &[&str],
) -> String {
    assert!(
        page.text.contains("Autorizar Assistente de Teste"),
        "{}",
        page.text
    );
    let csrf = hidden(&page.text, "csrf");
    let request = hidden(&page.text, "request");
    let mut fields = vec![
        ("csrf", csrf.as_str()),
        ("request", request.as_str()),
        ("decision", "allow"),
    ];
    let offered: Vec<String> = page
        .text
        .match_indices("name=\"scope\" value=\"")
        .map(|(i, m)| {
            let rest = &page.text[i + m.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect();
    for scope in &offered {
        if !untick.contains(&scope.as_str()) {
            fields.push(("scope", scope));
        }
    }
    let answer = browser
        .post(&format!("{base}/oauth/consent"), &fields)
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text);
    answer.location.unwrap()
}

pub(crate) async fn token(base: &str, fields: &[(&str, &str)]) -> (StatusCode, Value) {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let response = reqwest::Client::new()
        .post(format!("{base}/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A refresh of `refresh_token` by `client_id`.
pub(crate) async fn refresh(
    base: &str,
    client_id: &str,
    refresh_token: &str,
) -> (StatusCode, Value) {
    token(
        base,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", client_id),
            ("refresh_token", refresh_token),
        ],
    )
    .await
}

/// A registered client, an admin signed in who consented to everything: the client id,
/// the code, and the PKCE verifier.
pub(crate) async fn authorized(
    server: &TestServer,
    base: &str,
    role: &str,
    untick: &[&str],
) -> (String, String, String) {
    let client_id = register(base, REDIRECT).await;
    let (verifier, challenge) = pkce();
    let (email, password) = person(server, role);
    let mut browser = Browser::new();
    let url = authorize_url(base, &client_id, &challenge, &[]);
    let page = sign_in(&mut browser, base, &url, &email, &password).await;
    let back = consent(&mut browser, base, &page, untick).await;
    assert!(back.starts_with(REDIRECT), "{back}");
    let q = query(&back);
    assert_eq!(q["state"], "xyz-state");
    assert_eq!(q["iss"], base);
    (client_id, q["code"].clone(), verifier)
}

pub(crate) async fn exchange(
    base: &str,
    client_id: &str,
    code: &str,
    verifier: &str,
) -> (StatusCode, Value) {
    token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", client_id),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", verifier),
            ("resource", &format!("{base}/mcp")),
        ],
    )
    .await
}

/// `tools/list` with `access`, unchecked (a refusal is a problem document, not JSON-RPC).
pub(crate) async fn mcp_list(server: &TestServer, access: &str) -> crate::common::Answer {
    let auth = format!("Bearer {access}");
    server
        .mcp_raw(
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        )
        .await
}

pub(crate) async fn mcp_status(server: &TestServer, access: &str) -> StatusCode {
    mcp_list(server, access).await.status
}

#[tokio::test]
async fn a_client_discovers_registers_and_gets_a_token_for_the_consented_scopes_that_refreshes() {
    let (server, base) = start().await;
    let http = reqwest::Client::new();
    // Discovery from the bare MCP URL: 401 → resource metadata → authorization server.
    let unauthorized = http
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let challenge = unauthorized.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    let resource: Value = http
        .get(format!("{base}/.well-known/oauth-protected-resource"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(resource["authorization_servers"], json!([base]));
    let metadata: Value = http
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["issuer"], base);
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["token_endpoint"], format!("{base}/oauth/token"));

    let (client_id, code, verifier) =
        authorized(&server, &base, "admin", &["customers:read"]).await;
    let (status, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 600);
    let scope = tokens["scope"].as_str().unwrap();
    assert!(
        scope.contains("charges:read") && !scope.contains("customers:read"),
        "{scope}"
    );
    let access = tokens["access_token"].as_str().unwrap();

    let me = server.call_tool(access, "dunning_me", json!({})).await;
    assert_ne!(me["isError"], json!(true), "{me}");
    // The scope the person unticked is not there.
    let refused = server
        .call_tool(access, "dunning_customers_list", json!({}))
        .await;
    assert_eq!(tool_problem(&refused)["code"], "insufficient_scope");
    let charges = server
        .call_tool(access, "dunning_charges_list", json!({}))
        .await;
    assert_ne!(charges["isError"], json!(true), "{charges}");
    // The token is for the MCP endpoint only.
    let rest = http
        .get(format!("{base}/v1/me"))
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), StatusCode::UNAUTHORIZED);

    let (status, renewed) = token(
        &base,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &client_id),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{renewed}");
    assert_ne!(renewed["refresh_token"], tokens["refresh_token"]);
    let again = server
        .call_tool(
            renewed["access_token"].as_str().unwrap(),
            "dunning_me",
            json!({}),
        )
        .await;
    assert_ne!(again["isError"], json!(true), "{again}");
}

#[tokio::test]
async fn the_role_still_limits_what_a_consented_token_can_do() {
    let (server, base) = start().await;
    let (client_id, code, verifier) = authorized(&server, &base, "viewer", &[]).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let scope = tokens["scope"].as_str().unwrap();
    assert!(scope.split(' ').all(|s| s.ends_with(":read")), "{scope}");
    let access = tokens["access_token"].as_str().unwrap();
    let write = server
        .call_tool(
            access,
            "dunning_customers_create",
            json!({"name": "X", "document": "11144477735"}),
        )
        .await;
    assert_eq!(tool_problem(&write)["code"], "insufficient_scope");
}

/// Allows every scope on the consent `page` with `extra` fields (toolsets, discovery mode), and
/// exchanges the code: the token answer.
async fn allow_all_scopes(
    browser: &mut Browser,
    base: &str,
    page: &str,
    extra: &[(&str, &str)],
    client_id: &str,
    verifier: &str,
) -> Value {
    let csrf = hidden(page, "csrf");
    let request = hidden(page, "request");
    let mut fields = vec![
        ("csrf", csrf.as_str()),
        ("request", request.as_str()),
        ("decision", "allow"),
    ];
    fields.extend_from_slice(extra);
    for scope in kobana_dunning::auth::roles::ALL_SCOPES {
        fields.push(("scope", scope));
    }
    let answer = browser
        .post(&format!("{base}/oauth/consent"), &fields)
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text);
    let code = query(&answer.location.unwrap())["code"].clone();
    let (status, tokens) = exchange(base, client_id, &code, verifier).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    tokens
}

#[tokio::test]
async fn the_toolsets_ticked_on_the_consent_page_bound_every_token_of_the_grant() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let (verifier, challenge) = pkce();

    // A collector's page offers every toolset, its role's defaults ticked.
    let (email, password) = person(&server, "collector");
    let mut browser = Browser::new();
    let url = authorize_url(&base, &client_id, &challenge, &[]);
    let page = sign_in(&mut browser, &base, &url, &email, &password).await;
    assert!(
        page.text
            .contains(r#"name="toolset" value="charges" checked"#),
        "{}",
        page.text
    );
    assert!(
        page.text.contains(r#"name="toolset" value="plans">"#),
        "{}",
        page.text
    );

    // An admin ticks only `customers`.
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let page = sign_in(&mut browser, &base, &url, &email, &password).await;
    let tokens = allow_all_scopes(
        &mut browser,
        &base,
        &page.text,
        &[("toolsets_offered", "1"), ("toolset", "customers")],
        &client_id,
        &verifier,
    )
    .await;

    let listed = |answer: crate::common::Answer| -> Vec<String> {
        answer.body["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", answer.text))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let access = tokens["access_token"].as_str().unwrap();
    let names = listed(mcp_list(&server, access).await);
    assert!(
        names.contains(&"dunning_customers_list".to_string()),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .all(|n| n == "dunning_me" || n.starts_with("dunning_customers_")),
        "{names:?}"
    );
    // The refreshed access token comes from the same grant, with the same bound.
    let (_, renewed) = refresh(&base, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    let names = listed(mcp_list(&server, renewed["access_token"].as_str().unwrap()).await);
    assert!(
        !names.iter().any(|n| n.starts_with("dunning_charges_")),
        "{names:?}"
    );
}

#[tokio::test]
async fn discovery_mode_ticked_on_the_consent_page_is_every_token_of_the_grant_s_default() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let (verifier, challenge) = pkce();
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let url = authorize_url(&base, &client_id, &challenge, &[]);
    let page = sign_in(&mut browser, &base, &url, &email, &password).await;
    // Offered, and not ticked unless the person ticks it.
    assert!(
        page.text.contains(r#"name="discovery" value="on">"#),
        "{}",
        page.text
    );
    let tokens = allow_all_scopes(
        &mut browser,
        &base,
        &page.text,
        &[("discovery", "on")],
        &client_id,
        &verifier,
    )
    .await;
    let trio = ["dunning_search", "dunning_describe", "dunning_call"];
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(
        crate::common::listed(&server, "/mcp", access, &[]).await,
        trio
    );
    // The request still decides; a refreshed token carries the grant's choice too.
    let catalog =
        crate::common::listed(&server, "/mcp", access, &[("x-mcp-discovery", "false")]).await;
    assert!(catalog.len() > 60, "{catalog:?}");
    let (_, renewed) = refresh(&base, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    let renewed = renewed["access_token"].as_str().unwrap();
    assert_eq!(
        crate::common::listed(&server, "/mcp", renewed, &[]).await,
        trio
    );
}

#[tokio::test]
async fn a_wrong_password_is_refused_and_repeated_failures_lock_the_account() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let (_, challenge) = pkce();
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let page = browser
        .get(&authorize_url(&base, &client_id, &challenge, &[]))
        .await;
    let csrf = hidden(&page.text, "csrf");
    let return_to = hidden(&page.text, "return_to");
    for _ in 0..5 {
        let wrong = format!("{password}x");
        let refused = post_sign_in(&mut browser, &base, &csrf, &return_to, &email, &wrong).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert!(refused.text.contains("E-mail ou senha incorretos."));
        assert!(!browser.cookies.contains_key("kd_session"));
    }
    let locked = post_sign_in(&mut browser, &base, &csrf, &return_to, &email, &password).await;
    assert_eq!(
        locked.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        locked.text
    );
    assert!(locked.text.contains("Muitas tentativas erradas"));
    assert!(!browser.cookies.contains_key("kd_session"));
}

#[tokio::test]
async fn a_sign_in_form_without_its_csrf_token_is_refused() {
    let (server, base) = start().await;
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let page = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(browser.cookies.contains_key("kd_pre"), "{}", page.text);
    let refused = browser
        .post(
            &format!("{base}/oauth/sign-in"),
            &[
                ("return_to", "/oauth/apps"),
                ("email", &email),
                ("password", &password),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.text.contains("código de segurança"));
    assert!(!browser.cookies.contains_key("kd_session"));
}

#[tokio::test]
async fn a_code_used_twice_is_refused_and_revokes_what_it_gave() {
    let (server, base) = start().await;
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (status, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::OK);
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&server, access).await, StatusCode::OK);
    let (status, again) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(again["error"], "invalid_grant");
    assert_eq!(mcp_status(&server, access).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_wrong_pkce_verifier_gets_no_token() {
    let (server, base) = start().await;
    let (client_id, code, _) = authorized(&server, &base, "admin", &[]).await;
    let (other, _) = pkce();
    let (status, answer) = exchange(&base, &client_id, &code, &other).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"], "invalid_grant");
    assert!(
        answer["error_description"]
            .as_str()
            .unwrap()
            .contains("code_verifier")
    );
}

#[tokio::test]
async fn a_redirect_uri_not_registered_is_never_redirected_to() {
    let (_server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let (_, challenge) = pkce();
    let url = authorize_url(&base, &client_id, &challenge, &[]).replace(
        &form_urlencoded::byte_serialize(REDIRECT.as_bytes()).collect::<String>(),
        "https%3A%2F%2Fattacker.example%2Fcb",
    );
    let page = Browser::new().get(&url).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert_eq!(page.location, None);
    assert!(page.text.contains("redirect_uri"), "{}", page.text);
    // A loopback redirect on another port is the same registration (RFC 8252).
    let other_port = authorize_url(&base, &client_id, &challenge, &[]).replace("4999", "5123");
    assert_eq!(Browser::new().get(&other_port).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_token_for_another_resource_is_refused() {
    let (server, base) = start().await;
    let client_id = register(&base, REDIRECT).await;
    let (_, challenge) = pkce();
    let url = authorize_url(&base, &client_id, &challenge, &[])
        .replace("resource=", "resource=https%3A%2F%2Fother.example%2Fmcp&x=");
    // Signed out, the error is shown here (`oauth_attacks::before_sign_in_...`); signed in,
    // it goes back to the client.
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    sign_in(
        &mut browser,
        &base,
        &format!("{base}/oauth/apps"),
        &email,
        &password,
    )
    .await;
    let page = browser.get(&url).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    let q = query(&page.location.unwrap());
    assert_eq!(q["error"], "invalid_target");
    assert_eq!(q["state"], "xyz-state");
    // At the token endpoint too.
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (status, answer) = token(
        &base,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", &verifier),
            ("resource", "http://127.0.0.1:1/v1"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"], "invalid_target");
}

#[tokio::test]
async fn an_expired_access_token_is_refused() {
    // Tokens of no lifetime: they expire at the end of the second they were issued in.
    let (server, base) = start_with(Config {
        oauth_access_token_ttl: std::time::Duration::ZERO,
        ..Config::local()
    })
    .await;
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (status, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let answer = mcp_list(&server, tokens["access_token"].as_str().unwrap()).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(answer.text.contains("expired"), "{}", answer.text);
    assert!(
        answer
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
}

#[tokio::test]
async fn a_reused_refresh_token_revokes_its_whole_family() {
    let (server, base) = start().await;
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (_, first) = exchange(&base, &client_id, &code, &verifier).await;
    let old = first["refresh_token"].as_str().unwrap();
    let refresh = |secret: String| {
        let (base, client_id) = (base.clone(), client_id.clone());
        async move {
            token(
                &base,
                &[
                    ("grant_type", "refresh_token"),
                    ("client_id", &client_id),
                    ("refresh_token", &secret),
                ],
            )
            .await
        }
    };
    let (status, second) = refresh(old.to_string()).await;
    assert_eq!(status, StatusCode::OK);
    let (status, reused) = refresh(old.to_string()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(reused["error"], "invalid_grant");
    // The thief's reuse ends the family: the new refresh token and the new access token too.
    let (status, _) = refresh(second["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        mcp_status(&server, second["access_token"].as_str().unwrap()).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_revoked_application_loses_its_tokens() {
    let (server, base) = start().await;
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&server, access).await, StatusCode::OK);
    // The person signs in to "Aplicativos conectados" and revokes it.
    let (email, password) = person(&server, "admin");
    let mut browser = Browser::new();
    let page = sign_in(
        &mut browser,
        &base,
        &format!("{base}/oauth/apps"),
        &email,
        &password,
    )
    .await;
    assert!(page.text.contains("Aplicativos conectados"));
    assert!(page.text.contains("Assistente de Teste"), "{}", page.text);
    let revoked = browser
        .post(
            &format!("{base}/oauth/apps/revoke"),
            &[
                ("csrf", &hidden(&page.text, "csrf")),
                ("grant", &hidden(&page.text, "grant")),
            ],
        )
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let after = browser.get(&format!("{base}/oauth/apps")).await;
    assert!(
        after.text.contains("Nenhum aplicativo conectado."),
        "{}",
        after.text
    );
    assert_eq!(mcp_status(&server, access).await, StatusCode::UNAUTHORIZED);
    let (status, _) = refresh(&base, &client_id, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn revoking_a_refresh_token_at_the_revocation_endpoint_ends_the_grant() {
    let (server, base) = start().await;
    let (client_id, code, verifier) = authorized(&server, &base, "admin", &[]).await;
    let (_, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    let response = reqwest::Client::new()
        .post(format!("{base}/oauth/revoke"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "token={}&client_id={client_id}",
            tokens["refresh_token"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        mcp_status(&server, tokens["access_token"].as_str().unwrap()).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_client_metadata_url_on_a_private_address_is_not_fetched() {
    let (_server, base) = start_with(Config {
        allow_private_webhook_targets: false,
        ..Config::local()
    })
    .await;
    let (_, challenge) = pkce();
    for client_id in [
        "https://10.0.0.7/client.json",
        "https://127.0.0.1/oauth/client",
    ] {
        let page = Browser::new()
            .get(&authorize_url(&base, client_id, &challenge, &[]))
            .await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{client_id}");
        assert_eq!(page.location, None);
        assert!(page.text.contains("cannot be fetched"), "{}", page.text);
    }
}

#[tokio::test]
async fn a_call_refused_for_a_scope_names_it_in_the_bearer_challenge() {
    let (server, _base) = start().await;
    let viewer = server.token(0, "viewer", "api");
    let answer = server
        .rest(
            "POST",
            "/v1/customers",
            &viewer,
            Some(json!({"name": "Fulano", "document": "11144477735"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(
        answer.header("www-authenticate"),
        Some(
            r#"Bearer realm="kobana-dunning", error="insufficient_scope", scope="customers:write""#
        )
    );
}

#[tokio::test]
async fn postgres_runs_the_flow_the_refresh_reuse_detection_and_the_failure_count() {
    let Some(url) = crate::postgres::fresh_postgres_url().await else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, base) = start_on(url, dir, Config::local()).await;
    let (client_id, code, verifier) = authorized(&server, &base, "manager", &[]).await;
    let (status, tokens) = exchange(&base, &client_id, &code, &verifier).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap();
    let me = server.call_tool(access, "dunning_me", json!({})).await;
    assert_ne!(me["isError"], json!(true), "{me}");
    let old = tokens["refresh_token"].as_str().unwrap();
    let refresh = [
        ("grant_type", "refresh_token"),
        ("client_id", client_id.as_str()),
        ("refresh_token", old),
    ];
    assert_eq!(token(&base, &refresh).await.0, StatusCode::OK);
    assert_eq!(token(&base, &refresh).await.0, StatusCode::BAD_REQUEST);
    assert_eq!(mcp_status(&server, access).await, StatusCode::UNAUTHORIZED);
    // A wrong password is counted (and the lock column written) on PostgreSQL too.
    let (email, password) = person(&server, "manager");
    let mut browser = Browser::new();
    let page = browser.get(&format!("{base}/oauth/apps")).await;
    let csrf = hidden(&page.text, "csrf");
    for _ in 0..5 {
        let wrong = format!("{password}x");
        let refused = post_sign_in(&mut browser, &base, &csrf, "/oauth/apps", &email, &wrong).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    }
    let locked = post_sign_in(&mut browser, &base, &csrf, "/oauth/apps", &email, &password).await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
}

/// A `return_to` is where the browser goes after signing in: one holding a control character
/// (a CR or LF would split the `Location` header) is not followed; the sign-in still works and
/// goes to the apps page, never a 500 after the session was made.
#[tokio::test]
async fn a_return_to_with_a_line_break_or_a_control_character_is_not_followed() {
    let (server, base) = start().await;
    let (email, password) = person(&server, "admin");
    for bad in [
        "/oauth/apps\r\nSet-Cookie: kd_session=forged",
        "/oauth/apps\nX: y",
        "/oauth/apps\u{7f}",
        "/oauth/apps\t",
        "/oauth/apps ?x",
    ] {
        let mut browser = Browser::new();
        let page = browser.get(&format!("{base}/oauth/apps")).await;
        let csrf = hidden(&page.text, "csrf");
        let signed = post_sign_in(&mut browser, &base, &csrf, bad, &email, &password).await;
        assert_eq!(
            signed.status,
            StatusCode::SEE_OTHER,
            "{bad:?}: {}",
            signed.text
        );
        assert_eq!(signed.location.as_deref(), Some("/oauth/apps"), "{bad:?}");
        assert_ne!(
            browser.cookies.get("kd_session").map(String::as_str),
            Some("forged"),
            "{bad:?}"
        );
    }
}
