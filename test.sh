#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (unit, integration, generator) and the
# checks that need Python tools. Installs what it needs into .venv (git-ignored) first.
# Usage: ./test.sh            (PostgreSQL tests run when 127.0.0.1:5432 answers, else skip)
set -euo pipefail
cd "$(dirname "$0")"

echo "== Python tools (.venv)"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt

echo "== Prometheus (promtool and prometheus for the metrics tests)"
if ! command -v promtool >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  # Debian's package; installing it does not start a server outside systemd.
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
command -v promtool >/dev/null 2>&1 || echo "promtool missing: the metrics tests will say they skipped"

echo "== OpenAPI document"
.venv/bin/openapi-spec-validator openapi/v1.yaml

echo "== Rust tests"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi

echo "== The live server: PDF text, CSV exports, schemathesis over every operation (tests/python)"
cargo build --locked --workspace
.venv/bin/python -m pytest tests/python

echo "== MCP interoperability: official SDK clients, conformance suite, Inspector CLI (tests/clients)"
tests/clients/setup.sh
.venv/bin/python -m pytest tests/clients
