"""The official Python SDK's OAuth client (`mcp` 2.x `OAuthClientProvider`) against the live
server from the bare MCP URL: discovery, dynamic registration, sign-in and consent (the real HTML
forms, submitted with httpx2), the code exchange, a tool call, and a refresh.

    .venvs/mcp-2.3.0/bin/python py_oauth_client.py MCP_URL EMAIL PASSWORD

The server runs with a one-second access token lifetime, so the second tool call, made after
the token expired, goes through the SDK's refresh. The last line of stdout is one JSON object
with what happened.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import httpx2 as httpx
from mcp.client import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://127.0.0.1:3031/callback"


class Storage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    if not found:
        raise AssertionError(f"no hidden field {name} in page: {page[:500]}")
    return html.unescape(found.group(1))


class Person:
    """A person at a browser: follows the authorization URL, signs in, consents."""

    def __init__(self, email: str, password: str) -> None:
        self.email, self.password = email, password
        self.result: AuthorizationCodeResult | None = None
        self.pages: list[str] = []

    async def redirect(self, authorization_url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as browser:
            page = await browser.get(authorization_url)
            assert page.status_code == 200, page.text
            self.pages.append("sign-in")
            signed = await browser.post(
                urljoin(authorization_url, "/oauth/sign-in"),
                data={
                    "csrf": hidden(page.text, "csrf"),
                    "return_to": hidden(page.text, "return_to"),
                    "email": self.email,
                    "password": self.password,
                },
            )
            assert signed.status_code == 303, signed.text
            consent = await browser.get(urljoin(authorization_url, signed.headers["location"]))
            assert "Autorizar" in consent.text, consent.text
            self.pages.append("consent")
            scopes = re.findall(r'name="scope" value="([^"]*)"', consent.text)
            allowed = await browser.post(
                urljoin(authorization_url, "/oauth/consent"),
                # Repeated `scope` fields, as the browser sends the ticked checkboxes.
                content=urlencode(
                    [
                        ("csrf", hidden(consent.text, "csrf")),
                        ("request", hidden(consent.text, "request")),
                        ("decision", "allow"),
                        *(("scope", s) for s in scopes),
                    ]
                ),
                headers={"content-type": "application/x-www-form-urlencoded"},
            )
            assert allowed.status_code == 303, allowed.text
            back = urlparse(allowed.headers["location"])
            query = {k: v[0] for k, v in parse_qs(back.query).items()}
            self.result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None, "the redirect handler did not finish"
        return self.result


async def main(url: str, email: str, password: str) -> dict:
    storage = Storage()
    person = Person(email, password)
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="Python SDK (teste)",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=person.redirect,
        callback_handler=person.callback,
    )
    report: dict = {"pages": person.pages}
    async with httpx.AsyncClient(auth=provider, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            first = await client.call_tool("dunning_me", {})
            report["first_call_error"] = bool(first.is_error)
            report["first_text"] = first.content[0].text if first.content else ""
            # The access token lives one second on this server (at most two: expiries are
            # whole seconds, rounded up): the next call refreshes.
            await asyncio.sleep(2.5)
            second = await client.call_tool("dunning_charges_list", {})
            report["second_call_error"] = bool(second.is_error)
    report["client_id"] = storage.client.client_id if storage.client else None
    report["tokens_received"] = len(storage.history)
    report["refresh_tokens_distinct"] = len({t.refresh_token for t in storage.history})
    report["scope"] = storage.tokens.scope if storage.tokens else None
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))
