"""Instructions per request of each case of bench/reads.py, counted by valgrind's callgrind:
the same figure every run for the same build, whatever else the machine does.

    bench/instructions.py --builds before=/tmp/kd-old after=target/release/kobana-dunning
    bench/instructions.py --builds A=... B=... --engines sqlite --requests 400
    bench/instructions.py --builds A=... --engines sqlite --cache-sim   # and L1 misses per request

CPU time per request (bench/reads.py) is what the targets are set in, but on 2 shared cores
it moves by ±10 % between rounds, more than most single changes are worth. Instructions do not
move: a change that saves 3 % of a read shows as 3 % here. They leave out what the kernel does
(the socket, scheduling) and what a cache miss costs, so a change is kept when it saves
instructions and bench/reads.py does not see it cost time.

Each build serves the demo data as in bench/reads.py, under `valgrind --tool=callgrind`. For
each case one keep-alive connection sends `--warmup` requests (caches, statements, the token
cache), then the counters are zeroed, `--requests` more are sent one after another, and the
counters dumped: the instructions of every thread of the server divided by the requests.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reads  # noqa: E402


def request_of(target: list[str], env: dict[str, str]) -> tuple[str, str, dict[str, str], str | None]:
    """A case's wrk arguments (bench/reads.py) as one HTTP request: method, URL, headers, body."""
    headers: dict[str, str] = {}
    args = list(target)
    if args[:1] == ["-s"]:  # bench/mcp_call.lua, which reads BODY and TOKEN
        url = args[2]
        headers = {"Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18",
                   "Accept": "application/json, text/event-stream"}
        if env.get("TOKEN"):
            headers["Authorization"] = f"Bearer {env['TOKEN']}"
        return "POST", url, headers, env["BODY"]
    while args[0] == "-H":
        name, value = args[1].split(": ", 1)
        headers[name] = value
        args = args[2:]
    return "GET", args[0], headers, None


def send(url: str, method: str, headers: dict[str, str], body: str | None, count: int) -> None:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    for _ in range(count):
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read()
        if answer.status >= 300:
            raise RuntimeError(f"{method} {url}: {answer.status}")
    conn.close()


def control(pid: int, flag: str) -> None:
    subprocess.run(["callgrind_control", flag, str(pid)], check=True, capture_output=True)


def counted(out: Path, pid: int, before: set[Path]) -> tuple[dict[str, int], Path]:
    """The events of the dump `callgrind_control -d` just wrote, and where it is: `Ir`
    (instructions), and with `--cache-sim` the simulated cache misses (`I1mr`, `D1mr`, ...)."""
    for _ in range(100):
        new = [p for p in out.glob(f"cg.{pid}.*") if p not in before]
        if new:
            text = new[0].read_text()
            events = re.search(r"^events: (.*)$", text, re.M)
            found = re.search(r"^totals: ([\d ]+)$", text, re.M) or re.search(r"^summary: ([\d ]+)$", text, re.M)
            if events and found:
                return dict(zip(events.group(1).split(), map(int, found.group(1).split()))), new[0]
        time.sleep(0.1)
    raise RuntimeError("callgrind wrote no dump")


def count_case(pid: int, out: Path, target: list[str], env: dict[str, str], requests: int,
               warmup: int) -> tuple[dict[str, int], Path]:
    """One case's events under the callgrind of `pid`, which dumps into `out`: `warmup` requests
    (caches, statements, the token cache), the counters zeroed, `requests` more, the counters
    dumped; the events summed over them, and the dump."""
    method, url, headers, body = request_of(target, env)
    send(url, method, headers, body, warmup)
    control(pid, "-z")
    before = set(out.glob(f"cg.{pid}.*"))
    send(url, method, headers, body, requests)
    control(pid, "-d")
    return counted(out, pid, before)


def measure(binary: str, engine: str, requests: int, warmup: int, keep: Path | None,
            cache_sim: bool = False, misses: dict[str, dict[str, float]] | None = None) -> dict[str, float]:
    """Instructions per request of each case; with `cache_sim` (or a `misses` to fill, by case
    and event) the simulated L1 misses per request too."""
    out = Path(reads.tempfile.mkdtemp(prefix="callgrind-"))
    simulate = ["--cache-sim=yes"] if cache_sim or misses is not None else []
    server = reads.Server(Path(binary), engine,
                          launcher=["valgrind", "--tool=callgrind", *simulate, f"--callgrind-out-file={out}/cg.%p"])
    server.start()
    figures = {}
    try:
        pid = server.proc.pid
        for name, target, env in reads.cases(server):
            events, dump = count_case(pid, out, target, env, requests, warmup)
            figures[name] = events["Ir"] / requests
            if misses is not None:
                misses[name] = {event: count / requests for event, count in events.items()}
            if keep:
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(dump, keep / f"{Path(binary).name}-{engine}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.callgrind")
            simulated = "".join(f", {event} {count / requests:,.0f}" for event, count in events.items()
                                if event in ("I1mr", "D1mr", "D1mw"))
            print(f"{engine} {binary}: {name} {figures[name]:,.0f}{simulated}", flush=True)
    finally:
        server.stop()
        shutil.rmtree(out, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--builds", nargs="+", required=True, help="LABEL=BINARY")
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--keep", help="a folder to keep each case's callgrind dump in (callgrind_annotate reads it)")
    parser.add_argument("--cache-sim", action="store_true",
                        help="also simulate the caches: each case's L1 instruction and data misses per request "
                             "in its progress line (what instructions leave out of a longer code path)")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("bench/instructions.py: valgrind is needed (apt-get install valgrind)")
    builds = {label: str(Path(binary).resolve()) for label, binary in (b.split("=", 1) for b in args.builds)}
    results = {(engine, label): measure(binary, engine, args.requests, args.warmup,
                                               Path(args.keep) if args.keep else None, args.cache_sim)
               for engine in args.engines.split(",") for label, binary in builds.items()}
    columns = list(results)
    print(f"\n`bench/instructions.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{args.requests} requests per case after {args.warmup}; thousands of instructions per request:\n")
    print("| case | " + " | ".join(f"{engine}, {label}" for engine, label in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in results[columns[0]]:
        print(f"| {name} | " + " | ".join(f"{results[c][name] / 1000:,.1f}" for c in columns) + " |")
    for title, a, b, _, _ in reads.RATIOS:
        print(f"| {title.replace('by CPU', 'by instructions')} | " + " | ".join(f"{results[c][a] / results[c][b]:.2f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
