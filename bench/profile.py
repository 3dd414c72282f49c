"""Where one read's server CPU goes: `perf record -g` of a build serving one case under `wrk`,
folded into microseconds per request for the functions of this project (inclusive).

    bench/profile.py --binary /tmp/fp/release/kobana-dunning --case "MCP detail" --against "REST detail"

The binary must keep frame pointers, or the deep async stacks of a request are cut short and
the inclusive figures mean nothing:
    RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release --locked --target-dir /tmp/fp
Cases are bench/reads.py's (its demo server, its tokens, its `wrk` load). With `--against`, the
second case is profiled on the same server and both columns are printed side by side. A
function's figure is the share of samples whose stack holds it, times the case's CPU µs per
request measured during the recording (perf's own cost included, so compare columns, not runs).
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reads  # noqa: E402

OURS = ("kobana_dunning", "mcpgen_axum::", "dunning_", "mcpgen_catalog::")


def record(server: reads.Server, target: list[str], env: dict[str, str], seconds: int, out: Path) -> float:
    """Profile `seconds` of load; the case's CPU µs per request while recorded."""
    reads.load(server, target, env, 2)  # warm caches, statement cache and token cache
    perf = subprocess.Popen(["perf", "record", "-F", "2000", "-g", "-p", str(server.proc.pid), "-o", str(out),
                             "--", "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cost = reads.load(server, target, env, seconds)
    perf.wait()
    return cost


def inclusive(data: Path) -> tuple[collections.Counter, int]:
    """For each function, in how many samples' stacks it appears (once per sample)."""
    text = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip,sym"], capture_output=True, text=True).stdout
    counts: collections.Counter = collections.Counter()
    samples = 0
    for stack in text.split("\n\n"):
        frames = {re.sub(r"::h[0-9a-f]{16}$", "", re.sub(r"^\s*[0-9a-f]+\s+", "", f)) for f in stack.strip().splitlines()}
        if frames:
            samples += 1
            counts.update(frames)
    return counts, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--case", required=True, help="a case name of bench/reads.py")
    parser.add_argument("--against", help="a second case, printed beside the first")
    parser.add_argument("--engine", default="sqlite")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--all", action="store_true", help="every function, not only this project's")
    args = parser.parse_args()
    server = reads.Server(Path(args.binary).resolve(), args.engine).start()
    columns = []
    try:
        plan = {name: (target, env) for name, target, env in reads.cases(server)}
        for case in filter(None, [args.case, args.against]):
            target, env = plan[case]
            data = Path(tempfile.mkdtemp(prefix="profile-")) / "perf.data"
            cost = record(server, target, env, args.seconds, data)
            counts, samples = inclusive(data)
            columns.append((case, cost, {f: n / max(samples, 1) * cost for f, n in counts.items()}))
    finally:
        server.stop()
    print(f"µs per request, inclusive, {args.engine}; " + "; ".join(f"{c}: {cost:.0f} µs measured" for c, cost, _ in columns))
    print("| function | " + " | ".join(c for c, _, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    first = columns[0][2]
    ours = (lambda f: True) if args.all else (lambda f: any(o in f for o in OURS))
    names = [f for f in first if ours(f)]
    for other in columns[1:]:
        names += [f for f in other[2] if f not in first and ours(f)]
    names.sort(key=lambda f: -max(col.get(f, 0) for _, _, col in columns))
    for name in names[:args.top]:
        print(f"| `{name[:100]}` | " + " | ".join(f"{col.get(name, 0):.1f}" for _, _, col in columns) + " |")


if __name__ == "__main__":
    main()
