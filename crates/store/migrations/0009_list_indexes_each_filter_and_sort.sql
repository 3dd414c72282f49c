-- Migration 9: list indexes: each filter and sort of the API, after organization_id
-- Every list of the API filters on `organization_id`, then on at most one selective column,
-- and pages in a fixed order ending in `id`: each index below is that filter followed by
-- that order, so the engine reads the page (and the bounded count) from the index in order,
-- neither scanning the organization nor sorting it. Indexes they replace are prefixes of
-- the new ones, so no other query loses its index. `tests/integration/query_plans.rs`
-- checks every list's plan on both engines.

-- charges: sorted by due date (default), amount or creation; filtered by customer,
-- status (a stored state, pending/overdue being `open` before/after today), due date
-- and amount ranges.
DROP INDEX charges_org_due;

DROP INDEX charges_org_customer;

CREATE INDEX charges_org_due_id ON charges (organization_id, due_date, id);

CREATE INDEX charges_org_amount_id ON charges (organization_id, amount_cents, id);

CREATE INDEX charges_org_created_id ON charges (organization_id, created_at, id);

CREATE INDEX charges_org_customer_due ON charges (organization_id, customer_id, due_date, id);

-- A customer's charges in the other orders: without them the planner walks the
-- organization's amount (or creation) index hoping to fill the page early, and a customer
-- with fewer charges than a page makes it read the whole organization.
CREATE INDEX charges_org_customer_amount ON charges (organization_id, customer_id, amount_cents, id);

CREATE INDEX charges_org_customer_created ON charges (organization_id, customer_id, created_at, id);

CREATE INDEX charges_org_state_due ON charges (organization_id, state, due_date, id);

-- A status in the other orders: overdue charges by amount otherwise sort every open
-- charge of the organization to show the first page.
CREATE INDEX charges_org_state_amount ON charges (organization_id, state, amount_cents, id);

CREATE INDEX charges_org_state_created ON charges (organization_id, state, created_at, id);

-- customers: by creation or name; document is already unique per organization.
DROP INDEX customers_org_created;

CREATE INDEX customers_org_created_id ON customers (organization_id, created_at, id);

CREATE INDEX customers_org_name_id ON customers (organization_id, search_name, id);

CREATE INDEX customers_org_email ON customers (organization_id, LOWER(email), created_at, id);

-- deliveries, newest first; by charge, customer, channel or status.
DROP INDEX deliveries_org_created;

DROP INDEX deliveries_org_charge;

CREATE INDEX deliveries_org_created_id ON deliveries (organization_id, created_at, id);

CREATE INDEX deliveries_org_charge_created ON deliveries (organization_id, charge_id, created_at, id);

CREATE INDEX deliveries_org_customer_created ON deliveries (organization_id, customer_id, created_at, id);

CREATE INDEX deliveries_org_channel_created ON deliveries (organization_id, channel, created_at, id);

CREATE INDEX deliveries_org_status_created ON deliveries (organization_id, status, created_at, id);

-- agreements, newest first; by customer or status.
DROP INDEX agreements_org_created;

CREATE INDEX agreements_org_created_id ON agreements (organization_id, created_at, id);

CREATE INDEX agreements_org_customer_created ON agreements (organization_id, customer_id, created_at, id);

CREATE INDEX agreements_org_state_created ON agreements (organization_id, state, created_at, id);

-- disputes, newest first; by charge, customer or status.
DROP INDEX disputes_org_created;

CREATE INDEX disputes_org_created_id ON disputes (organization_id, created_at, id);

CREATE INDEX disputes_org_charge_created ON disputes (organization_id, charge_id, created_at, id);

CREATE INDEX disputes_org_customer_created ON disputes (organization_id, customer_id, created_at, id);

CREATE INDEX disputes_org_state_created ON disputes (organization_id, state, created_at, id);

-- collection plans, oldest first, and a plan's steps in order.
DROP INDEX collection_plans_org_created;

CREATE INDEX collection_plans_org_created_id ON collection_plans (organization_id, created_at, id);

DROP INDEX collection_plan_steps_plan;

CREATE INDEX collection_plan_steps_org_plan ON collection_plan_steps (organization_id, collection_plan_id, position, id);

-- webhooks, and a webhook's deliveries (newest first; by status or event type).
DROP INDEX webhooks_org_created;

CREATE INDEX webhooks_org_created_id ON webhooks (organization_id, created_at, id);

DROP INDEX webhook_deliveries_list;

CREATE INDEX webhook_deliveries_org_webhook ON webhook_deliveries (organization_id, webhook_id, created_at, id);

CREATE INDEX webhook_deliveries_org_webhook_status ON webhook_deliveries (organization_id, webhook_id, status, created_at, id);

CREATE INDEX webhook_deliveries_org_webhook_type ON webhook_deliveries (organization_id, webhook_id, event_type, created_at, id);

-- the audit trail, newest first; by type or subject, within a creation range.
DROP INDEX events_org_subject;

CREATE INDEX events_org_created_id ON events (organization_id, created_at, id);

CREATE INDEX events_org_type_created ON events (organization_id, type, created_at, id);

CREATE INDEX events_org_subject_created ON events (organization_id, subject_id, created_at, id);
