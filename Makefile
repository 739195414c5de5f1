# sitrep — the operator's entry points. One Cargo target directory outside the clone, shared by
# every checkout, CI run and session on this machine: DuckDB's C++ build happens once.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/sitrep-target
CARGO ?= cargo

## DuckDB: DUCKDB=prebuilt (the default) links DuckDB Labs' prebuilt libduckdb.so, which
## tools/duckdb-lib.sh fetches once (npm registry, integrity pinned) into $HOME/.cache and puts
## beside each profile's binaries. DUCKDB=bundled compiles DuckDB's C++ from the sources
## libduckdb-sys bundles instead (29 more minutes on 2 cores, once; one self-contained binary, or a
## platform the package does not cover), in a target directory of its own ($(CARGO_TARGET_DIR)-bundled),
## so the two builds never rebuild each other. Any target takes it: `make test DUCKDB=bundled`.
export DUCKDB ?= prebuilt
ifeq ($(DUCKDB),bundled)
override CARGO_TARGET_DIR := $(CARGO_TARGET_DIR)-bundled
CARGO_FEATURES := --features sitrep-platform/bundled-duckdb
else ifeq ($(DUCKDB),prebuilt)
CARGO_FEATURES :=
# The library's directory, for libduckdb-sys's build script (the path names the pinned version, so a
# new pin relinks). Only `make` sets it: cargo run by hand needs
# `export DUCKDB_LIB_DIR=$$(tools/duckdb-lib.sh "$$CARGO_TARGET_DIR/debug")`.
export DUCKDB_LIB_DIR := $(shell tools/duckdb-lib.sh --dir)
else
$(error DUCKDB is prebuilt or bundled, not "$(DUCKDB)")
endif
CARGO_DEV := $(CARGO_FEATURES)
CARGO_RELEASE := --release $(CARGO_FEATURES)
BIN := $(CARGO_TARGET_DIR)/debug
RELEASE_BIN := $(CARGO_TARGET_DIR)/release
# The scripts make runs (contract tests, the local cluster) take the binaries from here.
export SITREP_BIN := $(BIN)

export SITREP_LAKE ?= ./var/lake
export SITREP_STATE ?= sqlite://var/state.db
export SITREP_CACHE_DIR ?= ./var/cache
export SITREP_LISTEN ?= 127.0.0.1:8080
# The operator's listener: /metrics, on loopback (not on the public address).
export SITREP_METRICS_LISTEN ?= 127.0.0.1:9464
export SITREP_FIXTURES ?= ./data/fixtures

.PHONY: wrk duckdb-lib dist bench-duckdb fuzz run build test doctor ingest backfill serve bench soak abuse lint clean common-words cm-scan stress cluster

build: duckdb-lib
	$(CARGO) build $(CARGO_DEV) --workspace --bins

## The prebuilt library, beside the binaries of both profiles (nothing to do for DUCKDB=bundled).
duckdb-lib:
ifeq ($(DUCKDB),prebuilt)
	@tools/duckdb-lib.sh $(BIN) $(RELEASE_BIN) >/dev/null
endif

## make dist: an operator's install, dist/sitrep-<version>-linux-x86_64/ (and .tar.gz): bin/ holds
## sitrep-serve and sitrep-ingest (release), lib/ holds libduckdb.so and its licence, which the
## binaries find through their $$ORIGIN/../lib rpath wherever the folder is put. Checked by running
## the copy with an empty environment. The host needs glibc 2.34 and libstdc++ of GCC 6 or newer
## (Debian 12, Ubuntu 22.04). With DUCKDB=bundled, lib/ stays empty: DuckDB is in the binaries.
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
DIST := dist/sitrep-$(VERSION)-linux-x86_64
dist: duckdb-lib
	$(CARGO) build $(CARGO_RELEASE) -p sitrep-serve -p sitrep-ingest --bins
	rm -rf $(DIST) $(DIST).tar.gz && mkdir -p $(DIST)/bin $(DIST)/lib
	cp $(RELEASE_BIN)/sitrep-serve $(RELEASE_BIN)/sitrep-ingest $(DIST)/bin/
ifeq ($(DUCKDB),prebuilt)
	cp -L $(DUCKDB_LIB_DIR)/libduckdb.so $(DIST)/lib/
	cp $(DUCKDB_LIB_DIR)/LICENSE $(DIST)/lib/LICENSE.duckdb
endif
	cd /tmp && env -i $(CURDIR)/$(DIST)/bin/sitrep-serve --help >/dev/null
ifeq ($(DUCKDB),prebuilt)
	env -i ldd $(DIST)/bin/sitrep-serve | grep -q '$(DIST)/bin/../lib/libduckdb.so'
endif
	tar -C dist -czf $(DIST).tar.gz $(notdir $(DIST))
	@echo "$(DIST).tar.gz"

## make run: build, print the dev API key (creating the state store, where metered upstream calls are
## counted), ingest every dataset in replay mode (chosen explicitly: the binaries default to live),
## serve until Ctrl-C (read-through operations replay too; webhook receivers may be plain http on loopback).
run: build var/cm-cursor-secret
	$(BIN)/sitrep-serve dev-key
	tools/replay_lake.sh $(BIN)
	@echo "the lake's open tables (Delta Lake; README: Querying the lake directly):"
	@$(BIN)/sitrep-ingest lake tables
	@echo "serving http://$(SITREP_LISTEN) (Ctrl-C stops it); operator metrics at http://$(SITREP_METRICS_LISTEN)/metrics"
	$(CM_REPLAY) IRAN_EVENTS_ENABLED=$${IRAN_EVENTS_ENABLED:-true} SITREP_READ_THROUGH=replay \
		WEBHOOKS_ALLOW_LOOPBACK=$${WEBHOOKS_ALLOW_LOOPBACK:-on} $(BIN)/sitrep-serve serve

## Company monitoring under make run: its runtime gate opens with a cursor secret generated once
## under var/ and GDELT as the SEARCH provider, whose answers (data/fixtures/web-search) and EDGAR's
## (data/fixtures/sec-edgar) replay answers, unless set otherwise.
CM_REPLAY = CM_CURSOR_SECRET="$${CM_CURSOR_SECRET:-$$(cat var/cm-cursor-secret)}" \
	SEARCH_PROVIDER_KIND="$${SEARCH_PROVIDER_KIND:-gdelt}"

var/cm-cursor-secret:
	@mkdir -p var && head -c 32 /dev/urandom | base64 > $@

## make cm-scan [ACCOUNT=…] [COMPANY=…]: company monitoring's scan now, as under make run (replay:
## the recorded search answers and the replayed news); every due company without a filter. A
## deployment runs `sitrep-ingest cm scan` live.
cm-scan: build var/cm-cursor-secret
	$(CM_REPLAY) $(BIN)/sitrep-ingest cm scan --mode replay $(if $(ACCOUNT),--account $(ACCOUNT)) $(if $(COMPANY),--company $(COMPANY))

## make doctor: every external tool make test needs (make bench too, with DOCTOR_ARGS=--bench), where
## it comes from, and whether it is here or can be installed now; installs nothing (it may refresh
## apt's package lists when they name builds the archive no longer serves).
doctor:
	tools/doctor.sh $(DOCTOR_ARGS)

## make test: the whole suite, no network needed: first the doctor (a broken install step fails in
## the first minute, not after the build) and the serving crates' import layers, then the contract
## tests with real clients (a standard OpenAPI validator and schemathesis against the real server;
## tools/contract-test.sh installs them pinned into $HOME/.cache/sitrep-venv), make abuse's short
## pass (ABUSE_SHORT_PASS), then unit, connector and end-to-end tests beside a throw-away PostgreSQL and Redis (tools/services.sh),
## the end-to-end tests once more with the state store on PostgreSQL. Then make bench's short pass
## (BENCH_SHORT_PASS).
test: doctor duckdb-lib wrk
	tools/import_cycles.py
	$(CARGO) build $(CARGO_DEV) --workspace --bins
	tools/contract-test.sh
	$(ABUSE_SHORT_PASS) $(BIN)/sitrep-bench
	tools/services.sh run -- env $(BENCH_SHORT_PASS) BENCH_PYTHON="$$(tools/python-env.sh)/bin/python" $(BIN)/sitrep-bench >/dev/null
	tools/services.sh run -- sh -c '$(CARGO) test $(CARGO_DEV) --workspace --no-fail-fast; all=$$?; \
		SITREP_TEST_STATE=postgres $(CARGO) test $(CARGO_DEV) -p sitrep-tests --test e2e --no-fail-fast -- $(ON_POSTGRES_ALREADY); \
		exit $$((all | $$?))'

## make abuse's short pass: every attack for 3 s on the debug server, 20k synthetic events a
## version; it fails on the outcomes (the good client's errors, the attacker's 5xx, descriptors,
## the sweep), not on latency or memory (tests/bench/abuse.rs, `missed`).
ABUSE_SHORT_PASS = BENCH_GROUPS=abuse ABUSE_SECONDS=3 ABUSE_EVENTS=20000 ABUSE_CHECK=short

## make bench's short pass: every group of `make bench` (`BENCH_GROUPS=all`) on the debug build, at
## small sizes (10k conflict events, 20k for history, 100 monitored companies, 20 table versions, a
## cold burst of 200), a second a wrk round and one round where make bench alternates five; it
## fails on any refused
## request and on the outcomes each group asserts (statuses, one upstream call per cold burst, the
## diffs' row counts), never on a figure (tests/bench/main.rs, `short`). Its tables go nowhere.
BENCH_SHORT_PASS = BENCH_SHORT=1 BENCH_SIZES=10000

## wrk, the HTTP load generator of make bench and its short pass (Debian's package, unpinned).
wrk:
	@command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null 2>&1 \
		|| { apt-get update -qq && apt-get install -y -qq wrk; }

## The end-to-end tests that run on PostgreSQL whatever the switch says (the cluster, the state
## store's restart, the webhooks' faults) or never touch the state store (the S3 lake): the second pass skips them.
ON_POSTGRES_ALREADY = --skip cluster:: --skip state_store:: --skip s3_lake:: --skip webhook_faults::

## make fuzz [FUZZ_CASES=100000]: the property tests of every decoder of a caller's bytes
## (tests/properties: jmespath, cursors, query parameters, POST bodies, MCP's envelope, the OAuth
## forms) with a random seed and FUZZ_CASES cases each (make test runs them with a fixed seed and
## a few thousand). Each property prints its seed: SITREP_FUZZ_SEED=<seed> replays it.
FUZZ_CASES ?= 100000
fuzz: duckdb-lib
	SITREP_FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test $(CARGO_DEV) -p sitrep-tests --test properties -- --nocapture

## make stress: the cluster test's kill -9 of a worker mid-commit on S3, 200 times (make test: 20).
stress: build
	tools/services.sh run -- env SITREP_STRESS_TRIALS=200 $(CARGO) test $(CARGO_DEV) -p sitrep-tests --test e2e -- \
		cluster::a_worker_killed_mid_commit_on_s3_loses_and_corrupts_nothing

## make cluster: a local scaled-out deployment to try by hand — PostgreSQL, Redis, the S3 test
## server, two replicas (127.0.0.1:8081, :8082) and two ingest workers, in replay mode
## (tools/cluster.sh). Ctrl-C stops all of it.
cluster: build
	tools/services.sh run -- tools/cluster.sh

## make ingest [DATASET=armed-events]: one ingest run (live; SITREP_MODE=replay reads the fixtures).
ingest: build
	$(BIN)/sitrep-ingest run $(if $(DATASET),--dataset $(DATASET))

## make backfill DATASET=armed-events FROM=2026-05 TO=2026-07: historical partitions, one commit.
backfill: build
	@test -n "$(DATASET)" -a -n "$(FROM)" -a -n "$(TO)" || { echo "usage: make backfill DATASET=… FROM=YYYY-MM TO=YYYY-MM"; exit 2; }
	$(BIN)/sitrep-ingest backfill --dataset $(DATASET) --from $(FROM) --to $(TO)

serve: build
	$(BIN)/sitrep-serve serve

## make bench: release build; prints the benchmark tables, and fails on any refused request (no
## figure is made of refusals). Installs wrk (the HTTP load generator) if missing, and datasette (the peer) into $HOME/.cache/sitrep-bench-venv. Then, from the bundled
## DuckDB build (DUCKDB=bundled: compiled once, 29 minutes on 2 cores), the DuckDB-bound tables once
## more (ingest, the served binary's start and memory, uncached pages beside datasette and the
## engine, at BENCH_BUNDLED_SIZES), so both builds are measured in one run and the switch does not
## rot; BENCH_BUNDLED=0 skips it.
BENCH_BUNDLED ?= 1
BENCH_BUNDLED_SIZES ?= 1000000,5000000
bench: duckdb-lib wrk
	$(CARGO) build $(CARGO_RELEASE) --workspace --bins
	BENCH_DATASETTE="$$(tools/python-env.sh bench)/bin/datasette" BENCH_PYTHON="$$(tools/python-env.sh)/bin/python" \
		$(RELEASE_BIN)/sitrep-bench
ifeq ($(BENCH_BUNDLED)$(DUCKDB),1prebuilt)
	$(MAKE) --no-print-directory bench-duckdb DUCKDB=bundled
endif

## The DuckDB-bound tables alone, from this DUCKDB build (make bench runs it for the bundled one).
bench-duckdb: duckdb-lib
	$(CARGO) build $(CARGO_RELEASE) --workspace --bins
	BENCH_DATASETTE="$$(tools/python-env.sh bench)/bin/datasette" BENCH_GROUPS=conflict \
		BENCH_SIZES=$(BENCH_BUNDLED_SIZES) $(RELEASE_BIN)/sitrep-bench

## make soak: ten minutes of mixed load (REST, MCP, batch, read-through; 70 % repeated, 30 %
## distinct) against the release server over 1M armed events, a new generation every 30 s;
## prints p50/p99 and errors per kind, answers mixing two generations, and the drift of resident
## memory and open descriptors (tests/bench/soak.rs; SOAK_SECONDS and friends shorten it).
soak: duckdb-lib
	$(CARGO) build $(CARGO_RELEASE) --workspace --bins
	BENCH_GROUPS=soak $(RELEASE_BIN)/sitrep-bench

## make abuse: the release sitrep-serve on the replay lake (and three versions of 1M synthetic armed
## events), attacked one way after another (slowloris, random keys, an authorize flood, eight
## ListDatasetChanges pagers, rotating as_of, one account's flood, jmespath bombs, bad bodies,
## random keys and an OAuth agent behind a reverse proxy, clients that never read) while
## another account's client measures its latency; one table row per attack (tests/bench/abuse.rs;
## ABUSE_SECONDS, default 10, is each attack's length; ABUSE_EVENTS the events a version). It fails
## when an attack misses a goal.
abuse: duckdb-lib
	$(CARGO) build $(CARGO_RELEASE) --workspace --bins
	ABUSE_CHECK=all BENCH_GROUPS=abuse $(RELEASE_BIN)/sitrep-bench

## make common-words: regenerates data/reference/common-words.txt (the company-monitoring ambiguity
## guard's frequent English words) from wordfreq, installed pinned into $HOME/.cache/sitrep-words-venv.
common-words:
	"$$(tools/python-env.sh words)/bin/python" tools/common_words.py

lint: duckdb-lib
	tools/import_cycles.py
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy $(CARGO_DEV) --workspace --all-targets -- -D warnings

clean:
	rm -rf var dist
