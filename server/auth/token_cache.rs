//! Token lookups remembered for a few seconds, so that a request does not read the token,
//! person and organization rows each time.
//!
//! Only tokens found are remembered, keyed by the hash of the secret: an unknown or revoked
//! token is looked up every time. A token revoked in the database (`revoked_at`) keeps working
//! at most the cache's time to live (`--token-cache-ttl`, 2 s by default, at most 5 s) on
//! each replica; so do changes to its scopes, role or rate limit.
//!
//! What is remembered is a [`FoundToken`]: the record, and the [`Principal`] it makes, built
//! once. Copying the record and building the principal again on every request was ~50 string
//! copies a request (bench/RESULTS.md, issue 26).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use dunning_store::orgs::{self, TokenRecord};
use dunning_store::{Db, Result};

use super::{Audience, Principal};

/// A token found by its hash: its record, for the expiry and audience checks, and the
/// principal it makes, built on first use.
#[derive(Debug)]
pub struct FoundToken {
    pub record: TokenRecord,
    principal: OnceLock<Principal>,
}

impl FoundToken {
    fn new(record: TokenRecord) -> FoundToken {
        FoundToken {
            record,
            principal: OnceLock::new(),
        }
    }

    /// The caller this token is, on the endpoint of `audience`: the token's own, which the
    /// caller has checked (a token is issued for one audience, so one principal is kept).
    pub fn principal(&self, audience: Audience) -> Principal {
        debug_assert_eq!(Audience::parse(&self.record.audience), Some(audience));
        self.principal
            .get_or_init(|| Principal::from_record(self.record.clone(), audience))
            .clone()
    }
}

/// Most tokens remembered; beyond it the expired ones are dropped, then all of them.
const MOST_ENTRIES: usize = 10_000;

/// Recently found tokens by hash.
pub struct TokenCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, (Instant, Arc<FoundToken>)>>,
}

impl TokenCache {
    /// A cache keeping tokens for `ttl` (zero: no caching).
    pub fn new(ttl: Duration) -> TokenCache {
        TokenCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Forget every token found: after a revocation on this replica, so that it takes effect
    /// here at once (other replicas see it within the TTL).
    pub fn forget_all(&self) {
        self.entries.lock().expect("token cache lock").clear();
    }

    /// The live token with this hash, from memory if it was found less than the TTL ago.
    pub async fn find(&self, db: &Db, token_hash: &str) -> Result<Option<Arc<FoundToken>>> {
        if self.ttl.is_zero() {
            let found = orgs::find_token(db, token_hash).await?;
            return Ok(found.map(|record| Arc::new(FoundToken::new(record))));
        }
        {
            let entries = self.entries.lock().expect("token cache lock");
            if let Some((found_at, record)) = entries.get(token_hash)
                && found_at.elapsed() < self.ttl
            {
                return Ok(Some(record.clone()));
            }
        }
        let found_at = Instant::now();
        let found = orgs::find_token(db, token_hash)
            .await?
            .map(|record| Arc::new(FoundToken::new(record)));
        let mut entries = self.entries.lock().expect("token cache lock");
        match &found {
            Some(record) => {
                if entries.len() >= MOST_ENTRIES {
                    entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
                    if entries.len() >= MOST_ENTRIES {
                        entries.clear();
                    }
                }
                entries.insert(token_hash.to_string(), (found_at, record.clone()));
            }
            None => {
                entries.remove(token_hash);
            }
        }
        Ok(found)
    }
}
