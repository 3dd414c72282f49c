"""Runs @modelcontextprotocol/conformance against two targets built on our MCP layer.

    python run_conformance.py                   # the real server: starts target/debug/kobana-dunning
    python run_conformance.py --url http://127.0.0.1:8080/mcp --token kd_mcp_...
    python run_conformance.py --target fixture  # the fixture server: target/debug/conformance-fixture

Real server: the scenarios of conformance/scenarios.txt (those that need no suite fixtures), each
run at its spec version with conformance/expected-failures-<version>.yaml as the baseline.

Fixture server (tests/conformance-fixture: the same MCP layer serving a second catalog with the
suite's fixtures): every scenario the suite lists for 2025-06-18, 2025-11-25 and 2026-07-28
(`list --server --spec-version V`), run as one `server --suite all --spec-version V` per version,
with conformance/fixture/expected-failures-<version>.yaml as the baseline.

The suite cannot send a bearer token, so it talks to the server through authproxy.py, which adds
`Authorization` and forwards everything else untouched (Host and Origin included, so
DNS-rebinding checks still test the server).

Prints the suite's own per-scenario output (checks, "Passed: x/y", baseline verdict) and, for the
fixture, the suite's own summary per version; then a summary in the suite's format and the
figures passed / failed / expected failures / total. Exit status 1 when a scenario fails outside
the baseline (or the baseline is stale).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from authproxy import AuthProxy  # noqa: E402
from harness import NODE, FixtureServer, Server  # noqa: E402

CONFORMANCE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SCENARIOS = HERE / "conformance" / "scenarios.txt"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The revisions the fixture server is run at: every scenario the suite has for each.
FIXTURE_VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


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


def fixture_baseline(version: str) -> Path:
    return HERE / "conformance" / "fixture" / f"expected-failures-{version}.yaml"


def list_scenarios(version: str) -> list[str]:
    """The server scenarios the suite has for `version`, in its order."""
    out = subprocess.run(
        [str(NODE), str(CONFORMANCE), "list", "--server", "--spec-version", version],
        capture_output=True, text=True, timeout=60, check=True, cwd=HERE,
    ).stdout
    return re.findall(r"^\s+- (\S+)", out, re.M)


def load_fixture_scenarios() -> list[tuple[str, str]]:
    return [(v, s) for v in FIXTURE_VERSIONS for s in list_scenarios(v)]


def read_baseline(path: Path) -> list[tuple[str, str]]:
    """The entries of an expected-failures file, each with its reason (the line's comment)."""
    entries = []
    if path.exists():
        for line in path.read_text().splitlines():
            m = re.match(r"^\s*-\s*([^#\s]+)\s*(?:#\s*(.*))?$", line)
            if m:
                entries.append((m.group(1), (m.group(2) or "").strip()))
    return entries


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


def judge(scenario: str, checks: list[dict], entries: set[str]) -> tuple[str, list[tuple[str, str]]]:
    """A scenario's verdict against the baseline, as the suite decides it: a WARNING counts as
    a failure; an entry is the scenario or `scenario:checkId`; an entry that passes is stale."""
    failing = [(c.get("id"), (c.get("errorMessage") or c.get("description") or "")[:300])
               for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    whole = scenario in entries
    listed = {e.split(":", 1)[1] for e in entries if e.startswith(scenario + ":")}
    if not failing:
        stale = whole or any(c.get("id") in listed and c.get("status") == "SUCCESS" for c in checks)
        return ("failed (stale baseline)" if stale else "passed"), failing
    if whole or all(cid in listed for cid, _ in failing):
        return "expected failure", failing
    return "failed", failing


def checks_report(checks: list[dict]) -> list[str]:
    """A scenario's checks as the suite prints them when it runs one scenario (a whole-suite run
    prints only its summary; the checks are in the output directory)."""
    width = max((len(c.get("id", "")) for c in checks), default=0)
    lines = ["Checks:"]
    for c in checks:
        line = f"  [{c.get('id', '').ljust(width)}] {c.get('status', '?'):<7} {c.get('description', '')}"
        lines.append(line)
        if c.get("status") in ("FAILURE", "WARNING") and c.get("errorMessage"):
            lines.append(f"    Error: {c['errorMessage'][:300]}")
    n = {k: sum(1 for c in checks if c.get("status") == k) for k in ("SUCCESS", "FAILURE", "WARNING")}
    lines.append(f"Passed: {n['SUCCESS']}/{n['SUCCESS'] + n['FAILURE']}, {n['FAILURE']} failed, {n['WARNING']} warnings")
    return lines


def run_suite(url: str, version: str, outdir: Path, timeout: float = 900) -> tuple[list[dict], str]:
    """Every scenario of `version` in one run of the suite (`--suite all --spec-version`), against
    the fixture baseline. Returns one result per scenario, in the suite's order, and the suite's
    own summary (its SUMMARY section and baseline verdict)."""
    out = outdir / f"fixture-{version}"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [str(NODE), str(CONFORMANCE), "server", "--url", url, "--suite", "all", "--spec-version", version,
           "-o", str(out)]
    if fixture_baseline(version).exists():
        cmd += ["--expected-failures", str(fixture_baseline(version))]
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE)
        rc, text = proc.returncode, ANSI.sub("", proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired as exc:
        rc, text = -1, f"timed out after {timeout}s\n{exc.stdout or ''}"
    seconds = round(time.monotonic() - started, 1)
    checks: dict[str, list[dict]] = {}
    for d in out.iterdir():
        m = re.match(r"^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$", d.name)
        if m and (d / "checks.json").exists():
            checks[m.group(1)] = json.loads((d / "checks.json").read_text())
    entries = {e for e, _ in read_baseline(fixture_baseline(version))}
    results = []
    for scenario in list_scenarios(version):
        ran = checks.get(scenario)
        if ran is None:
            verdict, failing = "failed (not run)", []
        else:
            verdict, failing = judge(scenario, ran, entries)
        counts: dict[str, int] = {}
        for c in ran or []:
            counts[c.get("status", "?")] = counts.get(c.get("status", "?"), 0) + 1
        results.append({
            "version": version, "scenario": scenario, "verdict": verdict, "rc": rc, "counts": counts,
            "failing": failing, "report": checks_report(ran or []), "seconds": seconds,
        })
    summary = text[text.find("=== SUMMARY ==="):] if "=== SUMMARY ===" in text else text[-3000:]
    return results, summary.strip()


# The suite's runs are Node processes that mostly wait on the server: a few at a time keep both
# cores busy. Results keep the order of the versions and scenarios.
PARALLEL = 3


def run_fixture_all(url: str, outdir: Path) -> dict:
    """The fixture server at every version: {"results": [...], "summaries": {version: text}}."""
    results, summaries = [], {}
    with ThreadPoolExecutor(PARALLEL) as pool:
        runs = list(pool.map(lambda version: run_suite(url, version, outdir), FIXTURE_VERSIONS))
    for version, (found, summary) in zip(FIXTURE_VERSIONS, runs):
        summaries[version] = summary
        results += found
    return {"results": results, "summaries": summaries}


def run_all(url: str, outdir: Path, scenarios: list[tuple[str, str]] | None = None) -> list[dict]:
    with ThreadPoolExecutor(PARALLEL) as pool:
        return list(pool.map(lambda vs: run_scenario(url, vs[0], vs[1], outdir), scenarios or load_scenarios()))


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


def render(results: list[dict], with_reports: bool = True, target: str = "real server") -> str:
    out = []
    if with_reports:
        for r in results:
            out.append(f"=== Running scenario: {r['scenario']} (spec {r['version']}) ===")
            out += r["report"]
            out.append("")
    out.append(f"=== SUMMARY ({target}) ===")
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


def label_expected(line: str, expected: set[str]) -> str:
    """A line of the suite's own summary, with "[expected failure]" after a failing scenario
    the baseline lists, so that a ✗ there is not read as a failure of the run."""
    m = re.match(r"^\s*✗ ([\w-]+):", line)
    if m and m.group(1) in expected:
        return f"{line}  [expected failure]"
    return line


def render_fixture(run: dict, with_reports: bool = True) -> str:
    """The fixture runs: per version, the suite's own summary, then ours with the baseline's
    reasons, then the figures per version."""
    out = []
    reasons = {v: dict(read_baseline(fixture_baseline(v))) for v in FIXTURE_VERSIONS}
    for version in FIXTURE_VERSIONS:
        results = [r for r in run["results"] if r["version"] == version]
        out.append(f"--- spec {version}: the suite's own summary ---")
        expected = {r["scenario"] for r in results if r["verdict"] == "expected failure"}
        out += [label_expected(line, expected) for line in run["summaries"].get(version, "").splitlines()]
        out.append("")
        out.append(render(results, with_reports, target=f"fixture server, spec {version}"))
        for r in results:
            if r["verdict"] == "expected failure":
                out.append(f"  expected: {r['scenario']}: {reasons[version].get(r['scenario'], '')}")
        out.append("")
    out.append("Fixture server, per spec version (passed / expected failures / failed / total):")
    for version in FIXTURE_VERSIONS:
        f = figures([r for r in run["results"] if r["version"] == version])
        out.append(f"  {version}: {f['passed']} / {f['expected_failures']} / {f['failed']} / {f['total']}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="MCP endpoint of a running server (default: start one)")
    ap.add_argument("--token", help="MCP token the proxy adds (with --url)")
    ap.add_argument("--scenario", action="append", help="VERSION:SCENARIO to run (repeatable; real server)")
    ap.add_argument("--target", choices=["real", "fixture"], default="real",
                    help="the real server (default) or the conformance fixture server")
    args = ap.parse_args()
    server = None
    if args.url:
        if not args.token:
            ap.error("--url needs --token")
        upstream, token = args.url, args.token
    elif args.target == "fixture":
        server = FixtureServer().start()
        upstream, token = server.mcp_url, server.token
    else:
        server = Server().start()
        upstream, token = server.mcp_url, server.person("admin")["mcp_token"]
    m = re.match(r"http://([^:/]+):(\d+)(/.*)", upstream)
    if not m:
        ap.error("--url must look like http://HOST:PORT/PATH")
    proxy = AuthProxy(int(m.group(2)), token, upstream_host=m.group(1))
    try:
        with tempfile.TemporaryDirectory(prefix="kd-conformance-") as tmp:
            if args.target == "fixture":
                run = run_fixture_all(proxy.url + m.group(3), Path(tmp))
                print(render_fixture(run))
                return 1 if figures(run["results"])["failed"] else 0
            chosen = [tuple(s.split(":", 1)) for s in args.scenario] if args.scenario else None
            results = run_all(proxy.url + m.group(3), Path(tmp), chosen)  # type: ignore[arg-type]
        print(render(results))
        return 1 if figures(results)["failed"] else 0
    finally:
        proxy.close()
        if server:
            server.stop()
            if isinstance(server, Server):
                server.cleanup()


if __name__ == "__main__":
    sys.exit(main())
