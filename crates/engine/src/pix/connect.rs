//! A PSP connection as the organization gives it (`PUT /v1/pix/psp`, `kobana-dunning pix
//! connect`): checked, its secrets sealed, and the callback's secret made.
//!
//! The URLs must be `https://` (the PSP authenticates us by our certificate, so there is no
//! connection without TLS), without user name, password, query or fragment, and lead where
//! the outbound guard lets us go; the certificate and key must make a client identity. The
//! callback's secret is 32 random bytes (256 bits, URL-safe base64): sealed, to build the URL
//! registered at the PSP, and as its SHA-256, what a callback is found by.

use sha2::{Digest, Sha256};

use super::PixSettings;
use super::client::{check_identity, default_token_url};
use super::sealed::context;
use crate::outbound::Policy;
use dunning_store::ids;
use dunning_store::pix_psp::NewConnection;

/// What the organization gives.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionInput<'a> {
    pub api_url: &'a str,
    /// `None`: `{api_url}/oauth/token`.
    pub token_url: Option<&'a str>,
    pub client_id: &'a str,
    pub client_secret: &'a str,
    pub certificate_pem: &'a str,
    pub private_key_pem: &'a str,
}

/// A field that cannot be used: its name, a stable code, why; `forbidden` when the outbound
/// guard refused it (a 422 rather than a 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub field: &'static str,
    pub code: &'static str,
    pub message: String,
    pub forbidden: bool,
}

/// A connection ready to store: the URLs and client id, the sealed secrets, the callback
/// secret's hash.
#[derive(Clone)]
pub struct Prepared {
    pub id: String,
    pub api_url: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret_sealed: String,
    pub certificate_sealed: String,
    pub private_key_sealed: String,
    pub webhook_secret_sealed: String,
    pub sealed_with: String,
    pub webhook_secret_hash: String,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("id", &self.id)
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// The row to write.
    pub fn row(&self) -> NewConnection<'_> {
        NewConnection {
            id: &self.id,
            api_url: &self.api_url,
            token_url: &self.token_url,
            client_id: &self.client_id,
            client_secret_sealed: &self.client_secret_sealed,
            certificate_sealed: &self.certificate_sealed,
            private_key_sealed: &self.private_key_sealed,
            webhook_secret_sealed: &self.webhook_secret_sealed,
            sealed_with: &self.sealed_with,
            webhook_secret_hash: &self.webhook_secret_hash,
        }
    }
}

/// The SHA-256 (hex) a callback's secret is stored and found by.
pub fn secret_hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fault(field: &'static str, code: &'static str, message: impl Into<String>) -> Fault {
    Fault {
        field,
        code,
        message: message.into(),
        forbidden: false,
    }
}

/// An `https://` URL without credentials, query or fragment, that the guard lets us reach.
fn check_url(policy: Policy, field: &'static str, url: &str, faults: &mut Vec<Fault>) {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        faults.push(fault(field, "format", "Must be an absolute https:// URL"));
        return;
    };
    if parsed.scheme() != "https" || !parsed.has_host() {
        faults.push(fault(
            field,
            "scheme",
            "Must be an https:// URL: the PSP is reached over mutual TLS",
        ));
    } else if !parsed.username().is_empty() || parsed.password().is_some() {
        faults.push(fault(
            field,
            "credentials",
            "Must not carry a user name or password: the client id and secret go in their own fields",
        ));
    } else if parsed.query().is_some() || parsed.fragment().is_some() {
        faults.push(fault(
            field,
            "format",
            "Must not have a query (?...) or fragment (#...)",
        ));
    } else if let Err(refusal) = policy.check(&parsed) {
        faults.push(Fault {
            forbidden: true,
            ..fault(
                field,
                "target_forbidden",
                format!("{refusal}: a PSP is reached at a public internet address"),
            )
        });
    }
}

/// Check `input` and seal its secrets for `organization_id` (`id`: the connection's id, kept
/// when one is replaced).
pub fn prepare(
    settings: &PixSettings,
    organization_id: &str,
    id: Option<&str>,
    input: &ConnectionInput<'_>,
) -> Result<Prepared, Vec<Fault>> {
    let policy = Policy::new(settings.allow_private);
    let mut faults = Vec::new();
    let api_url = input.api_url.trim().trim_end_matches('/').to_string();
    check_url(policy, "api_url", &api_url, &mut faults);
    let token_url = match input.token_url.map(str::trim).filter(|t| !t.is_empty()) {
        Some(url) => {
            check_url(policy, "token_url", url, &mut faults);
            url.to_string()
        }
        None => default_token_url(&api_url),
    };
    let client_id = input.client_id.trim();
    if client_id.is_empty() {
        faults.push(fault("client_id", "required", "Must not be blank"));
    }
    if input.client_secret.is_empty() {
        faults.push(fault("client_secret", "required", "Must not be empty"));
    }
    if let Err(message) = check_identity(input.certificate_pem, input.private_key_pem) {
        // A pair that does not make an identity is the fault of both, as far as we can tell.
        let fields: &[&'static str] = match message.split(':').next() {
            Some("certificate") => &["certificate"],
            Some("private_key") => &["private_key"],
            _ => &["certificate", "private_key"],
        };
        for field in fields {
            faults.push(fault(field, "identity", message.clone()));
        }
    }
    let Some(key) = settings.secrets_key.as_ref() else {
        faults.push(fault(
            "client_secret",
            "unavailable",
            "This server has no Pix secrets key to seal it with",
        ));
        return Err(faults);
    };
    if !faults.is_empty() {
        return Err(faults);
    }
    let seal =
        |field: &str, value: &str| key.seal(&context(organization_id, field), value.as_bytes());
    let secret = ids::new_secret(32);
    Ok(Prepared {
        id: id.map_or_else(|| ids::new_id("pxc"), str::to_string),
        api_url,
        token_url,
        client_id: client_id.to_string(),
        client_secret_sealed: seal("client_secret", input.client_secret),
        certificate_sealed: seal("certificate", input.certificate_pem),
        private_key_sealed: seal("private_key", input.private_key_pem),
        webhook_secret_sealed: seal("webhook_secret", &secret),
        sealed_with: key.fingerprint().to_string(),
        webhook_secret_hash: secret_hash(&secret),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pix::sealed::SecretsKey;

    fn settings() -> PixSettings {
        PixSettings {
            secrets_key: Some(SecretsKey::from_secret(b"test key of the connect module")),
            ..PixSettings::default()
        }
    }

    fn input(api_url: &str) -> ConnectionInput<'_> {
        ConnectionInput {
            api_url,
            token_url: None,
            client_id: "client",
            client_secret: "secret",
            certificate_pem: "not a certificate",
            private_key_pem: "not a key",
        }
    }

    fn faults(api_url: &str) -> Vec<(&'static str, &'static str, bool)> {
        prepare(&settings(), "org_a", None, &input(api_url))
            .unwrap_err()
            .into_iter()
            .map(|f| (f.field, f.code, f.forbidden))
            .collect()
    }

    #[test]
    fn a_psp_is_reached_over_https_at_a_public_address_only() {
        assert_eq!(
            faults("http://pix.example.com/api"),
            [
                ("api_url", "scheme", false),
                ("certificate", "identity", false)
            ]
        );
        assert_eq!(
            faults("https://127.0.0.1:8443/api"),
            [
                ("api_url", "target_forbidden", true),
                ("certificate", "identity", false)
            ]
        );
        assert_eq!(
            faults("https://metadata.google.internal/"),
            [
                ("api_url", "target_forbidden", true),
                ("certificate", "identity", false)
            ]
        );
        assert_eq!(
            faults("https://user:pw@pix.example.com/api"),
            [
                ("api_url", "credentials", false),
                ("certificate", "identity", false)
            ]
        );
        assert_eq!(
            faults("https://pix.example.com/api?x=1"),
            [
                ("api_url", "format", false),
                ("certificate", "identity", false)
            ]
        );
        assert_eq!(
            faults("https://pix.example.com/api/v2/"),
            [("certificate", "identity", false)]
        );
    }

    #[test]
    fn the_callback_secret_is_found_by_its_hash() {
        assert_eq!(
            secret_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
