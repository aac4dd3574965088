#!/usr/bin/env bash
# tare fuzz with its peers (issue 24): ONNX Runtime and LiteRT.js (through tare's TFLite writer, on
# the models it can express) run the first 24 generated models of seed 5 beside ref. The run must end
# with no finding in tare (exit status 0), each peer must have run models (summary.json's
# peer_models), and LiteRT.js must agree with ref64 on some of them (a broken writer would make
# every model it writes a finding). Exit 77 (skipped) without node and the peers' packages.
# Usage: fuzz_peers.sh TARE WORK_DIR
set -u
TARE=$1; WORK=$2
PEERS=$(cd "$(dirname "$0")/../../bench/peers" && pwd)
if [ ! -d "$PEERS/node_modules/onnxruntime-node" ] || [ ! -d "$PEERS/node_modules/@litertjs/core" ] || ! command -v node > /dev/null; then
  echo "skipped: no onnxruntime-node or @litertjs/core (cd bench/peers && npm install --ignore-scripts)"; exit 77; fi
rm -rf "$WORK"; mkdir -p "$WORK"
TARE_PEERS_DIR=$PEERS "$TARE" fuzz --seconds 600 --max-models 24 --seed 5 --backends ref --peers ort,tflite --no-reduce --out "$WORK/run" > "$WORK/out.txt" 2> "$WORK/err.txt"
status=$?
cat "$WORK/out.txt"
fail=0
[ "$status" -eq 0 ] || { echo "FAIL: tare fuzz exited $status: $(cat "$WORK/err.txt")"; fail=1; }
python3 - "$WORK/run/summary.json" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
ran = s["peer_models"]
assert ran.get("ort", 0) >= 3 and ran.get("tflite", 0) >= 3, ran
per = {}
for g in s["groups"]:
    per[g["engine"]] = per.get(g["engine"], 0) + g["count"]
    assert g["engine"] in ("ort", "tflite"), g  # nothing in tare (ref)
assert per.get("tflite", 0) < ran["tflite"], (per, ran)
print("peers ran %s models of %d; findings per peer %s" % (ran, s["models"], per))
PY
[ "$fail" -eq 0 ] && echo "PASS"
exit $fail
