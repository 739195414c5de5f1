#!/usr/bin/env bash
# The npm-registry MCP clients against /mcp, pinned by tools/npm/package-lock.json and installed by
# tools/npm-env.sh into $HOME/.cache/sitrep-npm only when missing or changed: the MCP Inspector's CLI mode
# (tools/list with --strict, get_sources anonymously, a data tool with an API key), then the official
# TypeScript SDK client in both protocol lines (tools/mcp_ts_sdk_check.mjs).
# usage: mcp_npm_check.sh <mcp url> <api key>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
url="$1" key="$2"
rc=0; prefix="$("$here/npm-env.sh")" || rc=$?
if [ "$rc" = 3 ]; then
    echo "mcp npm clients: npm is not installed on this machine; the Inspector and TypeScript SDK checks are skipped" >&2
    exit 0
elif [ "$rc" != 0 ]; then
    exit "$rc"
fi
inspector="$prefix/node_modules/.bin/mcp-inspector"
# --strict: schema portability warnings (e.g. type arrays) fail the check.
list="$(timeout 120 "$inspector" --cli "$url" --transport http --method tools/list --strict)"
grep -q '"name": "get_sources"' <<<"$list" && grep -q '"name": "list_armed_events"' <<<"$list" \
    || { echo "mcp inspector: tools/list lacks the expected tools" >&2; exit 1; }
sources="$(timeout 120 "$inspector" --cli "$url" --transport http --method tools/call --tool-name get_sources --tool-arg group=conflict)"
grep -q '"matched"' <<<"$sources" || { echo "mcp inspector: get_sources failed: $sources" >&2; exit 1; }
page="$(timeout 120 "$inspector" --cli "$url" --transport http --method tools/call --tool-name list_armed_events \
    --tool-arg country=UA --tool-arg page_size=1 --header "X-Service-Key: $key")"
grep -q '"sitrep/snapshotGeneration"' <<<"$page" && grep -q '"structuredContent"' <<<"$page" \
    || { echo "mcp inspector: the data tool failed: $page" >&2; exit 1; }
echo "mcp inspector (cli): tools/list, get_sources anonymously, a data tool with a key: ok"
timeout 120 node "$here/mcp_ts_sdk_check.mjs" "$url" "$key" "$prefix/node_modules"
