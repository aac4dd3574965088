#!/usr/bin/env bash
# tare compare on LeNet-5 and two variants (tests/models/lenet5/variants/make_variants.py): a renamed
# export must be "same function"; an export whose pool2 padding was changed must be "models differ"
# at /pool2/AveragePool on both sides, found through name alignment (original) and structural
# alignment (renamed). Usage: compare.sh TARE FIXTURE_DIR WORK_DIR
set -eu
TARE=$1; FIX=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
"$TARE" compare --model "$FIX/model.onnx" --model "$FIX/variants/renamed.onnx" --model "$FIX/variants/pool2_pads_altered.onnx" \
  --input "$FIX/input.npy" --json "$WORK/report.json" --html "$WORK/report.html" > "$WORK/out.txt"
cat "$WORK/out.txt"
check() { grep -qF -- "$1" "$WORK/out.txt" || { echo "FAIL: missing: $1"; exit 1; }; }
check "model.onnx vs renamed.onnx: same function"
check "model.onnx vs pool2_pads_altered.onnx: models differ at node '/pool2/AveragePool' (AveragePool"
check "renamed.onnx vs pool2_pads_altered.onnx: models differ at node 'n"
check "(AveragePool, tensor 't"
check "pads=[1,1,0,0]"
check "kernel noise floor of model.onnx"
grep -q '"verdict": "same function"' "$WORK/report.json" || { echo "FAIL: JSON verdict"; exit 1; }
# The HTML report: self-contained (no scripts, no fetched resources), verdicts and the layer plot.
grep -q "<svg" "$WORK/report.html" && grep -q "models differ at /pool2/AveragePool" "$WORK/report.html" ||
  { echo "FAIL: HTML content"; exit 1; }
if grep -qiE "<script|src=|href=" "$WORK/report.html"; then echo "FAIL: HTML is not self-contained"; exit 1; fi
# Across opsets and tools: the altered model upgraded to opset 13 by ONNX's version converter with every
# tensor renamed: structural alignment still finds /pool2/AveragePool.
"$TARE" compare --model "$FIX/model.onnx" --model "$FIX/variants/opset13_renamed_pool2_altered.onnx" \
  --input "$FIX/input.npy" > "$WORK/o13.txt"
grep -qF "models differ at node '/pool2/AveragePool' (AveragePool, tensor '/pool2/AveragePool_output_0') / node 'op10' (AveragePool, tensor 'v9')" \
  "$WORK/o13.txt" || { cat "$WORK/o13.txt"; echo "FAIL: opset 13 alignment"; exit 1; }
# Data-set mode on the two committed test images (labels 9 and 2, tests/models/lenet5/dataset) with
# PyTorch's own logits as the framework run: PyTorch and tare both get 2/2; no prediction flips.
"$TARE" compare --model "$FIX/model.onnx" --dataset "npy:$FIX/dataset" --expect "pytorch=$FIX/expected" \
  --json "$WORK/ds.json" > "$WORK/ds.txt"
cat "$WORK/ds.txt"
grep -qF "accuracy model.onnx ref64" "$WORK/ds.txt" && grep -qE "accuracy pytorch +1.0000 \(2/2\)" "$WORK/ds.txt" &&
  grep -qE "accuracy model.onnx ref64 +1.0000 \(2/2\)" "$WORK/ds.txt" && grep -qF "flips model.onnx ref64 vs pytorch: 0" "$WORK/ds.txt" ||
  { echo "FAIL: data-set mode"; exit 1; }
# Bad use: one error line, exit 1.
if "$TARE" compare --model "$FIX/model.onnx" --backends ref 2> "$WORK/err.txt"; then echo "FAIL: accepted"; exit 1; fi
[ "$(wc -l < "$WORK/err.txt")" -eq 1 ] || { echo "FAIL: error lines"; exit 1; }
echo "1 passed, 0 failed"
