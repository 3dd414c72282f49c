#!/usr/bin/env bash
# The benchmark, in one go on this machine (not part of ./test.sh):
#  1. demo data: REST vs our MCP for the charge detail and the list (no filter, status,
#     customer, sort by amount), tools/list per role, ping, server/discover, /v1/me vs the
#     unauthenticated metadata route, start-up time, memory (RSS) after the load;
#  2. the same detail and list reads, and tools/list, through rmcp-openapi-server and FastMCP
#     `from_openapi` proxying our /v1 (installed on first use, pinned, into the git-ignored
#     bench/.tools and bench/.venv);
#  3. the list reads at SIZES charges (default "100000 1000000"), data made by
#     `kobana-dunning demo --customers N/20 --charges N`, with the server's RSS under load.
# Prints every case and the target ratios, and rewrites its section of bench/RESULTS.md (the rest stays).
#
# Environment: DURATION seconds per case (10), CONNECTIONS (32), SIZES, PROXIES ("rmcp fastmcp";
# empty to skip them), LABEL (a line written at the top of RESULTS.md, e.g. "before" or "after"),
# KEEP_DATA=1 to keep each generated size in the git-ignored bench/.data/<size>/ and reuse it in
# later runs (a million charges take minutes to generate; RESULTS.md then says "reused").
# Loopback only; wrk runs 2 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
SIZES=${SIZES:-100000 1000000}
PROXIES=${PROXIES-rmcp fastmcp}
LABEL=${LABEL:-}
PORT=${PORT:-18555}
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
RMCP_VERSION=0.32.1
FASTMCP_VERSION=4.2.3

command -v wrk >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } || { echo "bench: wrk is needed" >&2; exit 1; }
has() { [[ " $PROXIES " == *" $1 "* ]]; }
if has rmcp && ! [ -x bench/.tools/bin/rmcp-openapi-server ]; then
  cargo install --locked rmcp-openapi-server --version "$RMCP_VERSION" --root bench/.tools
fi
if has fastmcp; then
  [ -x bench/.venv/bin/python ] || python3 -m venv bench/.venv
  bench/.venv/bin/python -c "import fastmcp" 2>/dev/null ||
    bench/.venv/bin/pip install -q "fastmcp==$FASTMCP_VERSION"
fi
cargo build --release --locked -q
# Where cargo put it: `cargo metadata` follows CARGO_TARGET_DIR and build.target-dir.
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps --offline |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
BIN=$TARGET_DIR/release/kobana-dunning

WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

SERVER=
# start_server DIR: the server over DIR/bench.db (seeded with the demo when new); sets SERVER
# and STARTUP_MS (launch to first answer).
start_server() {
  local dir=$1 t0
  t0=$(date +%s%N)
  # The collection worker's sweep reads every open charge's due steps each tick (10 s by
  # default: 0.26 CPU-s at 100 000 charges, 2.3 at 1 000 000, measured); in a 3 s case that lands on
  # it, it would be counted as the reads' CPU. Benchmarked servers sweep once an hour.
  (cd "$dir" && exec env RUST_LOG=warn "$BIN" --bind 127.0.0.1:$PORT --database-url "sqlite://$dir/bench.db?mode=rwc" \
    --collection-interval 1h > server.log 2>&1) &
  SERVER=$!
  PIDS+=("$SERVER")
  for _ in $(seq 600); do
    curl -sf -o /dev/null "127.0.0.1:$PORT/.well-known/oauth-protected-resource" && break
    sleep 0.05
  done
  STARTUP_MS=$((($(date +%s%N) - t0) / 1000000))
  curl -sf -o /dev/null "127.0.0.1:$PORT/.well-known/oauth-protected-resource" || { echo "bench: the server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }
}
stop_server() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }

# Tokens of organization 0 (the one the generator fills), rate limit lifted for the run.
tokens() {
  local dir=$1
  ORG=$(python3 -c "import json;print(json.load(open('$dir/data/demo-credentials.json'))['organizations'][0]['id'])")
  declare -gA PERSON
  for role in admin manager collector viewer; do
    PERSON[$role]=$(python3 -c "import json;print([p['email'] for p in json.load(open('$dir/data/demo-credentials.json'))['organizations'][0]['people'] if p['role']=='$role'][0])")
  done
}
token() { # dir role audience
  (cd "$1" && "$BIN" token create --organization "$ORG" --person "${PERSON[$2]}" --audience "$3" --rate-limit 100000000/minute --database-url "sqlite://$1/bench.db?mode=rwc" 2>/dev/null | tail -1)
}

declare -A RPS P50 CPU
ROWS=()
to_ms() { awk -v v="$1" 'BEGIN { if (v == "inf") print 1e12; else if (v ~ /us$/) print v/1000; else if (v ~ /ms$/) print v+0; else if (v ~ /s$/) print v*1000; else print v }'; }
PEAK_RSS_KB=0
# run KEY NAME wrk-args...: one case; records req/s and p50 (ms) under KEY, samples the
# server's RSS while it runs.
run() {
  local key=$1 name=$2; shift 2
  local out rps p50 p99 rss
  (sleep $((DURATION / 2)); awk '/VmRSS/ {print $2}' "/proc/$SERVER/status" > "$WORK/rss" 2>/dev/null) &
  # The server's own CPU time per request: steadier than requests/s when wrk and the server
  # share two cores and the machine is not quiet (in a proxy's rows, the proxy's own CPU).
  local cpu_before cpu_after cpu
  cpu_before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat" 2>/dev/null || echo 0)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency "$@")
  cpu_after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat" 2>/dev/null || echo 0)
  cpu=$(awk -v a="$cpu_before" -v b="$cpu_after" -v hz="$(getconf CLK_TCK)" -v n="$(awk '/requests in/ {print $1}' <<<"$out")" \
    'BEGIN { if (n > 0) printf "%.0f", (b - a) * 1000000 / hz / n; else print "n/a" }')
  wait $! 2>/dev/null || true
  rss=$(cat "$WORK/rss" 2>/dev/null || echo 0)
  [ "${rss:-0}" -gt "$PEAK_RSS_KB" ] && PEAK_RSS_KB=$rss
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  # Failures are part of the result (a read that times out or answers 503 at size): noted in
  # the row, not fatal.
  local failed
  failed=$(awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}' <<<"$out")
  # No answer within the run: a p50 of "never", so every ratio on it fails.
  if awk -v r="$rps" 'BEGIN { exit !(r + 0 == 0) }'; then p50=inf; name="$name (**no answer within ${DURATION} s**)"; fi
  [ "$failed" -gt 0 ] && { echo "bench: $name: $failed failed requests (non-2xx, timeouts, socket errors)" >&2; name="$name (**$failed failed**)"; }
  RPS[$key]=$rps
  P50[$key]=$(to_ms "$p50")
  CPU[$key]=$cpu
  ROWS+=("| $name | $rps | $p50 | $p99 | $cpu |")
  printf '%-62s %10s req/s   p50 %-9s p99 %-9s server CPU %s us/req\n' "$name" "$rps" "$p50" "$p99" "$cpu"
}
mcp() { # key name token body [url]
  local key=$1 name=$2
  TOKEN=$3 BODY=$4 run "$key" "$name" -s bench/mcp_call.lua "${5:-http://127.0.0.1:$PORT/mcp}"
}
call() { printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a >= 1e12) print "no answer"; else if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
bytes_of() { # token body [url] -> answer size
  curl -s -o /dev/null -w '%{size_download}' "${3:-http://127.0.0.1:$PORT/mcp}" -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-06-18' -d "$2"
}

# list_cases PREFIX: the four list reads through REST and MCP.
list_cases() {
  local p=$1
  local q
  for q in "plain:per_page=25" "status:per_page=25&status=overdue" "customer:per_page=25&customer_id=$CUSTOMER" "amount:per_page=25&sort_by=amount&sort_order=desc"; do
    local key=${q%%:*} query=${q#*:}
    run "$p.rest.list.$key" "$p REST GET /v1/charges?$query" -H "Authorization: Bearer $API" "http://127.0.0.1:$PORT/v1/charges?$query"
    local args
    args=$(python3 -c "import json,urllib.parse,sys;d=dict(urllib.parse.parse_qsl(sys.argv[1]));d['per_page']=int(d['per_page']);print(json.dumps(d))" "$query")
    mcp "$p.mcp.list.$key" "$p MCP dunning_charges_list $args" "$MCP" "$(call dunning_charges_list "$args")"
  done
}

# --- 1. demo size ---------------------------------------------------------------------------
DEMO=$WORK/demo; mkdir -p "$DEMO"
start_server "$DEMO"; STARTUP_FRESH=$STARTUP_MS
stop_server
start_server "$DEMO"; STARTUP_EXISTING=$STARTUP_MS
tokens "$DEMO"
API=$(token "$DEMO" admin api)
MCP=$(token "$DEMO" admin mcp)
CHARGE=$(curl -s "127.0.0.1:$PORT/v1/charges?per_page=1&status=overdue" -H "Authorization: Bearer $API" | python3 -c "import json,sys;print(json.load(sys.stdin)['data'][0]['id'])")
CUSTOMER=$(curl -s "127.0.0.1:$PORT/v1/customers?per_page=1" -H "Authorization: Bearer $API" | python3 -c "import json,sys;print(json.load(sys.stdin)['data'][0]['id'])")
echo "start-up: ${STARTUP_FRESH} ms on a new database (migrations + demo seed), ${STARTUP_EXISTING} ms on an existing one"

run demo.rest.get "REST GET /v1/charges/{id}" -H "Authorization: Bearer $API" "http://127.0.0.1:$PORT/v1/charges/$CHARGE"
mcp demo.mcp.get "MCP tools/call dunning_charges_get" "$MCP" "$(call dunning_charges_get "{\"id\":\"$CHARGE\"}")"
list_cases demo
run demo.me "REST GET /v1/me (authenticated, cheapest)" -H "Authorization: Bearer $API" "http://127.0.0.1:$PORT/v1/me"
run demo.meta "GET /.well-known/oauth-protected-resource (no token)" "http://127.0.0.1:$PORT/.well-known/oauth-protected-resource"
mcp demo.ping "MCP ping" "$MCP" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
mcp demo.discover "MCP server/discover" "$MCP" '{"jsonrpc":"2.0","id":1,"method":"server/discover"}'
declare -A TOOLS_BYTES
for role in admin manager collector viewer; do
  t=$(token "$DEMO" "$role" mcp)
  TOOLS_BYTES[$role]=$(bytes_of "$t" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
  mcp "demo.tools.$role" "MCP tools/list ($role, ${TOOLS_BYTES[$role]} bytes)" "$t" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
done
DEMO_RSS_KB=$(awk '/VmRSS/ {print $2}' "/proc/$SERVER/status")
DEMO_HWM_KB=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
echo "our server after the load: RSS $((DEMO_RSS_KB / 1024)) MiB, peak $((DEMO_HWM_KB / 1024)) MiB"

# --- 2. the proxies ---------------------------------------------------------------------------
declare -A PROXY_RSS PROXY_TOOLS_BYTES
if [ -n "$PROXIES" ]; then
  curl -sf "127.0.0.1:$PORT/v1/openapi.json" -o "$WORK/openapi.json"
  python3 bench/prepare_spec.py "$WORK/openapi.json" "$WORK/openapi.proxy.json" "http://127.0.0.1:$PORT"
  proxy_cases() { # name url pid
    local name=$1 url=$2 pid=$3 body
    for _ in $(seq 600); do curl -s -o /dev/null "$url" -d '{}' -H 'Content-Type: application/json' && break; sleep 0.1; done
    body='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    PROXY_TOOLS_BYTES[$name]=$(bytes_of none "$body" "$url")
    local saved=$SERVER; SERVER=$pid
    mcp "$name.get" "$name tools/call charges_get" none "$(call charges_get "{\"id\":\"$CHARGE\"}")" "$url"
    mcp "$name.list" "$name tools/call charges_list (per_page 25)" none "$(call charges_list '{"per_page":25}')" "$url"
    mcp "$name.tools" "$name tools/list (${PROXY_TOOLS_BYTES[$name]} bytes)" none "$body" "$url"
    PROXY_RSS[$name]=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    SERVER=$saved
    echo "$name after the load: RSS $((PROXY_RSS[$name] / 1024)) MiB"
    kill "$pid"; wait "$pid" 2>/dev/null || true
  }
  if has rmcp; then
    bench/.tools/bin/rmcp-openapi-server "$WORK/openapi.proxy.json" --base-url "http://127.0.0.1:$PORT" \
      --port $((PORT + 1)) --header "Authorization: Bearer $API" > "$WORK/rmcp.log" 2>&1 &
    PIDS+=($!); proxy_cases rmcp "http://127.0.0.1:$((PORT + 1))/mcp" $!
  fi
  if has fastmcp; then
    bench/.venv/bin/python bench/fastmcp_proxy.py "$WORK/openapi.proxy.json" "http://127.0.0.1:$PORT" "$API" $((PORT + 2)) > "$WORK/fastmcp.log" 2>&1 &
    PIDS+=($!); proxy_cases fastmcp "http://127.0.0.1:$((PORT + 2))/mcp" $!
  fi
fi
stop_server

# --- 3. list reads at size ----------------------------------------------------------------------
declare -A GEN_SECONDS SIZE_RSS
for size in $SIZES; do
  DIR=$WORK/size$size; mkdir -p "$DIR"
  KEPT=$ROOT/bench/.data/$size
  if [ "${KEEP_DATA:-}" = 1 ] && [ -f "$KEPT/bench.db" ]; then
    cp -r "$KEPT/." "$DIR/"
    GEN_SECONDS[$size]="$(cat "$KEPT/generated-seconds") s (in an earlier run; reused)"
  else
    t0=$(date +%s)
    (cd "$DIR" && "$BIN" demo --customers $((size / 20)) --charges "$size" --database-url "sqlite://$DIR/bench.db?mode=rwc" 2>&1 | tail -1)
    gen=$(($(date +%s) - t0)); GEN_SECONDS[$size]="$gen s"
    if [ "${KEEP_DATA:-}" = 1 ]; then
      rm -rf "$KEPT"; mkdir -p "$KEPT"
      sqlite3 "$DIR/bench.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null 2>&1 || true
      cp -r "$DIR/." "$KEPT/"; echo "$gen" > "$KEPT/generated-seconds"
    fi
  fi
  PEAK_RSS_KB=0
  start_server "$DIR"
  echo "$size charges: generated in ${GEN_SECONDS[$size]}; server start-up ${STARTUP_MS} ms"
  tokens "$DIR"
  API=$(token "$DIR" admin api)
  MCP=$(token "$DIR" admin mcp)
  # A generated customer (about 20 charges), the kind a filter by customer finds.
  CUSTOMER=$(curl -s "127.0.0.1:$PORT/v1/customers?per_page=1&sort_by=name" -H "Authorization: Bearer $API" | python3 -c "import json,sys;print(json.load(sys.stdin)['data'][0]['id'])")
  list_cases "$size"
  SIZE_RSS[$size]=$PEAK_RSS_KB
  echo "$size charges: RSS under load $((PEAK_RSS_KB / 1024)) MiB"
  stop_server
  rm -rf "$DIR"
done

# --- ratios and RESULTS.md ------------------------------------------------------------------
TARGETS=()
target() { # text value verdict
  TARGETS+=("| $1 | $2 | $3 |")
  printf '%-70s %-10s %s\n' "$1" "$2" "$3"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "n/a" && a >= b) ? "met" : "NOT met" }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "n/a" && a <= b) ? "met" : "NOT met" }'; }
echo
r=$(ratio "${RPS[demo.mcp.get]}" "${RPS[demo.rest.get]}"); target "MCP/REST detail read (≥ 0.90)" "$r" "$(ge "$r" 0.90)"
# The same comparisons by our server's CPU per request (REST's over MCP's), less moved by what
# else the two cores run; informational, the targets are the throughput ratios.
r=$(ratio "${CPU[demo.rest.get]}" "${CPU[demo.mcp.get]}"); target "MCP/REST detail read by server CPU per request (informational)" "$r" "$(ge "$r" 0.90)"
for k in plain status customer amount; do
  r=$(ratio "${CPU[demo.rest.list.$k]}" "${CPU[demo.mcp.list.$k]}"); target "MCP/REST list, $k, by server CPU per request (informational)" "$r" "$(ge "$r" 0.85)"
done
for k in plain status customer amount; do
  r=$(ratio "${RPS[demo.mcp.list.$k]}" "${RPS[demo.rest.list.$k]}"); target "MCP/REST list, $k (≥ 0.85)" "$r" "$(ge "$r" 0.85)"
done
r=$(ratio "${RPS[demo.me]}" "${RPS[demo.meta]}"); target "/v1/me vs unauthenticated route (≥ 0.20)" "$r" "$(ge "$r" 0.20)"
for p in $PROXIES; do
  r=$(ratio "${RPS[demo.mcp.get]}" "${RPS[$p.get]}"); target "our MCP detail vs $p (≥ 10)" "$r" "$(ge "$r" 10)"
done
has rmcp && { r=$(ratio "${RPS[demo.tools.admin]}" "${RPS[rmcp.tools]}"); target "tools/list admin vs rmcp (≥ 3)" "$r" "$(ge "$r" 3)"; }
for size in $SIZES; do
  for k in status customer amount; do
    r=$(ratio "${P50[$size.rest.list.$k]}" "${P50[demo.rest.list.$k]}"); target "REST list $k p50 at $size vs demo (≤ 3)" "$r" "$(le "$r" 3)"
  done
  mib=$((SIZE_RSS[$size] / 1024)); target "RSS under load at $size charges, MiB (≤ 64)" "$mib" "$(le "$mib" 64)"
done

run_section=$WORK/run-section.md
{
  [ -n "$LABEL" ] && { echo "**$LABEL**"; echo; }
  echo "\`bench/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores ($(uname -m)), $(free -m | awk '/Mem:/ {print $2}') MiB memory;"
  echo "load average before the run: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Release build, SQLite; wrk, 2 threads, $CONNECTIONS connections, ${DURATION} s per case, loopback;"
  echo "each token's rate limit is lifted for the run. Sizes: demo (30 charges in the organization), $SIZES charges"
  echo "(\`kobana-dunning demo --customers N/20 --charges N\`). Proxies: ${PROXIES:-none}. Command: \`SIZES=\"$SIZES\" PROXIES=\"$PROXIES\" DURATION=$DURATION CONNECTIONS=$CONNECTIONS bench/run.sh\`."
  echo
  echo "## Targets"
  echo
  echo "| target | value | verdict |"
  echo "|---|---|---|"
  printf '%s\n' "${TARGETS[@]}"
  echo
  echo "## Cases"
  echo
  echo "| case | requests/s | p50 | p99 | CPU µs/request of the server measured (ours; in a proxy's rows, the proxy) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Start-up: ${STARTUP_FRESH} ms on a new database (migrations and demo seed), ${STARTUP_EXISTING} ms on an existing one (launch to first answer)."
  echo "Our server after the demo-size load: RSS $((DEMO_RSS_KB / 1024)) MiB, peak $((DEMO_HWM_KB / 1024)) MiB."
  for size in $SIZES; do
    echo "$size charges: generated in ${GEN_SECONDS[$size]}; RSS under load $((SIZE_RSS[$size] / 1024)) MiB."
  done
  for p in $PROXIES; do echo "$p after its load: RSS $((PROXY_RSS[$p] / 1024)) MiB."; done
  if [ -n "$PROXIES" ]; then
    echo
    echo "The proxies (rmcp-openapi-server $RMCP_VERSION from crates.io, FastMCP $FASTMCP_VERSION \`from_openapi\` from PyPI)"
    echo "forward to this server's /v1 with one admin API token; they load our \`/v1/openapi.json\` after"
    echo "\`bench/prepare_spec.py\`: the OAuth \`tokenUrl\` made absolute and the \`\$ref\` parameters inlined,"
    echo "which rmcp-openapi-server needs. Their tools are named by operationId (\`charges_get\`, \`charges_list\`)."
  fi
  echo
  echo "An MCP call is the REST call plus the JSON-RPC envelope, argument validation against the"
  echo "tool's inputSchema, and the result shaping; the ratio of the MCP and REST rows of the same"
  echo "read is that cost. tools/list answers the role's whole catalog (sizes in the rows)."
} > "$run_section"
# This run replaces the last one, between its markers; what other scripts and people wrote in
# bench/RESULTS.md (toolsets, reads, earlier runs kept by hand) stays.
python3 - "$run_section" bench/RESULTS.md <<'PY'
import re, sys
section, path = open(sys.argv[1]).read().strip(), sys.argv[2]
start, end = "<!-- run:start -->", "<!-- run:end -->"
block = f"{start}\n{section}\n{end}"
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# Benchmark results\n"
if start in text:
    text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
else:
    title, _, rest = text.partition("\n")
    text = f"{title}\n\n{block}\n{rest}"
open(path, "w").write(text)
PY
echo "wrote bench/RESULTS.md (its run:start/run:end section)"
