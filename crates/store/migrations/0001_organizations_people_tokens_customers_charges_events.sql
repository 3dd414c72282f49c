-- Migration 1: organizations, people, tokens, customers, charges, events

CREATE TABLE organizations (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            legal_document TEXT NOT NULL,
            negativation_notice_days BIGINT NOT NULL DEFAULT 10,
            rate_limit BIGINT,
            rate_period_secs BIGINT,
            created_at TEXT NOT NULL
        );

CREATE TABLE people (
            id TEXT PRIMARY KEY,
            organization_id TEXT NOT NULL REFERENCES organizations(id),
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            role TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (organization_id, email)
        );

CREATE TABLE tokens (
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
        );

CREATE TABLE customers (
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
        );

CREATE INDEX customers_org_created ON customers (organization_id, created_at);

CREATE TABLE charges (
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
        );

CREATE INDEX charges_org_due ON charges (organization_id, due_date);

CREATE INDEX charges_org_customer ON charges (organization_id, customer_id);

CREATE TABLE events (
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
        );

CREATE INDEX events_org_subject ON events (organization_id, subject_id, created_at);
