"""Our OpenAPI document as the proxies can load it (bench/run.sh): rmcp-openapi-server
0.32.1 refuses a relative OAuth `tokenUrl` and does not follow `$ref` parameters
(`#/components/parameters/...`), so both are made explicit here; FastMCP gets the same file.

usage: prepare_spec.py IN_JSON OUT_JSON BASE_URL
"""

import json
import sys

source, target, base = sys.argv[1:4]
with open(source) as f:
    spec = json.load(f)
shared = spec.get("components", {}).get("parameters", {})


def inline(parameters):
    out = []
    for p in parameters:
        ref = p.get("$ref", "") if isinstance(p, dict) else ""
        if ref.startswith("#/components/parameters/"):
            p = shared[ref.rsplit("/", 1)[1]]
        out.append(p)
    return out


for item in spec.get("paths", {}).values():
    if "parameters" in item:
        item["parameters"] = inline(item["parameters"])
    for operation in item.values():
        if isinstance(operation, dict) and "parameters" in operation:
            operation["parameters"] = inline(operation["parameters"])
for scheme in spec.get("components", {}).get("securitySchemes", {}).values():
    for flow in scheme.get("flows", {}).values():
        for key in ("tokenUrl", "authorizationUrl", "refreshUrl"):
            if flow.get(key, "").startswith("/"):
                flow[key] = base + flow[key]
spec["servers"] = [{"url": base}]
with open(target, "w") as f:
    json.dump(spec, f)
