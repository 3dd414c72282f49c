-- Migration 15: pix keys and charge codes (TEMPORARY in branch pix-psp: the pix-code branch's migration 15 replaces this file at merge)
-- The organization's Pix key (chave) and the name and city its static BR Code carries; a
-- charge's dynamic code (`pixCopiaECola`) and its location at the PSP, when it has a cobv.
CREATE TABLE pix_settings (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
        key TEXT NOT NULL,
        key_type TEXT NOT NULL,
        merchant_name TEXT NOT NULL,
        merchant_city TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );

ALTER TABLE charges ADD COLUMN pix_payload TEXT;

ALTER TABLE charges ADD COLUMN pix_location TEXT;
