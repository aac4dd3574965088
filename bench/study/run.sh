#!/usr/bin/env bash
# run.sh — the whole study of docs/STUDY.md: prepares every framework's outputs (prepare.sh) and
# asks tare for its verdicts.
#
# Usage:  bash bench/study/run.sh OUT [TARE]      (TARE defaults to build/tare)
# Writes, besides prepare.sh's files:
#   OUT/verdicts.txt, OUT/verdicts.json, OUT/verdicts.html  one batch of 64 test images, every layer
#        traced: the three frameworks' outputs against ref64, and each pair of models / frameworks
#   OUT/dataset.txt, OUT/dataset.json  the 10,000 test images: accuracy of every run and every top-1
#        flip between runs, attributed
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: bash bench/study/run.sh OUT [TARE]" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$1
TARE=${2:-$ROOT/build/tare}
[[ -x "$TARE" ]] || { echo "run.sh: $TARE not found: build first (bash platforms/debian/build.sh)" >&2; exit 1; }
bash "$HERE/prepare.sh" "$OUT"
OUT=$(cd "$OUT" && pwd)
# The first 64 test images as one batch, and each framework's logits on them (rows 0..63).
HERE="$HERE" /usr/bin/python3 - "$OUT" <<'PY'
import os, sys
import numpy as np
out = sys.argv[1]
sys.path.insert(0, os.environ["HERE"])
from lenet5_bn import load_split
x, _ = load_split("t10k")
os.makedirs(os.path.join(out, "batch64"), exist_ok=True)
np.save(os.path.join(out, "batch64", "items.npy"), np.ascontiguousarray(x[:64].numpy()))
for k in ("pytorch", "ort", "tfjs"):
    os.makedirs(os.path.join(out, "batch64", k), exist_ok=True)
    np.save(os.path.join(out, "batch64", k, "logits.npy"), np.load(os.path.join(out, k, "logits.npy"))[:64])
PY
cd "$OUT"
echo "[tare] verdicts on one batch of 64 images"
"$TARE" compare --model lenet5_bn.onnx --expect pytorch=batch64/pytorch --expect ort=batch64/ort --expect tfjs=batch64/tfjs \
  --model tfstyle.onnx --model altered_bn_eps.onnx --model altered_pool.onnx \
  --input batch64/items.npy --json verdicts.json --html verdicts.html | tee verdicts.txt
echo "[tare] the 10,000 test images"
"$TARE" compare --model lenet5_bn.onnx --expect pytorch=pytorch --expect ort=ort --expect tfjs=tfjs \
  --model tfstyle.onnx --model altered_bn_eps.onnx --model altered_pool.onnx \
  --dataset fashion-mnist:/usr/share/datasets/fashion-mnist --json dataset.json > dataset.txt
grep -E "^(accuracy|flips)" dataset.txt
echo "[run] done: $OUT/verdicts.{txt,json,html}, $OUT/dataset.{txt,json}"
