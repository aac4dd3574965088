#!/usr/bin/env bash
# Writes the TFLite twin of a committed ONNX fixture and LiteRT.js's output on its input:
# DIR/tflite_twin/model.tflite (build/tare_make_tflite_twin from DIR/model.onnx's weights) and
# DIR/tflite_twin/expected/Identity.npy (bench/peers/tflite_run.js on DIR/input.npy). The fixtures'
# tflite_twin/make.sh call it.
# With --int8 CALIB.npy (BATCH then required): the full-integer int8 twin instead, calibrated on
# CALIB.npy's items (tare_make_tflite_twin --int8), into DIR/tflite_int8/ (tflite_int8/make.sh).
# Usage: make_tflite_twin.sh DIR BUILD_DIR [BATCH [--int8 CALIB.npy]]   (bench/peers needs `npm install --ignore-scripts`)
set -euo pipefail
usage="usage: make_tflite_twin.sh DIR BUILD_DIR [BATCH [--int8 CALIB.npy]]"
dir=$(cd "${1:?$usage}" && pwd)
build=${2:?$usage}
root=$(cd "$(dirname "$0")/.." && pwd)
out=tflite_twin
int8=()
if [ $# -ge 4 ]; then
  [ "$4" = --int8 ] && [ $# -eq 5 ] || { echo "$usage" >&2; exit 2; }
  out=tflite_int8
  int8=(--int8 "$5")
fi
mkdir -p "$dir/$out"
"$build/tare_make_tflite_twin" "$dir/model.onnx" "$dir/$out/model.tflite" ${3:+"$3"} "${int8[@]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/bench/peers" && node tflite_run.js "$dir/$out/model.tflite" "$dir/input.npy" --out "$tmp" > /dev/null)
mkdir -p "$dir/$out/expected"
cp "$tmp/0_Identity.npy" "$dir/$out/expected/Identity.npy"
echo "wrote $dir/$out/model.tflite and expected/Identity.npy"
