"""The MCP conformance suite against the real server: the scenarios of conformance/scenarios.txt,
each at its spec version, with conformance/expected-failures-<version>.yaml as the baseline. A
scenario passes when all its checks pass or every failing check is in the baseline (and the
baseline is not stale)."""

from __future__ import annotations

import pytest

from run_conformance import load_scenarios

SCENARIOS = load_scenarios()


@pytest.mark.parametrize("version,scenario", SCENARIOS, ids=[f"{v}:{s}" for v, s in SCENARIOS])
def test_conformance_scenario(conformance_results, version, scenario):
    r = conformance_results[(version, scenario)]
    assert r["verdict"] in ("passed", "expected failure"), (
        f"{scenario} ({version}): {r['verdict']}\n" + "\n".join(r["report"][-30:])
    )
