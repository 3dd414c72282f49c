-- Migration 19: tokens and OAuth grants may ask for the MCP discovery mode

-- How an MCP connection with this token is offered the tools when the request does not say
-- (`X-MCP-Discovery`, the `/discover` URL variants): 1 through discovery mode's three tools,
-- 0 as the catalog, `NULL` as the operator's setting says.
ALTER TABLE tokens ADD COLUMN discovery INTEGER;
-- The same, chosen by the person on the consent page (1, or `NULL`); every access token of
-- the grant carries it.
ALTER TABLE oauth_grants ADD COLUMN discovery INTEGER;
