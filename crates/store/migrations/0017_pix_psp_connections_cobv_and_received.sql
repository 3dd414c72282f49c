-- Migration 17: pix psp connections, cobv at the psp, pix received
-- An organization's connection to its PSP's API Pix (see `store::pix_psp`): the URLs and the
-- OAuth client id in the clear; the client secret, the mTLS certificate and private key and
-- the secret our callback URL carries sealed with the server's Pix secrets key (`sealed_with`
-- names which, by fingerprint); that secret also as its SHA-256, what a callback is looked up
-- by. The row is also the work queue of its upkeep (the webhook
-- registration and the sweep), claimed with a lease like every engine queue.
CREATE TABLE pix_psp_connections (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
        id TEXT NOT NULL UNIQUE,
        api_url TEXT NOT NULL,
        token_url TEXT NOT NULL,
        client_id TEXT NOT NULL,
        client_secret_sealed TEXT NOT NULL,
        certificate_sealed TEXT NOT NULL,
        private_key_sealed TEXT NOT NULL,
        webhook_secret_sealed TEXT NOT NULL,
        sealed_with TEXT NOT NULL,
        webhook_secret_hash TEXT NOT NULL UNIQUE,
        webhook_key TEXT,
        webhook_registered_at TEXT,
        webhook_error TEXT,
        webhook_attempts BIGINT NOT NULL,
        webhook_next_attempt_at TEXT,
        sweep_from TEXT NOT NULL,
        sweep_next_at TEXT NOT NULL,
        swept_at TEXT,
        sweep_error TEXT,
        charges_seen_at TEXT NOT NULL,
        charges_seen_id TEXT NOT NULL,
        last_test_at TEXT,
        last_test_result TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        version BIGINT NOT NULL,
        configured_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

-- A charge's cobv at the PSP: our txid (the charge's, `cobv` and a revision), where the PSP
-- says it stands (`psp_status`, BACEN's words; NULL before it exists), which version of the
-- charge it mirrors (NULL: to be mirrored again), until when it can be paid. The row is the
-- work queue too: due at `next_attempt_at` (NULL: nothing to do until the charge changes),
-- claimed with a lease, retried with backoff after a failure (`attempts`, `last_error`).
CREATE TABLE pix_cobv (
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        charge_id TEXT NOT NULL REFERENCES charges(id),
        txid TEXT NOT NULL,
        txid_revision BIGINT NOT NULL,
        psp_status TEXT,
        psp_revision BIGINT,
        location TEXT,
        synced_version BIGINT,
        valid_until TEXT,
        attempts BIGINT NOT NULL,
        last_error TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (organization_id, charge_id)
    );

CREATE UNIQUE INDEX pix_cobv_org_txid ON pix_cobv (organization_id, txid);

CREATE INDEX pix_cobv_due ON pix_cobv (next_attempt_at);

-- The engine finds the charges changed since it last looked, per organization.
CREATE INDEX charges_org_updated_id ON charges (organization_id, updated_at, id);

-- Every Pix the PSP reported, by callback or sweep, once (`end_to_end_id` is the Pix's own
-- id, unique per organization): applied to its charge as a payment, or kept for review with
-- the reason, the item as the PSP sent it in `raw`.
CREATE TABLE pix_received (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        end_to_end_id TEXT NOT NULL,
        txid TEXT,
        amount_cents BIGINT NOT NULL,
        paid_at TEXT NOT NULL,
        payer_info TEXT,
        payer_name TEXT,
        payer_document TEXT,
        charge_id TEXT,
        payment_id TEXT,
        status TEXT NOT NULL,
        reason TEXT,
        detail TEXT,
        source TEXT NOT NULL,
        raw TEXT NOT NULL,
        received_at TEXT NOT NULL
    );

CREATE UNIQUE INDEX pix_received_org_e2e ON pix_received (organization_id, end_to_end_id);

CREATE INDEX pix_received_org_received_id ON pix_received (organization_id, received_at, id);

CREATE INDEX pix_received_org_status_received ON pix_received (organization_id, status, received_at, id);
