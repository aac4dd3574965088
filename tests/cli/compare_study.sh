#!/usr/bin/env bash
# tare compare on the study's fixtures (tests/models/lenet5_bn, written by bench/study/prepare.sh
# --fixtures): LeNet-5 with BatchNorm exported by PyTorch (model.onnx), the same network and weights
# written as a TensorFlow-converter-style ONNX graph (variants/tfstyle.onnx: other names, Conv without
# bias + Add, an NHWC island, MatMul + Add, Reshape), and two altered exports (pool2 pads; BN epsilon).
# Expected values come from the frameworks: PyTorch, ONNX Runtime and TF.js logits on the 64 items,
# and ONNX Runtime's logits for the altered-pool export.
# Usage: compare_study.sh TARE FIXTURE_DIR WORK_DIR
set -eu
TARE=$1; FIX=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
E=$FIX/dataset/expected
check() { grep -qF -- "$2" "$WORK/$1" || { cat "$WORK/$1"; echo "FAIL: $1 lacks: $2"; exit 1; }; }

# 1. One input (the 64 items as a batch), three frameworks on the PyTorch export, and the variants.
"$TARE" compare --model "$FIX/model.onnx" --expect "pytorch=$E/pytorch" --expect "ort=$E/ort" --expect "tfjs=$E/tfjs" \
  --model "$FIX/variants/tfstyle.onnx" --model "$FIX/variants/altered_bn_eps.onnx" --model "$FIX/variants/altered_pool.onnx" \
  --input "$FIX/dataset/items.npy" --json "$WORK/one.json" --html "$WORK/one.html" > "$WORK/one.txt"
# A different producer computing the same function.
check one.txt "model.onnx vs tfstyle.onnx: same function"
# The altered layers, found by name alignment (PyTorch exports) and structural alignment (TF style).
check one.txt "model.onnx vs altered_bn_eps.onnx: models differ at node '/bn1/BatchNormalization' (BatchNormalization"
check one.txt "model.onnx: {epsilon=9.99999975e-06, momentum=0.899999976}; altered_bn_eps.onnx: {epsilon=0.00100000005"
check one.txt "tfstyle.onnx vs altered_bn_eps.onnx: models differ at node 'sequential/batch_normalization/batchnorm' (BatchNormalization"
check one.txt "model.onnx vs altered_pool.onnx: models differ at node '/pool2/AveragePool' (AveragePool"
check one.txt "tfstyle.onnx vs altered_pool.onnx: models differ at node 'sequential/average_pooling2d_1/AvgPool' (AveragePool"
# The three frameworks' logits differ by float32 computing noise; the models compute the same function.
check one.txt "pytorch vs ort: framework computing difference: rel L2"
check one.txt "pytorch vs tfjs: framework computing difference: rel L2"
check one.txt "ort vs tfjs: framework computing difference: rel L2"
/usr/bin/env python3 - "$WORK/one.json" <<'PY' || { echo "FAIL: JSON"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
pairs = {(p["a"], p["b"]): p for p in r["pairs"]}
tf = pairs[("tfstyle.onnx", "altered_pool.onnx")]
# Structural alignment across producers: every layer of the TF-style graph that has a counterpart.
hows = {l["how"] for l in tf["layers"]}
assert hows == {"structure"}, hows
assert sum(l["layout"] == "a NHWC" and l["op"] == "Relu" for l in tf["layers"]) == 2, "the NHWC Relus are not aligned"
assert any(l["op"] == "MatMul" and l["op_b"] == "Gemm" for l in tf["layers"]), "MatMul~Gemm not aligned"
fw = pairs[("pytorch", "ort")]
assert fw["verdict"] == "framework computing difference"
assert 0 < fw["metrics"]["rel_l2"] < 1e-5, fw["metrics"]
assert len(r["models"][0]["frameworks"]) == 3
PY

# 2. Data-set mode on the 64 items: PyTorch's accuracy (53/64 from its logits) is every same-function
# run's; ONNX Runtime on the altered export gets 39/64 and flips 22 items against PyTorch, all of which
# tare attributes to the pool2 change.
"$TARE" compare --model "$FIX/model.onnx" --expect "pytorch=$E/pytorch" --model "$FIX/variants/altered_pool.onnx" \
  --expect "ort_altered_pool=$E/ort_altered_pool" --model "$FIX/variants/tfstyle.onnx" --backends ref64 \
  --dataset "npy:$FIX/dataset" --json "$WORK/ds.json" --html "$WORK/ds.html" > "$WORK/ds.txt" 2> "$WORK/ds.err"
check ds.txt "accuracy pytorch                              0.8281 (53/64)"
check ds.txt "accuracy model.onnx ref64                     0.8281 (53/64)"
check ds.txt "accuracy tfstyle.onnx ref64                   0.8281 (53/64)"
check ds.txt "accuracy ort_altered_pool                     0.6094 (39/64)"
check ds.txt "accuracy altered_pool.onnx ref64              0.6094 (39/64)"
check ds.txt "flips pytorch vs ort_altered_pool: 22 (22 models differ at /pool2/AveragePool / /pool2/AveragePool)"
check ds.txt "flips model.onnx ref64 vs altered_pool.onnx ref64: 22 (22 models differ at /pool2/AveragePool / /pool2/AveragePool)"
check ds.txt "flips altered_pool.onnx ref64 vs tfstyle.onnx ref64: 22 (22 models differ at /pool2/AveragePool / sequential/average_pooling2d_1/AvgPool)"
check ds.txt "flips model.onnx ref64 vs tfstyle.onnx ref64: 0"
check ds.txt "flips model.onnx ref64 vs pytorch: 0"
check ds.txt "  item 0 (label 9): 9 -> 5"
grep -qF "<li>model.onnx ref64 vs altered_pool.onnx ref64: 22 flips (22 models differ at /pool2/AveragePool / /pool2/AveragePool)</li>" "$WORK/ds.html" &&
  grep -qF 'title="22 models differ at /pool2/AveragePool / /pool2/AveragePool; ">22</td>' "$WORK/ds.html" ||
  { echo "FAIL: data-set HTML"; exit 1; }
if grep -qiE "<script[^>]*src|src=|href=|@import|url\(" "$WORK/ds.html"; then echo "FAIL: data-set HTML is not self-contained"; exit 1; fi
# Progress goes to a terminal only: nothing on stderr here.
[ ! -s "$WORK/ds.err" ] || { cat "$WORK/ds.err"; echo "FAIL: stderr"; exit 1; }

# 3. The browser leg: the same network saved by TF.js itself (tfjs/model.json + shard, a Keras
# Sequential in NHWC, written by bench/study/tfjs.js) and converted by tare: the same function as the
# PyTorch export, its layers aligned with the PyTorch export's (the BN epsilon and pool changes are
# found at bn1 and pool2 through the NHWC flatten), and TF.js's own logits a framework computing
# difference from PyTorch's.
"$TARE" compare --model "$FIX/model.onnx" --expect "pytorch=$E/pytorch" --model "$FIX/tfjs/model.json" --expect "tfjs=$E/tfjs" \
  --model "$FIX/variants/altered_bn_eps.onnx" --model "$FIX/variants/altered_pool.onnx" --input "$FIX/dataset/items.npy" \
  --json "$WORK/tfjs.json" > "$WORK/tfjs.txt"
check tfjs.txt "model.json: input 'conv1_input': [64,1,28,28] given in NCHW, fed in the model's NHWC [64,28,28,1]"
check tfjs.txt "model.onnx vs model.json: same function"
check tfjs.txt "model.json vs altered_bn_eps.onnx: models differ at node 'bn1' (BatchNormalization"
check tfjs.txt "model.json vs altered_pool.onnx: models differ at node 'pool2' (AveragePool"
check tfjs.txt "pytorch vs tfjs: framework computing difference: rel L2"
/usr/bin/env python3 - "$WORK/tfjs.json" <<'PY' || { echo "FAIL: TF.js JSON"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
m = [x for x in r["models"] if x["file"] == "model.json"][0]
tfjs = [f for f in m["frameworks"] if f["label"] == "tfjs"][0]
# TF.js's logits against tare's exact (ref64) run of the converted model.
assert tfjs["vs"] == "ref64" and tfjs["metrics"]["rel_l2"] < 1e-6, tfjs
PY
echo "1 passed, 0 failed"
