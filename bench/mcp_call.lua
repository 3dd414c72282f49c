-- wrk script: POST one JSON-RPC body to /mcp. The body and the bearer token come from the
-- environment (BODY, TOKEN), so one script serves every MCP case of bench/run.sh; without
-- TOKEN the request is anonymous (a server started with --public-catalog answers its ping).
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
if os.getenv("TOKEN") then
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
end
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
-- Streamable HTTP servers (the proxies) refuse a POST that does not accept both.
wrk.headers["Accept"] = "application/json, text/event-stream"
