#!/usr/bin/env bash
# Writes the TFLite twin of a committed ONNX fixture and LiteRT.js's output on its input:
# DIR/tflite_twin/model.tflite (build/tare_make_tflite_twin from DIR/model.onnx's weights) and
# DIR/tflite_twin/expected/Identity.npy (bench/peers/tflite_run.js on DIR/input.npy). The fixtures'
# tflite_twin/make.sh call it.
# Usage: make_tflite_twin.sh DIR BUILD_DIR [BATCH]   (bench/peers needs `npm install --ignore-scripts`)
set -euo pipefail
dir=$(cd "${1:?usage: make_tflite_twin.sh DIR BUILD_DIR [BATCH]}" && pwd)
build=${2:?usage: make_tflite_twin.sh DIR BUILD_DIR [BATCH]}
root=$(cd "$(dirname "$0")/.." && pwd)
"$build/tare_make_tflite_twin" "$dir/model.onnx" "$dir/tflite_twin/model.tflite" ${3:+"$3"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/bench/peers" && node tflite_run.js "$dir/tflite_twin/model.tflite" "$dir/input.npy" --out "$tmp" > /dev/null)
mkdir -p "$dir/tflite_twin/expected"
cp "$tmp/0_Identity.npy" "$dir/tflite_twin/expected/Identity.npy"
echo "wrote $dir/tflite_twin/model.tflite and expected/Identity.npy"
