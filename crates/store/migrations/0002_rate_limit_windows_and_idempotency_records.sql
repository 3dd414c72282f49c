-- Migration 2: rate limit windows and idempotency records

CREATE TABLE rate_limit_windows (
            token_id TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            hits BIGINT NOT NULL,
            PRIMARY KEY (token_id, window_start)
        );

CREATE TABLE idempotency_records (
            organization_id TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            state TEXT NOT NULL,
            response_status BIGINT,
            response_headers TEXT,
            response_body TEXT,
            created_at_epoch BIGINT NOT NULL,
            PRIMARY KEY (organization_id, idempotency_key)
        );
