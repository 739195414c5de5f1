#!/usr/bin/env bash
# The replayed lake `make run` and the contract tests serve: every dataset from its `normal`
# recordings, then the later recordings that give the lake a history: NOAA GML answering the same
# files six days later (co2-monitoring's upstream frozen: fetched fine, content 8 days old), and
# UCDP re-releasing its October candidate (violence-events' second version: revised deaths, a
# withdrawn event, three new ones; what list-dataset-changes and `as_of` show).
set -euo pipefail
bin=${1:?usage: tools/replay_lake.sh BIN_DIR}
"$bin/sitrep-ingest" run --mode replay
"$bin/sitrep-ingest" run --mode replay --scenario noaa-gml=frozen --dataset co2-monitoring
"$bin/sitrep-ingest" run --mode replay --scenario ucdp=revised --dataset violence-events
