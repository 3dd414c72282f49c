"""schemathesis against the live server with the spec: no 5xx, no response that violates the
document, valid data accepted and invalid data refused, over every operation.

What the server refuses beyond what a schema can say (check digits, dates relative to today,
state rules) is said in the document (`format`s, `x-` notes, descriptions) and the statuses
that answer it are listed, per operation, in `schemathesis.toml`.

The runs start with the session (`schemathesis_runs.py`, from conftest.py); this test, which
conftest.py puts last, waits for them and judges what they printed."""

from __future__ import annotations


def test_schemathesis_finds_no_server_error_and_no_spec_violation(schemathesis_runs):
    failures = []
    for phases, status, stdout, stderr in schemathesis_runs.finish():
        print(f"--- phases {phases}\n{stdout[-6000:]}")
        if status != 0:
            failures.append(f"phases {phases}:\n{stdout[-6000:]}{stderr[-2000:]}")
    assert not failures, "\n".join(failures)
