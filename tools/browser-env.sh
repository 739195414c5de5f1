#!/usr/bin/env bash
# The real browser of the web-page tests: Debian's chromium, pinned, installed with apt only when
# missing (Playwright drives it through its executable path; no browser download). Prints the path.
set -euo pipefail
pin="148.0.7778.167-1~deb12u1"
if ! command -v chromium >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq "chromium=$pin" >&2 || { apt-get update -qq >&2 && apt-get install -y -qq "chromium=$pin" >&2; }
fi
command -v chromium
