"""FastMCP `from_openapi` in front of our /v1, for bench/run.sh: every operation of the
document becomes a tool that forwards to the server with one API token.

usage: fastmcp_proxy.py OPENAPI_JSON BASE_URL API_TOKEN PORT
Stateless HTTP with JSON answers, so wrk can post a tools/call without a session.
"""

import json
import sys

import httpx2
from fastmcp import FastMCP

spec_path, base_url, token, port = sys.argv[1:5]
with open(spec_path) as f:
    spec = json.load(f)
client = httpx2.AsyncClient(
    base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
)
server = FastMCP.from_openapi(openapi_spec=spec, client=client, name="kobana-dunning")
server.run(
    transport="http",
    host="127.0.0.1",
    port=int(port),
    show_banner=False,
    log_level="warning",
    stateless_http=True,
    json_response=True,
)
