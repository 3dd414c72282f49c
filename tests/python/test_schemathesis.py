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


def test_schemathesis_finds_no_server_error_and_no_spec_violation(server):
    st = Path(sys.executable).parent / "schemathesis"
    command = [
        str(st), "--config-file", str(REPO / "schemathesis.toml"), "--no-color", "run", str(REPO / "openapi" / "v1.yaml"),
        "--url", server.base,
        "--header", f"Authorization: Bearer {api_token(server)}",
        "--checks", CHECKS,
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-examples", "25",
        "--workers", "1",
        "--seed", "1",
    ]
    # Run in the server's temp folder: schemathesis keeps a cache where it runs.
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(Path(__file__).parent / "schemathesis_hooks.py")}
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=server.dir, env=env)
    print(run.stdout[-6000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
