-- Migration 13: server secrets shared by every replica (the unsubscribe links' key)

-- One row per secret, made once by whichever replica needs it first; the others read it, so
-- that a link signed by one replica is accepted by all of them and after a restart.
CREATE TABLE server_secrets (
        name TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
