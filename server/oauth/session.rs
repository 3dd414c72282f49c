//! The browser side of sign-in: who is signed in (a server-side session), and the CSRF token
//! every form carries, bound to that session or, before sign-in, to a pre-session.
//!
//! - The **session** cookie holds a random secret; the database keeps its SHA-256 hash
//!   (`store::sign_in`), so sign-out, a password change or the end of the person end it at
//!   once, on every replica. A new one is made at each sign-in (no fixation).
//! - The **pre-session** cookie, given to a browser that is signed out, is
//!   `id.expiry.signature`: the server made it (HMAC under the confirmation secret, which
//!   replicas share), so a value a client chose is never adopted.
//! - The **CSRF token** is an HMAC of the session's secret (or the pre-session's id) under the
//!   same key: a page can show it, nobody can compute it, and it changes with the session.
//!   Another origin of the same site can plant cookies, but cannot read ours nor produce the
//!   token of one; `forms` also refuses cross-origin submissions outright.
//!
//! Cookies are `HttpOnly` and `SameSite=Lax`. When the issuer is https they are
//! `__Host-` cookies (`Secure`, `Path=/`, no `Domain`: a sibling subdomain or a plain-http hop
//! cannot set or overwrite them). On an http (loopback) deployment browsers allow neither, so
//! the names lose the prefix and the path is `/oauth`; any program on the machine can read
//! cookies there anyway, which is why only loopback may run without TLS.

use base64::Engine;
use hmac::{Hmac, Mac};
use http::{HeaderMap, HeaderValue, header};
use sha2::Sha256;

use crate::auth::tokens;
use crate::config::Config;
use crate::state::AppState;
use dunning_store::ids::new_secret;
use dunning_store::oauth::now_epoch;
use dunning_store::sign_in::{self, SessionOwner};
use dunning_store::{Result, StoreError};

/// How long a sign-in lasts in the browser.
pub const SESSION_SECS: i64 = 3600;
/// How long a pre-session (the CSRF token of a signed-out browser) lasts.
const PRE_SESSION_SECS: i64 = 86_400;

/// The cookies of this deployment: their names and attributes.
#[derive(Debug, Clone, Copy)]
pub struct Cookies {
    secure: bool,
}

impl Cookies {
    /// `secure`: the issuer is https.
    pub fn new(secure: bool) -> Cookies {
        Cookies { secure }
    }

    /// The cookie's name here: `__Host-` prefixed on https.
    pub fn name(self, base: &'static str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_string()
        }
    }

    /// `Set-Cookie` for `base=value` kept `max_age` seconds (0: removed).
    pub fn set(self, base: &'static str, value: &str, max_age: i64) -> HeaderValue {
        let attributes = if self.secure {
            "; Path=/; HttpOnly; SameSite=Lax; Secure"
        } else {
            "; Path=/oauth; HttpOnly; SameSite=Lax"
        };
        let cookie = format!("{}={value}{attributes}; Max-Age={max_age}", self.name(base));
        HeaderValue::from_str(&cookie).expect("ids, hex and base64url make a valid header")
    }

    /// The value of cookie `base` in the request, under this deployment's name.
    pub fn get(self, headers: &HeaderMap, base: &'static str) -> Option<String> {
        let name = self.name(base);
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
            .filter(|value| !value.is_empty())
    }
}

pub const SESSION: &str = "kd_session";
pub const PRE_SESSION: &str = "kd_pre";

/// HMAC-SHA256 under the confirmation secret, of `purpose` then `text`.
pub fn mac(config: &Config, purpose: &str, text: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&config.confirmation_secret)
        .expect("HMAC takes a key of any length");
    mac.update(purpose.as_bytes());
    mac.update(b"\0");
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// `text.signature`, signed for `purpose`.
pub fn signed(config: &Config, purpose: &str, text: &str) -> String {
    format!("{text}.{}", hex::encode(mac(config, purpose, text)))
}

/// The text of a `text.signature` value we signed for `purpose`.
pub fn verified<'a>(config: &Config, purpose: &str, value: &'a str) -> Option<&'a str> {
    let (text, signature) = value.rsplit_once('.')?;
    equal(
        hex::encode(mac(config, purpose, text)).as_bytes(),
        signature.as_bytes(),
    )
    .then_some(text)
}

/// A signed-in browser: its session's secret (what the cookie holds) and whose it is.
#[derive(Debug, Clone)]
pub struct Session {
    secret: String,
    pub owner: SessionOwner,
}

/// What a request's cookies say, checked against the database and our signatures.
#[derive(Debug, Clone)]
pub struct Visitor {
    pub cookies: Cookies,
    pub session: Option<Session>,
    /// The id of the pre-session, when its cookie is one we made and it is live.
    pre_session: Option<String>,
}

impl Visitor {
    /// Read the request's session (from the database) and pre-session cookies.
    pub async fn of(state: &AppState, headers: &HeaderMap) -> Result<Visitor> {
        let cookies = Cookies::new(super::secure(&state.config, headers));
        let session = match cookies.get(headers, SESSION) {
            Some(secret) => sign_in::find_session(&state.db, &tokens::hash(&secret), now_epoch())
                .await?
                .map(|owner| Session { secret, owner }),
            None => None,
        };
        let pre_session = cookies.get(headers, PRE_SESSION).and_then(|value| {
            let text = verified(&state.config, "kd-pre", &value)?;
            let (id, expiry) = text.split_once('.')?;
            (expiry.parse::<i64>().ok()? > now_epoch()).then(|| id.to_string())
        });
        Ok(Visitor {
            cookies,
            session,
            pre_session,
        })
    }

    /// Who is signed in, if anyone.
    pub fn owner(&self) -> Option<&SessionOwner> {
        self.session.as_ref().map(|s| &s.owner)
    }

    /// The CSRF token of this browser's forms: its session's, or else its pre-session's.
    /// A browser without a live pre-session gets a new one (the `Set-Cookie` to send).
    pub fn csrf(&self, config: &Config) -> (String, Option<HeaderValue>) {
        if let Some(session) = &self.session {
            return (csrf_of(config, "session", &session.secret), None);
        }
        if let Some(id) = &self.pre_session {
            return (csrf_of(config, "pre", id), None);
        }
        let id = new_secret(16);
        let value = signed(
            config,
            "kd-pre",
            &format!("{id}.{}", now_epoch() + PRE_SESSION_SECS),
        );
        let set = self.cookies.set(PRE_SESSION, &value, PRE_SESSION_SECS);
        (csrf_of(config, "pre", &id), Some(set))
    }

    /// Whether a form's token is this browser's current one (its session's when signed in,
    /// else its pre-session's). A browser with neither has no token that could match.
    pub fn csrf_ok(&self, config: &Config, field: Option<&str>) -> bool {
        let expected = match (&self.session, &self.pre_session) {
            (Some(session), _) => csrf_of(config, "session", &session.secret),
            (None, Some(id)) => csrf_of(config, "pre", id),
            (None, None) => return false,
        };
        field.is_some_and(|field| equal(expected.as_bytes(), field.as_bytes()))
    }

    /// Start a new session for `owner` (ending the browser's earlier one): the cookies to
    /// set (the session, and the pre-session removed).
    pub async fn sign_in(
        &self,
        state: &AppState,
        owner: &SessionOwner,
    ) -> Result<[HeaderValue; 2], StoreError> {
        if let Some(old) = &self.session {
            sign_in::end_session(&state.db, &tokens::hash(&old.secret), now_epoch()).await?;
        }
        let secret = new_secret(32);
        let now = now_epoch();
        sign_in::create_session(
            &state.db,
            &tokens::hash(&secret),
            owner,
            now,
            now + SESSION_SECS,
        )
        .await?;
        Ok([
            self.cookies.set(SESSION, &secret, SESSION_SECS),
            self.cookies.set(PRE_SESSION, "", 0),
        ])
    }

    /// End the browser's session: the cookie that removes it.
    pub async fn sign_out(&self, state: &AppState) -> Result<HeaderValue, StoreError> {
        if let Some(session) = &self.session {
            sign_in::end_session(&state.db, &tokens::hash(&session.secret), now_epoch()).await?;
        }
        Ok(self.cookies.set(SESSION, "", 0))
    }
}

fn csrf_of(config: &Config, kind: &str, secret: &str) -> String {
    base64url(&mac(config, &format!("kd-csrf-{kind}"), secret))
}

/// Comparison whose time does not depend on where the inputs differ.
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_value_is_believed_only_with_our_signature_and_purpose() {
        let config = Config::local();
        let value = signed(&config, "kd-pre", "abc.123");
        assert_eq!(verified(&config, "kd-pre", &value), Some("abc.123"));
        assert_eq!(verified(&config, "kd-device", &value), None);
        assert_eq!(
            verified(&config, "kd-pre", &value.replace("abc", "abd")),
            None
        );
        assert_eq!(verified(&Config::local(), "kd-pre", &value), None);
        assert_eq!(verified(&config, "kd-pre", "no-signature"), None);
    }

    #[test]
    fn the_csrf_token_is_bound_to_the_session_or_pre_session_it_was_made_for() {
        let config = Config::local();
        let visitor = |session: Option<&str>, pre: Option<&str>| Visitor {
            cookies: Cookies::new(false),
            session: session.map(|secret| Session {
                secret: secret.to_string(),
                owner: SessionOwner {
                    organization_id: "org_a".into(),
                    person_id: "per_a".into(),
                },
            }),
            pre_session: pre.map(str::to_string),
        };
        let signed_in = visitor(Some("secret-one"), None);
        let (token, set) = signed_in.csrf(&config);
        assert!(set.is_none());
        assert!(signed_in.csrf_ok(&config, Some(&token)));
        assert!(!visitor(Some("secret-two"), None).csrf_ok(&config, Some(&token)));
        assert!(!visitor(None, Some("secret-one")).csrf_ok(&config, Some(&token)));
        // A browser with neither session nor pre-session has no token to match, whatever
        // it sends; asking for one gives it a pre-session cookie.
        let stranger = visitor(None, None);
        assert!(!stranger.csrf_ok(&config, Some(&token)));
        assert!(!stranger.csrf_ok(&config, Some("")));
        let (_, set) = stranger.csrf(&config);
        assert!(set.unwrap().to_str().unwrap().starts_with("kd_pre="));
    }

    #[test]
    fn cookies_are_host_prefixed_and_secure_on_https_only() {
        let https = Cookies::new(true).set(SESSION, "v", 60);
        assert_eq!(
            https.to_str().unwrap(),
            "__Host-kd_session=v; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60"
        );
        let http = Cookies::new(false).set(SESSION, "v", 60);
        assert_eq!(
            http.to_str().unwrap(),
            "kd_session=v; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=60"
        );
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("kd_session=planted; __Host-kd_session=ours"),
        );
        assert_eq!(
            Cookies::new(true).get(&headers, SESSION).as_deref(),
            Some("ours")
        );
        assert_eq!(
            Cookies::new(false).get(&headers, SESSION).as_deref(),
            Some("planted")
        );
    }
}
