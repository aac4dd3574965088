#!/usr/bin/env bash
# prepare.sh — the study "same weights in PyTorch, ONNX Runtime and TF.js": trains the model and
# writes every framework's outputs into OUT, for `tare compare` to judge.
#
# Usage:  bash bench/study/prepare.sh OUT [--epochs N] [--fixtures]
#   OUT         output folder (created; files in it are overwritten)
#   --epochs N  training epochs (default 2)
#   --fixtures  also refresh the committed fixtures tests/models/lenet5_bn/ from this run
#
# Needs the packages of `bash platforms/debian/setup.sh --fixtures` (python3-torch, python3-onnx,
# python3-numpy, dataset-fashion-mnist, nodejs/npm). Installs bench/peers (npm install
# --ignore-scripts: onnxruntime-node, @tensorflow/tfjs) if its node_modules lacks them.
#
# Steps (each script's header says what it writes):
#   1. bench/study/lenet5_bn.py     train in PyTorch; OUT/lenet5_bn.onnx, OUT/pytorch/logits.npy,
#                                   OUT/weights.json, OUT/altered_{pool,bn_eps}.onnx, OUT/input.npy,
#                                   OUT/expected/logits.npy, OUT/labels.npy, OUT/meta.json
#   2. bench/study/ort.js           ONNX Runtime on lenet5_bn.onnx: OUT/ort/logits.npy
#   3. bench/study/tfjs.js          TF.js layers model (NHWC) from weights.json: OUT/tfjs/logits.npy
#   4. bench/study/make_tfstyle.py  the same network as a TF-style ONNX graph: OUT/tfstyle.onnx
#   5. summary: each framework's accuracy on the 10,000 t10k images, and for each pair the number
#      of differing argmaxes and the max abs logit difference (printed, OUT/summary.json)
set -euo pipefail
usage() { echo "usage: bash bench/study/prepare.sh OUT [--epochs N] [--fixtures]" >&2; exit 2; }
OUT="" EPOCHS=2 FIXTURES=0
while (($#)); do
  case "$1" in
    --epochs) [[ $# -ge 2 ]] || usage; EPOCHS=$2; shift 2 ;;
    --fixtures) FIXTURES=1; shift ;;
    -*) usage ;;
    *) [[ -z "$OUT" ]] || usage; OUT=$1; shift ;;
  esac
done
[[ -n "$OUT" ]] || usage
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s.%N)

missing=()
$PY -c "import torch, onnx, numpy" 2>/dev/null || missing+=("python3-torch python3-onnx python3-numpy")
command -v node >/dev/null || missing+=("nodejs")
command -v npm >/dev/null || missing+=("npm")
[[ -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]] || missing+=("dataset-fashion-mnist")
if ((${#missing[@]})); then
  echo "prepare.sh: missing ${missing[*]}: run bash platforms/debian/setup.sh --fixtures" >&2
  exit 1
fi
peers="$ROOT/bench/peers"
if [[ ! -d "$peers/node_modules/onnxruntime-node" || ! -d "$peers/node_modules/@tensorflow/tfjs" ]]; then
  echo "[peers] npm install --ignore-scripts in bench/peers"
  (cd "$peers" && npm install --ignore-scripts --no-audit --no-fund)
fi

$PY "$HERE/lenet5_bn.py" --out "$OUT" --epochs "$EPOCHS"
node "$HERE/ort.js" "$OUT"
node "$HERE/tfjs.js" "$OUT"
$PY "$HERE/make_tfstyle.py" "$OUT"

$PY - "$OUT" <<'EOF'
import itertools, json, os, sys
import numpy as np
out = sys.argv[1]
labels = np.load(os.path.join(out, "labels.npy"))
runs = {k: np.load(os.path.join(out, k, "logits.npy")) for k in ("pytorch", "ort", "tfjs")}
summary = {"images": int(len(labels)), "accuracy": {}, "pairs": {}}
for k, v in runs.items():
    assert v.shape == (len(labels), 10) and v.dtype == np.float32, (k, v.shape, v.dtype)
    acc = float((v.argmax(1) == labels).mean())
    summary["accuracy"][k] = acc
    print(f"[summary] {k:8s} accuracy {acc * 100:.2f}% on {len(labels)} images")
for a, b in itertools.combinations(runs, 2):
    flips = int((runs[a].argmax(1) != runs[b].argmax(1)).sum())
    diff = float(np.abs(runs[a].astype(np.float64) - runs[b]).max())
    summary["pairs"][f"{a}-{b}"] = {"argmax_differ": flips, "max_abs_diff": diff}
    print(f"[summary] {a} vs {b}: {flips} argmaxes differ, max abs logit diff {diff:.3g}")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
    f.write("\n")
EOF

if ((FIXTURES)); then
  $PY - "$OUT" "$ROOT/tests/models/lenet5_bn" "$HERE" <<'EOF'
import json, os, shutil, sys
import numpy as np
out, dst, here = sys.argv[1], sys.argv[2], sys.argv[3]
N = 64
def put(src, rel):
    p = os.path.join(dst, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if isinstance(src, str):
        shutil.copyfile(os.path.join(out, src), p)
    else:
        np.save(p, src)
put("lenet5_bn.onnx", "model.onnx")
for v in ("altered_pool", "altered_bn_eps", "tfstyle"):
    put(f"{v}.onnx", f"variants/{v}.onnx")
for f in ("model.json", "group1-shard1of1.bin"):
    put(os.path.join("tfjs", "model", f), os.path.join("tfjs", f))
put("input.npy", "input.npy")
put(os.path.join("expected", "logits.npy"), os.path.join("expected", "logits.npy"))
sys.path.insert(0, here)
from lenet5_bn import dump_json, load_split  # the same pixels / 255 as the training script
x, y = load_split("t10k")
put(np.ascontiguousarray(x[:N].numpy()), "dataset/items.npy")
put(y[:N].numpy().astype(np.int64), "dataset/labels.npy")
for k in ("pytorch", "ort", "tfjs"):
    put(np.load(os.path.join(out, k, "logits.npy"))[:N], f"dataset/expected/{k}/logits.npy")
meta = json.load(open(os.path.join(out, "meta.json")))
meta["made_by"] = "bash bench/study/prepare.sh OUT --fixtures"
meta["files"] = {
    "model.onnx": "OUT/lenet5_bn.onnx (PyTorch export)",
    "variants/altered_pool.onnx": "second AveragePool's pads -> [1,1,0,0]",
    "variants/altered_bn_eps.onnx": "BatchNormalization epsilon 1e-5 -> 1e-3",
    "variants/tfstyle.onnx": "the same network and weights, TF-style graph by bench/study/make_tfstyle.py "
                             "(input x:0, output Identity:0)",
    "tfjs/model.json, tfjs/group1-shard1of1.bin": "the same network and weights saved by TF.js itself "
                                                  "(a Keras Sequential in NHWC, bench/study/tfjs.js)",
    "input.npy, expected/logits.npy": "t10k items 0 and 1, PyTorch's logits",
    "dataset/items.npy, dataset/labels.npy": f"t10k items 0..{N - 1}, float32 [{N},1,28,28] / int64 [{N}]",
    "dataset/expected/<framework>/logits.npy": f"the first {N} rows of each framework's logits on the t10k images",
}
meta["peers"] = {k: json.load(open(os.path.join(out, k, "meta.json"))) for k in ("ort", "tfjs")}
meta["summary_10000"] = json.load(open(os.path.join(out, "summary.json")))
dump_json(meta, os.path.join(dst, "meta.json"))
for root, _, files in os.walk(dst):
    for fn in files:
        p = os.path.join(root, fn)
        if os.path.getsize(p) >= 1 << 20:
            sys.exit(f"{p} is {os.path.getsize(p)} bytes (limit 1 MiB)")
print(f"[fixtures] wrote {dst}")
EOF
  # ONNX Runtime's own logits for the altered-pool export on the same 64 items (the independent
  # source of the flip count that tests/cli/compare.sh checks).
  fx="$ROOT/tests/models/lenet5_bn"
  mkdir -p "$fx/dataset/expected/ort_altered_pool"
  node "$HERE/ort.js" --run "$fx/variants/altered_pool.onnx" "$fx/dataset/items.npy" "$fx/dataset/expected/ort_altered_pool/logits.npy"
fi
echo "[prepare] done in $($PY -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")s; outputs in $OUT"
