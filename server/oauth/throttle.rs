//! Slowing password guessing down without letting strangers lock people out: the device
//! cookies of OWASP's Authentication Cheat Sheet ("Slow down online guessing attacks with
//! device cookies").
//!
//! Every sign-in attempt is counted under one key before its password is checked
//! (`store::sign_in::count_attempt`, atomic, so concurrent guesses cannot pass the budget):
//!
//! - a browser holding a **device cookie** of one of the people with the typed e-mail (a
//!   signed `person.nonce` that each successful sign-in gives, kept a year) is counted under
//!   that cookie: five failures lock that cookie alone;
//! - **any other browser** is counted under the typed e-mail address, known or not (so the
//!   answer never tells which addresses exist): five failures lock untrusted browsers out of
//!   that address, while the people it belongs to still sign in from their devices.
//!
//! A lock lasts 1, 2, 4 ... minutes, at most an hour; failures are forgotten a day after the
//! last one, and a success clears its key. Keys are stored hashed.

use http::{HeaderMap, HeaderValue};

use super::session::{Cookies, signed, verified};
use crate::auth::tokens;
use crate::config::Config;
use dunning_store::ids::new_secret;
use dunning_store::sign_in::{FORGET_AFTER_SECS, ThrottlePolicy};

/// The device cookie's name (before the `__Host-` prefix).
pub const DEVICE: &str = "kd_device";
/// How long a browser keeps its device cookie.
const DEVICE_SECS: i64 = 365 * 86_400;
/// Failures in a row before a key locks.
pub const FAILURES_BEFORE_LOCK: i64 = 5;
/// The longest lock, in seconds.
const LONGEST_LOCK_SECS: i64 = 3600;

/// The throttle of sign-in attempts.
pub const POLICY: ThrottlePolicy = ThrottlePolicy {
    lock_after,
    forget_after: FORGET_AFTER_SECS,
};

/// Until when a key stays locked after its `failures`-th failure in a row: from the fifth
/// on, 1, 2, 4, ... minutes, at most an hour. `None`: not locked.
pub fn lock_after(failures: i64, now: i64) -> Option<i64> {
    if failures < FAILURES_BEFORE_LOCK {
        return None;
    }
    let doublings = (failures - FAILURES_BEFORE_LOCK).min(6) as u32;
    Some(now + (60 * 2_i64.pow(doublings)).min(LONGEST_LOCK_SECS))
}

/// A device cookie we gave: whose it is and its nonce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub person_id: String,
    nonce: String,
}

/// The request's device cookie, if it is one we signed.
pub fn device(config: &Config, cookies: Cookies, headers: &HeaderMap) -> Option<Device> {
    let value = cookies.get(headers, DEVICE)?;
    let (person_id, nonce) = verified(config, "kd-device", &value)?.split_once('.')?;
    Some(Device {
        person_id: person_id.to_string(),
        nonce: nonce.to_string(),
    })
}

/// `Set-Cookie` for a new device cookie of `person_id`.
pub fn new_device(config: &Config, cookies: Cookies, person_id: &str) -> HeaderValue {
    let value = signed(
        config,
        "kd-device",
        &format!("{person_id}.{}", new_secret(16)),
    );
    cookies.set(DEVICE, &value, DEVICE_SECS)
}

/// The throttle key of an attempt at `email` (lower-cased and trimmed), from this device (a
/// cookie of one of the address's people) or from an untrusted browser.
pub fn key(email: &str, device: Option<&Device>) -> String {
    match device {
        Some(device) => tokens::hash(&format!("device\0{}", device.nonce)),
        None => tokens::hash(&format!("email\0{email}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_starts_at_the_fifth_failure_and_doubles_up_to_an_hour() {
        assert_eq!(lock_after(4, 0), None);
        assert_eq!(lock_after(5, 0), Some(60));
        assert_eq!(lock_after(6, 0), Some(120));
        assert_eq!(lock_after(30, 0), Some(3600));
    }

    #[test]
    fn a_device_cookie_is_ours_only_when_signed_and_keys_never_mix() {
        let config = Config::local();
        let cookies = Cookies::new(false);
        let set = new_device(&config, cookies, "per_a");
        let pair = set.to_str().unwrap().split(';').next().unwrap().to_string();
        let mut headers = HeaderMap::new();
        headers.insert(http::header::COOKIE, HeaderValue::from_str(&pair).unwrap());
        let found = device(&config, cookies, &headers).expect("our cookie");
        assert_eq!(found.person_id, "per_a");
        let forged = pair.replace("per_a", "per_b");
        headers.insert(
            http::header::COOKIE,
            HeaderValue::from_str(&forged).unwrap(),
        );
        assert_eq!(device(&config, cookies, &headers), None);
        assert_ne!(key("a@b.c", Some(&found)), key("a@b.c", None));
        assert_ne!(key("a@b.c", None), key("a@b.d", None));
    }
}
