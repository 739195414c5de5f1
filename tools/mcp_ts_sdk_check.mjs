// The official MCP TypeScript SDK client (@modelcontextprotocol/client v2, pinned through
// tools/npm/package-lock.json) against /mcp in both protocol lines: its 2026-07-28 negotiation
// (`versionNegotiation: { mode: 'auto' }`, server/discover) and its default 2025-era initialize.
// Lists the tools, calls get_sources anonymously and a data tool with an API key.
// usage: node mcp_ts_sdk_check.mjs <mcp url> <api key> <node_modules directory>
import { pathToFileURL } from "node:url";

const [url, key, modules] = process.argv.slice(2);
const entry = pathToFileURL(`${modules}/@modelcontextprotocol/client/dist/index.mjs`).href;
const { Client, StreamableHTTPClientTransport } = await import(entry);

function expect(ok, what) {
    if (!ok) {
        console.error(`mcp ts sdk check failed: ${what}`);
        process.exit(1);
    }
}

async function session(negotiation, headers, body) {
    const options = negotiation ? { versionNegotiation: negotiation } : {};
    const client = new Client({ name: "sitrep-contract-tests", version: "1.0.0" }, options);
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    try {
        return await body(client);
    } finally {
        await client.close();
    }
}

for (const [label, negotiation, want] of [["auto", { mode: "auto" }, "2026-07-28"], ["legacy", null, "2025-11-25"]]) {
    const agent = { "User-Agent": "sitrep-contract-tests/1.0 (+https://sitrep.example)" };
    const names = await session(negotiation, agent, async (client) => {
        const version = client.getNegotiatedProtocolVersion();
        expect(version === want, `${label}: negotiated ${version}`);
        const { tools } = await client.listTools();
        const sources = await client.callTool({ name: "get_sources", arguments: { group: "conflict" } });
        expect(sources.structuredContent && sources.structuredContent.matched >= 1, `${label}: get_sources`);
        return tools.map((t) => t.name);
    });
    expect(names[0] === "get_sources" && names.includes("list_armed_events"), `${label}: tools ${names}`);
    await session(negotiation, { ...agent, "X-Service-Key": key }, async (client) => {
        const page = await client.callTool({ name: "list_armed_events", arguments: { country: "UA", page_size: 2 } });
        expect(!page.isError && Array.isArray(page.structuredContent.events), `${label}: data tool`);
        expect(page._meta && page._meta["sitrep/snapshotGeneration"], `${label}: provenance in _meta`);
    });
    console.log(`mcp ts sdk (${label}): protocol ${want}, ${names.length} tools, get_sources, data tool: ok`);
}
