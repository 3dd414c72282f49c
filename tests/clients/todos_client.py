"""The cases of `test_example_todos.py`, run through the official Python SDK (`mcp` 1.x or 2.x)
against the example todo service (`examples/todos`), which asks no token of its own for MCP and
authenticates every operation by its own `X-API-Key` header.

    .venvs/mcp-2.3.0/bin/python todos_client.py CONTEXT.json

CONTEXT.json (written by the test): `url`, `era` (`legacy` = 2025 handshake, `modern` =
2026-07-28), `key` and `owner` (a key the service knows and who holds it), `cases`. The SDK sends
the key as an ordinary HTTP header on every request (its `httpx` client's headers), as a user
would configure it. Each case is caught and reported; the last line of stdout is one JSON object
`{"sdk_version", "protocol", "cases": {case: {"status", "detail"}}}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from contextlib import AsyncExitStack
from typing import Any

# The shared pieces of the SDK cases: the SDK's imports for either major version, `wire` (an SDK
# model as its JSON), `check`, `ok_result` (structuredContent against the tool's outputSchema).
import py_client as pc
from py_client import CaseFailed, check, ok_result, short, wire

TOOLS = {"list_todos", "get_todo", "create_todo", "update_todo", "delete_todo", "whoami"}
MISSING = 999_999_999


class Conn:
    """One MCP connection whose HTTP requests carry `headers` (the service's key, or none)."""

    def __init__(self, url: str, era: str, headers: dict[str, str], elicitation=None) -> None:
        self.url, self.era, self.headers, self.elicitation = url, era, headers, elicitation
        self.stack = AsyncExitStack()
        self.s: Any = None
        self.protocol_version = "?"

    async def __aenter__(self) -> "Conn":
        http = await self.stack.enter_async_context(pc.httpx.AsyncClient(headers=self.headers, timeout=30))
        transport = pc.streamable_http_client(self.url, http_client=http)
        kwargs: dict[str, Any] = {}
        if self.elicitation is not None:
            kwargs["elicitation_callback"] = self.elicitation
        if pc.SDK_MAJOR >= 2:
            mode = "auto" if self.era == "modern" else "legacy"
            self.s = await self.stack.enter_async_context(pc.Client(transport, mode=mode, **kwargs))
            self.protocol_version = self.s.protocol_version
        else:
            read, write, _ = await self.stack.enter_async_context(transport)
            self.s = await self.stack.enter_async_context(pc.ClientSession(read, write, **kwargs))
            self.protocol_version = (await self.s.initialize()).protocolVersion
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stack.aclose()

    async def list_tools(self) -> list[dict]:
        return wire(await self.s.list_tools()).get("tools", [])

    async def call(self, name: str, args: dict) -> dict:
        return wire(await self.s.call_tool(name, args))


def service_error(result: dict) -> dict:
    """The service's own JSON error body, passed through as the text of an isError result."""
    check(result.get("isError") is True, f"expected isError: true, got {short(result)}")
    check("structuredContent" not in result, "an error result must not carry structuredContent")
    content = result.get("content") or []
    check(bool(content) and content[0].get("type") == "text", f"error result without a text block: {short(result)}")
    try:
        return json.loads(content[0]["text"])
    except ValueError as exc:
        raise CaseFailed(f"error text is not JSON: {content[0]['text'][:200]}") from exc


def layer_problem(result: dict) -> dict:
    """A problem document the MCP layer wrote itself (confirmations): `code` and `status`."""
    problem = service_error(result)
    for key in ("type", "title", "status", "detail", "code"):
        check(key in problem, f"problem lacks {key!r}: {short(problem)}")
    return problem


async def run(ctx: dict) -> dict:
    url, era, key, owner = ctx["url"], ctx["era"], ctx["key"], ctx["owner"]
    cases: dict[str, dict] = {}
    state: dict[str, Any] = {}

    async def case(name: str, fn) -> None:
        try:
            cases[name] = {"status": "pass", "detail": await fn() or ""}
        except CaseFailed as exc:
            cases[name] = {"status": "fail", "detail": str(exc)}
        except Exception as exc:  # noqa: BLE001 - "no case throws" is part of what is tested
            cases[name] = {"status": "fail", "detail": "threw " + traceback.format_exception_only(type(exc), exc)[-1].strip()[:400]}

    elicited: list[dict] = []
    answer = {"action": "accept"}

    async def on_elicit(context: Any, params: Any) -> Any:
        elicited.append(wire(params))
        if answer["action"] == "accept":
            return pc.types.ElicitResult(action="accept", content={"confirm": True})
        return pc.types.ElicitResult(action=answer["action"])

    async with AsyncExitStack() as stack:
        try:
            user = await stack.enter_async_context(Conn(url, era, {"X-API-Key": key}, on_elicit))
        except Exception as exc:  # noqa: BLE001
            msg = "connect threw " + traceback.format_exception_only(type(exc), exc)[-1].strip()[:400]
            return {"cases": {c: {"status": "fail", "detail": msg} for c in ctx["cases"]}, "protocol": "?"}
        schemas: dict[str, dict | None] = {}

        async def new_todo(title: str) -> dict:
            sc = ok_result(await user.call("create_todo", {"title": title}), schemas.get("create_todo"))
            check(sc["done"] is False and sc["title"] == title, f"created {short(sc)}")
            return sc

        async def still_there(todo_id: int) -> None:
            after = await user.call("get_todo", {"id": todo_id})
            check(not after.get("isError"), f"todo {todo_id} is gone: {short(after)}")

        async def c_tools():
            tools = await user.list_tools()
            for t in tools:
                schemas[t["name"]] = t.get("outputSchema")
            names = {t["name"] for t in tools}
            check(names == TOOLS, f"tools {sorted(names)}, expected {sorted(TOOLS)}")
            notes = {t["name"]: t.get("annotations") or {} for t in tools}
            check(notes["delete_todo"].get("destructiveHint") is True, f"delete_todo: {short(notes['delete_todo'])}")
            check(notes["list_todos"].get("readOnlyHint") is True, f"list_todos: {short(notes['list_todos'])}")
            check(notes["create_todo"].get("destructiveHint") is False, f"create_todo: {short(notes['create_todo'])}")
            return f"{len(tools)} tools, delete_todo destructive"

        async def c_write():
            sc = await new_todo(f"Water the plants ({ctx['client']})")
            check(sc["created_by"] == owner, f"created_by {sc['created_by']!r}, expected {owner!r}")
            state["todo"] = sc
            return f"todo {sc['id']} by {sc['created_by']}"

        async def c_read():
            check("todo" in state, "no todo written to read")
            todo = state["todo"]
            got = ok_result(await user.call("get_todo", {"id": todo["id"]}), schemas.get("get_todo"))
            check(got == todo, f"get_todo {short(got)} is not {short(todo)}")
            listed = ok_result(await user.call("list_todos", {"done": False}), schemas.get("list_todos"))
            # A JSON array from the service comes back as {"result": [...]}.
            items = listed.get("result")
            check(isinstance(items, list) and todo in items, f"list_todos(done=false) lacks it: {short(listed)}")
            check(all(t["done"] is False for t in items), "done filter not applied")
            return f"get and list ({len(items)} not done)"

        async def c_update():
            check("todo" in state, "no todo written to update")
            sc = ok_result(await user.call("update_todo", {"id": state["todo"]["id"], "done": True}),
                           schemas.get("update_todo"))
            check(sc["done"] is True and sc["title"] == state["todo"]["title"], f"updated {short(sc)}")
            return "marked done"

        async def c_whoami():
            sc = ok_result(await user.call("whoami", {}), schemas.get("whoami"))
            check(sc == {"owner": owner}, f"whoami {short(sc)}, expected owner {owner!r}")
            return f"owner {owner}"

        async def c_401(headers: dict[str, str], expected: str):
            async with Conn(url, era, headers) as other:
                body = service_error(await other.call("whoami", {}))
            check(body == {"error": expected}, f"body {short(body)}, expected the service's {{'error': {expected!r}}}")
            return json.dumps(body)

        async def c_409():
            check("todo" in state, "no todo written to collide with")
            todo_id = state["todo"]["id"]
            body = service_error(await user.call("create_todo", {"id": todo_id, "title": "again"}))
            check(body == {"error": f"todo already exists: {todo_id}"}, f"body {short(body)}")
            return json.dumps(body)

        async def c_404():
            body = service_error(await user.call("get_todo", {"id": MISSING}))
            check(body == {"error": f"todo not found: {MISSING}"}, f"body {short(body)}")
            return json.dumps(body)

        async def c_delete_unconfirmed():
            # The handshake era cannot ask the user: the layer refuses a destructive tool
            # (Settings' default), and the service is never called.
            todo = await new_todo("Keep me (handshake era)")
            before = len(elicited)
            p = layer_problem(await user.call("delete_todo", {"id": todo["id"]}))
            check(p["code"] == "confirmation_required" and p["status"] == 428, f"expected 428 confirmation_required: {short(p)}")
            check(len(elicited) == before, "the SDK was asked to elicit in the handshake era")
            await still_there(todo["id"])
            return f"refused ({p['code']}), todo {todo['id']} still there"

        async def c_confirm(action: str):
            check(user.protocol_version == "2026-07-28", f"negotiated {user.protocol_version}, not 2026-07-28")
            todo = await new_todo(f"Delete me? ({action})")
            answer["action"] = action
            before = len(elicited)
            r = await user.call("delete_todo", {"id": todo["id"]})
            check(len(elicited) == before + 1, f"the SDK asked the user {len(elicited) - before} times, expected once")
            props = (elicited[-1].get("requestedSchema") or {}).get("properties", {})
            check("confirm" in props, f"elicitation schema lacks confirm: {short(elicited[-1])}")
            if action == "accept":
                sc = ok_result(r, schemas.get("delete_todo"))
                check(sc == {"status": 204}, f"delete answered {short(sc)}")
                gone = service_error(await user.call("get_todo", {"id": todo["id"]}))
                check(gone == {"error": f"todo not found: {todo['id']}"}, f"after delete: {short(gone)}")
                return f"deleted {todo['id']}"
            p = layer_problem(r)
            check(p["code"] == "confirmation_declined", f"expected confirmation_declined: {short(p)}")
            await still_there(todo["id"])
            return f"declined, todo {todo['id']} still there"

        plan = {
            "tools_list": c_tools, "write": c_write, "read": c_read, "update": c_update, "whoami": c_whoami,
            "err_401_missing": lambda: c_401({}, "missing X-API-Key header"),
            "err_401_wrong": lambda: c_401({"X-API-Key": key + "-wrong"}, "unknown API key"),
            "err_409": c_409, "err_404": c_404,
            "delete_unconfirmed": c_delete_unconfirmed,
            "confirm_accept": lambda: c_confirm("accept"), "confirm_decline": lambda: c_confirm("decline"),
        }
        for name in ctx["cases"]:
            await case(name, plan[name])
        return {"cases": cases, "protocol": user.protocol_version}


def main() -> None:
    ctx = json.load(open(sys.argv[1]))
    out = asyncio.run(run(ctx))
    out["sdk_version"] = pc.SDK_VERSION
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
