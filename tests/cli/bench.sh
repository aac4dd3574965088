#!/usr/bin/env bash
# tare bench on LeNet-5: every field is printed, the --json file parses and holds them, generated
# inputs work, and bad arguments fail with exactly one stderr line and exit status 1. No timing
# assertions. Usage: bench.sh TARE FIXTURE_DIR WORK_DIR
set -u
TARE=$1; FIX=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
fail=0
"$TARE" bench "$FIX/model.onnx" --iters 3 --warmup 1 --input "$FIX/input.npy" --json "$WORK/bench.json" > "$WORK/out.txt" 2> "$WORK/err.txt" ||
  { echo "FAIL: tare bench exited $?: $(cat "$WORK/err.txt")"; exit 1; }
cat "$WORK/out.txt"
for field in "model: " "backend: ref, threads: 1" "input: input float32 [2,1,28,28] (given)" "load: " "Session::Create" \
             "first run: " "timed runs: 3 after 1 warm-up" "median: " "p90: " "p99: " "min: " "peak arena: " "peak RSS: " \
             "FLOPs: 1666080 (2 x MACs: Conv x2 1430400, Gemm x3 235680)" "GFLOP/s at the median"; do
  grep -qF -- "$field" "$WORK/out.txt" || { echo "FAIL: missing in stdout: $field"; fail=1; }
done
# LeNet-5 at batch 2, by hand: conv1 2*6*28*28 outputs x 1*5*5, conv2 2*16*10*10 x 6*5*5 MACs; the three
# Gemms 2*(400*120 + 120*84 + 84*10) MACs; FLOPs = 2 x MACs = 1430400 + 235680.
python3 - "$WORK/bench.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
need = ["model", "backend", "threads", "iters", "warmup", "inputs", "load_ms", "convert_ms", "create_ms", "first_run_ms",
        "median_ms", "p90_ms", "p99_ms", "min_ms", "mean_ms", "times_ms", "arena_bytes", "peak_rss_bytes", "flops",
        "flops_by_op", "gflops_per_s"]
missing = [k for k in need if k not in j]
if missing:
    sys.exit(f"FAIL: JSON lacks {missing}")
t = sorted(j["times_ms"])
ok = (len(t) == 3 and j["median_ms"] == t[1] and j["min_ms"] == t[0] and j["p90_ms"] == t[2] and j["p99_ms"] == t[2]
      and j["flops"] == 1666080 and j["flops_by_op"]["Conv"] == {"nodes": 2, "flops": 1430400}
      and j["arena_bytes"] > 0 and j["peak_rss_bytes"] > 0 and j["backend"] == "ref" and j["iters"] == 3)
if not ok:
    sys.exit(f"FAIL: JSON values: {j}")
print("JSON ok")
PY
# Generated input (no --input): the declared shape, uniform floats.
"$TARE" bench "$FIX/model.onnx" --iters 1 --warmup 0 --backend ref64 > "$WORK/gen.txt" 2>&1 || { echo "FAIL: generated input: $(cat "$WORK/gen.txt")"; fail=1; }
grep -qF "input: input float32 [2,1,28,28] (generated uniform [-1,1))" "$WORK/gen.txt" || { echo "FAIL: generated input line"; fail=1; }
# Bad arguments: one line on stderr, exit status 1.
expect_error() {  # NAME -- command...
  local name=$1; shift 2
  timeout 60 "$@" > "$WORK/o.txt" 2> "$WORK/e.txt"
  local rc=$? lines
  lines=$(wc -l < "$WORK/e.txt")
  if [[ $rc -ne 1 || $lines -ne 1 ]]; then echo "FAIL $name: exit $rc, $lines stderr line(s): $(head -c 300 "$WORK/e.txt")"; fail=1; fi
}
expect_error missing-model -- "$TARE" bench "$WORK/nope.onnx"
expect_error no-model -- "$TARE" bench
expect_error iters-zero -- "$TARE" bench "$FIX/model.onnx" --iters 0
expect_error iters-text -- "$TARE" bench "$FIX/model.onnx" --iters many
expect_error warmup-negative -- "$TARE" bench "$FIX/model.onnx" --warmup -1
expect_error threads-zero -- "$TARE" bench "$FIX/model.onnx" --threads 0
expect_error bad-backend -- "$TARE" bench "$FIX/model.onnx" --backend gpu9
expect_error empty-backend -- "$TARE" bench "$FIX/model.onnx" --backend ,
expect_error unknown-input -- "$TARE" bench "$FIX/model.onnx" --input nosuch="$FIX/input.npy"
expect_error extra-input -- "$TARE" bench "$FIX/model.onnx" --input "$FIX/input.npy" --input "$FIX/input.npy"
expect_error bad-json-path -- "$TARE" bench "$FIX/model.onnx" --iters 1 --json "$WORK/no/such/dir/x.json"
[[ -s "$WORK/o.txt" ]] && { echo "FAIL bad-json-path: the benchmark ran before the path was checked"; fail=1; }
expect_error unknown-option -- "$TARE" bench "$FIX/model.onnx" --frobnicate
[[ $fail -eq 0 ]] && echo "bench: all checks passed"
exit $fail
