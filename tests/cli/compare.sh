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
# The HTML report: self-contained (inline script and style only, nothing fetched), verdicts and the layer plot.
grep -q "<svg" "$WORK/report.html" && grep -q "models differ at /pool2/AveragePool" "$WORK/report.html" ||
  { echo "FAIL: HTML content"; exit 1; }
if grep -qiE "<script[^>]*src|src=|href=|@import|url\(" "$WORK/report.html"; then echo "FAIL: HTML is not self-contained"; exit 1; fi
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
# Layers of every backend: ref's 14 nodes are all within their error budgets in isolated mode
# (the budget check itself is tested against hand-computed bounds in tests/unit/compare_layers_test.cc).
"$TARE" compare --model "$FIX/model.onnx" --input "$FIX/input.npy" --backends ref64,ref --layers --json "$WORK/layers.json" > "$WORK/layers.txt"
grep -qF "layers of model.onnx on ref: 14 nodes; chained: worst rel L2" "$WORK/layers.txt" &&
  grep -qF "isolated: 14 of 14 nodes within budget" "$WORK/layers.txt" && grep -qE "^  /conv2/Conv +Conv +ref " "$WORK/layers.txt" &&
  grep -q '"schema_version": 1' "$WORK/layers.json" && grep -q '"over_budget": 0' "$WORK/layers.json" ||
  { cat "$WORK/layers.txt"; echo "FAIL: layers"; exit 1; }
# run --pin: the node runs where it is pinned; a bad pin is one error line.
"$TARE" run "$FIX/model.onnx" --backend ref --pin /conv2/Conv=ref --input "$FIX/input.npy" --output-dir "$WORK/pin" --explain > "$WORK/pin.txt"
grep -qE "^/conv2/Conv +ref" "$WORK/pin.txt" || { cat "$WORK/pin.txt"; echo "FAIL: --pin"; exit 1; }
# Pinned to ref beside a backend that runs it: the note says pinned, not that the backend declines.
"$TARE" run "$FIX/model.onnx" --backend cpu --pin /conv2/Conv=ref --input "$FIX/input.npy" --output-dir "$WORK/pin" --explain > "$WORK/pin2.txt"
grep -qE "^/conv2/Conv +ref +pinned$" "$WORK/pin2.txt" || { cat "$WORK/pin2.txt"; echo "FAIL: --pin note"; exit 1; }
if "$TARE" run "$FIX/model.onnx" --pin nosuch=ref --input "$FIX/input.npy" --output-dir "$WORK/pin" 2> "$WORK/pin_err.txt"; then
  echo "FAIL: --pin nosuch accepted"; exit 1; fi
grep -qF "tare: error: --pin nosuch=ref: the model has no node named 'nosuch'" "$WORK/pin_err.txt" || { cat "$WORK/pin_err.txt"; echo "FAIL: --pin error"; exit 1; }
# Bad use: one error line, exit 1, nothing written.
M=$FIX/model.onnx
cp "$M" "$WORK/copy.onnx"
mkdir -p "$WORK/nan" "$WORK/int"
# PyTorch-like logits stored as int32 [2,10] (plain python3: numpy is not needed).
python3 -c "
import struct, sys
h = \"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 10), }\"
h += ' ' * (63 - (10 + len(h)) % 64) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(h)) + h.encode() + bytes(80))" > "$WORK/int/logits.npy"
# float32 logits of [2,5] (a 5-class model's) and [2,10] all NaN.
npy() { python3 -c "
import struct, sys
shape, fill = eval(sys.argv[1]), float(sys.argv[2])
h = \"{'descr': '<f4', 'fortran_order': False, 'shape': %s, }\" % (shape,)
h += ' ' * (63 - (10 + len(h)) % 64) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<f', fill) * (shape[0] * shape[1]))" "$@"; }
mkdir -p "$WORK/five" && npy "(2, 5)" 0 > "$WORK/five/logits.npy"
npy "(2, 10)" nan > "$WORK/nan/logits.npy"
bad() {
  if "$TARE" compare "$@" > "$WORK/bad_out.txt" 2> "$WORK/err.txt"; then echo "FAIL: accepted: $*"; exit 1; fi
  [ "$(wc -l < "$WORK/err.txt")" -eq 1 ] || { cat "$WORK/err.txt"; echo "FAIL: not one error line: $*"; exit 1; }
  grep -q "^tare: error: " "$WORK/err.txt" || { echo "FAIL: no error prefix: $*"; exit 1; }
}
bad --model "$M" --backends ref
bad --model "$M" --input "$FIX/input.npy" --backends ref64,ref,ref
bad --model "$M" --input "$FIX/input.npy" --threshold -1
bad --model "$M" --input "$FIX/input.npy" --threshold nan
bad --model "$M" --input "$FIX/input.npy" --limit 5
bad --model "$M" --dataset "npy:$FIX/dataset" --limit -5
bad --expect "pt=$FIX/expected" --model "$M" --input "$FIX/input.npy"
bad --model "$M" --expect "pt=$FIX/expected" --expect "pt=$FIX/expected" --input "$FIX/input.npy"
bad --model "$M" --expect "ref=$FIX/expected" --input "$FIX/input.npy"
bad --model "$M" --expect "pt=$WORK/int" --input "$FIX/input.npy"
bad --model "$M" --dataset "npy:$FIX/dataset" --input "$FIX/input.npy"
bad --model "$WORK/copy.onnx" --input "$FIX/input.npy" --json "$WORK/copy.onnx"
bad --model "$M" --input "$FIX/input.npy" --json "$WORK/r.json" --html "$WORK/r.json"
bad --model "$M" --input "$FIX/input.npy" --json "$WORK/no/such/dir/r.json"
bad --model "$M" --input "$FIX/input.npy" --json "$WORK"
bad --model "$M" --dataset "npy:$FIX/dataset" --expect "pt=$WORK/five"
bad --model "$M" --input "$FIX/input.npy" --bisect-threshold 0
bad --model "$M" --input "$FIX/input.npy" --bisect "$WORK/copy.onnx"
bad --model "$M" --dataset "npy:$FIX/dataset" --bisect "$WORK/bis"
# NaN logits are counted wrong and said so.
"$TARE" compare --model "$M" --expect "nanfw=$WORK/nan" --dataset "npy:$FIX/dataset" --backends ref64 > "$WORK/nan.txt"
grep -qF "accuracy nanfw                                0.0000 (0/2) (2 items with NaN outputs" "$WORK/nan.txt" ||
  { cat "$WORK/nan.txt"; echo "FAIL: NaN logits"; exit 1; }
cmp -s "$M" "$WORK/copy.onnx" || { echo "FAIL: the model was overwritten"; exit 1; }
[ ! -e "$WORK/r.json" ] && [ ! -e "$WORK/r.html" ] || { echo "FAIL: a report was written by a failed run"; exit 1; }
echo "1 passed, 0 failed"
