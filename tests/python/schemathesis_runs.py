"""The schemathesis runs of test_schemathesis.py, started as soon as the session begins.

Schemathesis is CPU-bound in Python (one core per process, whatever `--workers` says), and the
other tests of this folder mostly wait (on a relay, on the engine's next tick). So conftest.py
starts both schemathesis processes before the first test, against a server of their own, and
test_schemathesis.py, run last, collects them: the waiting tests run while schemathesis works."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness import REPO, Server, server_binary

CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "positive_data_acceptance",
    "negative_data_rejection",
])

# Every phase over every operation, as two processes of about the same CPU time, each with the
# examples per operation it generates (measured alone on this 2-core machine, 2026-12-02:
# examples, coverage and stateful 27 s; fuzzing 38 s at 25 examples, 23 s at 12). Fuzzing's
# examples are what the test phases' CPU budget allows: the coverage phase already sends each
# operation its boundary and negative values systematically. Both must pass (the hooks keep
# their `Idempotency-Key`s apart).
PHASE_GROUPS = [("examples,coverage,stateful", 25), ("fuzzing", 12)]


def api_token(server: Server) -> str:
    """An admin API token whose rate limit schemathesis cannot exhaust."""
    out = subprocess.run(
        [str(server_binary()), "token", "create", "--organization", server.org()["id"],
         "--person", server.person("admin")["email"], "--audience", "api",
         "--rate-limit", "1000000/minute", "--label", "schemathesis", "--database-url", server.db_url],
        cwd=server.dir, capture_output=True, text=True, timeout=60, check=True,
    )
    return out.stdout.strip().splitlines()[-1].strip()


@dataclass
class Runs:
    """The server schemathesis talks to and its processes, one per phase group."""

    server: Server
    processes: list[tuple[str, subprocess.Popen, Path]]

    def finish(self, timeout: float = 900) -> list[tuple[str, int, str, str]]:
        """Each group's phases, exit status, stdout and stderr, once all have ended."""
        return [(phases, p.wait(timeout), (folder / "stdout.txt").read_text(), (folder / "stderr.txt").read_text())
                for phases, p, folder in self.processes]

    def stop(self) -> None:
        for _, p, _ in self.processes:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.server.stop()
        self.server.cleanup()


def start() -> Runs:
    # The webhooks schemathesis registers point at generated host names that do not resolve;
    # at the stop, the engine would give its attempt at them the default 30 s grace (3-4 s of
    # an idle machine at the end of the suite, measured). Nothing here checks a graceful stop.
    server = Server(extra_args=["--shutdown-grace", "200ms"]).start()
    st = Path(sys.executable).parent / "schemathesis"
    token = api_token(server)
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(Path(__file__).parent / "schemathesis_hooks.py")}
    processes = []
    for index, (phases, examples) in enumerate(PHASE_GROUPS):
        command = [
            str(st), "--config-file", str(REPO / "schemathesis.toml"), "--no-color", "run", str(REPO / "openapi" / "v1.yaml"),
            "--url", server.base,
            "--header", f"Authorization: Bearer {token}",
            "--checks", CHECKS,
            "--phases", phases,
            "--max-examples", str(examples),
            "--workers", "1",
            "--seed", "1",
        ]
        # Each in a folder of its own under the server's: schemathesis keeps a cache where it
        # runs. Output goes to files, so a long run never blocks on a full pipe.
        folder = server.dir / f"schemathesis-{index}"
        folder.mkdir(exist_ok=True)
        with open(folder / "stdout.txt", "w") as stdout, open(folder / "stderr.txt", "w") as stderr:
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, cwd=folder, env=env)
        processes.append((phases, process, folder))
    return Runs(server, processes)
