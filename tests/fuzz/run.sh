#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz on seed corpora built from the committed fixtures and
# the ONNX backend test data, two at a time, and prints per target: executions, coverage (edges),
# corpus size and findings (crash/leak/timeout/oom files).
# Usage: run.sh FUZZ_BUILD_DIR WORK_DIR SECONDS [TARGET...]   (targets: tare npy pb onnx tflite tfjs;
#        default all). FUZZ_BUILD_DIR comes from
#        CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DTARE_FUZZ=ON -DTARE_BUILD_TESTS=OFF
#        && ninja -C build-fuzz fuzz_tare fuzz_npy fuzz_pb fuzz_onnx fuzz_tflite fuzz_tfjs
# FUZZ_SEED=N fixes libFuzzer's random seed (CI uses 1). The live corpus WORK_DIR/corpus/<target> grows across runs; findings land in
# WORK_DIR/findings/<target>/ and logs in WORK_DIR/logs/. Exit status 1 when any target found
# something, 0 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh FUZZ_BUILD_DIR WORK_DIR SECONDS [TARGET...]}" && pwd)
work=${2:?work dir}; secs=${3:?seconds}; shift 3
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(tare npy pb onnx tflite tfjs)
mkdir -p "$work"; work=$(cd "$work" && pwd)
data=/usr/share/libonnx-testdata/data

seed() {  # seed TARGET: fills $work/seeds/TARGET once
  local t=$1 d=$work/seeds/$1
  [ -d "$d" ] && return 0
  mkdir -p "$d"
  set +e +o pipefail  # `head` closes pipes early on purpose; a fixture that vanishes is skipped
  case $t in
    onnx) find "$root/tests/models" -name '*.onnx' -size -2M -exec cp -t "$d" {} + 2>/dev/null || true
          [ -d "$data" ] && find "$data/node" -name model.onnx | head -400 | while read -r f; do cp "$f" "$d/$(basename "$(dirname "$f")").onnx"; done ;;
    tflite) find "$root/tests/models" -name '*.tflite' -size -2M -exec cp -t "$d" {} + 2>/dev/null || true ;;
    tfjs) for f in "$root"/tests/models/tfjs/fixtures/*/model.json; do  # model.json, NUL, the shard
            { cat "$f"; printf '\0'; cat "$(dirname "$f")/group1-shard1of1.bin"; } > "$d/$(basename "$(dirname "$f")").seed"
          done ;;
    npy) find "$root/tests/models" -name '*.npy' -size -64k | head -300 | while read -r f; do cp "$f" "$d/$(echo "$f" | md5sum | cut -c1-12).npy"; done ;;
    pb) [ -d "$data" ] && find "$data/node" -name 'input_*.pb' -size -64k | head -300 | while read -r f; do
          { printf '\0'; cat "$f"; } > "$d/$(echo "$f" | md5sum | cut -c1-12).pb"; done ;;
    tare) for f in "$root"/tests/models/*/model.onnx; do
            "$root/build/tare" convert "$f" -o "$d/$(basename "$(dirname "$f")").tare" > /dev/null 2>&1 || true
          done ;;
  esac
  set -e -o pipefail
}

run_one() {
  local t=$1
  mkdir -p "$work/corpus/$t" "$work/findings/$t" "$work/logs"
  seed "$t"
  "$build/tests/fuzz/fuzz_$t" "$work/corpus/$t" "$work/seeds/$t" -max_total_time="$secs" -timeout=60 -report_slow_units=60 ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
    -rss_limit_mb=2560 -max_len=1048576 -print_final_stats=1 -artifact_prefix="$work/findings/$t/" \
    > "$work/logs/$t.log" 2>&1 || true
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

status=0
printf '%-8s %14s %10s %8s %s\n' target executions coverage corpus findings
for t in "${targets[@]}"; do
  log=$work/logs/$t.log
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  n=$(find "$work/corpus/$t" -type f | wc -l)
  # Findings: crash-, leak-, timeout- and oom- files. A unit slower than 60 s is a timeout; libFuzzer's
  # slow-unit- files (from 10 s by default) are off (-report_slow_units=60): a loaded machine made one
  # of a 0.1 s input.
  f=$(find "$work/findings/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  [ "$f" -eq 0 ] || status=1
  printf '%-8s %14s %10s %8s %s\n' "$t" "${execs:-0}" "${cov:-0}" "$n" "$f"
done
exit $status
