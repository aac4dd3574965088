#!/usr/bin/env bash
# Regenerates everything in tests/models/tflite_ops and tests/models/tflite_quant: the models and
# inputs (tare_make_tflite_ops, run twice: the two outputs must be byte-identical), then LiteRT.js's
# outputs (numpy's for the two LSTM cases) and manifest.json (make_fixtures.py). Builds nothing.
# Usage: bash tests/models/tflite_ops/make.sh TOOL
#        TOOL: the built tare_make_tflite_ops (e.g. build/tests/tare_make_tflite_ops).
# Needs node >= 18 with bench/peers's node_modules (@litertjs/core 2.5.3; installed here with
# `npm install --ignore-scripts` when missing) and Debian's /usr/bin/python3 with numpy.
# It finishes with tests/models/tflite_quant/float_truth.py, whose */float_truth/ folders the
# regeneration removes (it rewrites them identically). About 4 minutes; exit status 1 with one line
# on error. Afterwards: ctest -R "model.tflite_(ops|quant)".
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: make.sh TOOL (the built tare_make_tflite_ops)" >&2; exit 2; }
tool=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$tool" ] || { echo "make.sh: $1 is not an executable" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
quant=$root/tests/models/tflite_quant

litert=$root/bench/peers/node_modules/@litertjs/core/package.json
if [ ! -f "$litert" ]; then (cd "$root/bench/peers" && npm install --ignore-scripts); fi
version=$(node -p "require('$litert').version")
[ "$version" = 2.5.3 ] || { echo "make.sh: bench/peers has @litertjs/core $version, the fixtures are made with 2.5.3" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a/ops" "$tmp/a/quant" "$tmp/b/ops" "$tmp/b/quant"
"$tool" "$tmp/a/ops" "$tmp/a/quant" > "$tmp/cases.tsv"
"$tool" "$tmp/b/ops" "$tmp/b/quant" > /dev/null
diff -r "$tmp/a" "$tmp/b" > /dev/null || { echo "make.sh: two runs of $tool wrote different files" >&2; exit 1; }

# Replace what the tool made before (every folder and .tflite here; README.md, make.sh and
# make_fixtures.py stay), then fill in the expected outputs.
find "$here" -mindepth 1 -maxdepth 1 \( -type d -o -name '*.tflite' -o -name manifest.json \) -exec rm -rf {} +
mkdir -p "$quant"
find "$quant" -mindepth 1 -maxdepth 1 \( -type d -o -name '*.tflite' -o -name manifest.json \) -exec rm -rf {} +
cp -r "$tmp/a/ops/." "$here/"
cp -r "$tmp/a/quant/." "$quant/"
/usr/bin/python3 "$here/make_fixtures.py" --cases "$tmp/cases.tsv" --ops "$here" --quant "$quant"
/usr/bin/python3 "$quant/float_truth.py"
