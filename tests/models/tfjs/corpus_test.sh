#!/usr/bin/env bash
# One published TF.js model (tests/models/tfjs/fetch.sh) against TF.js itself: TF.js 4.22's cpu
# backend runs it on seeded inputs (bench/peers/tfjs_run.js), then tare runs it on each backend
# and check.py compares every output (rel L2 <= 1e-4 or max abs <= 1e-5).
# Usage: corpus_test.sh TARE PYTHON MODEL.json WORK BACKENDS(comma) [tfjs_run.js options, e.g. --outputs A,B]
# Exit 77 (skipped) when the model was not fetched or node / TF.js (bench/peers) is missing.
set -euo pipefail
tare=$1 py=$2 model=$3 work=$4 backends=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
peers=$here/../../../bench/peers
[ -f "$model" ] || { echo "SKIP: $model not fetched (bash tests/models/tfjs/fetch.sh build/corpus)"; exit 77; }
command -v node >/dev/null || { echo "SKIP: node not found"; exit 77; }
[ -d "$peers/node_modules/@tensorflow/tfjs" ] || { echo "SKIP: TF.js not installed (cd bench/peers && npm install --ignore-scripts)"; exit 77; }
# TF.js's outputs are kept while the model and the runner are unchanged.
if [ ! -f "$work/result.json" ] || [ "$model" -nt "$work/result.json" ] || [ "$peers/tfjs_run.js" -nt "$work/result.json" ]; then
  rm -rf "$work" && mkdir -p "$work"
  node "$peers/tfjs_run.js" "$model" --out "$work" --seed 7 "$@" > "$work/tfjs.log" 2>&1 || { cat "$work/tfjs.log"; exit 1; }
fi
IFS=, read -r -a bes <<< "$backends"
exec "$py" "$here/check.py" "$tare" "$model" "$work" "${bes[@]}"
