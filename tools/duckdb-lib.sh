#!/usr/bin/env bash
# DuckDB Labs' own prebuilt libduckdb.so, which the binaries link instead of compiling DuckDB's C++
# (29 of a cold build's minutes). One copy reaches this machine through a registry: the npm package
# @duckdb/node-bindings-linux-x64 carries it (MIT), built from the same commit as the sources bundled
# in the libduckdb-sys crate of Cargo.lock (tests: the linked library's version is checked).
#
# Fetched once with npm into $HOME/.cache (outside the clone), its integrity checked against the
# hash pinned here, and skipped while present. Then placed beside the binaries of each Cargo
# profile directory: the binaries' rpath ($ORIGIN, $ORIGIN/.. for tests under deps/, $ORIGIN/../lib
# for an install; .cargo/config.toml) finds it there without LD_LIBRARY_PATH.
#
# usage: duckdb-lib.sh [profile-dir ...]   prints the directory holding libduckdb.so (DUCKDB_LIB_DIR)
#        duckdb-lib.sh --dir                 prints that directory only (fetches nothing)
set -euo pipefail
package="@duckdb/node-bindings-linux-x64"
version="1.5.6-r.1"
# npm's `dist.integrity` of that version (sha512 of the tarball).
integrity="sha512-IXcrZJE6kEqM0Z4wwdVnGBHX/frOS33VPNAwDXQ/Q+Fs84b058Qe94chrCCIcNJlG8Y3UHIUU4eBeCQxW5mN1Q=="
dir="${SITREP_DUCKDB_CACHE:-$HOME/.cache/sitrep-duckdb}/$version"
lib="$dir/libduckdb.so"
if [ "${1:-}" = --dir ]; then
    echo "$dir"
    exit 0
fi

if [ "$(uname -sm)" != "Linux x86_64" ]; then
    echo "duckdb-lib.sh: the prebuilt library is for Linux x86_64 only; build with DUCKDB=bundled" >&2
    exit 1
fi

if [ ! -f "$lib" ]; then
    command -v npm >/dev/null || { echo "duckdb-lib.sh: npm is needed to fetch $package@$version (or build with DUCKDB=bundled)" >&2; exit 1; }
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && npm pack --silent "$package@$version" >/dev/null)
    tarball="$(ls "$work"/*.tgz)"
    got="sha512-$(python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tarball")"
    if [ "$got" != "$integrity" ]; then
        echo "duckdb-lib.sh: $package@$version does not match its pinned integrity ($got)" >&2
        exit 1
    fi
    tar -xzf "$tarball" -C "$work" package/libduckdb.so package/LICENSE
    mkdir -p "$dir"
    cp "$work/package/LICENSE" "$dir/LICENSE"
    # Renamed into place last: a fetch that died half-way never looks complete.
    cp "$work/package/libduckdb.so" "$lib.partial"
    mv "$lib.partial" "$lib"
fi

for profile_dir in "$@"; do
    mkdir -p "$profile_dir"
    # A symbolic link: nothing copied, and a new pin replaces it.
    ln -sfn "$lib" "$profile_dir/libduckdb.so"
done
echo "$dir"
