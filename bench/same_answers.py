#!/usr/bin/env python3
"""Proof that a refactor kept behaviour: two builds of the server answer the same, byte for
byte, from one seeded database.

    bench/same_answers.py OLD_BINARY NEW_BINARY [--engine postgres]

1. The old binary seeds a new SQLite database (the demo) and the script adds what the demo
   lacks, through the API: a customer with charges, a payment, a notice (a delivery), an
   agreement and its acceptance, a dispute, a webhook (to a receiver here that answers 200), a
   collection plan step, an export. It waits until the engine has nothing left to do, stops.
2. Each binary serves its own copy of that file (with `--engine postgres`, of that database on
   127.0.0.1:5432, copied with `CREATE DATABASE ... TEMPLATE`; all three dropped at the end).
3. Every GET operation of `openapi/v1.yaml`, with the ids found in the lists and the filters,
   sorts and pages of each list, is asked of both: status, content type and body must be equal
   byte for byte (`RateLimit-*` and `Request-Id` headers differ by design and are not compared).
4. MCP: `tools/list` for each role's token, and `tools/call` of every read tool with the same
   arguments: equal text and `structuredContent`, the `meta.rate_limit` of each left out.

Prints each difference and a count; exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import copy
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import date, timedelta
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


POSTGRES = "postgres://postgres@127.0.0.1:5432"


def psql(sql: str) -> None:
    subprocess.run(["psql", "-q", f"{POSTGRES}/test", "-c", sql], check=True, capture_output=True)


class Server:
    def __init__(self, binary: str, folder: Path, database: str | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        url = f"{POSTGRES}/{database}" if database else f"sqlite://{folder}/dunning.db?mode=rwc"
        self.proc = subprocess.Popen(
            [binary, "--bind", f"127.0.0.1:{self.port}", "--database-url", url,
             "--allow-private-webhook-targets",
             "--confirmation-secret", "same-answers-secret-0123456789"],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.base + "/readyz", timeout=1)
                break
            except Exception:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"{binary} did not become ready")
                time.sleep(0.1)
        self.credentials = json.loads((folder / "data/demo-credentials.json").read_text())

    def token(self, role: str, audience: str = "api") -> str:
        person = next(p for p in self.credentials["organizations"][0]["people"] if p["role"] == role)
        return person["api_token" if audience == "api" else "mcp_token"]

    def call(self, method: str, path: str, body=None, token=None, headers=None):
        request = urllib.request.Request(self.base + path, method=method)
        request.add_header("Authorization", f"Bearer {token or self.token('admin')}")
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, data=data, timeout=30) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read()

    def json(self, method: str, path: str, body=None, key=None):
        headers = {"Idempotency-Key": key} if key else None
        status, _, data = self.call(method, path, body, headers=headers)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
        return json.loads(data) if data else None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def cpf(base: str) -> str:
    digits = [int(c) for c in base]
    for n in (9, 10):
        rest = sum(d * (n + 1 - i) for i, d in enumerate(digits[:n])) * 10 % 11
        digits.append(0 if rest == 10 else rest)
    return "".join(map(str, digits))


def populate(server: Server, hook_url: str) -> None:
    """What the demo lacks: one of each kind of object, through the API."""
    today = date.today()
    customer = server.json("POST", "/v1/customers", {
        "name": "Iracema Conceição Brandão", "document": cpf("418418418"),
        "email": "iracema@example.com.br", "phone": "+5511987654321",
        "address": {"street": "Rua Augusta", "number": "1500", "district": "Consolação",
                    "city": "São Paulo", "state": "SP", "zip_code": "01304-001"},
        "tags": ["vip"]}, key="sa-customer")["data"]

    def charge(amount, days, description, key):
        return server.json("POST", "/v1/charges", {
            "customer_id": customer["id"], "description": description, "amount": amount,
            "due_date": (today + timedelta(days=days)).isoformat(), "tags": ["servico"]},
            key=key)["data"]

    paid = charge(320.00, -15, "Conserto de vitrine", "sa-c1")
    server.json("POST", f"/v1/charges/{paid['id']}/pay", {"amount": 320.00, "method": "pix"}, key="sa-pay")
    notified = charge(150.25, -5, "Manutenção mensal", "sa-c2")
    server.json("POST", f"/v1/charges/{notified['id']}/notify", {"channel": "email"}, key="sa-notify")
    first = charge(500.00, -40, "Parcela A", "sa-c3")
    second = charge(700.50, -10, "Parcela B", "sa-c4")
    agreement = server.json("POST", "/v1/agreements", {
        "customer_id": customer["id"], "charge_ids": [first["id"], second["id"]],
        "down_payment": 200.00, "installments": 3,
        "first_due_date": (today + timedelta(days=30)).isoformat()}, key="sa-agreement")["data"]
    server.json("POST", f"/v1/agreements/{agreement['id']}/accept", {}, key="sa-accept")
    disputed = charge(99.90, 10, "Taxa contestada", "sa-c5")
    server.json("POST", "/v1/disputes", {"charge_id": disputed["id"], "reason": "already_paid",
                                         "description": "Paguei em dinheiro na loja."}, key="sa-dispute")
    server.json("POST", "/v1/webhooks", {"url": hook_url, "events": ["charge.paid", "charge.created"],
                                         "description": "ERP"}, key="sa-webhook")
    charge(42.00, 3, "Depois do webhook", "sa-c6")
    plans = server.json("GET", "/v1/collection_plans")["data"]
    server.json("POST", f"/v1/collection_plans/{plans[0]['id']}/steps",
                {"offset_days": 20, "action": "notify", "channel": "sms"}, key="sa-step")
    server.json("POST", "/v1/exports", {"kind": "charges", "filters": {"status": "paid"}}, key="sa-export")


def settle(server: Server) -> None:
    """Wait until the export is done and every delivery and webhook delivery has its outcome."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        exports = [server.json("GET", f"/v1/exports/{e}")["data"]["status"] for e in ids(server, "/v1/exports")]
        deliveries = [d["status"] for d in server.json("GET", "/v1/deliveries?per_page=100")["data"]]
        hooks = []
        for hook in ids(server, "/v1/webhooks"):
            hooks += [d["status"] for d in server.json("GET", f"/v1/webhooks/{hook}/deliveries?per_page=100")["data"]]
        if all(s in ("completed", "failed") for s in exports) and "queued" not in deliveries \
                and "sending" not in deliveries and all(s in ("succeeded", "failed") for s in hooks):
            time.sleep(1)
            return
        time.sleep(0.3)
    raise RuntimeError("the engine did not settle")


def ids(server: Server, path: str) -> list[str]:
    """The ids a list shows; exports have no list, so they come from the events."""
    if path == "/v1/exports":
        events = server.json("GET", "/v1/events?per_page=100")["data"]
        return sorted({e["subject_id"] for e in events if e["subject_id"].startswith("exp_")})
    return [o["id"] for o in server.json("GET", f"{path}{'&' if '?' in path else '?'}per_page=100")["data"]]


def paths(server: Server) -> list[str]:
    """Every GET to compare: each list with its filters, sorts and pages, each object."""
    out = ["/v1/me", "/v1/openapi.json"]
    customers = ids(server, "/v1/customers")
    charges = ids(server, "/v1/charges")
    plans = ids(server, "/v1/collection_plans")
    deliveries = ids(server, "/v1/deliveries")
    agreements = ids(server, "/v1/agreements")
    disputes = ids(server, "/v1/disputes")
    webhooks = ids(server, "/v1/webhooks")
    exports = ids(server, "/v1/exports")
    out += ["/v1/customers", "/v1/customers?per_page=2&page=2", "/v1/customers?q=Concei",
            "/v1/customers?sort_by=name&sort_order=desc", "/v1/customers?tag=vip"]
    out += [f"/v1/customers/{c}" for c in customers[:8]]
    out += [f"/v1/customers/{c}/statement" for c in customers[:3]]
    out += ["/v1/charges", "/v1/charges?status=overdue", "/v1/charges?status=paid,canceled",
            "/v1/charges?sort_by=amount&sort_order=desc&per_page=5", f"/v1/charges?customer_id={customers[0]}",
            "/v1/charges?amount_min=100&amount_max=1000", "/v1/charges?tag=servico",
            f"/v1/charges?due_date_from={date.today() - timedelta(days=30)}&due_date_to={date.today()}",
            "/v1/charges?per_page=3&page=3", "/v1/charges?sort_by=created_at"]
    out += [f"/v1/charges/{c}" for c in charges[:20]]
    out += [f"/v1/charges/{c}/events" for c in charges[:10]]
    paid = server.json("GET", "/v1/charges?status=paid")["data"]
    out += [f"/v1/charges/{c['id']}/discharge_letter" for c in paid[:2]]
    out += ["/v1/collection_plans"] + [f"/v1/collection_plans/{p}" for p in plans]
    for plan in plans:
        out.append(f"/v1/collection_plans/{plan}/steps")
    out += ["/v1/deliveries", "/v1/deliveries?channel=email", "/v1/deliveries?status=sent",
            f"/v1/deliveries?customer_id={customers[0]}"] + [f"/v1/deliveries/{d}" for d in deliveries[:4]]
    out += ["/v1/agreements", "/v1/agreements?status=active"] + [f"/v1/agreements/{a}" for a in agreements]
    out += [f"/v1/agreements/{a}/term" for a in agreements]
    out += ["/v1/disputes", "/v1/disputes?status=open"] + [f"/v1/disputes/{d}" for d in disputes]
    out += ["/v1/webhooks"] + [f"/v1/webhooks/{w}" for w in webhooks]
    out += [f"/v1/webhooks/{w}/deliveries" for w in webhooks]
    out += [f"/v1/exports/{e}" for e in exports] + [f"/v1/exports/{e}/download" for e in exports]
    out += ["/v1/events", "/v1/events?per_page=5&page=2", "/v1/events?type=charge.paid"]
    # Refusals are answers too: an unknown id, a bad filter, a viewer's write-only path.
    out += ["/v1/charges/chg_0000000000000000", "/v1/charges?status=bogus", "/v1/customers?per_page=1000"]
    return out


def role_paths() -> list[tuple[str, str]]:
    """The same paths as other roles see them (a viewer is refused webhooks and writes)."""
    return [(role, path) for role in ("viewer", "collector", "manager")
            for path in ("/v1/me", "/v1/webhooks", "/v1/charges?per_page=5", "/v1/events?per_page=3")]


def without_rate_limit(value):
    value = copy.deepcopy(value)
    if isinstance(value, dict) and isinstance(value.get("meta"), dict):
        value["meta"].pop("rate_limit", None)
    return value


def mcp(server: Server, token: str, method: str, params: dict):
    request = urllib.request.Request(server.base + "/mcp", method="POST", data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode())
    for k, v in {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "MCP-Protocol-Version": "2025-06-18"}.items():
        request.add_header(k, v)
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def mcp_answers(server: Server, charges: list[str], customers: list[str]) -> dict:
    out = {}
    for role in ("admin", "manager", "collector", "viewer"):
        out[f"tools/list {role}"] = mcp(server, server.token(role, "mcp"), "tools/list", {})
    token = server.token("admin", "mcp")
    tools = out["tools/list admin"]["result"]["tools"]
    for tool in tools:
        if not tool["annotations"].get("readOnlyHint"):
            continue
        schema = tool["inputSchema"]
        args = {}
        if "id" in schema.get("properties", {}):
            name = tool["name"]
            args["id"] = customers[0] if "customer" in name else charges[0]
        if any(r not in args for r in schema.get("required", [])):
            continue
        result = mcp(server, token, "tools/call", {"name": tool["name"], "arguments": args})["result"]
        text = result["content"][0].get("text") if result.get("content") else None
        try:
            text = without_rate_limit(json.loads(text)) if text else text
        except (TypeError, json.JSONDecodeError):
            pass
        out[f"tools/call {tool['name']}"] = [text, without_rate_limit(result.get("structuredContent"))]
    return out


def both(old: Server, new: Server, path: str, role: str | None = None):
    """The two servers' answers to one GET, asked back to back (with `role`'s token on each).
    A PDF holds the time it was made, to the second, so a second turning between the two asks
    makes its bytes differ: a difference is asked again, twice, before it counts."""
    for _ in range(3):
        a, b = (s.call("GET", path, token=s.token(role) if role else None) for s in (old, new))
        if a == b:
            break
    return a, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old_binary")
    parser.add_argument("new_binary")
    parser.add_argument("--engine", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    postgres = args.engine == "postgres"
    old_binary, new_binary = (str(Path(b).resolve()) for b in (args.old_binary, args.new_binary))
    work = Path(tempfile.mkdtemp(prefix="same-answers-"))
    # One PostgreSQL database per server, or None for each one's SQLite file.
    databases = {name: f"same_answers_{os.getpid()}_{name}" if postgres else None
                 for name in ("seed", "old", "new")}
    if postgres:
        psql(f"CREATE DATABASE {databases['seed']}")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    seed = work / "seed"
    seed.mkdir()
    first = Server(old_binary, seed, databases["seed"])
    try:
        populate(first, f"http://127.0.0.1:{receiver.server_address[1]}/hook")
        settle(first)
    finally:
        first.stop()
    folders = []
    for name in ("old", "new"):
        folder = work / name
        shutil.copytree(seed, folder)
        folders.append(folder)
        if postgres:
            psql(f"CREATE DATABASE {databases[name]} TEMPLATE {databases['seed']}")
    old = Server(old_binary, folders[0], databases["old"])
    new = Server(new_binary, folders[1], databases["new"])
    differences = 0
    try:
        compared = paths(old)
        for path in compared:
            a, b = both(old, new, path)
            if a != b:
                differences += 1
                print(f"DIFFERENT {path}:\n  old {a[0]} {a[1]} {a[2][:400]!r}\n  new {b[0]} {b[1]} {b[2][:400]!r}")
        for role, path in role_paths():
            a, b = both(old, new, path, role)
            if a != b:
                differences += 1
                print(f"DIFFERENT {role} {path}:\n  old {a[2][:400]!r}\n  new {b[2][:400]!r}")
        compared += [f"{role} {path}" for role, path in role_paths()]
        charges, customers = ids(old, "/v1/charges"), ids(old, "/v1/customers")
        answers = [mcp_answers(s, charges, customers) for s in (old, new)]
        for key in answers[0]:
            if answers[0][key] != answers[1].get(key):
                differences += 1
                print(f"DIFFERENT {key}:\n  old {json.dumps(answers[0][key])[:400]}\n  new {json.dumps(answers[1].get(key))[:400]}")
        print(f"{len(compared)} GET answers and {len(answers[0])} MCP answers compared: {differences} different")
    finally:
        old.stop()
        new.stop()
        receiver.shutdown()
        for database in filter(None, databases.values()):
            psql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
