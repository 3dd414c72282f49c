-- Migration 4: collection plans and steps, deliveries, payments, step runs, bureau and notary requests
-- step runs, bureau and notary requests, and the sandbox's record of messages.

CREATE TABLE collection_plans (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        search_name TEXT NOT NULL,
        description TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX collection_plans_org_created ON collection_plans (organization_id, created_at);

CREATE TABLE collection_plan_steps (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        collection_plan_id TEXT NOT NULL REFERENCES collection_plans(id),
        position BIGINT NOT NULL,
        offset_days BIGINT NOT NULL,
        action TEXT NOT NULL,
        channel TEXT,
        template TEXT,
        bureau TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX collection_plan_steps_plan ON collection_plan_steps (collection_plan_id, position);

-- One row per (charge, step) that ran, whatever its outcome: the primary key is what
-- makes a step fire at most once per charge, across restarts and replicas.
CREATE TABLE collection_step_runs (
        charge_id TEXT NOT NULL,
        step_id TEXT NOT NULL,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        outcome TEXT NOT NULL,
        reason TEXT,
        delivery_id TEXT,
        ran_at TEXT NOT NULL,
        PRIMARY KEY (charge_id, step_id)
    );

CREATE TABLE deliveries (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        charge_id TEXT NOT NULL REFERENCES charges(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        channel TEXT NOT NULL,
        status TEXT NOT NULL,
        recipient TEXT NOT NULL,
        subject TEXT,
        body TEXT NOT NULL,
        step_id TEXT,
        resent_from TEXT,
        attempts BIGINT NOT NULL,
        error TEXT,
        provider TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        sent_at TEXT,
        delivered_at TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX deliveries_org_created ON deliveries (organization_id, created_at);

CREATE INDEX deliveries_org_charge ON deliveries (organization_id, charge_id);

CREATE INDEX deliveries_work ON deliveries (status, next_attempt_at);

CREATE TABLE sandbox_messages (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        delivery_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        recipient TEXT NOT NULL,
        subject TEXT,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
    );

CREATE TABLE payments (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        charge_id TEXT NOT NULL REFERENCES charges(id),
        amount_cents BIGINT NOT NULL,
        method TEXT NOT NULL,
        note TEXT,
        paid_at TEXT NOT NULL,
        created_at TEXT NOT NULL
    );

CREATE INDEX payments_org_charge ON payments (organization_id, charge_id);

-- A request to a credit bureau or notary awaiting its answer: one row per (charge, kind),
-- re-armed for the next round once done.
CREATE TABLE collection_requests (
        charge_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        party TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        last_error TEXT,
        next_attempt_at TEXT NOT NULL,
        claim_token TEXT,
        claimed_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (charge_id, kind)
    );

CREATE INDEX collection_requests_work ON collection_requests (status, next_attempt_at);

ALTER TABLE charges ADD COLUMN negativation_bureau TEXT;

-- When the charge got its current plan: steps whose day came before it do not fire.
ALTER TABLE charges ADD COLUMN plan_attached_at TEXT;
