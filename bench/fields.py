"""What `fields=` saves a model: the bytes of a 100-row `dunning_charges_list` answer (the
tools/call result as served: text block and structuredContent) with every field and with a
few, and the estimated tokens (bytes / 4).

    .venv/bin/python bench/fields.py

Starts the debug server with demo data (like the test harness), adds 200 charges with the
server's own `demo` command, then calls the tool through the real endpoint."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "clients"))

from harness import Server, server_binary  # noqa: E402

CHOICES = [
    ("every field", None),
    ("fields=status,amount_due,due_date", "status,amount_due,due_date"),
    ("fields=amount_due", "amount_due"),
]


def call(server: Server, token: str, arguments: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "dunning_charges_list", "arguments": arguments}}).encode()
    request = urllib.request.Request(
        server.mcp_url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                 "MCP-Protocol-Version": "2025-06-18"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.read()


def main() -> None:
    server = Server().start()
    try:
        subprocess.run([str(server_binary()), "demo", "--charges", "200", "--database-url", server.db_url],
                       cwd=server.dir, check=True, capture_output=True, timeout=300)
        token = server.person("admin")["mcp_token"]
        print("| `dunning_charges_list`, 100 rows | result bytes | ~tokens | share |")
        print("|---|---|---|---|")
        whole = None
        for label, fields in CHOICES:
            arguments = {"per_page": 100}
            if fields:
                arguments["fields"] = fields
            raw = call(server, token, arguments)
            result = json.loads(raw)["result"]
            assert not result.get("isError"), result
            assert len(result["structuredContent"]["data"]) == 100
            size = len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode())
            whole = whole or size
            print(f"| {label} | {size} | {size // 4} | {size / whole:.0%} |")
    finally:
        server.stop()
        server.cleanup()


if __name__ == "__main__":
    main()
