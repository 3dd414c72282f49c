"""Each official MCP SDK client × each case of issue 5, against the real server.

The client scripts (py_client.py, ts_client.mjs) run every case of one client in one process and
report pass/fail per case; a case passes only if the SDK did not throw and the result is the one
the contract promises (see the scripts for the exact checks)."""

from __future__ import annotations

import pytest

from harness import CLIENTS

MATRIX = [(spec, case) for spec in CLIENTS for case in spec.cases]


@pytest.mark.parametrize("spec,case", MATRIX, ids=[f"{s.id}:{c}" for s, c in MATRIX])
def test_client_case(client_reports, spec, case):
    report = client_reports[spec.id]
    result = report["cases"].get(case)
    assert result is not None, f"{spec.id} did not report {case}: {report.get('stderr', '')[-500:]}"
    assert result["status"] == "pass", f"{spec.id} {case}: {result['detail']}"
