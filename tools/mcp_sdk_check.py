"""The official MCP Python SDK (mcp 2.x) against the real server's /mcp, in both protocol lines:
its 2026-07-28 path (auto mode: `server/discover`, stateless requests) and its `initialize`
handshake (legacy mode). Lists the tools, calls get_sources anonymously, a data tool with an API
key, and sees -32001 for a bad key. Then the SDK's own OAuth client: a data tool call without a
credential meets the 401 challenge, and the SDK discovers the authorization server, registers,
gets consent (approved here as the person would, with an API key) and retries with its token.
Exits non-zero on the first failed expectation.

usage: python mcp_sdk_check.py <mcp url> <api key>
"""

import asyncio
import re
import sys
from urllib.parse import parse_qs, urlparse

import httpx2

from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

AGENT = "sitrep-contract-tests/1.0 (+https://sitrep.example)"


def expect(condition, what):
    if not condition:
        raise SystemExit(f"mcp sdk check failed: {what}")


def unwrap(error):
    """Connect-time failures arrive inside (nested) exception groups."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def session(url, mode, headers, body):
    http = create_mcp_http_client(headers={"User-Agent": AGENT, **headers})
    async with http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=30) as client:
            return await body(client)


async def check_mode(url, key, mode, expected_version):
    async def anonymous(client):
        expect(client.protocol_version == expected_version, f"{mode}: negotiated {client.protocol_version}")
        names = [t.name for t in (await client.list_tools()).tools]
        expect(names[:2] == ["get_sources", "describe_tool"], f"{mode}: tool order {names[:3]}")
        expect("list_armed_events" in names, f"{mode}: data tools listed")
        sources = await client.call_tool("get_sources", {"group": "conflict"})
        expect(not sources.is_error, f"{mode}: get_sources is not an error")
        expect(sources.structured_content["matched"] >= 1, f"{mode}: get_sources found the conflict datasets")
        return names

    names = await session(url, mode, {}, anonymous)

    async def keyed(client):
        result = await client.call_tool("list_armed_events", {"country": "UA", "page_size": 2})
        expect(not result.is_error, f"{mode}: data tool succeeded")
        body = result.structured_content
        expect(set(body) == {"events", "pagination"}, f"{mode}: the REST body as structured content")
        expect(len(body["events"]) <= 2, f"{mode}: page_size applied")
        expect(result.meta and "sitrep/snapshotGeneration" in result.meta, f"{mode}: provenance in _meta")
        try:
            await client.call_tool("list_armed_events", {"page_size": 500})
            expect(False, f"{mode}: an out-of-range argument is refused")
        except MCPError as e:
            expect(e.code == -32602, f"{mode}: invalid params code {e.code}")

    await session(url, mode, {"X-Service-Key": key}, keyed)

    async def data_without_key(client):
        try:
            await client.call_tool("list_armed_events", {})
            expect(False, f"{mode}: a data tool needs a credential")
        except MCPError as e:
            expect(e.code == -32001 and "Authentication required" in e.message, f"{mode}: {e.code} {e.message}")

    await session(url, mode, {}, data_without_key)

    try:
        await session(url, mode, {"X-Service-Key": "di_" + "0" * 40}, lambda c: c.list_tools())
        expect(False, f"{mode}: a bad key is refused")
    except BaseException as e:  # noqa: BLE001 - the SDK wraps connect-time errors in groups
        e = unwrap(e)
        expect(isinstance(e, MCPError) and e.code == -32001, f"{mode}: bad key gave {e!r}")
    print(f"mcp sdk ({mode}): protocol {expected_version}, {len(names)} tools, get_sources, data tool, -32001 ok")


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self):
        self.tokens, self.client = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull):
        self.client = client_info


async def check_oauth(url, key):
    answer = {}

    async def approve(authorization_url):
        """The person at the consent page: signs in with an API key and approves."""
        async with httpx2.AsyncClient(headers={"User-Agent": AGENT}, follow_redirects=False) as browser:
            page = await browser.get(authorization_url)
            expect(page.status_code == 200, f"consent page answered {page.status_code}")
            nonce = re.search(r'name="nonce" value="([^"]+)"', page.text).group(1)
            consent_url = authorization_url.split("?")[0]
            reply = await browser.post(consent_url, data={"nonce": nonce, "api_key": key, "decision": "approve"})
            expect(reply.status_code == 302, f"approval answered {reply.status_code}")
            query = parse_qs(urlparse(reply.headers["location"]).query)
            answer.update(code=query["code"][0], state=query.get("state", [None])[0], iss=query["iss"][0])

    async def callback():
        return AuthorizationCodeResult(code=answer["code"], state=answer["state"], iss=answer["iss"])

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(client_name="MCP SDK check", redirect_uris=["http://127.0.0.1:38999/callback"],
                                            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                            scope="mcp", token_endpoint_auth_method="none"),
        storage=storage,
        redirect_handler=approve,
        callback_handler=callback,
    )
    http = create_mcp_http_client(headers={"User-Agent": AGENT}, auth=provider)
    async with http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=30) as client:
            result = await client.call_tool("list_armed_events", {"page_size": 1})
            expect(not result.is_error and "events" in result.structured_content, "the data tool answered after sign-in")
            expect(storage.tokens is not None and storage.client is not None, "the SDK registered and holds a token")
            names = [t.name for t in (await client.list_tools()).tools]
            expect("list_armed_events" in names, "tools listed with the token")
    print(f"mcp sdk (oauth): 401 challenge, discovery, registration, consent, token; {len(names)} tools: ok")


async def main(url, key):
    await check_mode(url, key, "auto", "2026-07-28")
    await check_mode(url, key, "legacy", "2025-11-25")
    await check_oauth(url, key)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
