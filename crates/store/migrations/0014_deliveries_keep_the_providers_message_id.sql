-- Migration 14: deliveries keep the provider's id of the message they sent

-- What the provider named the message when it accepted it (Twilio's `SM...` sid): its status
-- callbacks name the message by it, so the delivery is found by (organization, provider, id).
-- `NULL` for the sandbox, SMTP and deliveries not sent; several `NULL`s never collide.
ALTER TABLE deliveries ADD COLUMN provider_message_id TEXT;
CREATE UNIQUE INDEX deliveries_provider_message ON deliveries (organization_id, provider, provider_message_id);
