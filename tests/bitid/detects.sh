#!/usr/bin/env bash
# The checker itself (ctest bitid.detects): tare_ref_hashes --check must fail, naming the case, on
# a manifest whose LeNet-5 hash is changed by one digit, on one that lists an output the model
# does not have, and on one that lists a fixture that is not there.
#   detects.sh TARE_REF_HASHES MANIFEST MODELS_DIR WORK
set -uo pipefail
tool=$1 manifest=$2 models=$3 work=$4
rm -rf "$work"; mkdir -p "$work"
fails=0
expect() {  # expect WHAT PATTERN PYTHON_EDIT: edit a copy of the manifest, check, want exit 1 and PATTERN
  local what=$1 pattern=$2 edit=$3
  /usr/bin/python3 - "$manifest" "$work/m.json" "$edit" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
c = m["cases"]
exec(sys.argv[3])
json.dump(m, open(sys.argv[2], "w"))
PY
  out=$("$tool" --check "$work/m.json" --models fixture="$models" --filter fixture/lenet5 2>&1); rc=$?
  if [[ $rc -eq 1 ]] && grep -q "$pattern" <<< "$out"; then echo "ok: $what"; else echo "FAIL: $what (rc $rc): $out"; fails=$((fails + 1)); fi
}
expect "a changed hash" "DIFFER fixture/lenet5: output 'logits' hash" \
  'h = c["fixture/lenet5"]["logits"]; c["fixture/lenet5"]["logits"] = ("1" if h[0] != "1" else "2") + h[1:]'
expect "an output the model lacks" "output 'extra' of the manifest was not produced" 'c["fixture/lenet5"]["extra"] = "0" * 64'
expect "a fixture that is gone" "DIFFER fixture/lenet5_gone: in the manifest" 'c["fixture/lenet5_gone"] = {"logits": "0" * 64}'
"$tool" --check "$manifest" --models fixture="$models" --filter fixture/lenet5 > /dev/null || { echo "FAIL: the committed manifest"; fails=$((fails + 1)); }
[[ $fails -eq 0 ]]
