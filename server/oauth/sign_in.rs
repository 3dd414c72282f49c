//! `POST /oauth/sign-in`: the e-mail and password form. The attempt is counted by the
//! throttle before the password is checked; a success starts a new server-side session and
//! gives the browser a device cookie; known and unknown addresses get the same answers, after
//! the same work (one Argon2id verification, or none when throttled).

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Redirect, Response};
use http::{HeaderMap, HeaderValue, StatusCode, header};

use super::session::Visitor;
use super::{form, form_first, forms, pages, passwords, throttle};
use crate::state::AppState;
use dunning_store::oauth::{self as store, now_epoch};
use dunning_store::sign_in::{self, Attempt, SessionOwner};

/// Where a sign-in may send the browser afterwards: only our own OAuth pages, written as a
/// URL path is on the wire (visible ASCII only: a CR or LF would split the `Location` header,
/// and a value that cannot be a header made the answer a 500 after the session was started).
pub fn safe_return(to: Option<&str>) -> String {
    match to {
        Some(to)
            if to.starts_with("/oauth/")
                && !to.contains("//")
                && !to.contains('\\')
                && to.bytes().all(|b| b.is_ascii_graphic()) =>
        {
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

/// The page of a storage failure.
pub fn unavailable(e: impl std::fmt::Display) -> Response {
    tracing::error!("OAuth page failed: {e}");
    pages::error(
        StatusCode::SERVICE_UNAVAILABLE,
        "Erro interno; tente de novo em instantes.",
    )
}

/// `POST /oauth/sign-in`.
pub async fn sign_in(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let outcome = attempt(&state, &headers, body).await;
    state.metrics.oauth("sign_in", outcome.word());
    outcome.response
}

/// A sign-in answer and the word it is counted under.
struct Outcome {
    word: &'static str,
    response: Response,
}

impl Outcome {
    fn word(&self) -> &'static str {
        self.word
    }
}

fn outcome(word: &'static str, response: Response) -> Outcome {
    Outcome { word, response }
}

async fn attempt(
    state: &AppState,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Outcome {
    let body = match forms::form_body(body) {
        Ok(body) => body,
        Err(refused) => return outcome("refused", refused.into_response()),
    };
    if let Some(why) = forms::foreign_origin(state, headers) {
        return outcome("refused", forms::foreign_origin_refused(&why));
    }
    let visitor = match Visitor::of(state, headers).await {
        Ok(visitor) => visitor,
        Err(e) => return outcome("unavailable", unavailable(e)),
    };
    let fields = form(&body);
    if !visitor.csrf_ok(&state.config, form_first(&fields, "csrf")) {
        return outcome("refused", csrf_refused());
    }
    let return_to = safe_return(form_first(&fields, "return_to"));
    let email = form_first(&fields, "email")
        .unwrap_or_default()
        .trim()
        .to_lowercase();
    let password = form_first(&fields, "password")
        .unwrap_or_default()
        .to_string();
    let (csrf, _) = visitor.csrf(&state.config);
    let again = |status: StatusCode, message: &str| {
        pages::page(
            status,
            &pages::SignIn {
                csrf: &csrf,
                return_to: &return_to,
                application: None,
                message: Some(message),
            },
            None,
        )
    };
    if email.is_empty() || email.len() > 254 || password.is_empty() || password.len() > 1024 {
        return outcome(
            "invalid",
            again(StatusCode::BAD_REQUEST, "Informe o e-mail e a senha."),
        );
    }
    let candidates = match store::sign_in_candidates(&state.db, &email).await {
        Ok(found) => found,
        Err(e) => return outcome("unavailable", unavailable(e)),
    };
    // A device cookie counts only for one of the people this address belongs to.
    let device = throttle::device(&state.config, visitor.cookies, headers)
        .filter(|d| candidates.iter().any(|c| c.person_id == d.person_id));
    let key = throttle::key(&email, device.as_ref());
    let now = now_epoch();
    match sign_in::count_attempt(&state.db, &key, now, throttle::POLICY).await {
        Ok(Attempt::Counted) => {}
        Ok(Attempt::Locked(until)) => {
            let minutes = (until - now + 59) / 60;
            let mut response = again(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("Muitas tentativas erradas. Tente de novo em {minutes} minuto(s)."),
            );
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from_str(&(until - now).to_string()).expect("digits"),
            );
            return outcome("throttled", response);
        }
        Err(e) => return outcome("unavailable", unavailable(e)),
    }
    let Some(person) = check_password(state, &candidates, &password).await else {
        tracing::info!("sign-in refused: wrong e-mail or password");
        return outcome(
            "wrong_password",
            again(StatusCode::BAD_REQUEST, "E-mail ou senha incorretos."),
        );
    };
    let owner = SessionOwner {
        organization_id: person.organization_id.clone(),
        person_id: person.person_id.clone(),
    };
    let started = async {
        sign_in::clear_attempts(&state.db, &key).await?;
        visitor.sign_in(state, &owner).await
    }
    .await;
    let cookies = match started {
        Ok(cookies) => cookies,
        Err(e) => return outcome("unavailable", unavailable(e)),
    };
    tracing::info!(person = %owner.person_id, "signed in");
    let mut response = Redirect::to(&return_to).into_response();
    let set = response.headers_mut();
    for cookie in cookies {
        set.append(header::SET_COOKIE, cookie);
    }
    set.append(
        header::SET_COOKIE,
        throttle::new_device(&state.config, visitor.cookies, &owner.person_id),
    );
    outcome("signed_in", response)
}

/// The person whose password this is, among those with the typed address. One verification
/// per person with a password, and one of a decoy hash when there is none, so an unknown
/// address costs what a known one does.
async fn check_password<'a>(
    state: &AppState,
    candidates: &'a [store::SignInCandidate],
    password: &str,
) -> Option<&'a store::SignInCandidate> {
    let with_password: Vec<_> = candidates
        .iter()
        .filter(|c| c.password_hash.is_some())
        .collect();
    if with_password.is_empty() {
        state.metrics.oauth("password_check", "checked");
        passwords::verify_decoy_blocking(password.to_string()).await;
        return None;
    }
    for candidate in with_password {
        state.metrics.oauth("password_check", "checked");
        let stored = candidate.password_hash.clone().unwrap_or_default();
        if passwords::verify_blocking(password.to_string(), stored).await {
            return Some(candidate);
        }
    }
    None
}
