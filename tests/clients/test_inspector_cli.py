"""The MCP Inspector CLI (@modelcontextprotocol/inspector-cli) lists our tools."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from harness import EXPECTED_TOOL_COUNTS, HERE, NODE, http_json

CLI_DIR = HERE / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build"


@pytest.mark.parametrize("role", ["admin", "viewer"])
def test_inspector_cli_lists_tools(server, role):
    if not (CLI_DIR / "cli.js").exists():
        pytest.fail("inspector-cli is not installed (run tests/clients/setup.sh)", pytrace=False)
    token = server.person(role)["mcp_token"]
    env = dict(os.environ, PATH=f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    # cwd: the CLI reads its own package.json through a path relative to the working directory.
    proc = subprocess.run(
        [str(NODE), "cli.js", "--cli", server.mcp_url, "--transport", "http", "--method", "tools/list",
         "--header", f"Authorization: Bearer {token}"],
        cwd=CLI_DIR, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-1500:]
    tools = json.loads(proc.stdout)["tools"]
    names = [t["name"] for t in tools]
    assert len(tools) == EXPECTED_TOOL_COUNTS[role], f"{role}: {len(tools)} tools: {names}"
    assert "dunning_me" in names and "dunning_charges_list" in names
    assert all(n.startswith("dunning_") for n in names)
    assert all(t.get("inputSchema", {}).get("type") == "object" for t in tools)
    if role == "viewer":
        assert "dunning_customers_create" not in names
    # The same list, in the same order, as a plain tools/list request returns.
    status, _, body = http_json(server.mcp_url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-06-18"})
    assert status == 200, body
    assert names == [t["name"] for t in body["result"]["tools"]]
