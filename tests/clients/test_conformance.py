"""The MCP conformance suite against both targets built on our MCP layer.

Real server: the scenarios of conformance/scenarios.txt, each at its spec version, with
conformance/expected-failures-<version>.yaml as the baseline.

Fixture server (tests/conformance-fixture): every scenario the suite lists for 2025-06-18,
2025-11-25 and 2026-07-28, with conformance/fixture/expected-failures-<version>.yaml as the
baseline, which may only hold what needs SSE or a server-initiated request (one reason a line).

A scenario passes when all its checks pass or every failing check is in the baseline (and the
baseline is not stale)."""

from __future__ import annotations

import pytest

from run_conformance import FIXTURE_VERSIONS, fixture_baseline, load_fixture_scenarios, load_scenarios, read_baseline

SCENARIOS = load_scenarios()

try:
    FIXTURE_SCENARIOS = load_fixture_scenarios()
except Exception:  # noqa: BLE001 - the suite is not installed: test_fixture_scenarios_are_listed says so
    FIXTURE_SCENARIOS = []


@pytest.mark.parametrize("version,scenario", SCENARIOS, ids=[f"{v}:{s}" for v, s in SCENARIOS])
def test_conformance_scenario(conformance_results, version, scenario):
    r = conformance_results[(version, scenario)]
    assert r["verdict"] in ("passed", "expected failure"), (
        f"{scenario} ({version}): {r['verdict']}\n" + "\n".join(r["report"][-30:])
    )


def test_fixture_scenarios_are_listed():
    versions = {v for v, _ in FIXTURE_SCENARIOS}
    assert versions == set(FIXTURE_VERSIONS), (
        "the conformance suite did not list its scenarios (run tests/clients/setup.sh)"
    )


@pytest.mark.parametrize("version", FIXTURE_VERSIONS)
def test_fixture_expected_failures_name_listed_scenarios_with_a_reason(version):
    listed = {s for v, s in FIXTURE_SCENARIOS if v == version}
    for entry, reason in read_baseline(fixture_baseline(version)):
        assert entry.split(":", 1)[0] in listed, f"{entry}: not a scenario of {version}"
        assert reason, f"{entry}: no reason given (one line of reason each)"


@pytest.mark.parametrize("version,scenario", FIXTURE_SCENARIOS, ids=[f"fixture-{v}:{s}" for v, s in FIXTURE_SCENARIOS])
def test_fixture_conformance_scenario(fixture_conformance_results, version, scenario):
    r = fixture_conformance_results[(version, scenario)]
    assert r["verdict"] in ("passed", "expected failure"), (
        f"{scenario} ({version}, fixture server): {r['verdict']}\n" + "\n".join(r["report"][-30:])
    )
