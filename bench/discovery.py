"""Discovery mode against the full catalog and against FastMCP's `BM25SearchTransform`.

    bench/.venv/bin/python bench/discovery.py            # prints the figures (Markdown)
    bench/.venv/bin/python bench/discovery.py --write    # also puts them in bench/RESULTS.md

Starts the debug server (`target/` as cargo reports it, like bench/toolsets.py; build it first)
with demo data and, as the admin (who may call every tool):

- `tools/list` bytes and estimated tokens (bytes / 4) of the full catalog (`/mcp`) and of
  discovery mode (`/mcp/discover`);
- for each phrasing of `bench/discovery_phrasings.json`, the rank `dunning_search` gives the
  expected tool (limit 20), and the bytes of one search answer at the default limit (8);
- side by side, FastMCP's `BM25SearchTransform` (FastMCP as bench/run.sh installs it into
  bench/.venv) over our own OpenAPI document, served the way a FastMCP user would serve it
  (`FastMCP.from_openapi`, tools named by operationId: `reports_aging` for our
  `dunning_reports_aging`), and over our catalog itself (our tools' names, descriptions and input
  schemas, without the keywords, which are not part of a tool): its `tools/list` bytes, its ranks
  (`max_results=20`) and the bytes of a search answer at its default (`max_results=5`).

Tokens are bytes / 4, as bench/toolsets.py counts them: compare ratios with a model's own tokenizer.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import platform
import sys
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "clients"))

from harness import Server  # noqa: E402
from results_md import write_block  # noqa: E402

PREFIX = "dunning_"


def post(server: Server, token: str, path: str, method: str, params: dict) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(
        server.base + path, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                 "MCP-Protocol-Version": "2025-06-18"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["result"]


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def rank_of(names: list[str], expected: str) -> int | None:
    return names.index(expected) + 1 if expected in names else None


def ours(server: Server, phrasings: list[dict]) -> dict:
    token = server.person("admin")["mcp_token"]
    catalog = post(server, token, "/mcp", "tools/list", {})["tools"]
    trio = post(server, token, "/mcp/discover", "tools/list", {})["tools"]
    ranks, answer_bytes = [], []
    for p in phrasings:
        found = post(server, token, "/mcp/discover", "tools/call",
                     {"name": "dunning_search", "arguments": {"query": p["query"], "limit": 20}})
        names = [t["name"] for t in found["structuredContent"]["tools"]]
        ranks.append(rank_of(names, p["expected"]))
        default = post(server, token, "/mcp/discover", "tools/call",
                       {"name": "dunning_search", "arguments": {"query": p["query"]}})
        answer_bytes.append(size(default["content"]))
    return {"catalog": catalog, "listed": trio, "ranks": ranks, "answer_bytes": answer_bytes}


async def fastmcp_figures(server: Server, tools_of: str, phrasings: list[dict]) -> dict:
    """FastMCP with `BM25SearchTransform`, its tools from our document (`openapi`) or our
    catalog (`catalog`)."""
    import httpx2
    from fastmcp import Client, FastMCP
    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.tools.base import Tool, ToolResult

    if tools_of == "openapi":
        with urllib.request.urlopen(server.base + "/v1/openapi.json", timeout=30) as answer:
            spec = json.loads(answer.read())
        client = httpx2.AsyncClient(base_url=server.base, timeout=30,
                                    headers={"Authorization": f"Bearer {server.person('admin')['api_token']}"})
        mcp = FastMCP.from_openapi(openapi_spec=spec, client=client, name="kobana-dunning")
        expected_name = lambda name: name.removeprefix(PREFIX)  # noqa: E731
    else:
        class Listed(Tool):
            """One of our tools as `tools/list` gives it; never run here."""

            async def run(self, arguments: dict[str, Any]) -> ToolResult:
                raise NotImplementedError

        mcp = FastMCP("kobana-dunning")
        token = server.person("admin")["mcp_token"]
        for tool in post(server, token, "/mcp", "tools/list", {})["tools"]:
            mcp.add_tool(Listed(name=tool["name"], description=tool.get("description"),
                                parameters=tool["inputSchema"]))
        expected_name = lambda name: name  # noqa: E731

    async def search(transform: BM25SearchTransform, query: str) -> tuple[list[str], int]:
        mcp.add_transform(transform)
        try:
            async with Client(mcp) as c:
                result = await c.call_tool("search_tools", {"query": query})
        finally:
            mcp._transforms.remove(transform)  # one transform at a time
        found = result.structured_content
        items = found.get("result", found) if isinstance(found, dict) else found
        names = [t["name"] for t in items] if isinstance(items, list) else []
        content = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in result.content]
        return names, size(content)

    async with Client(mcp) as c:
        whole = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in await c.list_tools()]
    transform = BM25SearchTransform()
    mcp.add_transform(transform)
    async with Client(mcp) as c:
        listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in await c.list_tools()]
    mcp._transforms.remove(transform)
    ranks, answer_bytes = [], []
    for p in phrasings:
        names, _ = await search(BM25SearchTransform(max_results=20), p["query"])
        ranks.append(rank_of(names, expected_name(p["expected"])))
        _, nbytes = await search(BM25SearchTransform(), p["query"])
        answer_bytes.append(nbytes)
    return {"catalog": whole, "listed": listed, "ranks": ranks, "answer_bytes": answer_bytes}


def tokens(nbytes: int) -> str:
    return f"~{(nbytes + 3) // 4:,}"


def report(phrasings: list[dict], figures: dict[str, dict]) -> str:
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    import fastmcp
    lines = [
        f"{datetime.date.today().isoformat()}, {cpu}, {os.cpu_count()} cores, load average {load}; "
        f"debug build, demo data, the admin (every tool); FastMCP {fastmcp.__version__}. "
        "Tokens are bytes / 4.",
        "",
        "| | tools in `tools/list` | bytes | ~tokens | first for | in the top 3 | bytes of one search answer (mean, default limit) |",
        "|---|---|---|---|---|---|---|",
    ]
    labels = {
        "ours": "our discovery mode (`/mcp/discover`)",
        "fastmcp_openapi": "FastMCP `BM25SearchTransform`, `from_openapi` over our document",
        "fastmcp_catalog": "FastMCP `BM25SearchTransform` over our catalog (no keywords)",
    }
    for key, label in labels.items():
        f = figures[key]
        nbytes = size(f["listed"])
        first = sum(1 for r in f["ranks"] if r == 1)
        top3 = sum(1 for r in f["ranks"] if r is not None and r <= 3)
        mean = sum(f["answer_bytes"]) // len(f["answer_bytes"])
        lines.append(f"| {label} | {len(f['listed'])} | {nbytes:,} | {tokens(nbytes)} | "
                     f"{first} / {len(phrasings)} | {top3} / {len(phrasings)} | {mean:,} ({tokens(mean)}) |")
    for key, label in [("ours", "our full catalog (`/mcp`)"),
                       ("fastmcp_openapi", "FastMCP `from_openapi`, no transform")]:
        nbytes = size(figures[key]["catalog"])
        lines.append(f"| {label} | {len(figures[key]['catalog'])} | {nbytes:,} | {tokens(nbytes)} | | | |")
    lines += [
        "",
        "Rank of the expected tool (`-`: not in the first 20):",
        "",
        "| phrasing | expected | ours | FastMCP, document | FastMCP, catalog |",
        "|---|---|---|---|---|",
    ]
    cell = lambda r: "-" if r is None else str(r)  # noqa: E731
    for i, p in enumerate(phrasings):
        lines.append(f"| {p['query']} | `{p['expected']}` | {cell(figures['ours']['ranks'][i])} | "
                     f"{cell(figures['fastmcp_openapi']['ranks'][i])} | {cell(figures['fastmcp_catalog']['ranks'][i])} |")
    return "\n".join(lines)


def main() -> None:
    phrasings = json.loads((HERE / "discovery_phrasings.json").read_text())["phrasings"]
    server = Server().start()
    try:
        figures = {"ours": ours(server, phrasings)}
        figures["fastmcp_openapi"] = asyncio.run(fastmcp_figures(server, "openapi", phrasings))
        figures["fastmcp_catalog"] = asyncio.run(fastmcp_figures(server, "catalog", phrasings))
    finally:
        server.stop()
        server.cleanup()
    text = report(phrasings, figures)
    print(text)
    if "--write" in sys.argv:
        write_block("discovery", "Discovery mode against the catalog and FastMCP's BM25 search "
                    "(`bench/discovery.py`)", text)

if __name__ == "__main__":
    main()
