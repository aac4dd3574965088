#!/usr/bin/env bash
# The prepared check of the vulkan backend on a real GPU (issue 18; docs/VULKAN.md, "A real GPU"):
# one command, at most about 300 s, every step with its own timeout, everything under OUT.
#
#   bash bench/vulkan/gpu_check.sh [BUILD] [OUT] [MODELS...]
#     BUILD   a build tree made here beforehand (default build/; ship it along: the GPU machine may
#             have no compiler or glslc), with tare, tare_backend_tests and tare_vulkan_probe
#     OUT     where the results go (default $OUT, else gpu-check/)
#     MODELS  extra .onnx / .tare files to benchmark (e.g. torchvision resnet18 from
#             bench/peers/models.py), besides the committed fixtures ResNet-20 and VGG-16
#
# Steps: 1 probe (the loader, the ICD files, nvidia-smi, tare_vulkan_probe; without a usable device
# it writes NO_VULKAN_ON_DEVICE into summary.json and stops: GPU containers often ship CUDA but no
# Vulkan ICD); 2 the device's facts (the probe's JSON); 3 the op tests (tare_backend_tests
# "vulkan*", under the validation layer when it is installed there), with each op's worst error
# over its budget; 4 determinism (two runs of each fixture, outputs compared byte for byte, and
# their SHA-256 to compare across devices: equality is not expected across devices, only within);
# 5 tare bench --backend vulkan on each model (median, upload / dispatch / download). One
# summary.json. The device: TARE_VULKAN_DEVICE as set by the caller (index or part of the name).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}; O=${2:-${OUT:-$ROOT/gpu-check}}; shift $(( $# > 2 ? 2 : $# ))
mkdir -p "$O"
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/steps.log"; }
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))' 2>/dev/null || printf '"%s"' "$(tr -d '"\\\n' )"; }

# 1. Probe.
log "probe"
{
  echo "## ICD files"; ls -l /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>&1
  echo "## loader"; ldconfig -p 2>/dev/null | grep -i libvulkan || echo "no libvulkan in ldconfig"
  echo "## nvidia-smi"; timeout 10 nvidia-smi -L 2>&1 || echo "no nvidia-smi"
  echo "## vulkaninfo"; XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} timeout 10 vulkaninfo --summary 2>&1 || echo "no vulkaninfo"
} > "$O/probe.txt" 2>&1
timeout 20 "$B/bench/tare_vulkan_probe" > "$O/device.json" 2> "$O/probe.err"
rc=$?
if [[ $rc -ne 0 ]]; then
  why=$(cat "$O/device.json" "$O/probe.err" | head -3)
  log "NO_VULKAN_ON_DEVICE: $why"
  printf '{"status": "NO_VULKAN_ON_DEVICE", "why": %s, "seconds": %d}\n' "$(printf '%s' "$why" | json_str)" \
    $(( $(date +%s) - T0 )) > "$O/summary.json"
  exit 0
fi
log "device: $(cat "$O/device.json")"

# 3. The op tests (the shared suite and vulkan_test.cc), worst error / budget per op.
val=""
if ls /usr/share/vulkan/explicit_layer.d/*khronos_validation* > /dev/null 2>&1; then val=1; fi
log "op tests (validation layer: ${val:-not installed})"
TARE_VULKAN_VALIDATION=$val timeout 150 "$B/tests/tare_backend_tests" -tc="vulkan*" -s > "$O/op_tests.txt" 2>&1
op_rc=$?
cases=$(grep -E "^\[doctest\] test cases:" "$O/op_tests.txt" | tail -1)
worst=$(grep -oE "MESSAGE: [A-Za-z]+: worst err/tol [0-9.e+-]+" "$O/op_tests.txt" |
        awk '{op=$2; sub(":","",op); v=$5; if (!(op in m) || v > m[op]) m[op]=v} END {for (o in m) printf "%s\"%s\": %s", (n++ ? ", " : ""), o, m[o]}')
log "op tests: rc $op_rc, $cases"

# 4. Determinism: two runs of each fixture, byte for byte.
log "determinism"
det="" ; det_ok=true
for m in lenet5 resnet20 vgg16; do
  "$B/tare" convert "$ROOT/tests/models/$m/model.onnx" -o "$O/$m.tare" > /dev/null 2>&1 || { det_ok=false; continue; }
  for r in 1 2; do
    timeout 30 "$B/tare" run "$O/$m.tare" --backend vulkan --input "$ROOT/tests/models/$m/input.npy" --output-dir "$O/det/$m.$r" > /dev/null 2>&1 || det_ok=false
  done
  h1=$(cat "$O/det/$m.1"/*.npy 2>/dev/null | sha256sum | cut -c1-16); h2=$(cat "$O/det/$m.2"/*.npy 2>/dev/null | sha256sum | cut -c1-16)
  [[ $h1 == "$h2" ]] || det_ok=false
  "$B/tests/tare_check_outputs" "$O/det/$m.1" "$ROOT/tests/models/$m/expected" > "$O/det/$m.check" 2>&1 && fw=true || fw=false
  det+="${det:+, }\"$m\": {\"sha256_16\": \"$h1\", \"identical\": $([[ $h1 == "$h2" ]] && echo true || echo false), \"matches_pytorch\": $fw}"
done
log "determinism: $det_ok"

# 5. Benchmarks.
log "benchmarks"
bench=""
for model in "$O/resnet20.tare" "$O/vgg16.tare" "$@"; do
  [[ -f $model ]] || continue
  name=$(basename "$(dirname "$model")")/$(basename "$model")
  [[ $model == "$O"/* ]] && name=$(basename "$model" .tare)
  if timeout 60 "$B/tare" bench "$model" --backend vulkan --iters 10 --warmup 2 --json "$O/bench_$(echo "$name" | tr '/' '_').json" > "$O/bench.txt.tmp" 2>&1; then
    cat "$O/bench.txt.tmp" >> "$O/bench.txt"
    med=$(grep -oE "^median: [0-9.]+" "$O/bench.txt.tmp" | cut -d' ' -f2)
    ph=$(grep -oE "^phases .*" "$O/bench.txt.tmp" | sed 's/phases (mean per timed run): //')
    gf=$(grep -oE "^achieved: [0-9.]+" "$O/bench.txt.tmp" | cut -d' ' -f2)
    bench+="${bench:+, }\"$name\": {\"median_ms\": ${med:-null}, \"gflops\": ${gf:-null}, \"phases\": \"$ph\"}"
  else
    bench+="${bench:+, }\"$name\": \"failed or timed out\""
  fi
done
rm -f "$O/bench.txt.tmp"
secs=$(( $(date +%s) - T0 ))
log "done in $secs s"
cat > "$O/summary.json" <<JSON
{"status": "$([[ $op_rc -eq 0 && $det_ok == true ]] && echo PASS || echo FAIL)", "seconds": $secs,
 "device": $(cat "$O/device.json"),
 "op_tests": {"rc": $op_rc, "summary": "$cases", "validation_layer": $([[ -n $val ]] && echo true || echo false),
              "worst_error_over_budget": {$worst}},
 "determinism": {"repeat_identical": $det_ok, $det},
 "bench": {$bench}}
JSON
cat "$O/summary.json"
