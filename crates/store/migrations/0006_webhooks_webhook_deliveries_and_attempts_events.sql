-- Migration 6: webhooks, webhook deliveries and attempts, events dispatch flag, exports
-- exports (see [`super::exports`]).

CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        description TEXT,
        enabled BIGINT NOT NULL,
        secret TEXT NOT NULL,
        active_since TEXT NOT NULL,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX webhooks_org_created ON webhooks (organization_id, created_at);

CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        webhook_id TEXT NOT NULL REFERENCES webhooks(id),
        event_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        round_attempts BIGINT NOT NULL,
        response_status BIGINT,
        error TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        delivered_at TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (webhook_id, event_id)
    );

CREATE INDEX webhook_deliveries_list ON webhook_deliveries (organization_id, webhook_id, created_at);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);

CREATE TABLE webhook_attempts (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
        webhook_id TEXT NOT NULL,
        number BIGINT NOT NULL,
        attempted_at TEXT NOT NULL,
        duration_ms BIGINT NOT NULL,
        response_status BIGINT,
        response_body TEXT,
        error TEXT,
        UNIQUE (delivery_id, number)
    );

-- Events written before this migration are marked as dispatched: no endpoint existed.
ALTER TABLE events ADD COLUMN webhooks_dispatched BIGINT NOT NULL DEFAULT 0;

UPDATE events SET webhooks_dispatched = 1;

CREATE INDEX events_webhooks_pending ON events (webhooks_dispatched, created_at);

CREATE TABLE exports (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    kind TEXT NOT NULL,
    filters TEXT NOT NULL,
    status TEXT NOT NULL,
    row_count BIGINT,
    byte_size BIGINT,
    error TEXT,
    content TEXT,
    claim_token TEXT,
    claimed_until TEXT,
    version BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    completed_at TEXT,
    updated_at TEXT NOT NULL
);

CREATE INDEX exports_status ON exports (status, created_at);
