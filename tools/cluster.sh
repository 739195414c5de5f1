#!/usr/bin/env bash
# `make cluster`: a local deployment on the components a scaled-out one runs on, to try by hand:
# PostgreSQL and Redis (Debian's, throw-away, from tools/services.sh), the S3-compatible test
# server (`sitrep-s3`, s3s-fs), two serving replicas and two ingest workers, all in replay mode.
# Ctrl-C stops all of it. Runs under `tools/services.sh run --` (it reads SITREP_TEST_POSTGRES and
# SITREP_TEST_REDIS); the data lives in SITREP_TEST_SERVICES_DIR and goes with it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${SITREP_BIN:-${CARGO_TARGET_DIR:-$HOME/.cache/sitrep-target}/debug}"
dir="$SITREP_TEST_SERVICES_DIR"
first_port="${CLUSTER_PORT:-8081}"

psql "$SITREP_TEST_POSTGRES" -qc "CREATE DATABASE sitrep" >/dev/null
export SITREP_STATE="${SITREP_TEST_POSTGRES%/*}/sitrep"
export SITREP_RATE_LIMIT="$SITREP_TEST_REDIS"
export SITREP_LAKE="s3://lake/sitrep"
export AWS_ENDPOINT="http://127.0.0.1:$((first_port + 100))" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=sitrep-test AWS_SECRET_ACCESS_KEY=sitrep-test-secret
export SITREP_FIXTURES="$root/data/fixtures" SITREP_MODE=replay SITREP_READ_THROUGH=replay SITREP_LOG="${SITREP_LOG:-warn}"
# Both replicas stand behind one origin (a load balancer's in a real deployment).
export PUBLIC_ORIGINS="http://127.0.0.1:$first_port"

children=()
stop() {
    trap - INT TERM EXIT
    echo "cluster: stopping" >&2
    kill "${children[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap stop INT TERM EXIT

"$bin/sitrep-s3" "$dir/s3" lake "127.0.0.1:$((first_port + 100))" & children+=($!)
for _ in $(seq 50); do curl -s -o /dev/null "$AWS_ENDPOINT" && break; sleep 0.1; done
"$bin/sitrep-serve" dev-key --file "$dir/dev-api-key"
"$bin/sitrep-ingest" run
for worker in 1 2; do
    "$bin/sitrep-ingest" schedule & children+=($!)
done
for replica in 0 1; do
    "$bin/sitrep-serve" serve --listen "127.0.0.1:$((first_port + replica))" --cache-dir "$dir/cache-$replica" \
        --metrics-listen "127.0.0.1:$((first_port + 200 + replica))" & children+=($!)
done
for replica in 0 1; do
    for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$((first_port + replica))/readyz" && break; sleep 0.1; done
done
cat >&2 <<TEXT
cluster: ready — PostgreSQL ${SITREP_STATE%%\?*}, Redis $SITREP_RATE_LIMIT, S3 $AWS_ENDPOINT ($SITREP_LAKE)
  replica 1: http://127.0.0.1:$first_port    replica 2: http://127.0.0.1:$((first_port + 1))
  their metrics: http://127.0.0.1:$((first_port + 200))/metrics, http://127.0.0.1:$((first_port + 201))/metrics
  two ingest workers on the schedule; API key: $(cat "$dir/dev-api-key")
  try: curl -H "X-Service-Key: \$KEY" http://127.0.0.1:$((first_port + 1))/api/conflict/v1/list-armed-events?page_size=2
  Ctrl-C stops all of it.
TEXT
wait
