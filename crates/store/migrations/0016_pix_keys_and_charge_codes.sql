-- Migration 16: Pix keys of organizations and the Pix codes of charges

-- An organization's Pix key and the merchant name and city its BR Codes carry, as they
-- carry them (name at most 25 characters, city at most 15, printable ASCII): the static
-- code of every open charge is made from this row.
CREATE TABLE pix_settings (
        organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
        key TEXT NOT NULL,
        key_type TEXT NOT NULL,
        merchant_name TEXT NOT NULL,
        merchant_city TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
-- A dynamic code from the organization's PSP (its `pixCopiaECola` and location URL), set
-- by the PSP connection; NULL when the charge has none and its static code is shown.
ALTER TABLE charges ADD COLUMN pix_payload TEXT;
ALTER TABLE charges ADD COLUMN pix_location TEXT;
