#!/usr/bin/env bash
# Contract tests with real clients (part of `make test`): the real `sitrep-serve` binary over a
# lake ingested in replay mode, its OpenAPI document checked by a standard validator
# (openapi-spec-validator), then every operation exercised by schemathesis with all its checks.
# Every check runs but one, `positive_data_acceptance` (ST202: "a schema-valid request must get
# 2xx"): some values are valid only beyond what JSON Schema can say — a signed cursor, a jmespath
# expression's grammar, `start <= end`, an Idempotency-Key reused with another body (422) — and
# the 400/422 answers to them are the documented, tested behaviour (tests/e2e/conflict.rs,
# idempotency.rs). `tools/schemathesis_hooks.py` drops queries a form query string cannot tell from
# valid ones: a repeated scalar (the first occurrence wins, SUPPLEMENT 1.2), a scalar in a repeated
# parameter, an object value. Schemathesis runs single-threaded: Python 3.11's AST module is not thread-safe
# under hypothesis (a SystemError in its lambda introspection). Then the official MCP Python SDK
# connects to /mcp in both protocol lines (tools/mcp_sdk_check.py), the MCP Inspector's CLI and the
# official TypeScript SDK list and call tools (tools/mcp_npm_check.sh), and authlib goes through the
# OAuth authorization server (tools/oauth_client_check.py), and a real browser goes through every
# web page (tools/browser_check.py). Before them, engines we did not write read the lake's Delta
# Lake tables (deltalake, Polars, DuckDB's delta extension: tools/open_tables_check.py) and Apache
# Iceberg tables (PyIceberg, Polars, DuckDB's iceberg extension, ClickHouse's chdb:
# tools/iceberg_tables_check.py), every version, against the API and the commit log. The replay
# company scan runs inside the webhook check: the receivers' own libraries (Python's and npm's
# standardwebhooks) verify what its receiver got (tools/webhook_check.py, tools/webhook_verify.mjs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${SITREP_BIN:-${CARGO_TARGET_DIR:-$HOME/.cache/sitrep-target}/debug}"
venv="$("$root/tools/python-env.sh")"
work="$(mktemp -d)"
server=""
s3_server=""
cleanup() {
    for pid in $server $s3_server; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

export SITREP_LAKE="$work/lake" SITREP_STATE="sqlite://$work/state.db" SITREP_CACHE_DIR="$work/cache"
export SITREP_FIXTURES="$root/data/fixtures" SITREP_LOG=warn IRAN_EVENTS_ENABLED=true SITREP_READ_THROUGH=replay
# Schemathesis sends thousands of requests a minute: raise the limits so it tests the operations.
export SITREP_RATE_LIMITS="default=1000000,humanitarian-batch=1000000,batch=1000000,cm-write=1000000,cm-import=1000000,webhook-write=1000000"
# Webhook receivers on loopback over plain http (the webhook check's; schemathesis names others).
export WEBHOOKS_ALLOW_LOOPBACK=on
# Company monitoring's runtime gate open (a cursor secret and, as under make run, GDELT's recorded
# answers as the search provider), and a business key with its scopes, so schemathesis reaches its
# operations.
export CM_CURSOR_SECRET="contract-tests-company-monitoring-secret" SEARCH_PROVIDER_KIND=gdelt
unset SEARCH_PROVIDER_URL
# The dashboard's company-monitoring page too (flag `ui`), for the browser.
export CM_FLAG_UI=on
key="$("$bin/sitrep-serve" keys create --account contract --plan business \
    --scope company_monitoring:read --scope company_monitoring:write | sed -n 's/^API key: //p')"
# An account of its own for what make run + make cm-scan show (the browser reads it too): schemathesis
# creates, renames and removes the contract account's companies.
demo_key="$("$bin/sitrep-serve" keys create --account demo --plan business \
    --scope company_monitoring:read --scope company_monitoring:write | sed -n 's/^API key: //p')"
"$root/tools/replay_lake.sh" "$bin" >/dev/null
# A month-scoped backfill: armed-events' second version adds three months' files to the first's.
"$bin/sitrep-ingest" backfill --mode replay --dataset armed-events --from 2026-05 --to 2026-07 >/dev/null
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
SITREP_LISTEN="127.0.0.1:$port" SITREP_METRICS_LISTEN=off "$bin/sitrep-serve" serve &
server=$!
for _ in $(seq 1 100); do
    curl -fsS "$base/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
# A company with an impact (scanned in replay from the recorded search answers), so the links
# from the listings (to coverage, material events and the change feed) lead somewhere.
curl -fsS -H "X-Service-Key: $key" -H 'Content-Type: application/json' \
    -d '{"clientRequestId":"contract-seed","company":{"name":"Ashgrove Pharma","domicileCountry":"GB","domains":["ashgrovepharma.co.uk"]}}' \
    "$base/api/company-monitoring/v1/create-monitored-company" >/dev/null
n=0
for company in '"name":"Ashgrove Pharma","domicileCountry":"GB","domains":["ashgrovepharma.co.uk"]' \
    '"name":"Kestrel Avionics","domicileCountry":"US","domains":["kestrelavionics.com"],"identifiers":["CIK:1987654"]'; do
    n=$((n + 1))
    curl -fsS -H "X-Service-Key: $demo_key" -H 'Content-Type: application/json' \
        -d "{\"clientRequestId\":\"demo-$n\",\"company\":{$company}}" \
        "$base/api/company-monitoring/v1/create-monitored-company" >/dev/null
done
# The scan runs inside the webhook check: its receiver, listening meanwhile, gets the impacts'
# events and verifies them with the receivers' library (standardwebhooks).
# What it received is then verified by the npm standardwebhooks package too.
"$venv/bin/python" "$root/tools/webhook_check.py" "$base" "$demo_key" "$work/webhooks.json" -- "$bin/sitrep-ingest" cm scan --mode replay
rc=0; npm_prefix="$("$root/tools/npm-env.sh")" || rc=$?
case "$rc" in
    0) timeout 120 node "$root/tools/webhook_verify.mjs" "$work/webhooks.json" "$npm_prefix/node_modules" ;;
    3) echo "webhooks: npm is not installed on this machine; the npm standardwebhooks check is skipped" >&2 ;;
    *) exit "$rc" ;;
esac
# What make run + make cm-scan show: impacts from SEARCH (GDELT), FILINGS and a shipped
# authoritative publisher.
python3 "$root/tools/cm_replay_check.py" "$base" "$demo_key"
# Typed clients generated from the served document (issue 60), nothing generated kept: Python's
# (openapi-python-client) and TypeScript's (openapi-typescript + openapi-fetch, `tsc --strict`),
# each walking every operation with real parameters, every answer parsed into its model.
curl -fsS "$base/openapi.json" -o "$work/openapi.json"
"$venv/bin/openapi-python-client" generate --path "$work/openapi.json" --output-path "$work/python-client" \
    --config "$root/tools/openapi-python-client.yaml" >/dev/null
"$venv/bin/python" "$root/tools/python_client_walk.py" "$base" "$key" "$work/python-client" "$work/openapi.json"
if [ "$rc" = 0 ]; then
    mkdir -p "$work/ts-client" && cd "$work/ts-client"
    ln -s "$npm_prefix/node_modules" node_modules
    cp "$root/tools/ts_client_walk.mts" walk.mts
    node_modules/.bin/openapi-typescript "$work/openapi.json" -o schema.d.ts >/dev/null 2>&1
    tsc_options=(--strict --module nodenext --moduleResolution nodenext --target es2022 --types node --skipLibCheck)
    node_modules/.bin/tsc "${tsc_options[@]}" --noEmit walk.mts
    node_modules/.bin/tsc "${tsc_options[@]}" walk.mts
    timeout 120 node walk.mjs "$base" "$key" "$work/openapi.json"
    cd "$root"
else
    echo "typed clients: npm is not installed on this machine; the TypeScript client walk is skipped" >&2
fi
# The lake's open tables through engines we did not write (Delta: deltalake, Polars, DuckDB's delta
# extension; Iceberg: PyIceberg, Polars, DuckDB's iceberg extension, ClickHouse), against the API
# and the commit log, every retained version (issue 56).
"$venv/bin/python" "$root/tools/open_tables_check.py" "$base" "$key" "$SITREP_LAKE" \
    armed-events violence-events co2-monitoring
"$venv/bin/python" "$root/tools/iceberg_tables_check.py" "$base" "$key" "$SITREP_LAKE" \
    armed-events violence-events co2-monitoring
# And a table past its first checkpoint: twelve versions of violence-events (UCDP's candidate and its
# revision in turn) in a lake of their own, read against the commit log, then from the checkpoint alone.
for _ in 1 2 3 4 5 6; do
    SITREP_LAKE="$work/history-lake" "$bin/sitrep-ingest" run --mode replay --dataset violence-events >/dev/null
    SITREP_LAKE="$work/history-lake" "$bin/sitrep-ingest" run --mode replay --scenario ucdp=revised \
        --dataset violence-events >/dev/null
done
# Then a rollback to the eleventh (the candidate again): a thirteenth version, which every table
# reads as the eleventh's rows while the twelfth stays readable by version and by time.
SITREP_LAKE="$work/history-lake" "$bin/sitrep-ingest" lake rollback --to 11 >/dev/null
"$venv/bin/python" "$root/tools/open_tables_check.py" - - "$work/history-lake" violence-events
"$venv/bin/python" "$root/tools/iceberg_tables_check.py" - - "$work/history-lake" violence-events
# gc keeping the newest three versions expires the ten before them in the table too: each engine
# refuses them, and the three left read as before (from a checkpoint at the first of them).
SITREP_LAKE="$work/history-lake" "$bin/sitrep-ingest" lake gc --keep 1 --grace-minutes 0 \
    --retention-hours 0 --retention-days 0 >/dev/null
"$venv/bin/python" "$root/tools/open_tables_check.py" - - "$work/history-lake" --expired=10 violence-events
"$venv/bin/python" "$root/tools/iceberg_tables_check.py" - - "$work/history-lake" --expired=10 violence-events
# A schema change between versions: the first version's files as an older schema wrote them (one
# column fewer), then a version of today's schema; each engine reads each version with its own.
SITREP_LAKE="$work/schema-lake" "$bin/sitrep-ingest" run --mode replay --dataset violence-events >/dev/null
"$venv/bin/python" "$root/tools/older_schema_version.py" "$work/schema-lake" violence-events release >/dev/null
SITREP_LAKE="$work/schema-lake" "$bin/sitrep-ingest" run --mode replay --scenario ucdp=revised \
    --dataset violence-events >/dev/null
"$venv/bin/python" "$root/tools/open_tables_check.py" - - "$work/schema-lake" --schemas violence-events
"$venv/bin/python" "$root/tools/iceberg_tables_check.py" - - "$work/schema-lake" --schemas=2 violence-events
# Through S3: the tests' S3 server (s3s-fs) holds a lake of two violence-events versions, which each
# engine reads over S3 (DuckDB with its httpfs extension, from its wheel): the analysts' S3 readers,
# run offline.
s3_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$bin/sitrep-s3" "$work/s3" lake "127.0.0.1:$s3_port" 2>/dev/null &
s3_server=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$s3_port" && break; sleep 0.1; done
(
    export SITREP_LAKE=s3://lake/sitrep AWS_ENDPOINT="http://127.0.0.1:$s3_port" AWS_ENDPOINT_URL="http://127.0.0.1:$s3_port" \
        AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=sitrep-test AWS_SECRET_ACCESS_KEY=sitrep-test-secret
    "$bin/sitrep-ingest" run --mode replay --dataset violence-events >/dev/null
    "$bin/sitrep-ingest" run --mode replay --scenario ucdp=revised --dataset violence-events >/dev/null
    "$venv/bin/python" "$root/tools/open_tables_check.py" - - "$work/s3/lake/sitrep" --tables=s3://lake/sitrep violence-events
    "$venv/bin/python" "$root/tools/iceberg_tables_check.py" - - "$work/s3/lake/sitrep" --tables=s3://lake/sitrep violence-events
)
kill "$s3_server"; wait "$s3_server" 2>/dev/null || true; s3_server=""
"$venv/bin/openapi-spec-validator" "$work/openapi.json"
cd "$work" # schemathesis keeps its state in ./.schemathesis
PYTHONPATH="$root/tools" SCHEMATHESIS_HOOKS=schemathesis_hooks "$venv/bin/st" run "$base/openapi.json" \
    --header "X-Service-Key: $key" \
    --header "User-Agent: sitrep-contract-tests/1.0 (+https://sitrep.example)" \
    --checks all --exclude-checks positive_data_acceptance \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-100}" --seed 20261123 \
    --workers 1 --no-shrink --warnings off
# The official MCP Python SDK against /mcp, in both protocol lines.
"$venv/bin/python" "$root/tools/mcp_sdk_check.py" "$base/mcp" "$key"
# The MCP Inspector's CLI and the official TypeScript SDK (pinned in tools/npm, installed into
# $HOME/.cache/sitrep-npm).
"$root/tools/mcp_npm_check.sh" "$base/mcp" "$key"
# A standard OAuth client (authlib) through the authorization server, and its tokens on REST and /mcp.
"$venv/bin/python" "$root/tools/oauth_client_check.py" "$base" "$key"
# A real browser (Debian's chromium via Playwright) through the dashboard, a consent page and the
# status page; screenshots of each page under var/test-output/screenshots.
chromium="$("$root/tools/browser-env.sh")"
"$venv/bin/python" "$root/tools/browser_check.py" "$base" "$demo_key" "$chromium" "${SITREP_TEST_OUTPUT:-$root/var/test-output}/screenshots"
