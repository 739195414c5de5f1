#!/usr/bin/env bash
# The project's Python environment for the real-client tests: created once under $HOME/.cache with
# the pinned requirements, and skipped while it matches them. Prints the venv's path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${SITREP_VENV:-$HOME/.cache/sitrep-venv}"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt" >&2
    echo "$want" > "$venv/.requirements.sha256"
fi
echo "$venv"
