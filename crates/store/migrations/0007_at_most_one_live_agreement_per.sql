-- Migration 7: at most one live agreement per charge, as a unique index
-- `agreement_charges.live` is 1 while the agreement is proposed or accepted and 0 once it
-- ended (`mark_ended` clears it). A database written before this migration may already
-- hold two live agreements on one charge (the race this index closes): the accepted one,
-- else the oldest, keeps the charge; the others stay as they are but no longer count, and
-- accepting one of them is refused (`live_for_charge`).

ALTER TABLE agreement_charges ADD COLUMN live BIGINT NOT NULL DEFAULT 0;

UPDATE agreement_charges SET live = 1 WHERE agreement_id = (
        SELECT other.agreement_id FROM agreement_charges other
        JOIN agreements ON agreements.id = other.agreement_id
        WHERE other.charge_id = agreement_charges.charge_id AND agreements.state IN ('proposed', 'accepted')
        ORDER BY CASE agreements.state WHEN 'accepted' THEN 0 ELSE 1 END, agreements.created_at, agreements.id
        LIMIT 1);

CREATE UNIQUE INDEX agreement_charges_one_live ON agreement_charges (charge_id) WHERE live = 1;
