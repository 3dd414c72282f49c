-- Migration 3: charges know their open dispute

-- Set by disputes when one opens on the charge, cleared when it is resolved:
-- collection (plans, notices, negativation, protest) checks it without knowing
-- about disputes.
ALTER TABLE charges ADD COLUMN open_dispute_id TEXT;
