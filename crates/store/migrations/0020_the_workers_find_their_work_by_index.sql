-- Migration 20: the workers find their work by index

-- The collection worker used to read, on every tick, every unrun step of every open charge
-- due within 50 days, and keep in Rust the few whose day had come: its cost grew with the
-- table, not with the work. Now each charge carries the first day on which a step of its
-- plan may be due, and the worker reads only the charges whose day has come, through an
-- index that holds only the charges a plan can act on (open, undisputed, with a plan): a
-- charge that is paid, canceled, in an agreement or in a dispute leaves the index by that
-- change alone, and comes back with its day when it is collectable again.
--
-- `steps_due_on` (a Brasília day, YYYY-MM-DD) is never later than the truth: every change
-- that can bring a step earlier (attaching a plan, changing a due date, adding or editing a
-- step, changing the organization's holidays) writes '0000-01-01', "look again at the next
-- tick", and the worker, having run what was due, writes the charge's next day (`NULL`:
-- nothing pending). `steps_revision` counts those changes: the worker writes the day it
-- computed only while the revision is the one it read, so a change made meanwhile is never
-- overwritten by a day computed without it (`dunning_store::collection`).
ALTER TABLE charges ADD COLUMN steps_due_on TEXT;
ALTER TABLE charges ADD COLUMN steps_revision BIGINT NOT NULL DEFAULT 0;
-- Every charge with a plan is looked at once, on the first tick after this migration.
UPDATE charges SET steps_due_on = '0000-01-01' WHERE collection_plan_id IS NOT NULL;
CREATE INDEX charges_steps_due ON charges (steps_due_on, id) WHERE state = 'open' AND open_dispute_id IS NULL AND collection_plan_id IS NOT NULL;

-- The collection worker also asks, every tick, which charges await a bureau's or a notary's
-- answer, and the webhook worker which events it has not fanned out yet: both read the whole
-- table (`SCAN charges`, `SCAN events`) to find a handful. Each now has an index holding only
-- those rows (`collection::awaiting_answers`, `webhooks::undispatched_events` say the same
-- conditions, which is what lets both engines use them).
CREATE INDEX charges_awaiting_answer ON charges (id) WHERE negativation_status IN ('requested', 'removal_requested') OR protest_status IN ('requested', 'cancel_requested');
-- `events_webhooks_pending` (webhooks_dispatched, created_at) covered every event, dispatched
-- or not: once the planner's statistics saw that most are dispatched, SQLite judged it not
-- worth using and read the table. The partial index replaces it.
DROP INDEX events_webhooks_pending;
CREATE INDEX events_undispatched ON events (created_at, id) WHERE webhooks_dispatched = 0;
