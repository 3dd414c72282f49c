-- Migration 12: OAuth: server-side sessions, the sign-in throttle, grants' last use, codes' given redirect URI

CREATE TABLE oauth_sessions (
        id_hash TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        person_id TEXT NOT NULL REFERENCES people(id),
        created_at_epoch BIGINT NOT NULL,
        expires_at_epoch BIGINT NOT NULL,
        ended_at_epoch BIGINT
    );

CREATE INDEX oauth_sessions_person ON oauth_sessions (person_id);

CREATE INDEX oauth_sessions_expiry ON oauth_sessions (expires_at_epoch);

-- Keys are hashes: the addresses strangers type are not kept.
CREATE TABLE sign_in_throttle (
        throttle_key TEXT PRIMARY KEY,
        failures BIGINT NOT NULL,
        last_failure_epoch BIGINT NOT NULL,
        locked_until_epoch BIGINT
    );

CREATE INDEX sign_in_throttle_last ON sign_in_throttle (last_failure_epoch);

-- The lockout moved from the person to the throttle.
ALTER TABLE people DROP COLUMN failed_sign_ins;

ALTER TABLE people DROP COLUMN locked_until_epoch;

-- Grants expire when unused: when each was last used, from its newest refresh token (made
-- `REFRESH_SECS` before its expiry) or else its code (made 60 s before its expiry).
ALTER TABLE oauth_grants ADD COLUMN last_used_epoch BIGINT;

UPDATE oauth_grants SET last_used_epoch = COALESCE(
        (SELECT MAX(r.expires_at_epoch) - 2592000 FROM oauth_refresh_tokens r WHERE r.grant_id = oauth_grants.id),
        (SELECT MAX(c.expires_at_epoch) - 60 FROM oauth_codes c WHERE c.grant_id = oauth_grants.id),
        0);

-- RFC 6749 §4.1.3: the token request repeats `redirect_uri` only when the authorization
-- request sent it.
ALTER TABLE oauth_codes ADD COLUMN redirect_uri_given BIGINT NOT NULL DEFAULT 1;
