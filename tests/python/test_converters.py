"""Every tool schema the live server lists, through the schema converters of the largest agent
frameworks, as they run before a model sees a tool: OpenAI's strict function calling (the
OpenAI Agents SDK's `ensure_strict_json_schema`, pydantic-ai's OpenAI transformer in strict
mode, LangChain's `convert_to_openai_tool(strict=True)`) and Google's Gemini (LangChain's
`convert_to_genai_function_declarations`, pydantic-ai's `GoogleJsonSchemaTransformer`).

Valid JSON Schema is not enough: before the generator wrote nullable enumerations as `anyOf`,
LangChain's Gemini converter refused the three collection-plan tools, and OpenAI's strict mode
refused the 19 writes that said `additionalProperties: true`."""

from __future__ import annotations

import copy
import json
import logging
import urllib.request

import pytest

# LangChain's Gemini converter logs each keyword Gemini has no use for; what matters is that it
# raises nothing.
logging.getLogger("langchain_google_genai").setLevel(logging.ERROR)


def listed_tools(server) -> list[dict]:
    token = server.person("admin")["mcp_token"]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        server.mcp_url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                 "MCP-Protocol-Version": "2025-06-18"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["result"]["tools"]


@pytest.fixture(scope="module")
def tools(server) -> list[dict]:
    tools = listed_tools(server)
    assert len(tools) == 62
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


CONVERTERS = [openai_agents_strict, pydantic_ai_openai_strict, langchain_openai_strict,
              langchain_gemini, pydantic_ai_gemini]


@pytest.mark.parametrize("convert", CONVERTERS, ids=[c.__name__ for c in CONVERTERS])
def test_every_tool_schema_goes_through_the_converter(tools, convert):
    refused = []
    for tool in tools:
        try:
            convert(tool)
        except Exception as error:  # noqa: BLE001 - any refusal is the finding
            refused.append(f"{tool['name']}: {type(error).__name__}: {str(error)[:200]}")
    assert not refused, f"{len(refused)} of {len(tools)} tools refused:\n" + "\n".join(refused)
