#!/usr/bin/env bash
# `make doctor` (and the first step of `make test`): every external tool the tests need, where it
# comes from, and whether it is here or can be installed now, checked as a fresh machine would see
# it and without installing anything. A broken install step (a pinned build the archive dropped, a
# registry that no longer serves a pin) fails here in the first minute, not after a 35-minute build.
# The only thing it may change is apt's package lists (`apt-get update`), when the lists on this
# machine name builds the archive no longer serves.
# usage: doctor.sh [--bench]   (--bench adds the tools of `make bench`)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
failed=0
report() { # report <tool> <where it comes from> <status>
    printf '  %-22s %-62s %s\n' "$1" "$2" "$3"
}
fail() {
    report "$1" "$2" "MISSING: $3"
    failed=1
}

# The .deb files apt would fetch to install these packages, each asked for its headers: a list that
# names a build the archive dropped answers 404 here, before anything is installed.
apt_fetchable() {
    local uris
    uris="$(apt-get install --print-uris -qq "$@" 2>/dev/null | awk '{print $1}' | tr -d "'")" || return 1
    # xargs fails when any one of them does.
    xargs -r -n 1 -P 8 curl -fsSI -o /dev/null --max-time 20 <<<"$uris" >/dev/null 2>&1
}

# A Debian package: installed (its version), or what apt would install now. Never an exact version:
# the archive keeps only the current security build and the point release.
debian_package() { # debian_package <command> <package> <needed by>
    local cmd="$1" pkg="$2" what="$3" candidate
    if command -v "$cmd" >/dev/null 2>&1; then
        report "$cmd" "Debian: $pkg ($what)" "installed $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo '(not from apt)')"
        return
    fi
    if ! apt_fetchable "$pkg"; then
        apt-get update -qq >/dev/null 2>&1 || true # stale lists name dropped builds: refresh them once
    fi
    candidate="$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && apt_fetchable "$pkg"; then
        report "$cmd" "Debian: $pkg ($what)" "not installed; apt would install $candidate"
    else
        fail "$cmd" "Debian: $pkg ($what)" "apt cannot fetch it now (candidate: ${candidate:-none})"
    fi
}

# A tool that comes with the machine (the Rust toolchain, the C++ compiler, Python, Node.js).
machine_tool() { # machine_tool <command> <where from> <needed by> <version flag> [optional]
    if command -v "$1" >/dev/null 2>&1; then
        report "$1" "$2 ($3)" "$("$1" "$4" 2>&1 | head -n 1)"
    elif [ "${5:-}" = optional ]; then
        report "$1" "$2 ($3)" "absent: those checks are skipped"
    else
        fail "$1" "$2 ($3)" "not on this machine"
    fi
}

# A pinned Python environment: present and matching its requirements, or every pin resolvable on PyPI.
python_env() { # python_env <requirements file> <venv> <needed by>
    local req="$1" venv="$2" what="$3"
    if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" = "$(sha256sum "$req" | cut -d' ' -f1)" ]; then
        report "venv $(basename "$venv")" "PyPI: $(basename "$req") ($what)" "installed, pins match"
    elif python3 -m pip install --dry-run --no-deps --ignore-installed --quiet --disable-pip-version-check \
        --no-input -r "$req" >/dev/null 2>&1; then
        report "venv $(basename "$venv")" "PyPI: $(basename "$req") ($what)" "not installed; every pin resolvable now"
    else
        fail "venv $(basename "$venv")" "PyPI: $(basename "$req") ($what)" "a pin does not resolve (pip install --dry-run -r $req)"
    fi
}

# The pinned npm clients: installed from the lock file, or its top-level pins served by the registry.
npm_env() {
    local prefix="$HOME/.cache/sitrep-npm" lock="$root/tools/npm/package-lock.json" pins
    if ! command -v npm >/dev/null 2>&1; then
        report "npm clients" "npm: tools/npm (MCP Inspector, TS SDK, standardwebhooks, typed TS client)" "npm absent: those checks are skipped"
    elif [ "$(cat "$prefix/.lock.sha256" 2>/dev/null)" = "$(sha256sum "$lock" | cut -d' ' -f1)" ]; then
        report "npm clients" "npm: tools/npm (MCP Inspector, TS SDK, standardwebhooks, typed TS client)" "installed, lock matches"
    else
        pins="$(python3 -c 'import json,sys; [print(f"{k}@{v}") for k,v in json.load(open(sys.argv[1]))["dependencies"].items()]' "$root/tools/npm/package.json")"
        if xargs -r -n 1 npm view --silent >/dev/null 2>&1 <<<"$pins"; then
            report "npm clients" "npm: tools/npm (MCP Inspector, TS SDK, standardwebhooks, typed TS client)" "not installed; pins served now"
        else
            fail "npm clients" "npm: tools/npm (MCP Inspector, TS SDK, standardwebhooks, typed TS client)" "the registry does not serve: $pins"
        fi
    fi
}

# DuckDB's prebuilt library (tools/duckdb-lib.sh): fetched already, or the registry serves the pin.
duckdb_library() {
    local dir pin what="npm: @duckdb/node-bindings-linux-x64 (libduckdb.so)"
    dir="$("$root/tools/duckdb-lib.sh" --dir)"
    pin="@duckdb/node-bindings-linux-x64@$(basename "$dir")"
    if [ -f "$dir/libduckdb.so" ]; then
        report "libduckdb.so" "$what" "fetched, $(basename "$dir")"
    elif ! command -v npm >/dev/null 2>&1; then
        fail "libduckdb.so" "$what" "npm is needed to fetch it (or DUCKDB=bundled)"
    elif npm view --silent "$pin" dist.integrity >/dev/null 2>&1; then
        report "libduckdb.so" "$what" "not fetched; $pin served now"
    else
        fail "libduckdb.so" "$what" "the registry does not serve $pin (or DUCKDB=bundled)"
    fi
}

echo "doctor: what make test needs, and where it comes from"
machine_tool cargo "the machine's Rust toolchain" "build" --version
if [ "${DUCKDB:-prebuilt}" = bundled ]; then
    machine_tool c++ "the machine's C++ compiler" "DuckDB's bundled build" --version
else
    duckdb_library
fi
machine_tool python3 "the machine's Python 3.11" "real-client tests" --version
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    fail "python3 -m venv" "Debian: python3-venv (real-client tests)" "python3 cannot create a venv"
fi
debian_package curl curl "contract tests: readiness"
python_env "$root/tools/requirements.txt" "${SITREP_VENV:-$HOME/.cache/sitrep-venv}" "schemathesis, MCP SDK, authlib, playwright"
machine_tool node "the machine's Node.js" "MCP Inspector, TS SDK" --version optional
npm_env
debian_package chromium chromium "web pages, driven by playwright"
debian_package pg_ctlcluster postgresql "the state store on PostgreSQL"
debian_package redis-server redis-server "the shared rate limiter"
debian_package wrk wrk "HTTP load: make bench and its short pass"
if [ "${1:-}" = --bench ]; then
    echo "doctor: and what make bench adds"
    python_env "$root/tools/requirements-bench.txt" "$HOME/.cache/sitrep-bench-venv" "datasette, the peer"
fi
if [ "$failed" -ne 0 ]; then
    echo "doctor: something the tests need cannot be had on this machine now (MISSING above)" >&2
    exit 1
fi
echo "doctor: ok"
