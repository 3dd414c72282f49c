//! JWT access tokens from an organization's own identity provider.
//!
//! An organization may trust one issuer (`organization trust-issuer`): a token is an ES256 JWT
//! whose `iss` names that issuer, signed by a key of its JWKS (fetched through the outbound
//! guard, at most 64 KiB, cached five minutes), whose `aud` holds the configured audience and
//! whose `exp` has not passed. The configured claim (`email` by default) names the person of
//! that organization; the token's `scope` claim, when present, narrows what the role permits.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use serde_json::Value;

use super::roles;
use dunning_engine::outbound::{self, Policy};
use dunning_store::Db;
use dunning_store::oauth::{self as store, now_epoch};
use dunning_store::orgs::{self, TokenRecord};

/// How long a fetched key set is believed.
const JWKS_TTL: Duration = Duration::from_secs(300);
/// A key id not in a key set younger than this does not fetch it again (no fetch per
/// request with a made-up `kid`).
const JWKS_REFETCH_AFTER: Duration = Duration::from_secs(30);
const LARGEST_JWKS: usize = 64 * 1024;
/// Most key sets remembered (one per trusting organization).
const MOST_KEY_SETS: usize = 1000;

/// Whether `token` has the shape of a JWT (three base64url parts, a JSON header).
pub fn looks_like_jwt(token: &str) -> bool {
    token.starts_with("eyJ") && token.split('.').count() == 3
}

fn decode(part: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .ok()
}

/// Why an external token is refused (shown to the client).
pub type Refusal = &'static str;

/// The caller a valid external token stands for.
/// `policy` says which addresses the issuer's JWKS may be fetched from.
pub async fn authenticate(db: &Db, policy: Policy, token: &str) -> Result<TokenRecord, Refusal> {
    let mut parts = token.split('.');
    let (Some(head), Some(body), Some(signature)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err("The token is not a JWT");
    };
    let header: Value = decode(head)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("The JWT header is not base64url JSON")?;
    if header["alg"] != "ES256" {
        return Err("Only ES256 JWTs are accepted");
    }
    let claims: Value = decode(body)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("The JWT payload is not base64url JSON")?;
    let issuer_name = claims["iss"].as_str().ok_or("The JWT has no iss")?;
    let issuer = store::find_external_issuer(db, issuer_name)
        .await
        .map_err(|_| "The token's issuer cannot be checked now")?
        .ok_or("No organization trusts this JWT's issuer")?;
    let signature = decode(signature)
        .and_then(|b| Signature::from_slice(&b).ok())
        .ok_or("The JWT signature is not an ES256 signature")?;
    let signed = &token[..head.len() + 1 + body.len()];
    let kid = header["kid"].as_str();
    let keys = keys(policy, &issuer.jwks_uri, kid).await?;
    let verified = keys
        .iter()
        .filter(|(id, _)| kid.is_none() || id.as_deref() == kid)
        .any(|(_, key)| key.verify(signed.as_bytes(), &signature).is_ok());
    if !verified {
        return Err("The JWT signature does not verify with the issuer's keys");
    }
    if claims["exp"].as_i64().is_none_or(|exp| exp <= now_epoch()) {
        return Err("The JWT has expired (or has no exp)");
    }
    let audience_ok = match &claims["aud"] {
        Value::String(aud) => *aud == issuer.audience,
        Value::Array(auds) => auds.iter().any(|a| a.as_str() == Some(&issuer.audience)),
        _ => false,
    };
    if !audience_ok {
        return Err("The JWT is for another audience");
    }
    let who = claims[issuer.person_claim.as_str()]
        .as_str()
        .ok_or("The JWT lacks the claim that names the person")?;
    let person = orgs::find_person(db, &issuer.organization_id, who)
        .await
        .map_err(|_| "The token's person cannot be checked now")?
        .ok_or("The JWT names nobody of the organization")?;
    let organization = orgs::find_organization(db, &issuer.organization_id)
        .await
        .map_err(|_| "The token's organization cannot be checked now")?
        .ok_or("The JWT's organization is gone")?;
    let permitted = roles::permissions(&person.role);
    let scopes = match claims["scope"].as_str() {
        Some(scope) => scope.split_whitespace().map(str::to_string).collect(),
        None => permitted.iter().map(|s| s.to_string()).collect(),
    };
    Ok(TokenRecord {
        // Rate limits count per person of the issuer, not per JWT (each refresh is a new one).
        id: format!("ext_{}", person.id),
        audience: "mcp".into(),
        scopes,
        rate_limit: None,
        person,
        organization,
        expires_at_epoch: claims["exp"].as_i64(),
    })
}

type KeySet = Vec<(Option<String>, VerifyingKey)>;

fn cache() -> &'static Mutex<HashMap<String, (Instant, KeySet)>> {
    static CACHE: OnceLock<Mutex<HashMap<String, (Instant, KeySet)>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The issuer's keys: from the cache, or fetched when missing, stale, or lacking `kid`.
async fn keys(policy: Policy, jwks_uri: &str, kid: Option<&str>) -> Result<KeySet, Refusal> {
    {
        let cached = cache().lock().expect("JWKS cache lock");
        if let Some((at, keys)) = cached.get(jwks_uri) {
            let has_kid = kid.is_none_or(|k| keys.iter().any(|(id, _)| id.as_deref() == Some(k)));
            if at.elapsed() < JWKS_TTL && (has_kid || at.elapsed() < JWKS_REFETCH_AFTER) {
                return Ok(keys.clone());
            }
        }
    }
    let keys = fetch(policy, jwks_uri).await.map_err(|e| {
        tracing::warn!(jwks_uri, "cannot fetch a JWKS: {e}");
        "The issuer's keys cannot be fetched"
    })?;
    let mut cached = cache().lock().expect("JWKS cache lock");
    if cached.len() >= MOST_KEY_SETS {
        cached.clear();
    }
    cached.insert(jwks_uri.to_string(), (Instant::now(), keys.clone()));
    Ok(keys)
}

async fn fetch(policy: Policy, jwks_uri: &str) -> Result<KeySet, String> {
    let client = outbound::Client::new(policy, |b| {
        b.timeout(Duration::from_secs(5))
            .user_agent("kobana-dunning-jwks")
    })
    .map_err(|e| e.to_string())?;
    let mut response = client
        .request(reqwest::Method::GET, jwks_uri)
        .map_err(|e| e.to_string())?
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("answered {}", response.status().as_u16()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        body.extend_from_slice(&chunk);
        if body.len() > LARGEST_JWKS {
            return Err("larger than 64 KiB".into());
        }
    }
    let document: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let keys = document["keys"].as_array().ok_or("no keys array")?;
    Ok(keys.iter().filter_map(ec_key).collect())
}

/// A P-256 public key of a JWKS (`kty` EC, `crv` P-256); other keys are skipped.
fn ec_key(jwk: &Value) -> Option<(Option<String>, VerifyingKey)> {
    if jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
        return None;
    }
    let x = decode(jwk["x"].as_str()?)?;
    let y = decode(jwk["y"].as_str()?)?;
    if x.len() != 32 || y.len() != 32 {
        return None;
    }
    let point = p256::EncodedPoint::from_affine_coordinates(
        p256::FieldBytes::from_slice(&x),
        p256::FieldBytes::from_slice(&y),
        false,
    );
    let key = VerifyingKey::from_encoded_point(&point).ok()?;
    Some((jwk["kid"].as_str().map(str::to_string), key))
}
