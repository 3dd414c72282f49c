-- Migration 22: housekeeping and the agreements worker find their work by index

-- Housekeeping runs every minute and asks each OAuth table what has expired: every one of
-- those questions read its whole table (`SCAN oauth_grants`, `SCAN oauth_codes`, ...), so the
-- minute's cost grew with every grant, code and session ever issued. Each question now has an
-- index that holds the rows it asks about, or orders them by the instant it compares.
CREATE INDEX oauth_grants_live_last_used ON oauth_grants (last_used_epoch) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_clients_registered ON oauth_clients (created_at) WHERE kind = 'registered';
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at_epoch);
CREATE INDEX oauth_refresh_tokens_expiry ON oauth_refresh_tokens (expires_at_epoch);
CREATE INDEX oauth_sessions_ended ON oauth_sessions (ended_at_epoch);

-- The agreements worker asks every tick which accepted agreements have an instalment overdue:
-- it read every open charge due before the day across organizations (most of a dunning
-- database's open charges are overdue) to find the few that are instalments. An open charge
-- with an `agreement_id` is an instalment (an original charge is `in_agreement` while its
-- agreement holds it, and loses the id when it is reinstated), so this index holds exactly
-- the open instalments, by due date.
CREATE INDEX charges_open_installments_due ON charges (due_date, id) WHERE state = 'open' AND agreement_id IS NOT NULL;
