#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (unit, integration, generator, tidy), the
# live-server checks in Python (tests/python) and the MCP interoperability suite (tests/clients).
# Installs what the tests need first: Python tools into .venv, the client SDKs into
# tests/clients (both git-ignored), and, when run as root, the system packages some tests use
# (tests/setup-system.sh). Without root those tests say they skipped; under CI=true they fail.
# Usage: ./test.sh    (PostgreSQL tests run when 127.0.0.1:5432 answers, else they skip)
# NEXTEST_PROFILE=ci selects .config/nextest.toml's ci profile (JUnit, slow-test report).
set -euo pipefail
cd "$(dirname "$0")"

started=$SECONDS
timings=()
# phase NAME START: notes how long the phase that began at START took.
phase() { timings+=("$(printf '%5ss  %s' $((SECONDS - $2)) "$1")"); }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

echo "== System packages (tests/setup-system.sh: Chromium, Prometheus, pdftotext)"
t=$SECONDS
if [ "$(id -u)" = 0 ]; then
  tests/setup-system.sh
else
  for tool in chromium promtool pdftotext; do
    command -v "$tool" >/dev/null 2>&1 || echo "not root and $tool is missing: the tests that need it will say they skipped (run tests/setup-system.sh as root to install it)"
  done
fi
phase "system packages" "$t"

# The Python tools and the client SDKs install in the background while the Rust tests build
# and run: the installs wait on the network, the build on the cores.
echo "== Installing Python tools (.venv) and client SDKs (tests/clients) in the background"
(
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
  tests/clients/setup.sh
  # When the installs ended, not when the Rust phase let us look.
  echo "$SECONDS" > "$logs/install.end"
) > "$logs/install.log" 2>&1 &
installing=$!
t_install=$SECONDS

echo "== Rust tests (cargo nextest; also builds the binaries the Python suites start)"
t=$SECONDS
# The third-party OpenAPI documents live beside the repository (../shared), never in it. On CI
# their absence fails the run; elsewhere the runner leaves their tests out and counts them as
# skipped, so a clone without them cannot pass them silently.
nextest_filter=()
test_skip=()
if [ ! -d ../shared/fixtures/openapi ]; then
  if [ -n "${CI:-}" ]; then
    echo "../shared/fixtures/openapi is missing, and CI must have the third-party OpenAPI documents" >&2
    exit 1
  fi
  echo "../shared/fixtures/openapi is absent: the real_documents tests are skipped"
  nextest_filter=(-E 'not test(/^real_documents::/)')
  test_skip=(--skip real_documents::)
fi
# A failing suite does not stop the others: every suite runs, the time table prints, and the
# run fails at the end naming what failed.
failed=()
if cargo nextest --version >/dev/null 2>&1; then
  # Two test processes per core: most tests wait on a database or a socket, not the CPU.
  cargo nextest run --workspace --locked --no-fail-fast --test-threads "$(($(nproc) * 2))" "${nextest_filter[@]}" \
    || failed+=("Rust tests")
  # nextest runs no doctests: the publishable crates' documented examples (their READMEs' and
  # crate docs' code) are compiled and run here.
  cargo test --doc --locked -q -p mcpgen-catalog -p mcpgen -p mcpgen-axum || failed+=("doctests")
else
  cargo test --workspace --locked --no-fail-fast -- "${test_skip[@]}" || failed+=("Rust tests")
  # `cargo test` builds the workspace's binaries with the tests' feature set; nothing rebuilds.
fi
phase "Rust tests (build and run)" "$t"

echo "== Waiting for the installs"
if ! wait "$installing"; then
  cat "$logs/install.log" >&2
  echo "installing the Python tools or the client SDKs failed (above)" >&2
  exit 1
fi
cat "$logs/install.log"
timings+=("$(printf '%5ss  %s' $(($(cat "$logs/install.end") - t_install)) "installs (in the background, from the start)")")

echo "== OpenAPI document"
.venv/bin/openapi-spec-validator openapi/v1.yaml || failed+=("OpenAPI document")

# The Python suites start their own servers on free ports and run side by side; each one's
# output is printed whole when it ends, so they never interleave. The Pix PSP tests run in a
# process of their own: they mostly wait for the engine's next tick (about 5 CPU-seconds in a
# minute), so beside the CPU-bound schemathesis and client runs they cost no extra time.
echo "== The live server (tests/python: PDF text, CSV exports, e-mail, Pix at a test PSP, schemathesis) and MCP interoperability (tests/clients: SDK clients, conformance suite, Inspector CLI, a browser), side by side"
t=$SECONDS
.venv/bin/python -m pytest tests/python --ignore=tests/python/test_pix_psp.py > "$logs/python.log" 2>&1 &
python_suite=$!
.venv/bin/python -m pytest tests/python/test_pix_psp.py > "$logs/pix.log" 2>&1 &
pix_suite=$!
.venv/bin/python -m pytest tests/clients > "$logs/clients.log" 2>&1 &
clients_suite=$!
wait "$python_suite" || failed+=("tests/python")
echo "-- tests/python"; cat "$logs/python.log"
wait "$pix_suite" || failed+=("tests/python/test_pix_psp.py")
echo "-- tests/python/test_pix_psp.py"; cat "$logs/pix.log"
wait "$clients_suite" || failed+=("tests/clients")
echo "-- tests/clients"; cat "$logs/clients.log"
phase "tests/python and tests/clients (side by side)" "$t"

echo "== Time by phase"
printf '%s\n' "${timings[@]}"
echo "total: $((SECONDS - started))s"
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
