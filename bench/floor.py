"""What an MCP detail read must cost beyond the REST one, measured on the least stack that can
serve both (bench/floor/src/main.rs), and what that leaves of issue 26's MCP/REST target.

    bench/floor.py --build target/release/kobana-dunning
    bench/floor.py --build /tmp/kd --rounds 5 --duration 3 --requests 200
    bench/floor.py --build /tmp/kd --engine postgres     # our build on PostgreSQL (the floor has no database)
    bench/floor.py --build /tmp/kd --split               # and user and kernel time, as bench/reads.py --split

The floor server answers `GET /v1/charges/{id}` and the `tools/call` of `dunning_charges_get`
with the same hyper server, token lookup, rate-limit count and handler (one charge in memory,
written once with serde_json), MCP adding only what the contract asks of a tool call. The
requests are the very ones bench/reads.py sends our server (the MCP one through
bench/mcp_call.lua), and the answers have the same bytes. Two measures, as for our server:

- instructions per request under callgrind (bench/instructions.py's method), which do not
  move between runs;
- server CPU µs per request under `wrk` (bench/reads.py's method), the floor's two cases and
  our build's two alternated in each round, which adds what the kernel does with the larger
  request and answer.

The floor's MCP − REST difference is the least any implementation adds to a REST read to
serve it as a tool call. Added to our REST detail, it gives the best MCP/REST ratio our
server could reach with its REST detail as it is: REST ÷ (REST + that difference).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instructions  # noqa: E402
import reads  # noqa: E402

FLOOR = reads.ROOT / "bench" / "floor"
TOKEN = "floor"
# The cases measured on both servers, as bench/reads.py names them, and the pairs compared.
CASES = ("REST detail", "MCP detail", "REST list 25", "MCP list 25")
PAIRS = (("detail", "REST detail", "MCP detail"), ("list 25", "REST list 25", "MCP list 25"))
# The simulated cache misses `--cache-sim` reports: L1 instruction reads, L1 data reads and writes.
MISSES = ("I1mr", "D1mr", "D1mw")


def build_floor() -> Path:
    """The floor's release build, in a target folder of its own (it is not in the workspace)."""
    target = Path(os.environ.get("FLOOR_TARGET_DIR", Path(tempfile.gettempdir()) / "kobana-floor-target"))
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=FLOOR, check=True,
                   env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    return target / "release" / "floor"


class Floor:
    """The floor server, on its own or under callgrind."""

    def __init__(self, binary: Path, launcher: list[str] | None = None) -> None:
        self.proc = subprocess.Popen([*(launcher or []), str(binary), "--bind", "127.0.0.1:0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"listening on (\S+) charge (\S+)", line)
        if not found:
            raise RuntimeError(f"the floor server did not start: {line!r}")
        self.base = f"http://{found.group(1)}"
        self.charge = found.group(2)
        time.sleep(0.5 if launcher else 0)

    def cases(self) -> list[tuple[str, list[str], dict[str, str]]]:
        """The floor's cases, in bench/reads.py's form."""
        lua = ["-s", str(reads.ROOT / "bench" / "mcp_call.lua"), f"{self.base}/mcp"]
        rest = ["-H", f"Authorization: Bearer {TOKEN}"]
        return [
            ("REST detail", rest + [f"{self.base}/v1/charges/{self.charge}"], {}),
            ("MCP detail", lua, {"TOKEN": TOKEN, "BODY": reads.mcp_body("dunning_charges_get", {"id": self.charge})}),
            ("REST list 25", rest + [f"{self.base}/v1/charges?per_page=25"], {}),
            ("MCP list 25", lua, {"TOKEN": TOKEN, "BODY": reads.mcp_body("dunning_charges_list", {"per_page": 25})}),
        ]

    def cpu_seconds(self) -> float:
        return sum(reads.cpu_times(self.proc.pid))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def floor_instructions(binary: Path, requests: int, warmup: int,
                       misses: dict[str, dict[str, float]] | None = None) -> dict[str, float]:
    """Instructions per request of each of the floor's cases; with `misses`, callgrind also
    simulates the caches and each case's L1 misses per request are kept there."""
    out = Path(tempfile.mkdtemp(prefix="floor-callgrind-"))
    simulate = ["--cache-sim=yes"] if misses is not None else []
    floor = Floor(binary, ["valgrind", "--tool=callgrind", *simulate, f"--callgrind-out-file={out}/cg.%p"])
    figures = {}
    try:
        for name, target, env in floor.cases():
            events, _ = instructions.count_case(floor.proc.pid, out, target, env, requests, warmup)
            figures[name] = events["Ir"] / requests
            if misses is not None:
                misses[name] = {event: events[event] / requests for event in MISSES}
    finally:
        floor.stop()
    return figures


def ours_instructions(binary: str, engine: str, requests: int, warmup: int,
                      misses: dict[str, dict[str, float]] | None = None) -> dict[str, float]:
    figures = instructions.measure(binary, engine, requests, warmup, None, misses=misses)
    return {name: figures[name] for name in CASES}


def cpu(binary: Path, build: str | None, engine: str, rounds: int, seconds: int,
        splits: dict | None = None) -> dict[str, dict[str, list[float]]]:
    """µs per request of each case, the floor's and our build's alternated in each round; with
    `splits`, each load's split (`reads.load`) kept as splits[server][case]."""
    results: dict[str, dict[str, list[float]]] = {"floor": {}, "ours": {}}
    floor = Floor(binary)
    ours = reads.Server(Path(build), engine).start() if build else None
    try:
        plans = {"floor": (floor, floor.cases())}
        if ours:
            plans["ours"] = (ours, [c for c in reads.cases(ours) if c[0] in CASES])
        for _ in range(rounds):
            for label, (server, cases) in plans.items():
                for name, target, env in cases:
                    split = {} if splits is not None else None
                    results[label].setdefault(name, []).append(reads.load(server, target, env, seconds, split))
                    if split is not None:
                        splits.setdefault(label, {}).setdefault(name, []).append(split)
    finally:
        floor.stop()
        if ours:
            ours.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", help="our server's release binary, measured beside the floor")
    parser.add_argument("--engine", default="sqlite", choices=["sqlite", "postgres"], help="our build's database")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--split", action="store_true",
                        help="also print each case's user and kernel time, system calls and context switches")
    parser.add_argument("--cache-sim", action="store_true",
                        help="also count each case's simulated L1 misses per request under callgrind, "
                             "the floor's and ours (a longer code path misses the instruction cache more)")
    args = parser.parse_args()
    binary = build_floor()
    build = str(Path(args.build).resolve()) if args.build else None
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    misses: dict[str, dict[str, dict[str, float]]] | None = (
        {"floor": {}, "ours": {}} if args.cache_sim else None)
    counted = {"floor": floor_instructions(binary, args.requests, args.warmup, misses and misses["floor"])}
    if build:
        counted["ours"] = ours_instructions(build, args.engine, args.requests, args.warmup,
                                            misses and misses["ours"])
    splits: dict | None = {} if args.split else None
    timed = cpu(binary, build, args.engine, args.rounds, args.duration, splits)
    print(f"\n`bench/floor.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load average {' '.join(load_before)}; {args.requests} requests per case under callgrind, "
          f"{args.rounds} rounds of {args.duration} s under wrk; ours on {args.engine}:\n")
    print("| server, measure | read | REST | MCP | MCP − REST | MCP/REST (REST ÷ MCP) |")
    print("|---|---|---|---|---|---|")
    for label in counted:
        for read, a, b in PAIRS:
            rest, mcp = counted[label][a], counted[label][b]
            print(f"| {label}, instructions (k) | {read} | {rest / 1000:.1f} | {mcp / 1000:.1f} | "
                  f"{(mcp - rest) / 1000:.1f} | {rest / mcp:.2f} |")
    for label, by_case in (misses or {}).items():
        for read, a, b in PAIRS:
            if a not in by_case:
                continue
            for event in MISSES:
                rest, mcp = by_case[a][event], by_case[b][event]
                print(f"| {label}, {event} | {read} | {rest:,.0f} | {mcp:,.0f} | {mcp - rest:,.0f} | — |")
    for label in timed:
        for read, a, b in PAIRS:
            if a not in timed[label]:
                continue
            rest, mcp = timed[label][a], timed[label][b]
            print(f"| {label}, CPU µs | {read} | {reads.spread(rest)} | {reads.spread(mcp)} | "
                  f"{reads.spread([m - r for r, m in zip(rest, mcp)])} | "
                  f"{reads.spread([r / m for r, m in zip(rest, mcp)], 2)} |")
    for label, by_case in (splits or {}).items():
        print(f"\n{label}: per request, median (range)\n")
        print(reads.split_table(by_case))
    if not build:
        return
    print()
    for read, a, b in PAIRS:
        floor_added = counted["floor"][b] - counted["floor"][a]
        rest = counted["ours"][a]
        print(f"- {read}, by instructions: our REST {rest / 1000:.1f}k + the floor's {floor_added / 1000:.1f}k "
              f"= at best {rest / (rest + floor_added):.2f} (target ≥ 0.90; ours {rest / counted['ours'][b]:.2f}).")
        ceilings = [r / (r + (fm - fr)) for r, fr, fm in zip(timed["ours"][a], timed["floor"][a], timed["floor"][b])]
        today = [r / m for r, m in zip(timed["ours"][a], timed["ours"][b])]
        print(f"- {read}, by CPU, round by round: our REST + the floor's difference = at best "
              f"{reads.spread(ceilings, 2)} (ours {reads.spread(today, 2)}).")


if __name__ == "__main__":
    main()
