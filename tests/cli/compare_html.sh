#!/usr/bin/env bash
# The three kinds of HTML report of tare compare on LeNet-5, each parsed and checked against its
# JSON report (tests/cli/html_report_check.py) and, where Debian's chromium is installed, rendered
# by headless Chromium to WORK/<kind>.png (the artefacts to look at):
#   single   one model on BACKENDS, with --peer ort when onnxruntime-node is installed
#   pair     the model, a renamed export and one with pool2's padding changed
#   dataset  the model and the changed one on the 2-item data set
# Usage: compare_html.sh TARE FIXTURE_DIR WORK_DIR BACKENDS
set -euo pipefail
TARE=$1 FIX=$2 WORK=$3 BACKENDS=$4
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
peer=()
[ -d "$HERE/../../bench/peers/node_modules/onnxruntime-node" ] && command -v node > /dev/null && peer=(--peer ort)
"$TARE" compare --model "$FIX/model.onnx" --input "$FIX/input.npy" --backends "$BACKENDS" "${peer[@]}" \
  --expect "pytorch=$FIX/expected" --json "$WORK/single.json" --html "$WORK/single.html" > "$WORK/single.txt"
"$TARE" compare --model "$FIX/model.onnx" --model "$FIX/variants/renamed.onnx" --model "$FIX/variants/pool2_pads_altered.onnx" \
  --input "$FIX/input.npy" --json "$WORK/pair.json" --html "$WORK/pair.html" > "$WORK/pair.txt"
"$TARE" compare --model "$FIX/model.onnx" --model "$FIX/variants/pool2_pads_altered.onnx" --dataset "npy:$FIX/dataset" \
  --backends ref64,ref --json "$WORK/dataset.json" --html "$WORK/dataset.html" > "$WORK/dataset.txt"
for kind in single pair dataset; do
  python3 "$HERE/html_report_check.py" "$WORK/$kind.html" "$WORK/$kind.json"
done
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
  for kind in single pair dataset; do
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1400 \
      --screenshot="$WORK/$kind.png" "file://$WORK/$kind.html" > "$WORK/$kind.chromium.log" 2>&1 ||
      { cat "$WORK/$kind.chromium.log"; echo "FAIL: chromium on $kind.html"; exit 1; }
    [ -s "$WORK/$kind.png" ] || { echo "FAIL: no screenshot of $kind.html"; exit 1; }
  done
  echo "screenshots: $WORK/{single,pair,dataset}.png"
else
  echo "no chromium: screenshots not taken (apt install chromium)"
fi
echo "1 passed, 0 failed"
