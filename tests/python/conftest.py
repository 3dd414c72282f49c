"""A real server for the Python checks (documents, CSV, schemathesis): the binary on a free
127.0.0.1 port with its own temp data dir and demo data, as tests/clients starts it.

When the session includes the schemathesis test, its runs start before the first test and the
test itself goes last (see `schemathesis_runs.py`): the other tests run while it works."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import Server  # noqa: E402

SCHEMATHESIS_TEST = "test_schemathesis.py::"


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: SCHEMATHESIS_TEST in item.nodeid)


@pytest.fixture(scope="session")
def server():
    s = Server().start()
    yield s
    s.stop()
    s.cleanup()


@pytest.fixture(scope="session", autouse=True)
def schemathesis_runs(request):
    """The schemathesis processes, started with the session when its test was collected."""
    if not any(SCHEMATHESIS_TEST in item.nodeid for item in request.session.items):
        yield None
        return
    import schemathesis_runs as runs

    started = runs.start()
    yield started
    started.stop()
