-- Migration 14: placeholder (TEMPORARY in branch pix-psp, drop at merge: migration 14 belongs to another branch, and versions must follow each other)
-- Changes nothing: the table exists since the first start.
CREATE TABLE IF NOT EXISTS schema_migrations (
        version BIGINT PRIMARY KEY,
        description TEXT NOT NULL,
        applied_at TEXT NOT NULL
    );
