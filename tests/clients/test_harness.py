"""The harness itself: it finds the binaries where cargo put them, and a server that fails to
start leaves nothing behind."""

from __future__ import annotations

import pytest

import harness
from harness import Server


@pytest.fixture
def fresh_target_directory(monkeypatch):
    """`target_directory` asks cargo again in the test, and again afterwards."""
    harness.target_directory.cache_clear()
    yield monkeypatch
    harness.target_directory.cache_clear()


def test_binaries_are_found_in_the_target_directory_cargo_uses(fresh_target_directory, tmp_path):
    fresh_target_directory.setenv("CARGO_TARGET_DIR", str(tmp_path / "elsewhere"))
    fresh_target_directory.delenv("KOBANA_DUNNING_BIN", raising=False)
    assert harness.server_binary() == tmp_path / "elsewhere" / "debug" / "kobana-dunning"
    assert harness.fixture_binary() == tmp_path / "elsewhere" / "debug" / "conformance-fixture"


@pytest.mark.parametrize("binary", ["/nonexistent/kobana-dunning", "/bin/false"])
def test_a_server_that_cannot_start_leaves_no_temp_folder(monkeypatch, binary):
    monkeypatch.setenv("KOBANA_DUNNING_BIN", binary)
    server = Server()
    assert server.dir.exists()
    with pytest.raises(RuntimeError):
        server.start(timeout=10)
    assert not server.dir.exists()
