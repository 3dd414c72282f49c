"""What a read costs the server, on SQLite and PostgreSQL, for one build or two alternated (A/B).

    bench/reads.py                                  # this checkout's release build, both engines
    bench/reads.py --builds A=/path/to/old B=target/release/kobana-dunning --rounds 4
    bench/reads.py --engines sqlite --duration 3 --write   # also puts the table in bench/RESULTS.md
    bench/reads.py --builds A=... --split                   # and each case's user and kernel time

Each build serves the demo data (a new SQLite file, or a new PostgreSQL database on
127.0.0.1:5432 made for the run and dropped after it), with its tokens' rate limit lifted.
For every round and every build in turn, `wrk` (2 threads, 32 connections) loads each case for
`--duration` seconds; the figure is the server's own CPU time per request (user + system from
/proc/<pid>/stat over the case, divided by the requests `wrk` counted), which on 2 shared
cores is steadier than requests/s. The report gives each case's median and range over the
rounds, and the ratios issue 26 sets targets for, each taken within one round (the same
minute of the machine) and then summarised the same way.

With `--split`, each case's CPU is also given as user and kernel time (/proc/<pid>/stat), with
the system calls and context switches the server made per request (`perf stat` of its
`raw_syscalls:sys_enter` and `context-switches` during the same load, where `perf` can count
them): what the kernel does for a request — the socket, waking threads, SQLite's file locks —
is about half of a read's CPU here, and instructions (bench/instructions.py) do not see it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSTGRES = "postgres://postgres@127.0.0.1:5432"
START = "<!-- reads:start -->"
END = "<!-- reads:end -->"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_times(pid: int) -> tuple[float, float]:
    """The seconds process `pid` has run in user mode and in the kernel (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(sql: str) -> None:
    subprocess.run(["psql", "-q", f"{POSTGRES}/test", "-c", sql], check=True, capture_output=True)


@dataclass
class Server:
    """One build serving the demo data on one engine."""

    binary: Path
    engine: str
    dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="reads-")))
    port: int = field(default_factory=free_port)
    database: str = ""
    proc: subprocess.Popen | None = None
    # A command the server runs under (bench/instructions.py: valgrind's callgrind).
    launcher: list[str] = field(default_factory=list)

    def url(self) -> str:
        if self.engine == "sqlite":
            return f"sqlite://{self.dir}/bench.db?mode=rwc"
        return f"{POSTGRES}/{self.database}"

    def start(self) -> Server:
        if self.engine == "postgres":
            self.database = f"reads_{os.getpid()}_{self.port}"
            psql(f"CREATE DATABASE {self.database}")
        self.proc = subprocess.Popen(
            [*self.launcher, str(self.binary), "--bind", f"127.0.0.1:{self.port}", "--database-url", self.url(),
             # The collection sweep's tick is not a read (see bench/run.sh): once an hour.
             "--collection-interval", "1h",
             # An anonymous `ping` is answered, so the JSON-RPC envelope's own cost is a case.
             "--public-catalog"],
            cwd=self.dir, env={**os.environ, "RUST_LOG": "warn"},
            stdout=open(self.dir / "server.log", "w"), stderr=subprocess.STDOUT)
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=1)
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.binary} did not start: {(self.dir / 'server.log').read_text()[-2000:]}")

    def credentials(self) -> dict:
        return json.loads((self.dir / "data" / "demo-credentials.json").read_text())["organizations"][0]

    def token(self, role: str, audience: str) -> str:
        org = self.credentials()
        person = next(p["email"] for p in org["people"] if p["role"] == role)
        out = subprocess.run(
            [str(self.binary), "token", "create", "--organization", org["id"], "--person", person,
             "--audience", audience, "--rate-limit", "100000000/minute", "--database-url", self.url()],
            cwd=self.dir, capture_output=True, text=True, check=True)
        return out.stdout.strip().splitlines()[-1].strip()

    def cpu_seconds(self) -> float:
        return sum(cpu_times(self.proc.pid))

    def stop(self) -> None:
        if self.proc:
            self.proc.terminate()
            self.proc.wait(30)
        if self.database:
            psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")
        shutil.rmtree(self.dir, ignore_errors=True)


def mcp_body(name: str, arguments: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})


def cases(server: Server) -> list[tuple[str, list[str], dict[str, str]]]:
    """(name, wrk target arguments, environment for bench/mcp_call.lua) per case."""
    api, mcp = server.token("admin", "api"), server.token("admin", "mcp")
    base = f"http://127.0.0.1:{server.port}"
    request = urllib.request.Request(f"{base}/v1/charges?per_page=1", headers={"Authorization": f"Bearer {api}"})
    charge = json.loads(urllib.request.urlopen(request).read())["data"][0]["id"]
    rest = ["-H", f"Authorization: Bearer {api}"]
    lua = ["-s", str(ROOT / "bench" / "mcp_call.lua"), f"{base}/mcp"]
    return [
        ("unauthenticated route", [f"{base}/.well-known/oauth-protected-resource"], {}),
        ("MCP ping, anonymous (the JSON-RPC envelope)", lua, {"BODY": json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})}),
        ("MCP ping (authenticated, no database)", lua, {"TOKEN": mcp, "BODY": json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})}),
        ("REST /v1/me (two reads: the Pix setup)", rest + [f"{base}/v1/me"], {}),
        ("REST detail", rest + [f"{base}/v1/charges/{charge}"], {}),
        ("MCP detail", lua, {"TOKEN": mcp, "BODY": mcp_body("dunning_charges_get", {"id": charge})}),
        ("REST list 25", rest + [f"{base}/v1/charges?per_page=25"], {}),
        ("MCP list 25", lua, {"TOKEN": mcp, "BODY": mcp_body("dunning_charges_list", {"per_page": 25})}),
    ]


def load(server, target: list[str], env: dict[str, str], seconds: int, split: dict | None = None) -> float:
    """The server's CPU microseconds per request under `wrk` for `seconds`. With `split`, also
    what of it was user and kernel time, and (when `perf` can count them) the system calls and
    context switches the server made per request, written into that dictionary."""
    pid = server.proc.pid
    counter = None
    if split is not None and shutil.which("perf"):
        counts = tempfile.NamedTemporaryFile(prefix="reads-perf-", suffix=".csv", delete=False)
        counter = subprocess.Popen(["perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter,context-switches",
                                    "-p", str(pid), "-o", counts.name],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    user_before, system_before = cpu_times(pid)
    # CHECK: bench/mcp_call.lua reads each MCP answer and counts the errors (HTTP 200 all).
    out = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "--timeout", "10s", *target],
                         env={**os.environ, **env, "CHECK": "1"}, capture_output=True, text=True, check=True).stdout
    user_after, system_after = cpu_times(pid)
    requests = max(int(re.search(r"(\d+) requests in", out).group(1)), 1)
    if "Non-2xx" in out or re.search(r"MCP errors: [1-9]", out):
        log = (server.dir / "server.log").read_text()[-4000:] if hasattr(server, "dir") else ""
        raise RuntimeError(f"non-2xx or MCP error answers under load: {out}\nthe server's log ends:\n{log}")
    if split is not None:
        split["user"] = (user_after - user_before) * 1e6 / requests
        split["system"] = (system_after - system_before) * 1e6 / requests
        if counter:
            counter.send_signal(signal.SIGINT)
            counter.wait()
            for line in Path(counts.name).read_text().splitlines():
                value, _, event, *_ = line.split(",") + ["", "", ""]
                if value.replace(".", "", 1).isdigit() and event in ("raw_syscalls:sys_enter", "context-switches"):
                    key = "syscalls" if event.startswith("raw") else "switches"
                    split[key] = float(value) / requests
            os.unlink(counts.name)
    return (user_after - user_before + system_after - system_before) * 1e6 / requests


RATIOS = [
    ("REST detail / /v1/me (≤ 2.0)", "REST detail", "REST /v1/me (two reads: the Pix setup)", 2.0, "le"),
    ("REST detail / MCP ping (the authenticated floor)", "REST detail", "MCP ping (authenticated, no database)", 2.0, "le"),
    ("REST list 25 / REST detail (≤ 2.5)", "REST list 25", "REST detail", 2.5, "le"),
    ("MCP/REST detail (≥ 0.90, by CPU: REST ÷ MCP)", "REST detail", "MCP detail", 0.90, "ge"),
    ("MCP/REST list 25 (≥ 0.90, by CPU: REST ÷ MCP)", "REST list 25", "MCP list 25", 0.90, "ge"),
]


def spread(values: list[float], digits: int = 0) -> str:
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def split_table(by_case: dict[str, list[dict]]) -> str:
    """`load`'s splits of each case, one row per case: user and kernel µs, system calls and
    context switches (the last two only where `perf` counted them)."""
    lines = ["| case | user µs | kernel µs | system calls | context switches |", "|---|---|---|---|---|"]
    for name, rounds in by_case.items():
        cells = []
        for key, digits in (("user", 1), ("system", 1), ("syscalls", 2), ("switches", 2)):
            values = [r[key] for r in rounds if key in r]
            cells.append(spread(values, digits) if values else "—")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--builds", nargs="*", default=[], help="LABEL=BINARY, alternated in each round")
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--write", action="store_true", help="put the table in bench/RESULTS.md")
    parser.add_argument("--split", action="store_true",
                        help="also print each case's user and kernel time, system calls and context switches")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("bench/reads.py: wrk is needed (apt-get install wrk)")
    # Each server runs in a folder of its own: a relative path is the caller's, made absolute.
    builds = {label: str(Path(binary).resolve()) for label, binary in (b.split("=", 1) for b in args.builds)}
    if not builds:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
        target = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
                                           cwd=ROOT, capture_output=True, check=True).stdout)["target_directory"]
        builds = {"this build": str(Path(target) / "release" / "kobana-dunning")}
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    # results[engine][build][case] = [µs per round]; ratios[engine][build][ratio] = [per round]
    results: dict = {}
    ratios: dict = {}
    splits: dict = {}  # splits[engine][build][case] = [split per round]
    for engine in args.engines.split(","):
        servers = {label: Server(Path(binary), engine).start() for label, binary in builds.items()}
        try:
            plans = {label: cases(server) for label, server in servers.items()}
            for round_ in range(args.rounds):
                for label, server in servers.items():
                    row = {}
                    for name, target, env in plans[label]:
                        split = {} if args.split else None
                        row[name] = load(server, target, env, args.duration, split)
                        if split is not None:
                            splits.setdefault(engine, {}).setdefault(label, {}).setdefault(name, []).append(split)
                        results.setdefault(engine, {}).setdefault(label, {}).setdefault(name, []).append(row[name])
                    for title, a, b, _, _ in RATIOS:
                        ratios.setdefault(engine, {}).setdefault(label, {}).setdefault(title, []).append(row[a] / row[b])
                    print(f"{engine} round {round_ + 1} {label}: " + ", ".join(f"{k} {v:.0f}" for k, v in row.items()),
                          flush=True)
        finally:
            for server in servers.values():
                server.stop()
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    lines = [
        f"`bench/reads.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
        f"load average before {' '.join(load_before)}, after {' '.join(load_after)}; "
        f"{args.rounds} rounds × {args.duration} s per case, builds alternated within each round; "
        "server CPU µs per request, median (range):",
        "",
        "| case | " + " | ".join(f"{engine}, {label}" for engine in results for label in results[engine]) + " |",
        "|---|" + "---|" * sum(len(v) for v in results.values()),
    ]
    first = next(iter(results.values()))
    for name in next(iter(first.values())):
        cells = [spread(results[e][label][name]) for e in results for label in results[e]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for title, _, _, limit, sense in RATIOS:
        cells = []
        for e in results:
            for label in results[e]:
                values = ratios[e][label][title]
                median = statistics.median(values)
                met = median <= limit if sense == "le" else median >= limit
                cells.append(f"{spread(values, 2)} {'met' if met else 'NOT met'}")
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    for engine, builds_split in splits.items():
        for label, by_case in builds_split.items():
            print(f"\n{engine}, {label}: per request, median (range)\n")
            print(split_table(by_case))
    if args.write:
        path = ROOT / "bench" / "RESULTS.md"
        text = path.read_text()
        block = f"{START}\n{table}\n{END}"
        if START in text:
            text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
        else:
            text += f"\n## What a read costs, SQLite and PostgreSQL (`bench/reads.py`, issue 26)\n\n{block}\n"
        path.write_text(text)


if __name__ == "__main__":
    main()
