//! The authorization endpoint and the person's two steps through it: sign in, then consent.
//!
//! `GET /oauth/authorize` checks the request (RFC 6749 §4.1 with OAuth 2.1's rules: `code`
//! only, PKCE S256 required, the redirect URI registered) and shows the sign-in form, or the
//! consent form to a person already signed in. A request whose client or redirect URI is
//! wrong is never redirected (that would make us an open redirector): the person sees an
//! error page. Other mistakes go back to the client as `error=` on its redirect URI.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use reqwest::Url;

use super::clients::{self, ClientError};
use super::session::{self, Session};
use super::{form, form_all, form_first, issuer, pages, passwords, resource, secure};
use crate::auth::{roles, tokens};
use crate::state::AppState;
use crate::store::ids::new_secret;
use crate::store::oauth::{self as store, Client, NewAuthorization, now_epoch};

/// How long an authorization code may wait for its exchange.
pub const CODE_SECS: i64 = 60;
/// Longest `state` we carry back.
const LONGEST_STATE: usize = 500;

/// An authorization request that passed every check.
#[derive(Debug)]
pub struct Checked {
    pub client: Client,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    /// Requested scopes (all known), in our order.
    pub scopes: Vec<String>,
    pub resource: String,
    /// The query string as received, carried through the forms.
    pub raw: String,
}

/// Why a request stops.
#[derive(Debug)]
pub enum Stop {
    /// Shown to the person: the client or its redirect URI cannot be trusted.
    Page(StatusCode, String),
    /// Sent back to the client's redirect URI.
    Redirect(String),
}

impl IntoResponse for Stop {
    fn into_response(self) -> Response {
        match self {
            Stop::Page(status, message) => pages::error(status, &message),
            Stop::Redirect(url) => Redirect::to(&url).into_response(),
        }
    }
}

/// `redirect_uri` with the answer's parameters (and `iss`, RFC 9207) appended.
fn back(redirect_uri: &str, params: &[(&str, &str)], state: Option<&str>, iss: &str) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        query.append_pair(k, v);
    }
    if let Some(state) = state {
        query.append_pair("state", state);
    }
    query.append_pair("iss", iss);
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    format!("{redirect_uri}{separator}{}", query.finish())
}

/// Check an authorization request's query string.
pub async fn check(state: &AppState, headers: &HeaderMap, raw: &str) -> Result<Checked, Stop> {
    let params = form(raw.as_bytes());
    let get = |key: &str| form_first(&params, key).map(str::to_string);
    let Some(client_id) = get("client_id") else {
        return Err(Stop::Page(
            StatusCode::BAD_REQUEST,
            "O pedido não diz qual aplicativo está pedindo acesso (client_id).".into(),
        ));
    };
    let client = match clients::find(state, &client_id).await {
        Ok(client) => client,
        Err(ClientError::Store(e)) => {
            tracing::error!("OAuth client lookup failed: {e}");
            return Err(Stop::Page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Erro interno; tente de novo em instantes.".into(),
            ));
        }
        Err(e) => {
            return Err(Stop::Page(
                StatusCode::BAD_REQUEST,
                format!("Não foi possível identificar o aplicativo: {e}."),
            ));
        }
    };
    let redirect_uri = match get("redirect_uri") {
        Some(uri) => uri,
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Err(Stop::Page(
                StatusCode::BAD_REQUEST,
                "O pedido não diz para onde voltar (redirect_uri).".into(),
            ));
        }
    };
    if !clients::redirect_matches(&client.redirect_uris, &redirect_uri) {
        return Err(Stop::Page(
            StatusCode::BAD_REQUEST,
            "O endereço de retorno (redirect_uri) não é um dos registrados por este aplicativo."
                .into(),
        ));
    }
    let iss = issuer(&state.config, headers);
    let client_state = get("state");
    let fail = |error: &str, description: &str| {
        Stop::Redirect(back(
            &redirect_uri,
            &[("error", error), ("error_description", description)],
            client_state.as_deref(),
            &iss,
        ))
    };
    if client_state
        .as_ref()
        .is_some_and(|s| s.len() > LONGEST_STATE)
    {
        return Err(fail("invalid_request", "state is too long"));
    }
    if get("response_type").as_deref() != Some("code") {
        return Err(fail(
            "unsupported_response_type",
            "only response_type=code is supported",
        ));
    }
    let challenge = get("code_challenge").unwrap_or_default();
    if get("code_challenge_method").as_deref() != Some("S256") {
        return Err(fail(
            "invalid_request",
            "PKCE is required with code_challenge_method=S256",
        ));
    }
    if challenge.len() != 43
        || !challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(fail(
            "invalid_request",
            "code_challenge must be the base64url SHA-256 of the verifier (43 characters)",
        ));
    }
    let ours = resource(&state.config, headers);
    let resource = match get("resource") {
        None => ours.clone(),
        Some(asked) if asked.trim_end_matches('/') == ours => ours.clone(),
        Some(_) => {
            return Err(fail(
                "invalid_target",
                &format!("this server issues tokens only for {ours}"),
            ));
        }
    };
    let asked: Vec<String> = get("scope")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if let Some(unknown) = asked
        .iter()
        .find(|s| !roles::ALL_SCOPES.contains(&s.as_str()))
    {
        return Err(fail("invalid_scope", &format!("unknown scope '{unknown}'")));
    }
    // No scope asked: everything (the role and the person's consent narrow it).
    let scopes = roles::ALL_SCOPES
        .iter()
        .filter(|s| asked.is_empty() || asked.iter().any(|a| a == *s))
        .map(|s| s.to_string())
        .collect();
    Ok(Checked {
        client,
        redirect_uri,
        state: client_state,
        code_challenge: challenge,
        scopes,
        resource,
        raw: raw.to_string(),
    })
}

/// `GET /oauth/authorize`.
pub async fn authorize(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let raw = query.unwrap_or_default();
    let checked = match check(&state, &headers, &raw).await {
        Ok(checked) => checked,
        Err(stop) => return stop.into_response(),
    };
    let secure = secure(&state.config, &headers);
    let (csrf, set_cookie) = session::csrf(&headers, secure);
    match session::session(&state.config, &headers) {
        Some(who) => consent_page(&state, &who, &checked, &csrf, set_cookie).await,
        None => pages::page(
            StatusCode::OK,
            "Entrar",
            &pages::sign_in(
                &csrf,
                &format!("/oauth/authorize?{raw}"),
                Some(&checked.client.name),
                None,
            ),
            set_cookie,
        ),
    }
}

async fn consent_page(
    state: &AppState,
    who: &Session,
    checked: &Checked,
    csrf: &str,
    set_cookie: Option<HeaderValue>,
) -> Response {
    let Ok(Some((person, role, organization))) =
        store::person_names(&state.db, &who.person_id).await
    else {
        return pages::error(
            StatusCode::FORBIDDEN,
            "Sua sessão não vale mais; entre de novo.",
        );
    };
    let permitted = roles::permissions(&role);
    let (scopes, refused): (Vec<String>, Vec<String>) = checked
        .scopes
        .iter()
        .cloned()
        .partition(|s| permitted.contains(&s.as_str()));
    let host = Url::parse(&checked.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| checked.redirect_uri.clone());
    let mut response = pages::page(
        StatusCode::OK,
        "Autorizar aplicativo",
        &pages::consent(&pages::Consent {
            csrf,
            request: &checked.raw,
            application: &checked.client.name,
            redirect_host: &host,
            person: &person,
            organization: &organization,
            scopes: &scopes,
            refused: &refused,
        }),
        set_cookie,
    );
    pages::allow_form_target(&mut response, &checked.redirect_uri);
    response
}

/// Where a sign-in may send the browser afterwards: only our own OAuth pages.
fn safe_return(to: Option<&str>) -> String {
    match to {
        Some(to) if to.starts_with("/oauth/") && !to.contains("//") && !to.contains('\\') => {
            to.to_string()
        }
        _ => "/oauth/apps".to_string(),
    }
}

/// A CSRF failure: the form did not come from our page in this browser.
pub fn csrf_refused() -> Response {
    pages::error(
        StatusCode::FORBIDDEN,
        "O formulário expirou ou não veio desta página (falta o código de segurança). Recarregue a página e tente de novo.",
    )
}

/// `POST /oauth/sign-in`: check the e-mail and password, lock the account after repeated
/// failures, start a session and go back where the person came from.
pub async fn sign_in(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let fields = form(&body);
    if !session::csrf_ok(&headers, form_first(&fields, "csrf")) {
        return csrf_refused();
    }
    let return_to = safe_return(form_first(&fields, "return_to"));
    let email = form_first(&fields, "email")
        .unwrap_or_default()
        .trim()
        .to_lowercase();
    let password = form_first(&fields, "password")
        .unwrap_or_default()
        .to_string();
    let secure = secure(&state.config, &headers);
    let (csrf, _) = session::csrf(&headers, secure);
    let again = |status: StatusCode, message: &str| {
        pages::page(
            status,
            "Entrar",
            &pages::sign_in(&csrf, &return_to, None, Some(message)),
            None,
        )
    };
    if email.is_empty() || email.len() > 254 || password.is_empty() || password.len() > 1024 {
        return again(StatusCode::BAD_REQUEST, "Informe o e-mail e a senha.");
    }
    let candidates = match store::sign_in_candidates(&state.db, &email).await {
        Ok(found) => found,
        Err(e) => {
            tracing::error!("sign-in lookup failed: {e}");
            return pages::error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Erro interno; tente de novo em instantes.",
            );
        }
    };
    let now = now_epoch();
    if let Some(until) = candidates
        .iter()
        .filter_map(|c| c.locked_until_epoch)
        .filter(|until| *until > now)
        .max()
    {
        let minutes = (until - now + 59) / 60;
        let mut response = again(
            StatusCode::TOO_MANY_REQUESTS,
            &format!("Muitas tentativas erradas. Tente de novo em {minutes} minuto(s)."),
        );
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_str(&(until - now).to_string()).expect("digits"),
        );
        return response;
    }
    let with_password: Vec<_> = candidates
        .iter()
        .filter(|c| c.password_hash.is_some())
        .collect();
    if with_password.is_empty() {
        // Same work as a wrong password, so the answer's time does not say whether the
        // address exists.
        passwords::verify_blocking(password, passwords::decoy().to_string()).await;
        return again(StatusCode::BAD_REQUEST, "E-mail ou senha incorretos.");
    }
    let mut signed_in = None;
    for candidate in &with_password {
        let stored = candidate.password_hash.clone().unwrap_or_default();
        if passwords::verify_blocking(password.clone(), stored).await {
            signed_in = Some(*candidate);
            break;
        }
    }
    let Some(person) = signed_in else {
        for candidate in &with_password {
            let locked = passwords::lock_after(candidate.failed_sign_ins + 1, now);
            if let Err(e) = store::record_failure(&state.db, &candidate.person_id, locked).await {
                tracing::error!("cannot record a failed sign-in: {e}");
            }
        }
        tracing::info!("sign-in refused: wrong password");
        return again(StatusCode::BAD_REQUEST, "E-mail ou senha incorretos.");
    };
    if let Err(e) = store::clear_failures(&state.db, &person.person_id).await {
        tracing::error!("cannot clear sign-in failures: {e}");
    }
    let who = Session {
        organization_id: person.organization_id.clone(),
        person_id: person.person_id.clone(),
    };
    tracing::info!(person = %who.person_id, "signed in");
    let mut response = Redirect::to(&return_to).into_response();
    response.headers_mut().append(
        header::SET_COOKIE,
        session::start(&state.config, &who, secure),
    );
    response
}

/// `POST /oauth/consent`: the person allowed (some of the scopes) or denied.
pub async fn consent(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let fields = form(&body);
    if !session::csrf_ok(&headers, form_first(&fields, "csrf")) {
        return csrf_refused();
    }
    let raw = form_first(&fields, "request")
        .unwrap_or_default()
        .to_string();
    let checked = match check(&state, &headers, &raw).await {
        Ok(checked) => checked,
        Err(stop) => return stop.into_response(),
    };
    let Some(who) = session::session(&state.config, &headers) else {
        let secure = secure(&state.config, &headers);
        let (csrf, set_cookie) = session::csrf(&headers, secure);
        return pages::page(
            StatusCode::OK,
            "Entrar",
            &pages::sign_in(
                &csrf,
                &format!("/oauth/authorize?{raw}"),
                Some(&checked.client.name),
                Some("Sua sessão expirou; entre de novo."),
            ),
            set_cookie,
        );
    };
    let iss = issuer(&state.config, &headers);
    let deny = |description: &str| {
        Redirect::to(&back(
            &checked.redirect_uri,
            &[
                ("error", "access_denied"),
                ("error_description", description),
            ],
            checked.state.as_deref(),
            &iss,
        ))
        .into_response()
    };
    if form_first(&fields, "decision") != Some("allow") {
        return deny("the person denied access");
    }
    let Ok(Some((_, role, _))) = store::person_names(&state.db, &who.person_id).await else {
        return pages::error(
            StatusCode::FORBIDDEN,
            "Sua sessão não vale mais; entre de novo.",
        );
    };
    // Granted: what the person ticked, of what was asked, that the role permits.
    let permitted = roles::permissions(&role);
    let ticked = form_all(&fields, "scope");
    let granted: Vec<String> = checked
        .scopes
        .iter()
        .filter(|s| ticked.contains(&s.as_str()) && permitted.contains(&s.as_str()))
        .cloned()
        .collect();
    if granted.is_empty() {
        return deny("no scope was granted");
    }
    let code = new_secret(32);
    let stored = store::create_authorization(
        &state.db,
        NewAuthorization {
            organization_id: &who.organization_id,
            person_id: &who.person_id,
            client_id: &checked.client.id,
            scopes: &granted,
            resource: &checked.resource,
            code_hash: &tokens::hash(&code),
            redirect_uri: &checked.redirect_uri,
            code_challenge: &checked.code_challenge,
            code_expires_at_epoch: now_epoch() + CODE_SECS,
        },
    )
    .await;
    if let Err(e) = stored {
        tracing::error!("cannot store an authorization: {e}");
        return pages::error(
            StatusCode::SERVICE_UNAVAILABLE,
            "Erro interno; tente de novo em instantes.",
        );
    }
    tracing::info!(person = %who.person_id, client = %checked.client.id, "authorization granted");
    Redirect::to(&back(
        &checked.redirect_uri,
        &[("code", &code)],
        checked.state.as_deref(),
        &iss,
    ))
    .into_response()
}
