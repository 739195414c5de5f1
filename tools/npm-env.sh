#!/usr/bin/env bash
# The contract tests' npm packages (tools/npm/package-lock.json: the MCP Inspector, standardwebhooks),
# installed with `npm ci` into $HOME/.cache/sitrep-npm only when missing or changed; prints the
# prefix (its node_modules holds them). Exits 3 when npm is not installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v npm >/dev/null 2>&1 || exit 3
prefix="$HOME/.cache/sitrep-npm"
want="$(sha256sum "$here/npm/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$prefix/.lock.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$prefix" && mkdir -p "$prefix"
    cp "$here/npm/package.json" "$here/npm/package-lock.json" "$prefix/"
    (cd "$prefix" && npm ci --no-audit --no-fund --loglevel=error >&2)
    echo "$want" > "$prefix/.lock.sha256"
fi
echo "$prefix"
