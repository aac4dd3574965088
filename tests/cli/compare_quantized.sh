#!/usr/bin/env bash
# tare compare on the quantized fixtures (tests/models/tflite_quant):
# 1. one quantized model: ref's integer run is reported as the model's quantization error against
#    its float truth on ref64, and LiteRT.js's own output (--expect) is exactly as far from it
#    (ref is bit-exact with LiteRT.js; the float truth is checked against numpy elsewhere);
# 2. the int8 and uint8 models (different weights) differ at their first layer, compared as real
#    values although their codes have different types and zero points.
# Usage: compare_quantized.sh TARE FIXTURE_DIR WORK_DIR
set -eu
TARE=$1; FIX=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK/litert"
cp "$FIX/conv_fc_int8/expected/0_output.npy" "$WORK/litert/output.npy"
"$TARE" compare --model "$FIX/conv_fc_int8.tflite" --expect "litert=$WORK/litert" --input "input=$FIX/conv_fc_int8/input_0.npy" \
  --json "$WORK/one.json" > "$WORK/one.txt"
grep -qF "quantization error of conv_fc_int8.tflite: rel L2" "$WORK/one.txt" || { cat "$WORK/one.txt"; echo "FAIL: no quantization error line"; exit 1; }
python3 - "$WORK/one.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
ref, litert = m["runs"][0]["metrics"]["rel_l2"], m["frameworks"][0]["metrics"]["rel_l2"]
if not m["quantized"] or ref != litert or not (1e-3 < ref < 1e-1):
    sys.exit("FAIL: quantized %s, ref %r vs LiteRT.js %r from the float truth" % (m["quantized"], ref, litert))
PY
"$TARE" compare --model "$FIX/conv_fc_int8.tflite" --model "$FIX/conv_fc_uint8.tflite" --input "input=$FIX/conv_fc_int8/input_0.npy" > "$WORK/two.txt"
grep -qF "conv_fc_int8.tflite vs conv_fc_uint8.tflite: models differ at node 'conv' (QConv2D, tensor 'conv/nhwc')" "$WORK/two.txt" ||
  { cat "$WORK/two.txt"; echo "FAIL: expected the models to differ at conv"; exit 1; }
echo "compare_quantized: PASS"
