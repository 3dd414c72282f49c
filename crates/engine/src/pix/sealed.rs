//! The secrets of a PSP connection at rest: the OAuth client secret, the mTLS certificate and
//! private key, and the secret our callback URL carries are stored sealed with
//! ChaCha20-Poly1305 (ring's AEAD) under the server's Pix secrets key, never in the clear.
//!
//! Each sealed value is `v1:` and the URL-safe base64 of a random 96-bit nonce and the
//! ciphertext with its tag. The associated data is the organization and the field
//! (`org_.../client_secret`): a sealed value copied into another organization's row, or into
//! another field, does not open. The key is `--pix-secrets-key` (hashed to 32 bytes), or 32
//! random bytes kept in `server_secrets` (`pix_secrets`) when the operator gave none; a
//! stored row names its key by [`SecretsKey::fingerprint`], so a server started with another
//! key says so instead of failing obscurely.
//!
//! A key kept in the database protects the secrets from whoever reads `pix_psp_connections`
//! alone (an export, a log of a query, a copy of one table), not from whoever has the whole
//! database; an operator who wants that gives the key from outside (`SECURITY.md`).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

const VERSION: &str = "v1:";

/// The key the secrets of every connection are sealed with.
#[derive(Clone)]
pub struct SecretsKey {
    key: [u8; 32],
    fingerprint: String,
}

/// Never the key itself.
impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsKey")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

/// Why a sealed value did not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsealable {
    #[error("the stored value is not a sealed secret")]
    Malformed,
    #[error(
        "the stored secret does not open with this server's Pix secrets key (another key sealed it, or it was altered)"
    )]
    Refused,
}

impl SecretsKey {
    /// The key made from `secret` (the operator's `--pix-secrets-key`, or the bytes kept in
    /// the database): its SHA-256 under a label of its own.
    pub fn from_secret(secret: &[u8]) -> SecretsKey {
        let key: [u8; 32] = Sha256::new()
            .chain_update(b"kobana-dunning pix secrets v1\0")
            .chain_update(secret)
            .finalize()
            .into();
        let print = Sha256::new()
            .chain_update(b"kobana-dunning pix secrets fingerprint\0")
            .chain_update(key)
            .finalize();
        let fingerprint = print[..8].iter().map(|b| format!("{b:02x}")).collect();
        SecretsKey { key, fingerprint }
    }

    /// Which key this is, safe to store and show: 16 hex digits of a hash of it.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn aead(&self) -> LessSafeKey {
        LessSafeKey::new(
            UnboundKey::new(&CHACHA20_POLY1305, &self.key).expect("a 32-byte ChaCha20 key"),
        )
    }

    /// `plaintext` sealed for `context` (the organization and the field).
    pub fn seal(&self, context: &str, plaintext: &[u8]) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .expect("the OS random source is available");
        let mut sealed = plaintext.to_vec();
        self.aead()
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context.as_bytes()),
                &mut sealed,
            )
            .expect("ChaCha20-Poly1305 seals any length we store");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(out))
    }

    /// The plaintext of a value [`seal`](Self::seal)ed for `context`.
    pub fn open(&self, context: &str, sealed: &str) -> Result<Vec<u8>, Unsealable> {
        let encoded = sealed.strip_prefix(VERSION).ok_or(Unsealable::Malformed)?;
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| Unsealable::Malformed)?;
        if bytes.len() < NONCE_LEN + CHACHA20_POLY1305.tag_len() {
            return Err(Unsealable::Malformed);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| Unsealable::Malformed)?;
        let mut in_out = ciphertext.to_vec();
        let plain = self
            .aead()
            .open_in_place(nonce, Aad::from(context.as_bytes()), &mut in_out)
            .map_err(|_| Unsealable::Refused)?;
        Ok(plain.to_vec())
    }

    /// [`open`](Self::open) for text.
    pub fn open_text(&self, context: &str, sealed: &str) -> Result<String, Unsealable> {
        String::from_utf8(self.open(context, sealed)?).map_err(|_| Unsealable::Malformed)
    }
}

/// The context a field of an organization's connection is sealed for.
pub fn context(organization_id: &str, field: &str) -> String {
    format!("{organization_id}/{field}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_with_its_key_and_context_only() {
        let key = SecretsKey::from_secret(b"operator secret of 32 characters!");
        let sealed = key.seal("org_a/client_secret", b"s3cr3t");
        assert!(sealed.starts_with("v1:"), "{sealed}");
        assert!(!sealed.contains("s3cr3t"));
        assert_eq!(key.open("org_a/client_secret", &sealed).unwrap(), b"s3cr3t");
        // Every sealing has its own nonce: the same secret never reads the same twice.
        assert_ne!(key.seal("org_a/client_secret", b"s3cr3t"), sealed);
        assert_eq!(
            key.open("org_b/client_secret", &sealed),
            Err(Unsealable::Refused),
            "another organization's row"
        );
        assert_eq!(
            key.open("org_a/private_key", &sealed),
            Err(Unsealable::Refused),
            "another field"
        );
        let other = SecretsKey::from_secret(b"another operator secret entirely");
        assert_ne!(other.fingerprint(), key.fingerprint());
        assert_eq!(
            other.open("org_a/client_secret", &sealed),
            Err(Unsealable::Refused)
        );
        // One character of the ciphertext changed (the middle one: the last may carry bits
        // base64 leaves unused).
        let mut altered = sealed.clone().into_bytes();
        let middle = altered.len() / 2;
        altered[middle] = if altered[middle] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            key.open("org_a/client_secret", &String::from_utf8(altered).unwrap()),
            Err(Unsealable::Refused)
        );
        for malformed in ["", "s3cr3t", "v1:", "v1:!!!", "v2:AAAA"] {
            assert_eq!(
                key.open("org_a/client_secret", malformed),
                Err(Unsealable::Malformed),
                "{malformed}"
            );
        }
    }

    #[test]
    fn the_key_is_never_shown_only_its_fingerprint() {
        let key = SecretsKey::from_secret(b"operator secret of 32 characters!");
        assert_eq!(key.fingerprint().len(), 16);
        assert_eq!(
            key.fingerprint(),
            SecretsKey::from_secret(b"operator secret of 32 characters!").fingerprint()
        );
        let shown = format!("{key:?}");
        assert!(shown.contains(key.fingerprint()), "{shown}");
        assert!(!shown.contains("key:"), "{shown}");
    }
}
