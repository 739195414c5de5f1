#!/usr/bin/env bash
# The real PostgreSQL and Redis the tests run against (issue 29), from Debian's packages, installed
# with apt only when missing and never pinned to a version (the archive keeps only the current
# builds; the versions used are printed). Each run gets its own throw-away servers on free loopback
# ports, in a temporary folder, stopped and deleted when the command ends.
#
#   services.sh install          install the packages if missing
#   services.sh run -- CMD…      start both, run CMD with SITREP_TEST_POSTGRES (a server URL: the
#                                tests create a database each) and SITREP_TEST_REDIS, stop both
set -euo pipefail

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

install() {
    local missing=()
    [ -n "$(pg_bin)" ] && [ -x "$(pg_bin)/initdb" ] || missing+=(postgresql)
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
    if [ "${#missing[@]}" -gt 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        # A fresh machine's package lists may be empty or stale: refresh them once if the first try fails.
        apt-get install -y -qq "${missing[@]}" >&2 || { apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >&2; }
    fi
    echo "services: $("$(pg_bin)/postgres" --version), $(redis-server --version | cut -d' ' -f1-3)" >&2
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# PostgreSQL refuses to run as root: as root, its files belong to (and it runs as) `postgres`.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

run() {
    install
    local pg_port redis_port
    dir="$(mktemp -d "${TMPDIR:-/tmp}/sitrep-services.XXXXXX")"
    chmod 755 "$dir"
    bin="$(pg_bin)"
    pg_port="$(free_port)"
    redis_port="$(free_port)"
    mkdir -p "$dir/pg"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/pg"
    stop() {
        as_pg "$bin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null 2>&1 || true
        [ -f "$dir/redis.pid" ] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
        rm -rf "$dir"
    }
    trap stop EXIT
    as_pg "$bin/initdb" -D "$dir/pg/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >/dev/null
    # Tests create many databases and connections; durability is not what they test.
    as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w -o \
        "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir/pg -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" \
        start >/dev/null
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" >/dev/null
    export SITREP_TEST_POSTGRES="postgres://postgres@127.0.0.1:$pg_port/postgres"
    export SITREP_TEST_REDIS="redis://127.0.0.1:$redis_port"
    export SITREP_TEST_SERVICES_DIR="$dir"
    "$@"
}

case "${1:-}" in
    install) install ;;
    run) shift; [ "${1:-}" = -- ] && shift; run "$@" ;;
    *) echo "usage: $0 install | run -- CMD…" >&2; exit 2 ;;
esac
