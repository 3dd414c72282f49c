"""What an assistant loads: `tools/list` bytes and estimated tokens per role and choice.

    .venv/bin/python bench/toolsets.py            # prints a Markdown table
    .venv/bin/python bench/toolsets.py --write    # also puts it in bench/RESULTS.md

Starts the debug server (`target/` as cargo reports it, like the test harness) with demo data
and asks, for each demo role, the real endpoint's `tools/list` with no choice (the role's
default toolsets), with `X-MCP-Toolsets: all`, read-only (`/mcp/readonly`), each toolset
alone (`/mcp/x/<toolset>`), and discovery mode (`/mcp/discover`). Bytes are the JSON of the `tools` array as served; tokens are
estimated as bytes / 4 (what the generator's `--stats` also uses), so compare ratios, not the
absolute figure, with a model's own tokenizer."""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "clients"))

from harness import Server  # noqa: E402
from results_md import write_block  # noqa: E402

ROLES = ["admin", "manager", "collector", "viewer"]


def tools(server: Server, token: str, path: str, headers: dict[str, str]) -> list[dict]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        server.base + path, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                 "MCP-Protocol-Version": "2025-06-18", **headers})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["result"]["tools"]


def budgets() -> dict[str, int]:
    """The per-role byte budgets CI holds the default listing to."""
    text = (HERE.parent / "tests" / "integration" / "catalog.rs").read_text()
    block = text[text.index("const BUDGETS"):]
    block = block[: block.index("];")]
    return {role: int(n.replace("_", "")) for role, n in re.findall(r'\("(\w+)", ([0-9_]+)\)', block)}


def size(listed: list[dict]) -> tuple[int, int, int]:
    text = json.dumps(listed, separators=(",", ":"), ensure_ascii=False)
    nbytes = len(text.encode())
    return len(listed), nbytes, (nbytes + 3) // 4


def main() -> None:
    server = Server().start()
    try:
        catalog = json.loads((HERE.parent / "openapi" / "v1.catalog.json").read_text())
        names = [t["name"] for t in catalog["toolsets"] if not t.get("always")]
        choices = [("default (no choice)", "/mcp", {}), ("all", "/mcp", {"X-MCP-Toolsets": "all"}),
                   ("all, strict-mode schemas", "/mcp",
                    {"X-MCP-Toolsets": "all", "X-MCP-Strict-Schemas": "true"}),
                   ("read-only, default", "/mcp/readonly", {})]
        choices += [(f"`{n}` (+ context)", f"/mcp/x/{n}", {}) for n in names]
        # Discovery mode: three tools whatever the role (bench/discovery.py compares its search).
        choices += [("discovery mode (`/mcp/discover`)", "/mcp/discover", {})]
        rows = []
        for label, path, headers in choices:
            cells = []
            for role in ROLES:
                count, nbytes, tokens = size(tools(server, server.person(role)["mcp_token"], path, headers))
                cells.append(f"{count} / {nbytes:,} / ~{tokens:,}")
            rows.append(f"| {label} | " + " | ".join(cells) + " |")
        rows.append("| CI budget, default (`tests/integration/catalog.rs`) | "
                    + " | ".join(f"{budgets()[role]:,} bytes" for role in ROLES) + " |")
    finally:
        server.stop()
        server.cleanup()
    table = "\n".join([
        "tools / bytes / estimated tokens of `tools/list`, per role (columns) and choice (rows):",
        "",
        "| choice | " + " | ".join(ROLES) + " |",
        "|---|" + "---|" * len(ROLES),
        *rows,
    ])
    print(table)
    if "--write" in sys.argv:
        write_block("toolsets", "What an assistant loads: toolsets per role (`bench/toolsets.py`)", table)

if __name__ == "__main__":
    main()
