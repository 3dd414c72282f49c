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

-- With CHECK set (bench/reads.py), each answer is read: a JSON-RPC error or a tool error is
-- counted and the first one kept, and `done` prints them, so a run that measured refusals
-- instead of reads is refused (wrk counts only HTTP statuses, and MCP errors are HTTP 200).
if os.getenv("CHECK") then
  local threads = {}

  function setup(thread)
    table.insert(threads, thread)
  end

  function init(args)
    errors = 0
  end

  function response(status, headers, body)
    if string.find(body, '"isError":true', 1, true) or string.find(body, '"error":{', 1, true) then
      errors = errors + 1
      if not first then
        first = string.sub(body, 1, 400)
      end
    end
  end

  function done(summary, latency, requests)
    local total, sample = 0, nil
    for _, thread in ipairs(threads) do
      total = total + (thread:get("errors") or 0)
      sample = sample or thread:get("first")
    end
    io.write(string.format("MCP errors: %d\n", total))
    if sample then
      io.write("first MCP error: " .. sample .. "\n")
    end
  end
end
