"""The official MCP Python SDK (mcp 2.x) against the real server's /mcp, in both protocol lines:
its 2026-07-28 path (auto mode: `server/discover`, stateless requests) and its `initialize`
handshake (legacy mode). Lists the tools, calls get_sources anonymously, a data tool with an API
key, and sees -32001 for a bad key. Exits non-zero on the first failed expectation.

usage: python mcp_sdk_check.py <mcp url> <api key>
"""

import asyncio
import sys

from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

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


async def main(url, key):
    await check_mode(url, key, "auto", "2026-07-28")
    await check_mode(url, key, "legacy", "2025-11-25")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
