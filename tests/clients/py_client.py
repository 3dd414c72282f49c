"""The interoperability cases, run through the official Python SDK (`mcp` 1.x or 2.x).

Run by the pytest harness with the interpreter of one of the venvs under `.venvs/`:

    .venvs/mcp-2.3.0/bin/python py_client.py CONTEXT.json

CONTEXT.json is written by the harness (see `harness.py`): the MCP URL, the tokens, the ids to
use, and the era to speak (`legacy` = 2025 handshake, `modern` = 2026-07-28, stateless). The
script never raises out of a case: each case is caught and reported. The last line of stdout is
one JSON object `{"client", "sdk_version", "era", "cases": {case: {"status", "detail"}}}` with
status `pass`, `fail` or `n/a`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import traceback
from contextlib import AsyncExitStack
from importlib.metadata import version as pkg_version
from typing import Any

import jsonschema

SDK_VERSION = pkg_version("mcp")
SDK_MAJOR = int(SDK_VERSION.split(".")[0])

if SDK_MAJOR >= 2:
    import httpx2 as httpx  # the 2.x SDK ships its own httpx fork
    import mcp_types as types
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client
else:
    import httpx
    from mcp import ClientSession, types
    from mcp.client.streamable_http import streamable_http_client


class CaseFailed(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise CaseFailed(msg)


def wire(model: Any) -> Any:
    """An SDK model as its JSON wire form (camelCase keys) for both SDK generations."""
    if model is None:
        return None
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Conn:
    """One connection (one token), hiding the 1.x `ClientSession` / 2.x `Client` differences."""

    def __init__(self, url: str, token: str, era: str, elicitation=None) -> None:
        self.url, self.token, self.era, self.elicitation = url, token, era, elicitation
        self.stack = AsyncExitStack()
        self.s: Any = None
        self.protocol_version = "?"

    async def __aenter__(self) -> "Conn":
        http = await self.stack.enter_async_context(
            httpx.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
        )
        transport = streamable_http_client(self.url, http_client=http)
        if SDK_MAJOR >= 2:
            mode = "auto" if self.era == "modern" else "legacy"
            kwargs: dict[str, Any] = {"mode": mode}
            if self.elicitation is not None:
                kwargs["elicitation_callback"] = self.elicitation
            self.s = await self.stack.enter_async_context(Client(transport, **kwargs))
            self.protocol_version = self.s.protocol_version
        else:
            read, write, _ = await self.stack.enter_async_context(transport)
            kwargs = {}
            if self.elicitation is not None:
                kwargs["elicitation_callback"] = self.elicitation
            self.s = await self.stack.enter_async_context(ClientSession(read, write, **kwargs))
            init = await self.s.initialize()
            self.protocol_version = init.protocolVersion
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stack.aclose()

    async def list_tools(self) -> list[dict]:
        tools, cursor = [], None
        while True:
            if SDK_MAJOR >= 2:
                page = await self.s.list_tools(cursor=cursor)
            else:
                page = await self.s.list_tools(cursor)
            w = wire(page)
            tools += w.get("tools", [])
            cursor = w.get("nextCursor")
            if not cursor:
                return tools

    async def call(self, name: str, args: dict) -> dict:
        return wire(await self.s.call_tool(name, args))

    async def read(self, uri: str) -> dict:
        if SDK_MAJOR >= 2:
            return wire(await self.s.read_resource(uri))
        from pydantic import AnyUrl

        return wire(await self.s.read_resource(AnyUrl(uri)))

    async def list_prompts(self) -> list[dict]:
        return wire(await self.s.list_prompts()).get("prompts", [])

    async def get_prompt(self, name: str, args: dict) -> dict:
        return wire(await self.s.get_prompt(name, args))

    async def complete(self, template: str, name: str, value: str) -> dict:
        ref = types.ResourceTemplateReference(type="ref/resource", uri=template)
        return wire(await self.s.complete(ref, {"name": name, "value": value}))


def problem_of(result: dict) -> dict:
    """The problem document of an isError result (content[0].text), checked for readability."""
    check(result.get("isError") is True, f"expected isError: true, got {short(result)}")
    check("structuredContent" not in result, "an error result must not carry structuredContent")
    content = result.get("content") or []
    check(bool(content) and content[0].get("type") == "text", "error result without a text block")
    try:
        problem = json.loads(content[0]["text"])
    except ValueError as exc:
        raise CaseFailed(f"error text is not a problem JSON: {content[0]['text'][:200]}") from exc
    for key in ("type", "title", "status", "detail"):
        check(key in problem, f"problem lacks {key!r}: {short(problem)}")
    return problem


def short(obj: Any, n: int = 300) -> str:
    s = json.dumps(obj, ensure_ascii=False) if not isinstance(obj, str) else obj
    return s if len(s) <= n else s[:n] + "…"


def ok_result(result: dict, schema: dict | None) -> dict:
    check(not result.get("isError"), f"unexpected isError: {short(result.get('content'))}")
    sc = result.get("structuredContent")
    check(isinstance(sc, dict), "no structuredContent")
    check(schema is not None, "tool has no outputSchema")
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(sc), key=lambda e: list(e.path))
    check(not errors, "structuredContent does not match outputSchema: " + "; ".join(
        f"{'/'.join(map(str, e.path))}: {e.message[:150]}" for e in errors[:3]))
    return sc


async def run(ctx: dict) -> dict:
    url, era = ctx["url"], ctx["era"]
    cases: dict[str, dict] = {}
    state: dict[str, Any] = {}

    async def case(name: str, fn) -> None:
        try:
            detail = await fn()
            cases[name] = {"status": "pass", "detail": detail or ""}
        except CaseFailed as exc:
            cases[name] = {"status": "fail", "detail": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - "no case throws" is what we test
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            cases[name] = {"status": "fail", "detail": f"threw {tb[:400]}"}

    elicited: list[dict] = []
    answer = {"action": "accept"}

    async def on_elicit(context: Any, params: Any) -> Any:
        p = wire(params)
        elicited.append(p)
        if answer["action"] == "accept":
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action=answer["action"])

    async with AsyncExitStack() as stack:
        try:
            admin = await stack.enter_async_context(Conn(url, ctx["tokens"]["admin"], era, on_elicit))
            viewer = await stack.enter_async_context(Conn(url, ctx["tokens"]["viewer"], era))
        except BaseException as exc:  # noqa: BLE001
            msg = f"connect threw {traceback.format_exception_only(type(exc), exc)[-1].strip()[:400]}"
            return {"cases": {c: {"status": "fail", "detail": msg} for c in ctx["cases"]}, "protocol": "?"}
        schemas: dict[str, dict | None] = {}

        async def c_tools():
            tools = await admin.list_tools()
            for t in tools:
                schemas[t["name"]] = t.get("outputSchema")
            vtools = await viewer.list_tools()
            want = ctx["expected_tool_counts"]
            check(len(tools) == want["admin"], f"admin sees {len(tools)} tools, expected {want['admin']}")
            check(len(vtools) == want["viewer"], f"viewer sees {len(vtools)} tools, expected {want['viewer']}")
            return f"admin {len(tools)}, viewer {len(vtools)} tools"

        async def c_read():
            args = {"status": "pending,overdue", "sort_by": "amount", "per_page": 3}
            sc = ok_result(await admin.call("dunning_charges_list", args), schemas.get("dunning_charges_list"))
            data = sc.get("data")
            check(isinstance(data, list) and 1 <= len(data) <= 3, f"expected 1..3 charges, got {short(data)}")
            check(all(c["status"] in ("pending", "overdue") for c in data), "status filter not applied")
            amounts = [c["amount"] for c in data]
            check(amounts == sorted(amounts), f"not sorted by amount: {amounts}")
            check(sc["meta"]["per_page"] == 3, "meta.per_page is not 3")
            return f"{len(data)} charges of {sc['meta'].get('total')}"

        write_args = {
            "name": ctx["write"]["name"],
            "document": ctx["write"]["document"],
            "email": ctx["write"]["email"],
            "tags": ["interop"],
            "idempotency_key": ctx["write"]["idempotency_key"],
        }

        async def c_write():
            sc = ok_result(await admin.call("dunning_customers_create", write_args), schemas.get("dunning_customers_create"))
            state["customer_id"] = sc["data"]["id"]
            check(sc["data"]["document"] == ctx["write"]["document"], "document not stored")
            check(not sc.get("meta", {}).get("idempotent_replay"), "first write reported as a replay")
            return sc["data"]["id"]

        async def c_replay():
            sc = ok_result(await admin.call("dunning_customers_create", write_args), schemas.get("dunning_customers_create"))
            check(sc.get("meta", {}).get("idempotent_replay") is True, f"meta.idempotent_replay is not true: {short(sc.get('meta'))}")
            check("customer_id" in state, "no first write to compare with")
            check(sc["data"]["id"] == state["customer_id"], f"replay returned {sc['data']['id']}, first was {state['customer_id']}")
            return "idempotent_replay: true, same id"

        async def c_400():
            p = problem_of(await admin.call("dunning_charges_list", {"per_page": 1000}))
            check(p["status"] == 400 and p.get("code") == "VALIDATION_ERROR", f"expected 400 VALIDATION_ERROR: {short(p)}")
            return p["detail"][:80]

        async def c_403():
            args = {"name": "Viewer Attempt", "document": ctx["viewer_document"]}
            p = problem_of(await viewer.call("dunning_customers_create", args))
            check(p["status"] == 403 and p.get("code") == "insufficient_scope", f"expected 403 insufficient_scope: {short(p)}")
            return p["detail"][:80]

        async def c_404():
            p = problem_of(await admin.call("dunning_charges_get", {"id": "chg_doesnotexist0000"}))
            check(p["status"] == 404, f"expected 404: {short(p)}")
            return p["detail"][:80]

        async def c_429():
            async with Conn(url, ctx["tokens"]["tiny"], era) as tiny:
                for i in range(1, 7):
                    r = await tiny.call("dunning_me", {})
                    if r.get("isError"):
                        p = problem_of(r)
                        check(p["status"] == 429, f"call {i}: expected 429: {short(p)}")
                        check(isinstance(p.get("retry_after"), (int, float)), f"429 without retry_after: {short(p)}")
                        return f"429 on call {i}, retry_after {p['retry_after']}"
                raise CaseFailed("no 429 after 6 calls with a 5/day token")

        async def c_res_json():
            r = await admin.read("kobana://dunning/me")
            contents = r.get("contents") or []
            check(len(contents) >= 1, "empty contents")
            c0 = contents[0]
            check(c0.get("mimeType") == "application/json", f"mimeType {c0.get('mimeType')}")
            check("text" in c0, "JSON resource without text")
            doc = json.loads(c0["text"])
            check(isinstance(doc, dict), "not a JSON object")
            return f"{len(c0['text'])} chars"

        async def c_res_pdf():
            uri = f"kobana://dunning/customers/{ctx['statement_customer_id']}/statement.pdf"
            r = await admin.read(uri)
            contents = r.get("contents") or []
            check(len(contents) >= 1, "empty contents")
            c0 = contents[0]
            check(c0.get("mimeType") == "application/pdf", f"mimeType {c0.get('mimeType')}")
            check("blob" in c0, "PDF resource without blob")
            raw = base64.b64decode(c0["blob"])
            check(raw.startswith(b"%PDF-"), "blob is not a PDF")
            return f"{len(raw)} bytes"

        async def c_prompt():
            prompts = await admin.list_prompts()
            check(len(prompts) > 0, "no prompts listed")
            names = [p["name"] for p in prompts]
            p = next((p for p in prompts if p["name"] == ctx["prompt"]["name"]), prompts[0])
            args = {}
            for a in p.get("arguments") or []:
                if a.get("required") or a["name"] in ctx["prompt"]["arguments"]:
                    args[a["name"]] = ctx["prompt"]["arguments"].get(a["name"], ctx["prompt"]["fallback"])
            r = await admin.get_prompt(p["name"], args)
            msgs = r.get("messages") or []
            check(len(msgs) >= 1, "prompt has no messages")
            text = msgs[0].get("content", {}).get("text", "")
            check(len(text) > 0, "first message has no text")
            return f"{p['name']} ({len(msgs)} messages) of {names}"

        async def c_complete():
            r = await admin.complete(ctx["completion"]["template"], ctx["completion"]["argument"], ctx["completion"]["value"])
            comp = r.get("completion") or {}
            values = comp.get("values")
            check(isinstance(values, list) and len(values) >= 1, f"no completion values: {short(r)}")
            check(len(values) <= 100, "more than 100 values")
            want = ctx["completion"].get("expect")
            if want:
                check(want in values, f"{want} not among {values[:10]}")
            return f"{len(values)} values, total {comp.get('total')}"

        async def c_confirm(action: str):
            check(admin.protocol_version == "2026-07-28",
                  f"negotiated {admin.protocol_version}, not 2026-07-28: no confirmation round trip possible")
            answer["action"] = action
            before = len(elicited)
            charge = ctx["confirm"][action]
            r = await admin.call("dunning_charges_cancel", {"id": charge, "reason": "interop harness"})
            check(len(elicited) == before + 1, f"the SDK asked the user {len(elicited) - before} times, expected once")
            schema = (elicited[-1].get("requestedSchema") or {}).get("properties", {})
            check("confirm" in schema, f"elicitation schema lacks confirm: {short(elicited[-1])}")
            if action == "accept":
                sc = ok_result(r, schemas.get("dunning_charges_cancel"))
                check(sc["data"]["status"] == "canceled", f"charge status {sc['data'].get('status')}")
                return f"canceled {charge}"
            p = problem_of(r)
            check(p.get("code") == "confirmation_declined", f"expected confirmation_declined: {short(p)}")
            after = await admin.call("dunning_charges_get", {"id": charge})
            check(not after.get("isError") and after["structuredContent"]["data"]["status"] in ("pending", "overdue"),
                  "declined charge is no longer open")
            return "declined, charge still open"

        plan = {
            "tools_list": c_tools, "read": c_read, "write": c_write, "replay": c_replay,
            "err_400": c_400, "err_403": c_403, "err_404": c_404, "err_429": c_429,
            "res_json": c_res_json, "res_pdf": c_res_pdf, "prompt": c_prompt, "complete": c_complete,
            "confirm_accept": lambda: c_confirm("accept"), "confirm_decline": lambda: c_confirm("decline"),
        }
        for name in ctx["cases"]:
            await case(name, plan[name])
        return {"cases": cases, "protocol": admin.protocol_version}


def main() -> None:
    ctx = json.load(open(sys.argv[1]))
    out = asyncio.run(run(ctx))
    out.update({"client": ctx["client"], "sdk_version": SDK_VERSION, "era": ctx["era"]})
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
