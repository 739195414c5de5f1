#!/usr/bin/env bash
# The real browser of the web-page tests: Debian's chromium, installed with apt only when missing
# (Playwright drives it through its executable path; no browser download). Not pinned to a version:
# Debian's archive serves only the current security build and the point-release build, so an exact
# pin vanishes with the next security update. The version used is printed (stderr) so a run says
# what it tested against. Prints the executable's path on stdout.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    # The package lists of a fresh machine may be empty or stale: refresh them once if the first try fails.
    apt-get install -y -qq chromium >&2 || { apt-get update -qq >&2 && apt-get install -y -qq chromium >&2; }
fi
echo "browser: $(chromium --version 2>/dev/null) (Debian package $(dpkg-query -W -f='${Version}' chromium 2>/dev/null || echo '?'))" >&2
command -v chromium
