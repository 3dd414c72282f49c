//! JWT access tokens from an organization's own identity provider.
//!
//! An organization may trust one issuer (`organization trust-issuer`): a token is an ES256 JWT
//! whose `iss` names that issuer, signed by a key of its JWKS (fetched through the outbound
//! guard, at most 64 KiB, cached five minutes; a `kid` it lacks fetches it again, at most every
//! 30 s), whose `aud` holds the configured audience and whose `exp` (and `nbf`, when present)
//! hold, with [`CLOCK_SKEW`] of leeway. The configured claim (`email` by default) names the
//! person of that organization; the token's `scope` claim, when present, narrows what the role
//! permits.
//!
//! The JOSE work (the header, the signature, the registered claims) is `jsonwebtoken`'s, with
//! the algorithm pinned to ES256: `alg: none`, an HMAC `alg` (the classic attack signs with the
//! issuer's public key as the secret), RSA and every other algorithm are refused before any
//! key is tried.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::roles;
use dunning_engine::outbound::{self, Policy};
use dunning_store::Db;
use dunning_store::oauth::{self as store};
use dunning_store::orgs::{self, TokenRecord};

/// How long a fetched key set is believed.
const JWKS_TTL: Duration = Duration::from_secs(300);
/// A key id not in a key set younger than this does not fetch it again (no fetch per
/// request with a made-up `kid`).
const JWKS_REFETCH_AFTER: Duration = Duration::from_secs(30);
const LARGEST_JWKS: usize = 64 * 1024;
/// Most key sets remembered (one per trusting organization).
const MOST_KEY_SETS: usize = 1000;
/// The clocks of the issuer and this server may disagree by this much (seconds) on `exp`
/// and `nbf`.
pub const CLOCK_SKEW: u64 = 60;
/// The one algorithm accepted.
const ALGORITHM: Algorithm = Algorithm::ES256;

/// Whether `token` has the shape of a JWT (three base64url parts, a JSON header).
pub fn looks_like_jwt(token: &str) -> bool {
    token.starts_with("eyJ") && token.split('.').count() == 3
}

/// Why an external token is refused (shown to the client).
pub type Refusal = &'static str;

/// The claims read before the signature is checked: only to find whose keys to check it
/// with. Nothing read here is believed until the token verifies.
fn unverified_issuer(token: &str) -> Result<String, Refusal> {
    let mut validation = Validation::new(ALGORITHM);
    validation.insecure_disable_signature_validation();
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let data = jsonwebtoken::decode::<Value>(token, &DecodingKey::from_secret(&[]), &validation)
        .map_err(|_| "The JWT payload is not base64url JSON")?;
    data.claims["iss"]
        .as_str()
        .map(str::to_string)
        .ok_or("The JWT has no iss")
}

/// What a `jsonwebtoken` refusal tells the client.
fn refusal(kind: &ErrorKind) -> Refusal {
    match kind {
        ErrorKind::InvalidSignature => "The JWT signature does not verify with the issuer's keys",
        ErrorKind::ExpiredSignature => "The JWT has expired",
        ErrorKind::ImmatureSignature => "The JWT is not valid yet (nbf)",
        ErrorKind::InvalidAudience => "The JWT is for another audience",
        ErrorKind::InvalidIssuer => "No organization trusts this JWT's issuer",
        ErrorKind::InvalidAlgorithm => "Only ES256 JWTs are accepted",
        ErrorKind::MissingRequiredClaim(_) => "The JWT lacks exp, iss or aud",
        _ => "The token is not a valid JWT",
    }
}

/// The caller a valid external token stands for.
/// `policy` says which addresses the issuer's JWKS may be fetched from.
pub async fn authenticate(db: &Db, policy: Policy, token: &str) -> Result<TokenRecord, Refusal> {
    // A header `jsonwebtoken` cannot read names no algorithm it knows (`alg: none` among
    // them): refused like any algorithm but ES256.
    let header = jsonwebtoken::decode_header(token).map_err(|_| "Only ES256 JWTs are accepted")?;
    if header.alg != ALGORITHM {
        return Err("Only ES256 JWTs are accepted");
    }
    let issuer_name = unverified_issuer(token)?;
    let issuer = store::find_external_issuer(db, &issuer_name)
        .await
        .map_err(|_| "The token's issuer cannot be checked now")?
        .ok_or("No organization trusts this JWT's issuer")?;
    let mut validation = Validation::new(ALGORITHM);
    validation.leeway = CLOCK_SKEW;
    validation.validate_nbf = true;
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.set_issuer(&[&issuer.issuer]);
    validation.set_audience(&[&issuer.audience]);
    let kid = header.kid.as_deref();
    let keys = keys(policy, &issuer.jwks_uri, kid).await?;
    let candidates: Vec<&DecodingKey> = keys
        .iter()
        .filter(|(id, _)| kid.is_none() || id.as_deref() == kid)
        .map(|(_, key)| key)
        .collect();
    if candidates.is_empty() {
        return Err("The JWT's kid names no key of the issuer");
    }
    // Several keys without a `kid` to choose: the first that verifies. Any other fault
    // (expired, another audience) is the token's, whichever key verified it.
    let mut fault = ErrorKind::InvalidSignature;
    let mut claims = None;
    for key in candidates {
        match jsonwebtoken::decode::<Value>(token, key, &validation) {
            Ok(data) => {
                claims = Some(data.claims);
                break;
            }
            Err(e) if *e.kind() == ErrorKind::InvalidSignature => {}
            Err(e) => {
                fault = e.into_kind();
                break;
            }
        }
    }
    let claims = claims.ok_or_else(|| refusal(&fault))?;
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
        toolsets: None,
        discovery: None,
        rate_limit: None,
        person,
        organization,
        expires_at_epoch: claims["exp"].as_i64(),
    })
}

type KeySet = Vec<(Option<String>, DecodingKey)>;

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

/// A P-256 public key of a JWKS (`kty` EC, `crv` P-256, for ES256 when it says); other keys
/// are skipped.
fn ec_key(jwk: &Value) -> Option<(Option<String>, DecodingKey)> {
    if jwk["kty"] != "EC"
        || jwk["crv"] != "P-256"
        || jwk["alg"].as_str().is_some_and(|a| a != "ES256")
    {
        return None;
    }
    let key = DecodingKey::from_ec_components(jwk["x"].as_str()?, jwk["y"].as_str()?).ok()?;
    Some((jwk["kid"].as_str().map(str::to_string), key))
}
