"""Fixtures of the interoperability harness: one real server per test session (temp data dir, free
port, demo data), the client runs (each official SDK over all its cases, once), and the
conformance runs: against the real server, and against the fixture server (the same MCP layer
with the suite's fixtures). The terminal summary prints the client × case table and the
conformance figures, with the suite's own summary for the fixture runs."""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness import CLIENTS, NODE, VENVS, DemoData, FixtureServer, Server, render_table, run_client

RESULTS: dict[str, object] = {}


def _require_tools() -> None:
    missing = [str(p) for p in [NODE, *(VENVS / s.package / "bin" / "python" for s in CLIENTS if s.kind == "py")]
               if not Path(p).exists()]
    if missing:
        pytest.fail("interop clients are not installed (run tests/clients/setup.sh): missing " + ", ".join(missing),
                    pytrace=False)


@pytest.fixture(scope="session")
def server():
    s = Server().start()
    yield s
    s.stop()
    if s.proc and s.proc.returncode not in (0, -15, None):
        print(f"server exited with {s.proc.returncode}; log tail:\n{s.log_tail()}")
    s.cleanup()


@pytest.fixture(scope="session")
def workdir():
    with tempfile.TemporaryDirectory(prefix="kd-interop-run-") as d:
        yield Path(d)


@pytest.fixture(scope="session")
def client_reports(server, workdir):
    """Runs every client of the matrix once, over all its cases."""
    _require_tools()
    demo = DemoData(server)
    # Each client gets its own objects and tokens (the contexts, made one after another), so the
    # clients, separate processes that mostly wait on the server, run a few at a time.
    contexts = [(spec, demo.context(spec)) for spec in CLIENTS]
    with ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda sc: run_client(sc[0], sc[1], workdir), contexts))
    reports = {spec.id: report for (spec, _), report in zip(contexts, runs)}
    RESULTS["clients"] = reports
    return reports


@pytest.fixture(scope="session")
def conformance_results(server, workdir):
    _require_tools()
    from authproxy import AuthProxy
    from run_conformance import run_all

    proxy = AuthProxy(server.port, server.person("admin")["mcp_token"])
    try:
        results = run_all(proxy.url + "/mcp", workdir / "conformance")
    finally:
        proxy.close()
    RESULTS["conformance"] = results
    return {(r["version"], r["scenario"]): r for r in results}


@pytest.fixture(scope="session")
def fixture_conformance_results(workdir):
    """Every scenario of 2025-06-18, 2025-11-25 and 2026-07-28 against the fixture server."""
    _require_tools()
    from authproxy import AuthProxy
    from run_conformance import run_fixture_all

    fixture = FixtureServer().start()
    proxy = AuthProxy(fixture.port, fixture.token)
    try:
        run = run_fixture_all(proxy.url + "/mcp", workdir / "fixture-conformance")
    finally:
        proxy.close()
        fixture.stop()
    RESULTS["fixture_conformance"] = run
    return {(r["version"], r["scenario"]): r for r in run["results"]}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    tr = terminalreporter
    clients = RESULTS.get("clients")
    if clients:
        tr.section("MCP clients × cases (P pass, F fail, - not applicable)")
        for line in render_table(clients).splitlines():
            tr.write_line(line)
        failures = [(cid, case, r["detail"]) for cid, rep in clients.items()
                    for case, r in rep.get("cases", {}).items() if r["status"] != "pass"]
        if failures:
            tr.write_line("")
            tr.write_line("Failing cases:")
            for cid, case, detail in failures:
                tr.write_line(f"  {cid} {case}: {detail[:300]}")
        tr.write_line("")
        tr.write_line("Client run times: " + ", ".join(f"{k} {v.get('seconds')}s" for k, v in clients.items()))
    conf = RESULTS.get("conformance")
    if conf:
        from run_conformance import render

        tr.section("Conformance suite (@modelcontextprotocol/conformance) against the real server")
        verbose = config.getoption("verbose") > 0
        for line in render(conf, with_reports=verbose).splitlines():
            tr.write_line(line)
    fixture_run = RESULTS.get("fixture_conformance")
    if fixture_run:
        from run_conformance import render_fixture

        tr.section("Conformance suite (@modelcontextprotocol/conformance) against the fixture server")
        verbose = config.getoption("verbose") > 0
        for line in render_fixture(fixture_run, with_reports=verbose).splitlines():
            tr.write_line(line)
