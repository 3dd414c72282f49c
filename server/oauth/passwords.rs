//! People's passwords: Argon2id hashes in PHC strings, and the lockout after repeated
//! failures.
//!
//! Hashing is slow on purpose (19 MiB, 2 passes: OWASP's Argon2id minimum), so it runs on the
//! blocking pool, never on a request's task.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

/// Failures in a row before the account locks.
pub const FAILURES_BEFORE_LOCK: i64 = 5;
/// The longest lock, in seconds.
const LONGEST_LOCK_SECS: i64 = 3600;
/// Shortest and longest password accepted by `person set-password`.
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 12..=256;

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("constant Argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`.
pub fn hash(password: &str) -> String {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the OS random source is available");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a valid salt");
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .expect("Argon2 hashes any password with valid parameters")
        .to_string()
}

/// Whether `password` matches the stored PHC string (whatever parameters it was made with).
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|parsed| {
        argon2()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of nothing anyone knows, verified when no person has the e-mail address, so that
/// an unknown address takes as long to refuse as a wrong password.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash(&crate::store::ids::new_secret(16)))
}

/// Check a password off the request's task.
pub async fn verify_blocking(password: String, stored: String) -> bool {
    tokio::task::spawn_blocking(move || verify(&password, &stored))
        .await
        .unwrap_or(false)
}

/// Until when an account stays locked after its `failures`-th failure in a row: from the
/// fifth on, 1, 2, 4, ... minutes, at most an hour. `None`: not locked.
pub fn lock_after(failures: i64, now: i64) -> Option<i64> {
    if failures < FAILURES_BEFORE_LOCK {
        return None;
    }
    let doublings = (failures - FAILURES_BEFORE_LOCK).min(6) as u32;
    Some(now + (60 * 2_i64.pow(doublings)).min(LONGEST_LOCK_SECS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_verifies_against_its_own_hash_only() {
        let stored = hash("correct horse battery");
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("correct horse battery", &stored));
        assert!(!verify("correct horse batterY", &stored));
        assert!(!verify("anything", "not a phc string"));
    }

    #[test]
    fn the_lock_starts_at_the_fifth_failure_and_doubles_up_to_an_hour() {
        assert_eq!(lock_after(4, 0), None);
        assert_eq!(lock_after(5, 0), Some(60));
        assert_eq!(lock_after(6, 0), Some(120));
        assert_eq!(lock_after(30, 0), Some(3600));
    }
}
