-- Migration 10: OAuth: password hashes, clients, grants, codes, refresh tokens, expiring tokens

ALTER TABLE people ADD COLUMN password_hash TEXT;

ALTER TABLE people ADD COLUMN failed_sign_ins BIGINT NOT NULL DEFAULT 0;

ALTER TABLE people ADD COLUMN locked_until_epoch BIGINT;

CREATE INDEX people_email ON people (email);

ALTER TABLE tokens ADD COLUMN expires_at_epoch BIGINT;

ALTER TABLE tokens ADD COLUMN grant_id TEXT;

CREATE INDEX tokens_grant ON tokens (grant_id);

CREATE TABLE oauth_clients (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        kind TEXT NOT NULL,
        fetched_at_epoch BIGINT,
        created_at TEXT NOT NULL
    );

CREATE TABLE oauth_grants (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        person_id TEXT NOT NULL REFERENCES people(id),
        client_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        resource TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    );

CREATE INDEX oauth_grants_person ON oauth_grants (organization_id, person_id, created_at);

CREATE TABLE oauth_codes (
        code_hash TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at_epoch BIGINT NOT NULL,
        used_at TEXT
    );

CREATE TABLE oauth_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
        expires_at_epoch BIGINT NOT NULL,
        used_at TEXT,
        created_at TEXT NOT NULL
    );

CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);

-- An organization's own identity provider: JWTs it signs are accepted (`auth::external`).
CREATE TABLE external_issuers (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
        issuer TEXT NOT NULL UNIQUE,
        jwks_uri TEXT NOT NULL,
        audience TEXT NOT NULL,
        person_claim TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
