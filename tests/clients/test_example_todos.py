"""The example service (`examples/todos`: an ordinary axum + utoipa todo list with its own
`X-API-Key` authentication, given `/mcp` through mcpgen and mcpgen-axum) called by the official
Python SDK in both protocol eras.

One `todos` binary (`target/debug/todos`, or `$TODOS_EXAMPLE_BIN`) on 127.0.0.1, port 0, with one
key per client row; each row runs `todos_client.py` once over all its cases (one pytest test per
row × case): the six tools listed (delete destructive), a write, a read, an update, `whoami`
naming the key's holder (the header reached the handler), the service's 401s (no key, a wrong
key), 409 and 404 passed through as the service's own `{"error": ...}`, and the destructive
delete: refused in the handshake era (`confirmation_required`), confirmed through the SDK's
elicitation in 2026-07-28 (accepted: gone; declined: still there).

Without the binary or the SDK venvs the tests skip, saying what is missing; under CI=true they
fail instead."""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import HERE, VENVS, debug_binary


@dataclass(frozen=True)
class Row:
    id: str
    venv: str
    era: str  # "legacy" (2025 handshake) or "modern" (2026-07-28)

    @property
    def python(self) -> Path:
        return VENVS / self.venv / "bin" / "python"

    @property
    def cases(self) -> list[str]:
        common = ["tools_list", "write", "read", "update", "whoami", "err_401_missing", "err_401_wrong",
                  "err_409", "err_404"]
        return common + (["confirm_accept", "confirm_decline"] if self.era == "modern" else ["delete_unconfirmed"])


ROWS = [
    Row("py-mcp-1.27.1", "mcp-1.27.1", "legacy"),
    Row("py-mcp-2.3.0/2025", "mcp-2.3.0", "legacy"),
    Row("py-mcp-2.3.0/2026", "mcp-2.3.0", "modern"),
]
MATRIX = [(row, case) for row in ROWS for case in row.cases]


def binary() -> Path:
    return debug_binary("todos", "TODOS_EXAMPLE_BIN")


def unavailable(reason: str) -> None:
    """Skips, or under CI (where everything must be there) fails."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def owner(row: Row) -> str:
    return "owner of " + row.id


def key(row: Row) -> str:
    return "key-" + row.id.replace("/", "-")


@pytest.fixture(scope="module")
def todos_url():
    path = binary()
    if not path.exists():
        unavailable(f"todos binary not found: {path} (cargo build -p mcpgen-example-todos, or set TODOS_EXAMPLE_BIN)")
    args = [str(path), "--port", "0"]
    for row in ROWS:
        args += ["--key", f"{key(row)}={owner(row)}"]
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True)
    try:
        # The one line the service prints once bound: `listening on http://127.0.0.1:PORT`.
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline().strip() if ready else ""
        if not line.startswith("listening on http://127.0.0.1:"):
            log.seek(0)
            raise RuntimeError(f"todos did not start (exit {proc.poll()}): {line!r} {log.read()[-1000:]!r}")
        yield line.removeprefix("listening on ")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def reports(todos_url, tmp_path_factory):
    """Each row's client run over all its cases, run on first use."""
    done: dict[str, dict] = {}
    workdir = tmp_path_factory.mktemp("todos-clients")

    def report(row: Row) -> dict:
        if row.id not in done:
            done[row.id] = run_row(row, todos_url, workdir)
        return done[row.id]

    return report


def run_row(row: Row, base: str, workdir: Path) -> dict:
    ctx = {"client": row.id, "url": base + "/mcp", "era": row.era, "key": key(row), "owner": owner(row),
           "cases": row.cases}
    path = workdir / f"context-{row.id.replace('/', '-')}.json"
    path.write_text(json.dumps(ctx, indent=2))
    started = time.monotonic()
    proc = subprocess.run([str(row.python), str(HERE / "todos_client.py"), str(path)],
                          capture_output=True, text=True, timeout=120, cwd=HERE)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"{row.id}: client crashed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-1500:]}")
    out = json.loads(lines[-1])
    out["seconds"] = round(time.monotonic() - started, 1)
    return out


@pytest.mark.parametrize("row,case", MATRIX, ids=[f"{r.id}:{c}" for r, c in MATRIX])
def test_example_todos_case(reports, row, case):
    if not row.python.exists():
        unavailable(f"{row.python} is missing (run tests/clients/setup.sh)")
    report = reports(row)
    want = "2026-07-28" if row.era == "modern" else None
    if want:
        assert report["protocol"] == want, f"{row.id} negotiated {report['protocol']}"
    else:
        assert report["protocol"].startswith("2025-"), f"{row.id} negotiated {report['protocol']}"
    result = report["cases"].get(case)
    assert result is not None, f"{row.id} did not report {case}"
    assert result["status"] == "pass", f"{row.id} {case}: {result['detail']}"
