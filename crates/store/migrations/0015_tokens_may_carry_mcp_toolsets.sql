-- Migration 15: tokens and OAuth grants may carry the MCP toolsets they are limited to

-- The toolsets (`openapi/v1.yaml`, `x-mcp.toolsets`) an MCP connection with this token may
-- load at most, comma-separated (`charges,customers`); `NULL`: no limit beyond the scopes.
ALTER TABLE tokens ADD COLUMN toolsets TEXT;
-- The same, chosen by the person on the consent page; every access token of the grant
-- carries it.
ALTER TABLE oauth_grants ADD COLUMN toolsets TEXT;
