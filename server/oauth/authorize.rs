//! The authorization endpoint and the person's two steps through it: sign in, then consent.
//!
//! `GET /oauth/authorize` checks the request (RFC 6749 §4.1 with OAuth 2.1's rules: `code`
//! only, PKCE S256 required, the redirect URI registered) and shows the sign-in form, or the
//! consent form to a person already signed in. A request whose client or redirect URI is
//! wrong is never redirected (that would make us an open redirector): the person sees an
//! error page. Other mistakes go back to the client as `error=` on its redirect URI, but only
//! once the person is signed in (RFC 9700 §4.11.2): anyone can register a redirect URI, so
//! before that the error is shown on our own page and the browser goes nowhere.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, HeaderValue, StatusCode};
use reqwest::Url;

use super::clients::{self, ClientError};
use super::session::Visitor;
use super::sign_in::{csrf_refused, unavailable};
use super::{form, form_all, form_first, forms, issuer, pages, resource, scopes as words};
use crate::auth::{roles, tokens};
use crate::state::AppState;
use dunning_store::ids::new_secret;
use dunning_store::oauth::{self as store, Client, NewAuthorization, now_epoch};
use dunning_store::sign_in::SessionOwner;

/// How long an authorization code may wait for its exchange.
pub const CODE_SECS: i64 = 60;
/// Longest `state` we carry back.
const LONGEST_STATE: usize = 500;

/// An authorization request that passed every check.
#[derive(Debug)]
pub struct Checked {
    pub client: Client,
    pub redirect_uri: String,
    /// Whether the request named `redirect_uri` (else it is the client's only one).
    pub redirect_uri_given: bool,
    pub state: Option<String>,
    pub code_challenge: String,
    /// Requested scopes (all known), in our order; every scope when none was asked for.
    pub scopes: Vec<String>,
    /// Whether the request asked for scopes (else the consent page ticks the harmless ones).
    pub scopes_asked: bool,
    pub resource: String,
    /// The query string as received, carried through the forms.
    pub raw: String,
}

/// Why a request stops.
#[derive(Debug)]
pub enum Stop {
    /// Shown to the person: the client or its redirect URI cannot be trusted.
    Page(StatusCode, String),
    /// An error the client may be told on its redirect URI (RFC 6749 §4.1.2.1, RFC 8707):
    /// the redirect with `error=`, and its OAuth error and description.
    Client {
        redirect: String,
        error: &'static str,
        description: String,
    },
}

impl Stop {
    /// The answer to a person signed in (`known`): a client error goes back to the client;
    /// to anyone else it is shown here, and the browser is sent nowhere.
    fn answer(self, known: bool) -> Response {
        match self {
            Stop::Page(status, message) => pages::error(status, &message),
            Stop::Client { redirect, .. } if known => Redirect::to(&redirect).into_response(),
            Stop::Client {
                error, description, ..
            } => pages::error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "O aplicativo fez um pedido que este servidor não atende ({error}: {description})."
                ),
            ),
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
    let redirect_uri_given = get("redirect_uri").is_some();
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
    let fail = |error: &'static str, description: &str| Stop::Client {
        redirect: back(
            &redirect_uri,
            &[("error", error), ("error_description", description)],
            client_state.as_deref(),
            &iss,
        ),
        error,
        description: description.to_string(),
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
        redirect_uri_given,
        state: client_state,
        code_challenge: challenge,
        scopes,
        scopes_asked: !asked.is_empty(),
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
    let visitor = match Visitor::of(&state, &headers).await {
        Ok(visitor) => visitor,
        Err(e) => return unavailable(e),
    };
    let checked = match check(&state, &headers, &raw).await {
        Ok(checked) => checked,
        Err(stop) => return stop.answer(visitor.owner().is_some()),
    };
    let (csrf, set_cookie) = visitor.csrf(&state.config);
    match visitor.owner() {
        Some(who) => consent_page(&state, who, &checked, &csrf).await,
        None => sign_in_page(&checked, &csrf, set_cookie, None),
    }
}

/// The sign-in form that comes back to this authorization request.
fn sign_in_page(
    checked: &Checked,
    csrf: &str,
    set_cookie: Option<HeaderValue>,
    message: Option<&str>,
) -> Response {
    pages::page(
        StatusCode::OK,
        &pages::SignIn {
            csrf,
            return_to: &format!("/oauth/authorize?{}", checked.raw),
            application: Some(&checked.client.name),
            message,
        },
        set_cookie,
    )
}

async fn consent_page(
    state: &AppState,
    who: &SessionOwner,
    checked: &Checked,
    csrf: &str,
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
    // Scopes the application asked for are ticked; with none asked, only those that change
    // nothing (the person ticks the others if they want them).
    let ticked: Vec<String> = scopes
        .iter()
        .filter(|s| checked.scopes_asked || !words::destructive(s))
        .cloned()
        .collect();
    let host = Url::parse(&checked.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| checked.redirect_uri.clone());
    // The toolsets an assistant may load, the role's defaults ticked (`context` is always
    // loaded, so it is not offered).
    let defaults = roles::default_toolsets(&role);
    let toolsets: Vec<(&'static str, bool)> = crate::generated::CATALOG
        .toolsets
        .iter()
        .filter(|t| !t.always)
        .map(|t| (t.name, defaults.is_none_or(|d| d.contains(&t.name))))
        .collect();
    let mut response = pages::page(
        StatusCode::OK,
        &pages::Consent {
            csrf,
            request: &checked.raw,
            application: &checked.client.name,
            self_registered: checked.client.kind != "preregistered",
            redirect_host: &host,
            person: &person,
            organization: &organization,
            scopes: &scopes,
            ticked: &ticked,
            refused: &refused,
            toolsets: &toolsets,
        },
        None,
    );
    pages::allow_form_target(&mut response, &checked.redirect_uri);
    response
}

/// The toolsets the person ticked on the consent page, `None` when every one was (no limit
/// beyond the scopes) or the form did not offer them (a client that fills the form itself);
/// with none ticked, the application loads only the toolsets that are always loaded.
fn chosen_toolsets(fields: &[(String, String)]) -> Option<Vec<String>> {
    form_first(fields, "toolsets_offered")?;
    let offered: Vec<&str> = crate::generated::CATALOG
        .toolsets
        .iter()
        .filter(|t| !t.always)
        .map(|t| t.name)
        .collect();
    let ticked = form_all(fields, "toolset");
    let chosen: Vec<String> = offered
        .iter()
        .filter(|t| ticked.contains(t))
        .map(|t| t.to_string())
        .collect();
    if chosen.len() == offered.len() {
        return None;
    }
    if chosen.is_empty() {
        // Only what every connection loads anyway (`context`).
        let always = crate::generated::CATALOG
            .toolsets
            .iter()
            .filter(|t| t.always);
        return Some(always.map(|t| t.name.to_string()).collect());
    }
    Some(chosen)
}

/// `POST /oauth/consent`: the person allowed (some of the scopes) or denied.
pub async fn consent(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match forms::form_body(body) {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    if let Some(why) = forms::foreign_origin(&state, &headers) {
        state.metrics.oauth("consent", "refused");
        return forms::foreign_origin_refused(&why);
    }
    let visitor = match Visitor::of(&state, &headers).await {
        Ok(visitor) => visitor,
        Err(e) => return unavailable(e),
    };
    let fields = form(&body);
    let raw = form_first(&fields, "request")
        .unwrap_or_default()
        .to_string();
    let Some(who) = visitor.owner() else {
        // Signed out meanwhile (or never): sign in again, then come back to the request.
        return match check(&state, &headers, &raw).await {
            Ok(checked) => {
                let (csrf, set_cookie) = visitor.csrf(&state.config);
                let message = Some("Sua sessão expirou; entre de novo.");
                sign_in_page(&checked, &csrf, set_cookie, message)
            }
            Err(stop) => stop.answer(false),
        };
    };
    if !visitor.csrf_ok(&state.config, form_first(&fields, "csrf")) {
        state.metrics.oauth("consent", "refused");
        return csrf_refused();
    }
    let checked = match check(&state, &headers, &raw).await {
        Ok(checked) => checked,
        Err(stop) => return stop.answer(true),
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
        state.metrics.oauth("consent", "denied");
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
        state.metrics.oauth("consent", "denied");
        return deny("no scope was granted");
    }
    let toolsets = chosen_toolsets(&fields);
    // Ticked: the application's connections get discovery mode unless they say otherwise;
    // unticked: as the operator's setting says.
    let discovery = form_first(&fields, "discovery")
        .filter(|value| *value == "on")
        .map(|_| true);
    let code = new_secret(32);
    let stored = store::create_authorization(
        &state.db,
        NewAuthorization {
            organization_id: &who.organization_id,
            person_id: &who.person_id,
            client_id: &checked.client.id,
            scopes: &granted,
            toolsets: toolsets.as_deref(),
            discovery,
            resource: &checked.resource,
            code_hash: &tokens::hash(&code),
            redirect_uri: &checked.redirect_uri,
            redirect_uri_given: checked.redirect_uri_given,
            code_challenge: &checked.code_challenge,
            code_expires_at_epoch: now_epoch() + CODE_SECS,
        },
    )
    .await;
    if let Err(e) = stored {
        return unavailable(e);
    }
    state.metrics.oauth("consent", "granted");
    tracing::info!(person = %who.person_id, client = %checked.client.id, "authorization granted");
    Redirect::to(&back(
        &checked.redirect_uri,
        &[("code", &code)],
        checked.state.as_deref(),
        &iss,
    ))
    .into_response()
}
