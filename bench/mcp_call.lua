-- wrk script: POST one JSON-RPC body to /mcp. The body and the bearer token come from the
-- environment (BODY, TOKEN), so one script serves every MCP case of bench/run.sh.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
