//! One-click unsubscribe links (RFC 8058): `<public URL>/unsubscribe/<token>`, where the token
//! names the organization, the customer and the channel and carries an HMAC-SHA256 of them
//! under the server's unsubscribe key. The engine signs one for every e-mail it sends; the
//! server's `/unsubscribe` pages check it before they change anything.
//!
//! The token is the whole authority of the request: a mailbox provider POSTs to it without
//! cookies or credentials (RFC 8058 §3.1), so whoever holds the link may opt that one customer
//! out of that one channel, and nothing else. A token is
//! `u1.<organization id>.<customer id>.<channel>.<signature>`: readable, URL-safe, and its
//! signature (base64url, 32 bytes) is checked in constant time.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The token's version, its first part.
const VERSION: &str = "u1";

/// The channels a link may name: those a debtor can opt out of.
pub const CHANNELS: [&str; 3] = ["email", "sms", "whatsapp"];

/// The longest token looked at; anything longer is malformed without further reading.
const MAX_TOKEN: usize = 200;

/// The unsubscribe key: `--unsubscribe-secret`, or the one kept in the database. Its
/// `Debug` never shows it.
#[derive(Clone, Default)]
pub struct Key(Vec<u8>);

impl Key {
    pub fn new(secret: Vec<u8>) -> Key {
        Key(secret)
    }

    /// Whether there is a key at all (an embedding that set none signs no links).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn mac(&self, target: &Target) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        // Domain-separated and length-safe: no part can contain the separator (`valid_id`).
        mac.update(b"kobana-dunning unsubscribe\n");
        mac.update(VERSION.as_bytes());
        for part in [
            &target.organization_id,
            &target.customer_id,
            &target.channel,
        ] {
            mac.update(b"\n");
            mac.update(part.as_bytes());
        }
        mac
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(<redacted>)")
    }
}

/// Whom a link opts out, and of what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub organization_id: String,
    pub customer_id: String,
    pub channel: String,
}

/// The token for `target`.
pub fn sign(key: &Key, target: &Target) -> String {
    let signature = key.mac(target).finalize().into_bytes();
    format!(
        "{VERSION}.{}.{}.{}.{}",
        target.organization_id,
        target.customer_id,
        target.channel,
        URL_SAFE_NO_PAD.encode(signature)
    )
}

/// What `token` names, when it is well formed and signed under `key`; `None` otherwise,
/// whatever the reason (the pages say nothing more either).
pub fn verify(key: &Key, token: &str) -> Option<Target> {
    if key.is_empty() || token.len() > MAX_TOKEN {
        return None;
    }
    let mut parts = token.split('.');
    let (Some(version), Some(org), Some(customer), Some(channel), Some(signature), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    if version != VERSION
        || !valid_id(org, "org_")
        || !valid_id(customer, "cus_")
        || !CHANNELS.contains(&channel)
    {
        return None;
    }
    let given = URL_SAFE_NO_PAD.decode(signature).ok()?;
    let target = Target {
        organization_id: org.to_string(),
        customer_id: customer.to_string(),
        channel: channel.to_string(),
    };
    let expected = key.mac(&target).finalize().into_bytes();
    // Constant time: how much of a forged signature is right never shows in the timing.
    bool::from(expected.as_slice().ct_eq(&given)).then_some(target)
}

/// An id as `dunning_store::ids` makes them: the prefix, then lowercase letters and digits.
fn valid_id(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix).is_some_and(|rest| {
        !rest.is_empty()
            && rest.len() <= 64
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// How the engine makes the link of each message: the server's public URL and the key.
#[derive(Debug, Clone)]
pub struct Links {
    /// The public base URL, without a trailing `/`: `--canonical-url`, else the listening URL.
    pub base_url: String,
    pub key: Key,
}

impl Links {
    /// The link that opts this customer of this organization out of `channel`.
    pub fn url(&self, organization_id: &str, customer_id: &str, channel: &str) -> String {
        let token = sign(
            &self.key,
            &Target {
                organization_id: organization_id.to_string(),
                customer_id: customer_id.to_string(),
                channel: channel.to_string(),
            },
        );
        format!(
            "{}/unsubscribe/{token}",
            self.base_url.trim_end_matches('/')
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(customer: &str) -> Target {
        Target {
            organization_id: "org_abc123".into(),
            customer_id: customer.into(),
            channel: "email".into(),
        }
    }

    #[test]
    fn a_signed_token_names_its_target_and_only_under_its_key() {
        let key = Key::new(b"0123456789abcdef0123456789abcdef".to_vec());
        let token = sign(&key, &target("cus_x1"));
        assert!(token.starts_with("u1.org_abc123.cus_x1.email."), "{token}");
        assert_eq!(verify(&key, &token), Some(target("cus_x1")));
        let other = Key::new(b"another key of thirty-two bytes!".to_vec());
        assert_eq!(verify(&other, &token), None);
        assert_eq!(verify(&Key::default(), &token), None);
    }

    #[test]
    fn a_tampered_or_malformed_token_is_refused() {
        let key = Key::new(b"0123456789abcdef0123456789abcdef".to_vec());
        let token = sign(&key, &target("cus_x1"));
        let signature = token.rsplit('.').next().unwrap();
        let refused = [
            // Another customer with the first one's signature.
            format!("u1.org_abc123.cus_x2.email.{signature}"),
            // Another channel.
            format!("u1.org_abc123.cus_x1.sms.{signature}"),
            format!("u2.org_abc123.cus_x1.email.{signature}"),
            format!("{token}.x"),
            token[..token.len() - 1].to_string(),
            format!("u1.org_abc123.cus_X1.email.{signature}"),
            format!("u1.org_abc123.cus_x1.fax.{signature}"),
            "u1.org_abc123.cus_x1.email.".to_string(),
            "u1.org_abc123.cus_x1.email.!!!".to_string(),
            String::new(),
            "x".repeat(500),
        ];
        for bad in refused {
            assert_eq!(verify(&key, &bad), None, "{bad}");
        }
        // Each character of the signature changed once.
        let start = token.len() - signature.len();
        for i in start..token.len() {
            let mut bytes = token.clone().into_bytes();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let bad = String::from_utf8(bytes).unwrap();
            assert_eq!(verify(&key, &bad), None, "{bad}");
        }
    }

    #[test]
    fn links_join_the_public_url_and_the_token() {
        let links = Links {
            base_url: "https://cobranca.example.com/".into(),
            key: Key::new(vec![7; 32]),
        };
        let url = links.url("org_a", "cus_b", "email");
        let token = url
            .strip_prefix("https://cobranca.example.com/unsubscribe/")
            .unwrap();
        assert_eq!(verify(&links.key, token).unwrap().customer_id, "cus_b");
        assert_eq!(format!("{:?}", links.key), "Key(<redacted>)");
    }
}
