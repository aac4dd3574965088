#!/usr/bin/env bash
# The vulkan backend through the CLI (ctest cli.vulkan, run through tare_vulkan_probe: skipped
# without a device): repeated runs and lavapipe thread counts (LP_NUM_THREADS 1, 2, 4 and 0) give
# bit-identical outputs (LeNet-5, ResNet-20), so does the zero-copy option; --explain names vulkan
# for the convolutions, tare bench reports the three phases, and TARE_VULKAN_DEVICE naming no
# device is a clear error. Usage: vulkan.sh TARE MODELS_DIR WORK
set -euo pipefail
TARE=$1; MODELS=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

for m in lenet5 resnet20; do
  "$TARE" convert "$MODELS/$m/model.onnx" -o "$WORK/$m.tare" > /dev/null
  ref=""
  for t in 1 2 4 0; do
    out="$WORK/$m.t$t.$RANDOM"
    LP_NUM_THREADS=$t "$TARE" run "$WORK/$m.tare" --backend vulkan --input "$MODELS/$m/input.npy" --output-dir "$out" > /dev/null
    if [[ -z $ref ]]; then ref=$out; continue; fi
    for f in "$ref"/*.npy; do
      if cmp -s "$f" "$out/$(basename "$f")"; then ok; else bad "$m: LP_NUM_THREADS=$t differs from the first run ($(basename "$f"))"; fi
    done
  done
done

# The zero-copy option (unified memory: lavapipe has it) gives the same bits as staging.
TARE_VULKAN_ZERO_COPY=1 "$TARE" run "$WORK/resnet20.tare" --backend vulkan --input "$MODELS/resnet20/input.npy" --output-dir "$WORK/zc" > /dev/null
"$TARE" run "$WORK/resnet20.tare" --backend vulkan --input "$MODELS/resnet20/input.npy" --output-dir "$WORK/st" > /dev/null
for f in "$WORK"/st/*.npy; do
  if cmp -s "$f" "$WORK/zc/$(basename "$f")"; then ok; else bad "TARE_VULKAN_ZERO_COPY=1 differs ($(basename "$f"))"; fi
done

explain=$("$TARE" run "$WORK/resnet20.tare" --backend vulkan --input "$MODELS/resnet20/input.npy" --output-dir "$WORK/x" --explain)
convs=$(grep -cE "Conv +vulkan" <<< "$explain" || true)
[[ $convs -ge 19 ]] && ok || { bad "--explain shows $convs Conv nodes on vulkan"; echo "$explain" | head -30; }

bench=$("$TARE" bench "$WORK/lenet5.tare" --backend vulkan --iters 3 --warmup 1 --json "$WORK/bench.json")
grep -q "^phases (mean per timed run): upload .* ms, dispatch .* ms, download .* ms" <<< "$bench" && ok || { bad "no phases line"; echo "$bench"; }
grep -q '"dispatch"' "$WORK/bench.json" && ok || bad "no phases_ms in the JSON"

for dev in no-such-device 99 2147483648 4294967296 18446744073709551616; do
  set +e
  msg=$(TARE_VULKAN_DEVICE=$dev "$TARE" run "$WORK/lenet5.tare" --backend vulkan --input "$MODELS/lenet5/input.npy" --output-dir "$WORK/y" 2>&1)
  rc=$?
  set -e
  if [[ $rc -eq 1 && $msg == *"TARE_VULKAN_DEVICE=$dev"* ]]; then ok; else bad "TARE_VULKAN_DEVICE=$dev: rc $rc: $msg"; fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
