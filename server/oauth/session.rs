//! The browser side of sign-in: a signed session cookie saying who signed in, and the CSRF
//! token every form carries.
//!
//! The session cookie is `organization.person.expiry.signature`, signed with HMAC-SHA256 under
//! the confirmation secret (shared by replicas), so no session table is needed. CSRF is the
//! double-submit pattern: a random `kd_csrf` cookie, the same value in a hidden field; a
//! cross-site form can send the cookie but cannot read it to fill the field. Both cookies are
//! `HttpOnly`, `SameSite=Lax`, limited to `/oauth`, and `Secure` when the issuer is https.

use hmac::{Hmac, Mac};
use http::{HeaderMap, HeaderValue, header};
use sha2::Sha256;

use crate::config::Config;
use crate::store::ids::new_secret;
use crate::store::oauth::now_epoch;

pub const CSRF_COOKIE: &str = "kd_csrf";
pub const SESSION_COOKIE: &str = "kd_session";
/// How long a sign-in lasts in the browser.
pub const SESSION_SECS: i64 = 3600;

/// A signed-in person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub organization_id: String,
    pub person_id: String,
}

/// The value of cookie `name` in the request, if sent.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
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

fn sign(config: &Config, text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(&config.confirmation_secret)
        .expect("HMAC takes a key of any length");
    mac.update(b"kd-session\0");
    mac.update(text.as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The live session of the request, if its cookie is there, signed by us and not expired.
pub fn session(config: &Config, headers: &HeaderMap) -> Option<Session> {
    let value = cookie(headers, SESSION_COOKIE)?;
    let (signed, signature) = value.rsplit_once('.')?;
    if !equal(sign(config, signed).as_bytes(), signature.as_bytes()) {
        return None;
    }
    let mut parts = signed.split('.');
    let (org, person, expiry) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || expiry.parse::<i64>().ok()? <= now_epoch() {
        return None;
    }
    Some(Session {
        organization_id: org.to_string(),
        person_id: person.to_string(),
    })
}

fn attributes(secure: bool, max_age: i64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

/// `Set-Cookie` for a new sign-in.
pub fn start(config: &Config, session: &Session, secure: bool) -> HeaderValue {
    let signed = format!(
        "{}.{}.{}",
        session.organization_id,
        session.person_id,
        now_epoch() + SESSION_SECS
    );
    let value = format!(
        "{SESSION_COOKIE}={signed}.{}{}",
        sign(config, &signed),
        attributes(secure, SESSION_SECS)
    );
    HeaderValue::from_str(&value).expect("ids and hex make a valid header")
}

/// `Set-Cookie` that signs out.
pub fn end(secure: bool) -> HeaderValue {
    HeaderValue::from_str(&format!("{SESSION_COOKIE}={}", attributes(secure, 0)))
        .expect("a constant header")
}

/// The CSRF token for the forms of this page: the browser's, or a new one with the
/// `Set-Cookie` that gives it to the browser.
pub fn csrf(headers: &HeaderMap, secure: bool) -> (String, Option<HeaderValue>) {
    match cookie(headers, CSRF_COOKIE).filter(|v| v.len() >= 32 && v.len() <= 64) {
        Some(token) => (token, None),
        None => {
            let token = new_secret(32);
            let set = format!("{CSRF_COOKIE}={token}{}", attributes(secure, 86_400));
            let value = HeaderValue::from_str(&set).expect("base64url makes a valid header");
            (token, Some(value))
        }
    }
}

/// Whether the form's token is the browser's cookie.
pub fn csrf_ok(headers: &HeaderMap, field: Option<&str>) -> bool {
    match (cookie(headers, CSRF_COOKIE), field) {
        (Some(cookie), Some(field)) if !field.is_empty() => {
            equal(cookie.as_bytes(), field.as_bytes())
        }
        _ => false,
    }
}

/// Comparison whose time does not depend on where the inputs differ.
fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cookie: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_str(cookie).unwrap());
        h
    }

    #[test]
    fn a_session_cookie_is_believed_only_with_our_signature() {
        let config = Config::local();
        let who = Session {
            organization_id: "org_a".into(),
            person_id: "per_b".into(),
        };
        let set = start(&config, &who, false);
        let pair = set.to_str().unwrap().split(';').next().unwrap().to_string();
        assert_eq!(session(&config, &headers(&pair)), Some(who));
        let forged = pair.replace("per_b", "per_c");
        assert_eq!(session(&config, &headers(&forged)), None);
        let other = Config::local();
        assert_eq!(session(&other, &headers(&pair)), None);
    }

    #[test]
    fn the_csrf_field_must_equal_the_cookie() {
        let token = "a".repeat(43);
        let h = headers(&format!("x=1; {CSRF_COOKIE}={token}"));
        assert!(csrf_ok(&h, Some(&token)));
        assert!(!csrf_ok(&h, Some("b")));
        assert!(!csrf_ok(&h, None));
        assert!(!csrf_ok(&HeaderMap::new(), Some(&token)));
    }
}
