//! People's passwords: Argon2id hashes in PHC strings (the throttle of failed sign-ins is
//! `throttle`).
//!
//! Hashing is slow on purpose (19 MiB, 2 passes: OWASP's Argon2id minimum), so it runs on the
//! blocking pool, never on a request's task.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

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

/// A hash of a password nobody knows (made once with [`hash`], the password thrown away),
/// verified when no person has the e-mail address, so that an unknown address takes as long
/// to refuse as a wrong password: what a check costs depends only on the hash's parameters,
/// which a test holds to [`hash`]'s. A constant, not a hash made at start: making one took
/// 19 MiB and tens of milliseconds of a core in every process (a server's RSS kept it after
/// its start, bench/RESULTS.md).
pub const DECOY: &str = "$argon2id$v=19$m=19456,t=2,p=1$fIn8xx5PzZGf9oNeveUO1w$gEQfhS0yXVSh0389a8wi0wjX1dRJEDy/sOwwNHg/Vv0";

/// Check a password against the decoy, off the request's task: the work of a wrong password.
pub async fn verify_decoy_blocking(password: String) {
    let _ = tokio::task::spawn_blocking(move || verify(&password, DECOY)).await;
}

/// Check a password off the request's task.
pub async fn verify_blocking(password: String, stored: String) -> bool {
    tokio::task::spawn_blocking(move || verify(&password, &stored))
        .await
        .unwrap_or(false)
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
    fn the_decoy_is_a_hash_with_the_parameters_of_every_hash() {
        let decoy = PasswordHash::new(DECOY).expect("a PHC string");
        let stored = hash("correct horse battery");
        let stored = PasswordHash::new(&stored).expect("a PHC string");
        assert_eq!(
            (decoy.algorithm, decoy.version, &decoy.params),
            (stored.algorithm, stored.version, &stored.params)
        );
        assert!(decoy.hash.is_some_and(|h| h.len() == 32));
        assert!(!verify("", DECOY));
    }
}
