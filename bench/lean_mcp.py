"""The least MCP layer this server's design allows, measured inside the server: what a tool
call must cost beyond REST here, as bench/floor.py measures it in a server of its own.

    bench/lean_mcp.py                        # builds HEAD with bench/lean-mcp.patch, both engines
    bench/lean_mcp.py --binary /tmp/kd-lean --engines postgres --rounds 9

bench/lean-mcp.patch (an experiment, never merged) adds two endpoints to the MCP router. Both
read a `tools/call` message into borrowed typed fields, authenticate and admit the caller
through the same `Host`, and write the result with the same `results::prepared`; the answer's
`structuredContent` and text are those of `/mcp` (checked before measuring, `meta.rate_limit`
aside).
- `POST /mcp-lean` sends the operation's request in-process through the same `/v1` router.
- `POST /mcp-direct` has the host run the operation's `/v1` steps (authentication of the
  carried caller, the rate limit's headers, scopes, the path, idempotency, the document's
  schemas) and its handler with no router at all (`Host::direct`; `dunning_charges_get`
  only): the least in-process dispatch there could be, whatever the design.
What both leave out is what `/mcp` adds beyond that: the `Origin`/`Host` guard, the media type,
eras and version headers, the JSON-RPC message as a `Value`, toolsets, the argument schema,
confirmation, the fault guard, spans, metrics and the access log's record of the call. So the
direct layer's MCP − REST is what any tool call must cost in this process (read the message,
authenticate, run the operation, write its result twice: CONTRACT §4), the lean layer's adds
the `/v1` router, and `/mcp`'s the rest of the contract.

For REST detail, MCP detail, MCP lean detail and MCP direct detail on one server:
instructions and simulated L1 misses per request under callgrind (bench/instructions.py's
method), then server CPU µs per request under `wrk` (bench/reads.py's method), the four cases
alternated in each round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instructions  # noqa: E402
import reads  # noqa: E402

PATCH = reads.ROOT / "bench" / "lean-mcp.patch"
CASES = ("REST detail", "MCP detail", "MCP lean detail", "MCP direct detail")
EVENTS = ("Ir", "I1mr", "D1mr", "D1mw")


def build() -> Path:
    """HEAD with the patch applied, built in a worktree of its own (the checkout is not touched)."""
    tree = Path(tempfile.mkdtemp(prefix="lean-mcp-"))
    target = os.environ.get("LEAN_TARGET_DIR", str(Path(tempfile.gettempdir()) / "kobana-lean-target"))
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), "HEAD"], cwd=reads.ROOT, check=True)
    try:
        subprocess.run(["git", "apply", str(PATCH)], cwd=tree, check=True)
        subprocess.run(["cargo", "build", "--release", "--locked", "-q", "--bin", "kobana-dunning"], cwd=tree,
                       check=True, env={**os.environ, "CARGO_TARGET_DIR": target})
        binary = Path(tempfile.gettempdir()) / "kobana-dunning-lean-mcp"
        shutil.copy(Path(target) / "release" / "kobana-dunning", binary)
        return binary
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=reads.ROOT, check=True)


def cases(server: reads.Server) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The two detail cases of bench/reads.py, and the MCP one sent to `/mcp-lean` and to
    `/mcp-direct`."""
    found = {name: (target, env) for name, target, env in reads.cases(server) if name in CASES}
    target, env = found["MCP detail"]
    found["MCP lean detail"] = ([*target[:-1], target[-1] + "-lean"], env)
    found["MCP direct detail"] = ([*target[:-1], target[-1] + "-direct"], env)
    return found


def call(target: list[str], env: dict[str, str]) -> dict:
    request = urllib.request.Request(target[-1], data=env["BODY"].encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18", "Authorization": f"Bearer {env['TOKEN']}"})
    return json.loads(urllib.request.urlopen(request).read())["result"]


def same_result(server: reads.Server) -> None:
    """The lean and direct answers are `/mcp`'s, but for the rate limit's count (each call
    spends one)."""
    plan = cases(server)
    full = call(*plan["MCP detail"])
    full["structuredContent"]["meta"].pop("rate_limit")
    full.pop("content")
    for name in ("MCP lean detail", "MCP direct detail"):
        result = call(*plan[name])
        result["structuredContent"]["meta"].pop("rate_limit")
        result.pop("content")
        if result != full:
            raise SystemExit(f"the {name} answer differs from /mcp's:\n{full}\n{result}")


def under_callgrind(binary: Path, engine: str, requests: int, warmup: int) -> dict[str, dict[str, float]]:
    out = Path(tempfile.mkdtemp(prefix="lean-callgrind-"))
    server = reads.Server(binary, engine, launcher=["valgrind", "--tool=callgrind", "--cache-sim=yes",
                                                    f"--callgrind-out-file={out}/cg.%p"]).start()
    figures = {}
    try:
        for name, (target, env) in cases(server).items():
            events, _ = instructions.count_case(server.proc.pid, out, target, env, requests, warmup)
            figures[name] = {event: events[event] / requests for event in EVENTS}
    finally:
        server.stop()
        shutil.rmtree(out, ignore_errors=True)
    return figures


def timed(binary: Path, engine: str, rounds: int, seconds: int) -> dict[str, list[float]]:
    server = reads.Server(binary, engine).start()
    results: dict[str, list[float]] = {}
    try:
        same_result(server)
        plan = cases(server)
        for _ in range(rounds):
            for name in CASES:
                target, env = plan[name]
                results.setdefault(name, []).append(reads.load(server, target, env, seconds))
    finally:
        server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", help="a release build with bench/lean-mcp.patch applied (else built from HEAD)")
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()
    binary = Path(args.binary).resolve() if args.binary else build()
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    rows = []
    for engine in args.engines.split(","):
        events = under_callgrind(binary, engine, args.requests, args.warmup)
        cpu = timed(binary, engine, args.rounds, args.duration)
        rest = cpu["REST detail"]
        for name in CASES:
            e = events[name]
            extra = "—" if name == "REST detail" else (
                f"{(e['Ir'] - events['REST detail']['Ir']) / 1000:.1f}k, "
                f"{e['I1mr'] - events['REST detail']['I1mr']:,.0f}; "
                f"{reads.spread([m - r for r, m in zip(rest, cpu[name])], 1)} µs")
            ratio = "—" if name == "REST detail" else reads.spread([r / m for r, m in zip(rest, cpu[name])], 2)
            rows.append(f"| {engine} | {name} | {e['Ir'] / 1000:.1f} | {e['I1mr']:,.0f} | "
                        f"{e['D1mr'] + e['D1mw']:,.0f} | {reads.spread(cpu[name], 1)} | {extra} | {ratio} |")
    print(f"\n`bench/lean_mcp.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{' '.join(load_before)}; {args.requests} requests per case under callgrind, {args.rounds} rounds of "
          f"{args.duration} s under wrk:\n")
    print("| engine | case | instructions (k) | L1i misses | L1d misses | CPU µs | MCP − REST: instructions, "
          "L1i misses; CPU | MCP/REST by CPU (≥ 0.90) |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
