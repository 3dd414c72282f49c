"""Official SDK OAuth clients connect from the bare MCP URL: discovery, registration, the sign-in
and consent pages, token, a tool call, refresh (see py_oauth_client.py)."""

from __future__ import annotations

import json
import subprocess

import pytest

from harness import NODE, VENVS, Server


@pytest.fixture(scope="module")
def short_token_server():
    """A server whose access tokens live one second, so a client must refresh."""
    s = Server(extra_args=["--oauth-access-token-ttl", "1s"]).start()
    yield s
    s.stop()
    s.cleanup()


def test_the_python_sdk_oauth_client_signs_in_consents_calls_a_tool_and_refreshes(short_token_server):
    python = VENVS / "mcp-2.3.0" / "bin" / "python"
    if not python.exists():
        pytest.fail("the mcp 2.3.0 venv is missing (run tests/clients/setup.sh)", pytrace=False)
    admin = short_token_server.person("admin")
    run = subprocess.run(
        [str(python), "py_oauth_client.py", short_token_server.mcp_url, admin["email"], admin["password"]],
        capture_output=True, text=True, timeout=120, cwd=VENVS.parent,
    )
    assert run.returncode == 0, run.stderr[-3000:] + short_token_server.log_tail()
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["pages"] == ["sign-in", "consent"]
    assert report["client_id"].startswith("cli_")
    assert not report["first_call_error"], report
    assert admin["email"] in report["first_text"]
    assert not report["second_call_error"], report
    # The code exchange and at least one refresh, each with a new refresh token.
    assert report["tokens_received"] >= 2, report
    assert report["refresh_tokens_distinct"] == report["tokens_received"]
    assert "charges:read" in report["scope"]


def test_the_typescript_sdk_oauth_provider_signs_in_consents_calls_a_tool_and_refreshes(short_token_server):
    if not NODE.exists():
        pytest.fail("node is missing (run tests/clients/setup.sh)", pytrace=False)
    admin = short_token_server.person("admin")
    run = subprocess.run(
        [str(NODE), "ts_oauth_client.mjs", short_token_server.mcp_url, admin["email"], admin["password"]],
        capture_output=True, text=True, timeout=120, cwd=VENVS.parent,
    )
    assert run.returncode == 0, run.stderr[-3000:] + short_token_server.log_tail()
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["pages"] == ["sign-in", "consent"]
    assert report["client_id"].startswith("cli_")
    assert not report["first_call_error"], report
    assert admin["email"] in report["first_text"]
    assert not report["second_call_error"], report
    assert report["tokens_received"] >= 2, report
    assert report["refresh_tokens_distinct"] == report["tokens_received"]
    assert "charges:read" in report["scope"]
