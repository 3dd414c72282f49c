-- Migration 18: calendars, payment days, refunds, business-day steps
-- An organization's own holidays (municipal ones, which matter for protests), beside the
-- national calendar the code knows: one row per organization, the holidays a JSON list of
-- {"date", "name"} in date order (`store::calendars`).
CREATE TABLE organization_calendars (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
        holidays TEXT NOT NULL,
        version BIGINT NOT NULL,
        updated_at TEXT NOT NULL
    );

-- What each charge's balance needs of its payments: the amount paid on each day (Brasília),
-- refunds taken off, as `domain::charge_math::PaymentDays` writes it. Written in the same
-- transaction as every payment and refund; filled for the payments made before it by this
-- migration's data step (`migrations::fill_payment_days`).
ALTER TABLE charges ADD COLUMN payment_days TEXT NOT NULL DEFAULT '';

-- How much of a payment was given back (a Pix devolução), never more than its amount.
ALTER TABLE payments ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0;

-- A plan step counts its `offset_days` in calendar days or in business days.
ALTER TABLE collection_plan_steps ADD COLUMN day_count TEXT NOT NULL DEFAULT 'calendar';

-- Every devolução of a Pix received: one the organization asked for (`requested_by`
-- 'organization': our id is the devolução's id at the PSP, and the row is the Pix worker's
-- queue until the PSP says it ended) or one the PSP reported (the payer's bank, the MED).
-- Once `returned`, its amount is taken off the payment it came from, once
-- (`reversed_payment_id`, `reversed_cents`).
CREATE TABLE pix_refunds (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        received_id TEXT NOT NULL,
        end_to_end_id TEXT NOT NULL,
        refund_id TEXT NOT NULL,
        rtr_id TEXT,
        amount_cents BIGINT NOT NULL,
        nature TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        requested_by TEXT NOT NULL,
        description TEXT,
        charge_id TEXT,
        reversed_payment_id TEXT,
        reversed_cents BIGINT NOT NULL,
        attempts BIGINT NOT NULL,
        last_error TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE UNIQUE INDEX pix_refunds_org_e2e_refund ON pix_refunds (organization_id, end_to_end_id, refund_id);

CREATE INDEX pix_refunds_org_received ON pix_refunds (organization_id, received_id);

CREATE INDEX pix_refunds_due ON pix_refunds (next_attempt_at);

-- When the upkeep last read the PSP's Pix with devoluções (`GET /pix?devolucaoPresente=true`
-- over the MED's window), beside the sweep of new Pix: NULL, never.
ALTER TABLE pix_psp_connections ADD COLUMN refunds_swept_at TEXT;
