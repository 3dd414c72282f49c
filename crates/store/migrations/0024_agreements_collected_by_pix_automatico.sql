-- Migration 24: agreements collected by Pix Automático (BACEN's API Pix: rec, locrec, cobr)
--
-- An agreement's instalments may be debited from the debtor's account by a recurrence the
-- debtor authorizes once in their bank app (`store::automatic_pix`). `automatic_pix` is one
-- request for it: asked by the organization, created at the PSP (`/locrec`, `/rec`), its
-- authorization code kept, followed to where the PSP says it ended (authorized, rejected,
-- expired, canceled), and the Pix worker's queue while there is something to do (a lease, as
-- every engine queue). At most one is live per agreement.
CREATE TABLE automatic_pix (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        agreement_id TEXT NOT NULL,
        journey TEXT NOT NULL,
        retry_policy TEXT NOT NULL,
        status TEXT NOT NULL,
        cancel_requested BIGINT NOT NULL,
        rec_id TEXT,
        location_id TEXT,
        location TEXT,
        qr_code TEXT,
        authorized_journey TEXT,
        authorized_at TEXT,
        ended_at TEXT,
        ended_by TEXT,
        end_code TEXT,
        end_reason TEXT,
        attempts BIGINT NOT NULL,
        last_error TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE UNIQUE INDEX automatic_pix_one_live ON automatic_pix (organization_id, agreement_id)
    WHERE status IN ('requested', 'awaiting_authorization', 'authorized');

CREATE UNIQUE INDEX automatic_pix_rec ON automatic_pix (organization_id, rec_id) WHERE rec_id IS NOT NULL;

CREATE INDEX automatic_pix_agreement ON automatic_pix (organization_id, agreement_id, created_at);

CREATE INDEX automatic_pix_due ON automatic_pix (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- One recurring charge (`cobr`) per instalment debited through an authorized recurrence: its
-- txid names the instalment charge (`domain::pix_txid`), so the Pix it brings is applied like
-- any other; what the PSP reports of it (scheduled, paid, failed, canceled) is kept.
CREATE TABLE automatic_pix_charges (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        automatic_pix_id TEXT NOT NULL,
        charge_id TEXT NOT NULL,
        txid TEXT NOT NULL,
        due_date TEXT NOT NULL,
        amount_cents BIGINT NOT NULL,
        status TEXT NOT NULL,
        end_to_end_id TEXT,
        end_code TEXT,
        end_reason TEXT,
        attempts BIGINT NOT NULL,
        last_error TEXT,
        next_attempt_at TEXT,
        claim_token TEXT,
        claimed_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

CREATE UNIQUE INDEX automatic_pix_charges_txid ON automatic_pix_charges (organization_id, txid);

CREATE INDEX automatic_pix_charges_of ON automatic_pix_charges (organization_id, automatic_pix_id, due_date);

CREATE INDEX automatic_pix_charges_charge ON automatic_pix_charges (organization_id, charge_id);

CREATE INDEX automatic_pix_charges_due ON automatic_pix_charges (next_attempt_at) WHERE next_attempt_at IS NOT NULL;

-- The organization's account at its PSP, which each recurring charge names as the receiver's
-- (`recebedor`: `agencia`, `conta`, `tipoConta`); NULL: no Pix Automático through it. And
-- when the PSP's webhooks of recurrences and recurring charges (`/webhookrec`,
-- `/webhookcobr`) were registered for this connection (NULL: not yet), with the last error.
ALTER TABLE pix_psp_connections ADD COLUMN account_branch TEXT;
ALTER TABLE pix_psp_connections ADD COLUMN account_number TEXT;
ALTER TABLE pix_psp_connections ADD COLUMN account_type TEXT;
ALTER TABLE pix_psp_connections ADD COLUMN automatic_webhooks_at TEXT;
ALTER TABLE pix_psp_connections ADD COLUMN automatic_webhooks_error TEXT;
