"""schemathesis against the live server with the spec: no 5xx, no response that violates the
document, valid data accepted and invalid data refused, over every operation.

What the server refuses beyond what a schema can say (check digits, dates relative to today,
state rules) is said in the document (`format`s, `x-` notes, descriptions) and the statuses
that answer it are listed, per operation, in `schemathesis.toml`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness import REPO, server_binary

CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "positive_data_acceptance",
    "negative_data_rejection",
])


def api_token(server) -> str:
    """An admin API token whose rate limit schemathesis cannot exhaust."""
    out = subprocess.run(
        [str(server_binary()), "token", "create", "--organization", server.org()["id"],
         "--person", server.person("admin")["email"], "--audience", "api",
         "--rate-limit", "1000000/minute", "--label", "schemathesis", "--database-url", server.db_url],
        cwd=server.dir, capture_output=True, text=True, timeout=60, check=True,
    )
    return out.stdout.strip().splitlines()[-1].strip()


# Schemathesis is CPU-bound in Python (one core per process, whatever `--workers` says), so
# the phases run as two processes side by side, each over every operation: the examples and
# the coverage phase in one, fuzzing and the stateful phase (links between operations) in the
# other. Both must pass (the hooks keep their `Idempotency-Key`s apart).
PHASE_GROUPS = ["examples,coverage", "fuzzing,stateful"]


def test_schemathesis_finds_no_server_error_and_no_spec_violation(server):
    st = Path(sys.executable).parent / "schemathesis"
    token = api_token(server)
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(Path(__file__).parent / "schemathesis_hooks.py")}
    runs = []
    for index, phases in enumerate(PHASE_GROUPS):
        command = [
            str(st), "--config-file", str(REPO / "schemathesis.toml"), "--no-color", "run", str(REPO / "openapi" / "v1.yaml"),
            "--url", server.base,
            "--header", f"Authorization: Bearer {token}",
            "--checks", CHECKS,
            "--phases", phases,
            "--max-examples", "25",
            "--workers", "1",
            "--seed", "1",
        ]
        # Each in a folder of its own under the server's: schemathesis keeps a cache where it runs.
        folder = server.dir / f"schemathesis-{index}"
        folder.mkdir(exist_ok=True)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder, env=env)
        runs.append((phases, process))
    failures = []
    for phases, process in runs:
        stdout, stderr = process.communicate(timeout=900)
        print(f"--- phases {phases}\n{stdout[-6000:]}")
        if process.returncode != 0:
            failures.append(f"phases {phases}:\n{stdout[-6000:]}{stderr[-2000:]}")
    assert not failures, "\n".join(failures)
