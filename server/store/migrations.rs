//! Schema migrations, written in the SQL subset SQLite and PostgreSQL share.
//!
//! Each migration is a list of statements applied in one transaction and recorded in
//! `schema_migrations`; a migration never changes once released: add a new one. Versions
//! 1–2 are the core (here); each area keeps its own statements beside its queries
//! (`store::<area>::MIGRATION`) and is listed in `MIGRATIONS` under its own version.

use sqlx::Executor;

use super::{Db, Result};

const MIGRATIONS: &[(i64, &str, &[&str])] = &[
    (
        1,
        "organizations, people, tokens, customers, charges, events",
        &[
            "CREATE TABLE organizations (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            legal_document TEXT NOT NULL,
            negativation_notice_days BIGINT NOT NULL DEFAULT 10,
            rate_limit BIGINT,
            rate_period_secs BIGINT,
            created_at TEXT NOT NULL
        )",
            "CREATE TABLE people (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            role TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (organization_id, email)
        )",
            "CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            person_id TEXT NOT NULL REFERENCES people(id),
            audience TEXT NOT NULL,
            scopes TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            label TEXT,
            rate_limit BIGINT,
            rate_period_secs BIGINT,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )",
            "CREATE TABLE customers (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            name TEXT NOT NULL,
            search_name TEXT NOT NULL,
            document TEXT NOT NULL,
            document_type TEXT NOT NULL,
            email TEXT,
            phone TEXT,
            address TEXT,
            channel_opt_outs TEXT NOT NULL,
            tags TEXT NOT NULL,
            notes TEXT,
            version BIGINT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (organization_id, document)
        )",
            "CREATE INDEX customers_org_created ON customers (organization_id, created_at)",
            "CREATE TABLE charges (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            customer_id TEXT NOT NULL REFERENCES customers(id),
            description TEXT NOT NULL,
            amount_cents BIGINT NOT NULL,
            paid_cents BIGINT NOT NULL,
            fine_bp BIGINT NOT NULL,
            interest_bp BIGINT NOT NULL,
            due_date TEXT NOT NULL,
            state TEXT NOT NULL,
            tags TEXT NOT NULL,
            collection_plan_id TEXT,
            agreement_id TEXT,
            negativation_status TEXT NOT NULL,
            protest_status TEXT NOT NULL,
            paid_at TEXT,
            canceled_at TEXT,
            cancel_reason TEXT,
            version BIGINT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )",
            "CREATE INDEX charges_org_due ON charges (organization_id, due_date)",
            "CREATE INDEX charges_org_customer ON charges (organization_id, customer_id)",
            "CREATE TABLE events (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            type TEXT NOT NULL,
            subject_type TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            actor_type TEXT NOT NULL,
            actor_id TEXT,
            actor_name TEXT,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL
        )",
            "CREATE INDEX events_org_subject ON events (organization_id, subject_id, created_at)",
        ],
    ),
    (
        2,
        "rate limit windows and idempotency records",
        &[
            "CREATE TABLE rate_limit_windows (
            token_id TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            hits BIGINT NOT NULL,
            PRIMARY KEY (token_id, window_start)
        )",
            "CREATE TABLE idempotency_records (
            organization_id TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            state TEXT NOT NULL,
            response_status BIGINT,
            response_headers TEXT,
            response_body TEXT,
            created_at_epoch BIGINT NOT NULL,
            PRIMARY KEY (organization_id, idempotency_key)
        )",
        ],
    ),
    (
        3,
        "charges know their open dispute",
        &[
            // Set by disputes when one opens on the charge, cleared when it is resolved:
            // collection (plans, notices, negativation, protest) checks it without knowing
            // about disputes.
            "ALTER TABLE charges ADD COLUMN open_dispute_id TEXT",
        ],
    ),
    (
        4,
        "collection plans and steps, deliveries, payments, step runs, bureau and notary requests",
        crate::store::collection::MIGRATION,
    ),
    (
        5,
        "agreements, their charges and schedules, disputes",
        crate::store::agreements::MIGRATION,
    ),
    (
        6,
        "webhooks, webhook deliveries and attempts, events dispatch flag, exports",
        crate::store::webhooks::MIGRATION,
    ),
    (
        7,
        "at most one live agreement per charge, as a unique index",
        crate::store::agreements::MIGRATION_ONE_LIVE,
    ),
    (
        8,
        "idempotency records: holder and lease, for taking over keys of dead processes",
        crate::store::idempotency::MIGRATION,
    ),
    (
        9,
        "list indexes: each filter and sort of the API, after organization_id",
        LIST_INDEXES,
    ),
    (
        10,
        "OAuth: password hashes, clients, grants, codes, refresh tokens, expiring tokens",
        crate::store::oauth::MIGRATION,
    ),
    (
        11,
        "exports: the filter as checked when the export was created",
        crate::store::exports::MIGRATION_FILTER,
    ),
    (
        12,
        "OAuth: server-side sessions, the sign-in throttle, grants' last use, codes' given redirect URI",
        crate::store::sign_in::MIGRATION,
    ),
    // Areas add their migration here, one tuple each: (version, description, statements).
];

/// Whether every migration this build knows has been applied (a replica of an older build
/// beside a newer database, or the reverse, is not ready).
pub async fn current(db: &Db) -> Result<bool> {
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM schema_migrations")
        .fetch_all(&db.pool)
        .await?;
    Ok(MIGRATIONS.iter().all(|m| applied.contains(&m.0)))
}

/// Every list of the API filters on `organization_id`, then on at most one selective column,
/// and pages in a fixed order ending in `id`: each index below is that filter followed by
/// that order, so the engine reads the page (and the bounded count) from the index in order,
/// neither scanning the organization nor sorting it. Indexes they replace are prefixes of
/// the new ones, so no other query loses its index. `tests/integration/query_plans.rs`
/// checks every list's plan on both engines.
const LIST_INDEXES: &[&str] = &[
    // charges: sorted by due date (default), amount or creation; filtered by customer,
    // status (a stored state, pending/overdue being `open` before/after today), due date
    // and amount ranges.
    "DROP INDEX charges_org_due",
    "DROP INDEX charges_org_customer",
    "CREATE INDEX charges_org_due_id ON charges (organization_id, due_date, id)",
    "CREATE INDEX charges_org_amount_id ON charges (organization_id, amount_cents, id)",
    "CREATE INDEX charges_org_created_id ON charges (organization_id, created_at, id)",
    "CREATE INDEX charges_org_customer_due ON charges (organization_id, customer_id, due_date, id)",
    // A customer's charges in the other orders: without them the planner walks the
    // organization's amount (or creation) index hoping to fill the page early, and a customer
    // with fewer charges than a page makes it read the whole organization.
    "CREATE INDEX charges_org_customer_amount ON charges (organization_id, customer_id, amount_cents, id)",
    "CREATE INDEX charges_org_customer_created ON charges (organization_id, customer_id, created_at, id)",
    "CREATE INDEX charges_org_state_due ON charges (organization_id, state, due_date, id)",
    // A status in the other orders: overdue charges by amount otherwise sort every open
    // charge of the organization to show the first page.
    "CREATE INDEX charges_org_state_amount ON charges (organization_id, state, amount_cents, id)",
    "CREATE INDEX charges_org_state_created ON charges (organization_id, state, created_at, id)",
    // customers: by creation or name; document is already unique per organization.
    "DROP INDEX customers_org_created",
    "CREATE INDEX customers_org_created_id ON customers (organization_id, created_at, id)",
    "CREATE INDEX customers_org_name_id ON customers (organization_id, search_name, id)",
    "CREATE INDEX customers_org_email ON customers (organization_id, LOWER(email), created_at, id)",
    // deliveries, newest first; by charge, customer, channel or status.
    "DROP INDEX deliveries_org_created",
    "DROP INDEX deliveries_org_charge",
    "CREATE INDEX deliveries_org_created_id ON deliveries (organization_id, created_at, id)",
    "CREATE INDEX deliveries_org_charge_created ON deliveries (organization_id, charge_id, created_at, id)",
    "CREATE INDEX deliveries_org_customer_created ON deliveries (organization_id, customer_id, created_at, id)",
    "CREATE INDEX deliveries_org_channel_created ON deliveries (organization_id, channel, created_at, id)",
    "CREATE INDEX deliveries_org_status_created ON deliveries (organization_id, status, created_at, id)",
    // agreements, newest first; by customer or status.
    "DROP INDEX agreements_org_created",
    "CREATE INDEX agreements_org_created_id ON agreements (organization_id, created_at, id)",
    "CREATE INDEX agreements_org_customer_created ON agreements (organization_id, customer_id, created_at, id)",
    "CREATE INDEX agreements_org_state_created ON agreements (organization_id, state, created_at, id)",
    // disputes, newest first; by charge, customer or status.
    "DROP INDEX disputes_org_created",
    "CREATE INDEX disputes_org_created_id ON disputes (organization_id, created_at, id)",
    "CREATE INDEX disputes_org_charge_created ON disputes (organization_id, charge_id, created_at, id)",
    "CREATE INDEX disputes_org_customer_created ON disputes (organization_id, customer_id, created_at, id)",
    "CREATE INDEX disputes_org_state_created ON disputes (organization_id, state, created_at, id)",
    // collection plans, oldest first, and a plan's steps in order.
    "DROP INDEX collection_plans_org_created",
    "CREATE INDEX collection_plans_org_created_id ON collection_plans (organization_id, created_at, id)",
    "DROP INDEX collection_plan_steps_plan",
    "CREATE INDEX collection_plan_steps_org_plan ON collection_plan_steps (organization_id, collection_plan_id, position, id)",
    // webhooks, and a webhook's deliveries (newest first; by status or event type).
    "DROP INDEX webhooks_org_created",
    "CREATE INDEX webhooks_org_created_id ON webhooks (organization_id, created_at, id)",
    "DROP INDEX webhook_deliveries_list",
    "CREATE INDEX webhook_deliveries_org_webhook ON webhook_deliveries (organization_id, webhook_id, created_at, id)",
    "CREATE INDEX webhook_deliveries_org_webhook_status ON webhook_deliveries (organization_id, webhook_id, status, created_at, id)",
    "CREATE INDEX webhook_deliveries_org_webhook_type ON webhook_deliveries (organization_id, webhook_id, event_type, created_at, id)",
    // the audit trail, newest first; by type or subject, within a creation range.
    "DROP INDEX events_org_subject",
    "CREATE INDEX events_org_created_id ON events (organization_id, created_at, id)",
    "CREATE INDEX events_org_type_created ON events (organization_id, type, created_at, id)",
    "CREATE INDEX events_org_subject_created ON events (organization_id, subject_id, created_at, id)",
];

/// Apply what is pending. Returns true when the database had no migration before (new).
pub async fn run(db: &Db) -> Result<bool> {
    db.pool
        .execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY,
                description TEXT NOT NULL,
                applied_at TEXT NOT NULL
            )",
        )
        .await?;
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM schema_migrations")
        .fetch_all(&db.pool)
        .await?;
    let fresh = applied.is_empty();
    let mut ordered: Vec<_> = MIGRATIONS.iter().collect();
    ordered.sort_by_key(|m| m.0);
    for (version, description, statements) in ordered {
        if applied.contains(version) {
            continue;
        }
        let mut tx = db.begin().await?;
        for statement in *statements {
            tx.execute(*statement).await?;
        }
        sqlx::query(
            "INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)",
        )
        .bind(*version)
        .bind(*description)
        .bind(super::now_text())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(version, description, "applied migration");
    }
    Ok(fresh)
}
