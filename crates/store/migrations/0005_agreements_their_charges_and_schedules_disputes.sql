-- Migration 5: agreements, their charges and schedules, disputes

CREATE TABLE agreements (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        state TEXT NOT NULL,
        total_cents BIGINT NOT NULL,
        down_payment_cents BIGINT NOT NULL,
        installments BIGINT NOT NULL,
        first_due_date TEXT NOT NULL,
        discount_bp BIGINT NOT NULL,
        note TEXT,
        cancel_reason TEXT,
        accepted_at TEXT,
        canceled_at TEXT,
        broken_at TEXT,
        fulfilled_at TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX agreements_org_created ON agreements (organization_id, created_at);

CREATE INDEX agreements_state ON agreements (state);

-- What each original charge stood at when proposed: acceptance refuses a charge that
-- changed since, and an unwound agreement credits payments back in proportion to `due_cents`.
CREATE TABLE agreement_charges (
        agreement_id TEXT NOT NULL REFERENCES agreements(id),
        organization_id TEXT NOT NULL,
        charge_id TEXT NOT NULL REFERENCES charges(id),
        position BIGINT NOT NULL,
        amount_cents BIGINT NOT NULL,
        paid_cents BIGINT NOT NULL,
        due_cents BIGINT NOT NULL,
        PRIMARY KEY (agreement_id, charge_id)
    );

CREATE INDEX agreement_charges_charge ON agreement_charges (organization_id, charge_id);

CREATE TABLE agreement_installments (
        agreement_id TEXT NOT NULL REFERENCES agreements(id),
        organization_id TEXT NOT NULL,
        number BIGINT NOT NULL,
        amount_cents BIGINT NOT NULL,
        due_date TEXT NOT NULL,
        charge_id TEXT,
        PRIMARY KEY (agreement_id, number)
    );

CREATE INDEX agreement_installments_charge ON agreement_installments (charge_id);

CREATE TABLE disputes (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        charge_id TEXT NOT NULL REFERENCES charges(id),
        customer_id TEXT NOT NULL REFERENCES customers(id),
        reason TEXT NOT NULL,
        description TEXT,
        state TEXT NOT NULL,
        resolution_note TEXT,
        resolved_at TEXT,
        version BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE INDEX disputes_org_created ON disputes (organization_id, created_at);

-- At most one open dispute per charge, whatever races the API loses.
CREATE UNIQUE INDEX disputes_one_open_per_charge ON disputes (charge_id) WHERE state = 'open';
