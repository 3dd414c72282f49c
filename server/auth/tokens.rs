//! Bearer tokens: random secrets shown once, stored as SHA-256 hashes.

use sha2::{Digest, Sha256};

use super::Audience;
use dunning_store::ids::new_secret;

/// A new secret such as `kd_mcp_<43 characters>`; the prefix tells people and secret
/// scanners what it is and where it works.
pub fn generate(audience: Audience) -> String {
    format!("kd_{}_{}", audience.as_str(), new_secret(32))
}

/// What the database stores instead of the secret: its SHA-256 in lowercase hex. Every
/// authenticated request hashes its token; `hex::encode` collects the text a `char` at a time
/// (1.8k instructions a request, more than a cached token's lookup), `encode_to_slice` writes
/// it from a table.
pub fn hash(token: &str) -> String {
    let mut text = [0u8; 64];
    hex::encode_to_slice(Sha256::digest(token.as_bytes()), &mut text)
        .expect("a SHA-256 is 32 bytes, 64 hex digits");
    String::from_utf8_lossy(&text).into_owned()
}

/// Parse `Authorization: Bearer <token>`; `None` when absent or of another scheme.
pub fn bearer(header: Option<&str>) -> Option<&str> {
    let value = header?.trim();
    let (scheme, token) = value.split_once(' ')?;
    if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() {
        Some(token.trim())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_their_audience_and_hash_stably() {
        let t = generate(Audience::Mcp);
        assert!(t.starts_with("kd_mcp_") && t.len() > 40);
        assert_eq!(hash(&t), hash(&t));
        assert_ne!(hash(&t), hash(&generate(Audience::Mcp)));
        // FIPS 180-2's example: what the database holds for the token "abc".
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn bearer_parsing_is_strict_about_the_scheme() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(None), None);
    }
}
