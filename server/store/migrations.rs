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
