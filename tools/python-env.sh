#!/usr/bin/env bash
# A Python environment of the project, created once under $HOME/.cache with pinned requirements and
# skipped while it matches them; prints the venv's path. `python-env.sh` = the real-client tests
# (tools/requirements.txt); `python-env.sh bench` = the benchmark's peer (requirements-bench.txt);
# `python-env.sh words` = the common-words list's source (requirements-words.txt).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-test}" in
    test) requirements="$here/requirements.txt"; venv="${SITREP_VENV:-$HOME/.cache/sitrep-venv}" ;;
    bench) requirements="$here/requirements-bench.txt"; venv="$HOME/.cache/sitrep-bench-venv" ;;
    words) requirements="$here/requirements-words.txt"; venv="$HOME/.cache/sitrep-words-venv" ;;
    *) echo "usage: python-env.sh [test|bench|words]" >&2; exit 2 ;;
esac
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
    echo "$want" > "$venv/.requirements.sha256"
fi
echo "$venv"
