#!/usr/bin/env bash
# tare compare --peer ort, --peer tflite and --peer tfjs on LeNet-5: ONNX Runtime (bench/peers/ort_run.js) run by tare on the same
# input, its outputs checked against PyTorch's own logits (tests/models/lenet5/expected, written by
# the PyTorch export) and its 14 layers aligned (16 ONNX nodes, two of them Constants tare folds; 15 values
# exposed besides the output) with tare's by tensor name, every one within 10 times
# tare's per-layer noise floor (FirstDeparture; its rule is tested on hand-made layers in
# tests/unit/compare_layers_test.cc). Bad use: one error line.
# Usage: compare_peer.sh TARE FIXTURE_DIR WORK_DIR BACKENDS. Exit 77 (skipped) without the peers.
set -euo pipefail
TARE=$1 FIX=$2 WORK=$3 BACKENDS=$4
PEERS=$(cd "$(dirname "$0")/../../bench/peers" && pwd)
if [ ! -d "$PEERS/node_modules/onnxruntime-node" ] || [ ! -d "$PEERS/node_modules/@litertjs/core" ] ||
   [ ! -d "$PEERS/node_modules/@tensorflow/tfjs" ] || ! command -v node > /dev/null; then
  echo "skipped: no onnxruntime-node, @litertjs/core or @tensorflow/tfjs (cd bench/peers && npm install --ignore-scripts)"; exit 77; fi
rm -rf "$WORK" && mkdir -p "$WORK"
M=$FIX/model.onnx
"$TARE" compare --model "$M" --input "$FIX/input.npy" --backends "$BACKENDS" --peer ort --expect "pytorch=$FIX/expected" \
  --json "$WORK/r.json" > "$WORK/out.txt"
grep -qE "^model.onnx ort +ref64 " "$WORK/out.txt" && grep -qF "layers of model.onnx on ort: 14 nodes; chained: worst rel L2" "$WORK/out.txt" &&
  grep -qF "model.onnx: ort: every one of 14 compared layers within 10 times tare's noise floor" "$WORK/out.txt" &&
  grep -qE "^pytorch vs ort: " "$WORK/out.txt" || { cat "$WORK/out.txt"; echo "FAIL: --peer ort"; exit 1; }
python3 - "$WORK/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["models"][0]
fw = {f["label"]: f["metrics"] for f in m["frameworks"]}
assert set(fw) == {"ort", "pytorch"}, fw
# ONNX Runtime's logits against ref64, and ref64 against PyTorch's: both at float32's rounding.
assert 0 < fw["ort"]["rel_l2"] < 1e-6 and fw["pytorch"]["rel_l2"] < 1e-6, fw
(ort,) = [l for l in m["layers"] if l.get("peer")]
assert ort["backend"] == "ort" and ort["exposed_values"] == 15, ort["exposed_values"]
ops = [n["op"] for n in ort["nodes"]]
assert ops.count("Conv") == 2 and ops.count("Gemm") == 3 and len(ops) == 14, ops
assert all(n["chained"] and 0 <= n["chained"]["rel_l2"] < 1e-6 for n in ort["nodes"]), ort["nodes"]
d = ort["departure"]
assert d["found"] is False and d["compared"] == 14 and d["factor"] == 10 and 0 < d["ratio"] <= 10, d
PY
# --peer tflite: LiteRT.js on the TFLite twin (tests/models/lenet5/tflite_twin), its layers in NHWC read
# in tare's NCHW order; 19 of 19 layers compared (tare's own transposes back to NHWC included).
mkdir -p "$WORK/pytorch_twin" && cp "$FIX/expected/logits.npy" "$WORK/pytorch_twin/Identity.npy"  # the twin's output name
"$TARE" compare --model "$FIX/tflite_twin/model.tflite" --input "$FIX/input.npy" --backends "$BACKENDS" --peer tflite \
  --expect "pytorch=$WORK/pytorch_twin" --json "$WORK/t.json" > "$WORK/t.txt"
grep -qF "model.tflite: tflite: every one of 19 compared layers within 10 times tare's noise floor" "$WORK/t.txt" ||
  { cat "$WORK/t.txt"; echo "FAIL: --peer tflite"; exit 1; }
python3 - "$WORK/t.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
fw = {f["label"]: f["metrics"] for f in m["frameworks"]}
# LiteRT's logits against ref64 and PyTorch's: float32 rounding (the twin holds the same weights).
assert 0 < fw["tflite"]["rel_l2"] < 1e-6 and fw["pytorch"]["rel_l2"] < 1e-6, fw
(t,) = [l for l in m["layers"] if l.get("peer")]
assert t["nhwc_values"] == 9 and t["departure"]["compared"] == 19 and not t["departure"]["found"], t["departure"]
convs = [n for n in t["nodes"] if n["op"] == "Conv"]
assert len(convs) == 2 and all(0 < n["chained"]["rel_l2"] < 1e-6 for n in convs), convs
PY
# --peer tfjs: TF.js on the study's LeNet-5 as TF.js saved it (tests/models/lenet5_bn/tfjs), its
# layers' outputs fetched by node name; its logits are the study's TF.js logits bit for bit, and 13
# layers are compared (tare's own transposes and pre-activation values have no TF.js counterpart).
BN=$FIX/../lenet5_bn
"$TARE" compare --model "$BN/tfjs/model.json" --input "$BN/dataset/items.npy" --backends "$BACKENDS" --peer tfjs \
  --expect "study=$BN/dataset/expected/tfjs" --json "$WORK/j.json" > "$WORK/j.txt"
grep -qF "model.json: tfjs: every one of 13 compared layers within 10 times tare's noise floor" "$WORK/j.txt" &&
  grep -qF "study vs tfjs: same function (their outputs: rel L2 0.000e+00)" "$WORK/j.txt" ||
  { cat "$WORK/j.txt"; echo "FAIL: --peer tfjs"; exit 1; }
python3 - "$WORK/j.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
fw = {f["label"]: f["metrics"] for f in m["frameworks"]}
assert 0 < fw["tfjs"]["rel_l2"] < 1e-6, fw
(t,) = [l for l in m["layers"] if l.get("peer")]
assert t["backend"] == "tfjs" and t["departure"]["compared"] == 13 and not t["departure"]["found"], t["departure"]
assert t["nhwc_values"] == 6, t["nhwc_values"]  # conv1, relu1, pool1, conv2, relu2, pool2 read in NCHW order
PY
bad() {
  if "$@" > "$WORK/bad_out.txt" 2> "$WORK/err.txt"; then echo "FAIL: accepted: $*"; exit 1; fi
  [ "$(wc -l < "$WORK/err.txt")" -eq 1 ] && grep -q "^tare: error: " "$WORK/err.txt" ||
    { cat "$WORK/err.txt"; echo "FAIL: not one error line: $*"; exit 1; }
}
bad "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer nosuch
bad "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer ort,ort
bad "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer ort --expect "ort=$FIX/expected"
bad "$TARE" compare --model "$M" --dataset "npy:$FIX/dataset" --peer ort
bad "$TARE" compare --model "$FIX/tflite_twin/model.tflite" --input "$FIX/input.npy" --peer ort
grep -qF "runs ONNX files" "$WORK/err.txt" || { cat "$WORK/err.txt"; echo "FAIL: --peer ort on .tflite"; exit 1; }
bad "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer tflite
grep -qF "runs TFLite files" "$WORK/err.txt" || { cat "$WORK/err.txt"; echo "FAIL: --peer tflite on .onnx"; exit 1; }
bad "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer tfjs
grep -qF "runs TF.js model.json files" "$WORK/err.txt" || { cat "$WORK/err.txt"; echo "FAIL: --peer tfjs on .onnx"; exit 1; }
bad env TARE_PEERS_DIR="$WORK/nowhere" "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer ort
bad env TARE_NODE="$WORK/no-node" "$TARE" compare --model "$M" --input "$FIX/input.npy" --peer ort
# A malformed model: refused before any peer runs, on one line.
head -c 3000 "$M" > "$WORK/cut.onnx"
bad "$TARE" compare --model "$WORK/cut.onnx" --input "$FIX/input.npy" --peer ort
echo "1 passed, 0 failed"
