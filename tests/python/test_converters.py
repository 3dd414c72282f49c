"""Every tool schema the live server lists, through the schema converters of the largest agent
frameworks, as they run before a model sees a tool: OpenAI's strict function calling (the
OpenAI Agents SDK's `ensure_strict_json_schema`, pydantic-ai's OpenAI transformer in strict
mode, LangChain's `convert_to_openai_tool(strict=True)`, and the Agents SDK's MCP path, which
also refuses open objects) and Google's Gemini (LangChain's `convert_to_genai_function_declarations`,
pydantic-ai's `GoogleJsonSchemaTransformer` and its Gemini Live path, `google-genai`'s
`Schema.from_json_schema`).

Valid JSON Schema is not enough: before the generator wrote nullable enumerations as `anyOf`,
LangChain's Gemini converter refused the three collection-plan tools, and OpenAI's strict mode
refused the 19 writes that said `additionalProperties: true`.

Strict mode also makes every property required. Before optional arguments were declared
nullable, a model in that mode had no way to leave one out: to list charges it had to invent a
`customer_id`. Now it sends `null`, which the server reads as "not given"."""

from __future__ import annotations

import copy
import json
import logging
import urllib.request

import pytest
from harness import cpf

# LangChain's Gemini converter logs each keyword Gemini has no use for; what matters is that it
# raises nothing.
logging.getLogger("langchain_google_genai").setLevel(logging.ERROR)


STRICT = {"X-MCP-Strict-Schemas": "true"}


def mcp(server, method: str, params: dict | None = None, headers: dict | None = None) -> dict:
    token = server.person("admin")["mcp_token"]
    message = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    request = urllib.request.Request(
        server.mcp_url, data=json.dumps(message).encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                 "MCP-Protocol-Version": "2025-06-18", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["result"]


def listed_tools(server, headers: dict | None = None) -> list[dict]:
    return mcp(server, "tools/list", headers=headers)["tools"]


@pytest.fixture(scope="module")
def compact_tools(server) -> list[dict]:
    tools = listed_tools(server)
    assert len(tools) == 68
    return tools


@pytest.fixture(scope="module")
def tools(server) -> list[dict]:
    """The strict-mode form, which a strict-mode framework's connection asks for."""
    tools = listed_tools(server, STRICT)
    assert len(tools) == 68
    return tools


def openai_agents_strict(tool: dict) -> None:
    from agents.strict_schema import ensure_strict_json_schema
    strict = ensure_strict_json_schema(copy.deepcopy(tool["inputSchema"]))
    assert strict["additionalProperties"] is False


def pydantic_ai_openai_strict(tool: dict) -> None:
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer
    transformer = OpenAIJsonSchemaTransformer(copy.deepcopy(tool["inputSchema"]), strict=True)
    transformer.walk()
    assert transformer.is_strict_compatible, "pydantic-ai would fall back to non-strict"


def langchain_openai_strict(tool: dict) -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool
    converted = convert_to_openai_tool(
        {"name": tool["name"], "description": tool["description"], "parameters": copy.deepcopy(tool["inputSchema"])},
        strict=True)
    assert converted["function"]["strict"] is True


def langchain_gemini(tool: dict) -> None:
    from langchain_google_genai._function_utils import convert_to_genai_function_declarations
    [declarations] = convert_to_genai_function_declarations(
        [{"name": tool["name"], "description": tool["description"], "parameters": copy.deepcopy(tool["inputSchema"])}])
    assert declarations.function_declarations[0].name == tool["name"]


def pydantic_ai_gemini(tool: dict) -> None:
    from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer
    GoogleJsonSchemaTransformer(copy.deepcopy(tool["inputSchema"])).walk()


def openai_agents_mcp_path(tool: dict) -> None:
    """The Agents SDK's own MCP path (`agents.mcp.util`): strict, refusing open objects, as it
    converts a server's tools; a refusal there falls back to non-strict for that tool."""
    from agents.strict_schema import ensure_strict_json_schema
    schema = copy.deepcopy(tool["inputSchema"])
    empty = schema == {}
    schema.setdefault("properties", {})
    ensure_strict_json_schema(schema, _reject_open_objects=not empty)


def google_genai_schema(tool: dict) -> None:
    """Google's own converter (`google-genai`), refusing what it cannot carry."""
    from google.genai import types
    types.Schema.from_json_schema(json_schema=types.JSONSchema.model_validate(copy.deepcopy(tool["inputSchema"])),
                                  raise_error_on_unsupported_field=True)


def pydantic_ai_gemini_live(tool: dict) -> None:
    """pydantic-ai's Gemini Live path: the OpenAPI subset Live's function declarations take."""
    from pydantic_ai.realtime.google import _schema_from_json_schema
    _schema_from_json_schema(copy.deepcopy(tool["inputSchema"]))


CONVERTERS = [openai_agents_strict, pydantic_ai_openai_strict, langchain_openai_strict,
              langchain_gemini, pydantic_ai_gemini, openai_agents_mcp_path, google_genai_schema,
              pydantic_ai_gemini_live]


@pytest.mark.parametrize("form", ["compact", "strict"])
@pytest.mark.parametrize("convert", CONVERTERS, ids=[c.__name__ for c in CONVERTERS])
def test_every_tool_schema_goes_through_the_converter(compact_tools, tools, convert, form):
    listed = compact_tools if form == "compact" else tools
    refused = []
    for tool in listed:
        try:
            convert(tool)
        except Exception as error:  # noqa: BLE001 - any refusal is the finding
            refused.append(f"{tool['name']}: {type(error).__name__}: {str(error)[:200]}")
    assert not refused, f"{len(refused)} of {len(listed)} tools refused:\n" + "\n".join(refused)


def strict_schema(tool: dict) -> dict:
    from agents.strict_schema import ensure_strict_json_schema
    return ensure_strict_json_schema(copy.deepcopy(tool["inputSchema"]))


def unwrapped(schema: dict) -> dict:
    """An `{"anyOf": [X, {"type": "null"}], ...annotations}` property read back as X with them."""
    branches = schema.get("anyOf")
    if not branches or len(branches) != 2 or branches[1] != {"type": "null"}:
        return schema
    out = {k: v for k, v in schema.items() if k != "anyOf"}
    out.update(branches[0])
    return out


def test_the_two_forms_differ_only_in_optional_arguments_declaring_null(compact_tools, tools):
    assert [t["name"] for t in compact_tools] == [t["name"] for t in tools]
    declared = 0
    for compact, strict in zip(compact_tools, tools):
        name = strict["name"]
        rest = lambda tool: {k: v for k, v in tool.items() if k != "inputSchema"}  # noqa: E731
        assert rest(compact) == rest(strict), name
        required = set(strict["inputSchema"].get("required", []))
        for argument, schema in strict["inputSchema"]["properties"].items():
            plain = compact["inputSchema"]["properties"][argument]
            if schema != plain:
                assert argument not in required, f"{name}.{argument}"
                assert unwrapped(schema) == plain, f"{name}.{argument}"
                declared += 1
    compact_bytes = len(json.dumps(compact_tools, separators=(",", ":")))
    strict_bytes = len(json.dumps(tools, separators=(",", ":")))
    assert declared > 100 and compact_bytes < strict_bytes, (declared, compact_bytes, strict_bytes)


def test_in_strict_mode_every_optional_argument_can_be_left_out_with_null(tools):
    from jsonschema import Draft202012Validator
    cannot = []
    for tool in tools:
        strict = strict_schema(tool)
        optional = set(tool["inputSchema"]["properties"]) - set(tool["inputSchema"].get("required", []))
        assert set(strict["required"]) == set(strict["properties"]), "strict mode requires them all"
        for name in sorted(optional):
            if not Draft202012Validator(strict["properties"][name]).is_valid(None):
                cannot.append(f"{tool['name']}.{name}")
    assert not cannot, f"{len(cannot)} optional arguments a strict-mode model must invent:\n" + "\n".join(cannot)


@pytest.mark.parametrize("name", ["dunning_charges_list", "dunning_customers_list", "dunning_events_list"])
def test_a_list_called_as_a_strict_mode_model_calls_it_lists_everything(server, tools, name):
    [tool] = [t for t in tools if t["name"] == name]
    everything_null = {key: None for key in strict_schema(tool)["properties"]}
    result = mcp(server, "tools/call", {"name": name, "arguments": everything_null})
    assert not result.get("isError"), result["content"][0]["text"][:500]
    assert result["structuredContent"]["data"], "the demo data has rows"
    plain = mcp(server, "tools/call", {"name": name, "arguments": {}})
    # The same page as a call that leaves them all out; only the rate limit's count moved.
    for answer in (result, plain):
        answer["structuredContent"]["meta"].pop("rate_limit", None)
    assert result["structuredContent"] == plain["structuredContent"]


def test_a_write_called_as_a_strict_mode_model_calls_it_leaves_the_optional_fields_unset(server, tools):
    [tool] = [t for t in tools if t["name"] == "dunning_customers_create"]
    arguments = {key: None for key in strict_schema(tool)["properties"]}
    arguments.update(name="Strict Mode Ltda", document=cpf(), email="strict@example.com")
    result = mcp(server, "tools/call", {"name": "dunning_customers_create", "arguments": arguments})
    assert not result.get("isError"), result["content"][0]["text"][:500]
    created = result["structuredContent"]["data"]
    assert created["name"] == "Strict Mode Ltda"
    assert created["phone"] is None and created["notes"] in (None, "")
