-- Migration 19: a token may ask for the MCP discovery mode

-- How an MCP connection with this token is offered the tools when the request does not say
-- (`X-MCP-Discovery`, the `/discover` URL variants): 1 through discovery mode's three tools,
-- 0 as the catalog, `NULL` as the operator's setting says.
ALTER TABLE tokens ADD COLUMN discovery INTEGER;
