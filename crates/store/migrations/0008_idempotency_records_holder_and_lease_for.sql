-- Migration 8: idempotency records: holder and lease, for taking over keys of dead processes
-- Columns added for crash safety: who holds an `in_progress` key, and until when. A holder
-- renews its lease while it runs; a key whose lease ran out belongs to a dead process and
-- is taken over by the next retry.

ALTER TABLE idempotency_records ADD COLUMN owner TEXT;

ALTER TABLE idempotency_records ADD COLUMN lease_until_epoch BIGINT;

-- A stored response that shows a secret keeps it only until `redact_after_epoch`; then
-- the member at `redact_pointer` is removed from the replay.
ALTER TABLE idempotency_records ADD COLUMN redact_after_epoch BIGINT;

ALTER TABLE idempotency_records ADD COLUMN redact_pointer TEXT;

CREATE INDEX idempotency_records_redact ON idempotency_records (redact_after_epoch);

CREATE INDEX idempotency_records_created ON idempotency_records (created_at_epoch);
