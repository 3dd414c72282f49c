"""A real server for the Python checks (documents, CSV, schemathesis): the binary on a free
127.0.0.1 port with its own temp data dir and demo data, as tests/clients starts it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import Server  # noqa: E402


@pytest.fixture(scope="session")
def server():
    s = Server().start()
    yield s
    s.stop()
    s.cleanup()
