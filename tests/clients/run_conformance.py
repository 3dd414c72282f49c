"""Runs @modelcontextprotocol/conformance against the real server.

    python run_conformance.py                 # starts target/debug/kobana-dunning itself
    python run_conformance.py --url http://127.0.0.1:8080/mcp --token kd_mcp_...

The scenarios are those of conformance/scenarios.txt (the ones that need no test fixtures), each
run at its spec version with conformance/expected-failures-<version>.yaml as the baseline. The
suite cannot send a bearer token, so it talks to the server through authproxy.py, which adds
`Authorization` (admin's MCP token) and forwards everything else untouched (Host and Origin
included, so DNS-rebinding checks still test the server).

Prints the suite's own per-scenario output (checks, "Passed: x/y", baseline verdict), then a
summary in the suite's format and the figures passed / failed / expected failures / total.
Exit status 1 when a scenario fails outside the baseline (or the baseline is stale).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from authproxy import AuthProxy  # noqa: E402
from harness import NODE, Server  # noqa: E402

CONFORMANCE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SCENARIOS = HERE / "conformance" / "scenarios.txt"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def load_scenarios() -> list[tuple[str, str]]:
    out = []
    for line in SCENARIOS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            version, scenario = line.split()
            out.append((version, scenario))
    return out


def baseline(version: str) -> Path:
    return HERE / "conformance" / f"expected-failures-{version}.yaml"


def suite_lines(text: str) -> list[str]:
    """The suite's own report for one scenario, without the long scenario description."""
    keep, section = [], None
    for raw in ANSI.sub("", text).splitlines():
        line = raw.rstrip()
        if line.startswith("Checks:") or line.startswith("Test Results:"):
            section = "checks"
            keep.append(line)
        elif line.startswith("=== Failed Checks ==="):
            section = "failed"
            keep.append(line)
        elif re.match(r"^(Expected failures|Unexpected failures|Stale baseline|Baseline|Unexpected|Warning)", line):
            section = "baseline"
            keep.append(line)
        elif section == "checks" and (re.match(r"^\d{4}-\d\d-\d\dT", line) or line.startswith("Passed:")):
            keep.append("  " + re.sub(r"^\S+Z ", "", line) if not line.startswith("Passed:") else line)
        elif section == "failed" and (line.startswith("  - ") or line.startswith("    Error:")):
            keep.append(line)
        elif section == "baseline" and line.strip():
            keep.append(line)
    return keep


def run_scenario(url: str, version: str, scenario: str, outdir: Path, timeout: float = 120) -> dict:
    out = outdir / f"{version}-{scenario}"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [str(NODE), str(CONFORMANCE), "server", "--url", url, "--scenario", scenario,
           "--spec-version", version, "-o", str(out)]
    if baseline(version).exists():
        cmd += ["--expected-failures", str(baseline(version))]
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE)
        rc, text = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, text = -1, f"timed out after {timeout}s\n{exc.stdout or ''}"
    checks: list[dict] = []
    for f in sorted(out.glob("*/checks.json")):
        checks += json.loads(f.read_text())
    counts: dict[str, int] = {}
    for c in checks:
        counts[c.get("status", "?")] = counts.get(c.get("status", "?"), 0) + 1
    # With a baseline the suite counts a WARNING as a failure too.
    failing = [(c.get("id"), (c.get("errorMessage") or c.get("description") or "")[:300])
               for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    plain = ANSI.sub("", text)
    if rc != 0:
        verdict = "failed"
        if "Stale baseline" in plain or "Baseline is stale" in plain:
            verdict = "failed (stale baseline)"
        elif not checks:
            verdict = f"failed (runner exit {rc})"
    else:
        verdict = "expected failure" if failing else "passed"
    return {
        "version": version, "scenario": scenario, "verdict": verdict, "rc": rc, "counts": counts,
        "failing": failing, "report": suite_lines(text) or plain.strip().splitlines()[-20:],
        "seconds": round(time.monotonic() - started, 1),
    }


def run_all(url: str, outdir: Path, scenarios: list[tuple[str, str]] | None = None) -> list[dict]:
    return [run_scenario(url, v, s, outdir) for v, s in (scenarios or load_scenarios())]


def figures(results: list[dict]) -> dict:
    f = {"passed": 0, "failed": 0, "expected_failures": 0, "total": len(results)}
    for r in results:
        if r["verdict"] == "passed":
            f["passed"] += 1
        elif r["verdict"] == "expected failure":
            f["expected_failures"] += 1
        else:
            f["failed"] += 1
    return f


def render(results: list[dict], with_reports: bool = True) -> str:
    out = []
    if with_reports:
        for r in results:
            out.append(f"=== Running scenario: {r['scenario']} (spec {r['version']}) ===")
            out += r["report"]
            out.append("")
    out.append("=== SUMMARY (real server) ===")
    for r in results:
        ok = r["verdict"] in ("passed", "expected failure")
        n_pass = r["counts"].get("SUCCESS", 0)
        n_fail = r["counts"].get("FAILURE", 0)
        n_warn = r["counts"].get("WARNING", 0)
        mark = "✓" if ok else "✗"
        note = "" if r["verdict"] == "passed" else f"  [{r['verdict']}]"
        out.append(f"{mark} {r['version']} {r['scenario']}: {n_pass} passed, {n_fail} failed, {n_warn} warnings{note}")
        if not ok:
            for cid, msg in r["failing"]:
                out.append(f"      {cid}: {msg}")
    f = figures(results)
    out.append(
        f"Scenarios: {f['passed']} passed, {f['failed']} failed, {f['expected_failures']} expected failures, "
        f"{f['total']} total"
    )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="MCP endpoint of a running server (default: start one)")
    ap.add_argument("--token", help="MCP token the proxy adds (with --url)")
    ap.add_argument("--scenario", action="append", help="VERSION:SCENARIO to run (repeatable)")
    args = ap.parse_args()
    server = None
    if args.url:
        if not args.token:
            ap.error("--url needs --token")
        upstream, token = args.url, args.token
    else:
        server = Server().start()
        upstream, token = server.mcp_url, server.person("admin")["mcp_token"]
    m = re.match(r"http://([^:/]+):(\d+)(/.*)", upstream)
    if not m:
        ap.error("--url must look like http://HOST:PORT/PATH")
    proxy = AuthProxy(int(m.group(2)), token, upstream_host=m.group(1))
    try:
        chosen = [tuple(s.split(":", 1)) for s in args.scenario] if args.scenario else None
        with tempfile.TemporaryDirectory(prefix="kd-conformance-") as tmp:
            results = run_all(proxy.url + m.group(3), Path(tmp), chosen)  # type: ignore[arg-type]
        print(render(results))
        return 1 if figures(results)["failed"] else 0
    finally:
        proxy.close()
        if server:
            server.stop()
            server.cleanup()


if __name__ == "__main__":
    sys.exit(main())
