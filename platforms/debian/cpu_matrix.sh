#!/usr/bin/env bash
# The CPU-model matrix (issue 26). XNNPACK, oneDNN and tare's own kernels choose code by CPU
# (vendor, microarchitecture, ISA), so a test that passes on one machine proves little about
# another. This runs, natively and under qemu-user's emulation of other x86-64 CPUs:
#   - the backend test binary (tare_backend_tests: every cpu and onednn case; the vulkan cases
#     natively only),
#   - the one-node Gemm/MatMul check against numpy (tests/cli/gemm_threads.py, 1 and 2 threads),
#   - tare_xnnpack_fc_repro, which only reports whether this CPU's XNNPACK shows docs/FINDINGS.md F1,
# and natively the onednn backend tests with oneDNN capped at AVX512_CORE, AVX2, AVX and SSE4.1
# (ONEDNN_MAX_CPU_ISA: oneDNN dispatches by ISA).
#
#   platforms/debian/cpu_matrix.sh [BUILD_DIR]            the matrix (~8 min on 2 cores)
#   platforms/debian/cpu_matrix.sh --ci [BUILD_DIR]       what .ci/run runs: the matrix without its native
#                                                          cells, which test.sh's ctest has just run (every
#                                                          backend test case and cli.gemm_threads, natively)
#   platforms/debian/cpu_matrix.sh --full BUILD_DIR MODEL  every ctest test (the README's test command) under
#                                                          qemu-x86_64 -cpu MODEL: configures BUILD_DIR with
#                                                          TARE_TEST_EMULATOR, builds, runs ctest (~8 min
#                                                          of ctest on 2 cores after the build)
#
# Models: EPYC (AMD Zen 1: XNNPACK's "s4" GEMM kernels), EPYC-Rome (Zen 2), Haswell (Intel AVX2),
# Nehalem (SSE4.2 only: the non-AVX paths). Debian 12's qemu 7.2 emulates up to AVX2 (no AVX-512,
# no timing). Where emulation and real CPUs disagree (docs/FINDINGS.md F2: qemu 7.2 mis-decodes
# AVX2 gathers indexed by ymm4, which oneDNN's AVX2 jit tanh uses), oneDNN is capped at SSE4.1
# under the emulated model, and its AVX2 code is checked natively (capped at AVX2) instead.
# Ends with "N passed, N failed" over the matrix cells; exit status 1 when any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=${TARE_PYTHON:-/usr/bin/python3}

# qemu's -cpu value for MODEL without the features TCG cannot emulate (each would print a warning
# on every run, an extra stderr line that the CLI tests count; TCG hides them from the guest's
# CPUID anyway, so what the program sees is the same).
quiet_cpu() {
  local off
  off=$(qemu-x86_64 -cpu "$1" /bin/true 2>&1 | sed -nE 's/.*requested feature: [^.]+\.[^.]+\.([a-z0-9_-]+) \[.*/\1=off/p' | paste -sd, -)
  echo "$1${off:+,$off}"
}
# 0 when qemu shows F2 (docs/FINDINGS.md) under `-cpu CPU`: oneDNN's AVX2 jit tanh cannot be checked
# there, so oneDNN is capped at SSE4.1 under that model (its AVX2 code runs natively, capped, instead).
shows_f2() {
  ( qemu-x86_64 -cpu "$1" "$2/tests/tare_qemu_vsib_repro" ) > /dev/null 2>&1
  [[ $? -eq 3 ]]  # models without AVX2 stop it with SIGILL: no gathers there
}

if [[ "${1:-}" == "--full" ]]; then
  B=${2:?usage: cpu_matrix.sh --full BUILD_DIR MODEL}; M=${3:?usage: cpu_matrix.sh --full BUILD_DIR MODEL}
  platforms/debian/setup.sh
  qemu-x86_64 -cpu "$M" /bin/true 2>/dev/null || { echo "cpu_matrix: qemu-x86_64 has no CPU model '$M' (qemu-x86_64 -cpu help lists them)"; exit 1; }
  cpu=$(quiet_cpu "$M")
  platforms/debian/build.sh "$B" "-DTARE_TEST_EMULATOR=qemu-x86_64;-cpu;$cpu" || exit 1
  bash tests/models/silero/fetch.sh "$B/corpus" && bash tests/models/tflite/fetch.sh "$B/corpus" || exit 1
  isa=()
  if shows_f2 "$cpu" "$B"; then
    isa=(ONEDNN_MAX_CPU_ISA=SSE41); echo "cpu_matrix: $M shows F2: oneDNN capped at SSE4.1 under it"
  fi
  cd "$B" && exec env "${isa[@]}" ctest --output-on-failure -j "$(nproc)" --timeout 3000
fi

groups=(native EPYC EPYC-Rome Haswell Nehalem onednn)
if [[ "${1:-}" == "--ci" ]]; then groups=("${groups[@]:1}"); shift; fi
B=${1:-build}
command -v qemu-x86_64 >/dev/null || platforms/debian/setup.sh >/dev/null  # installs qemu-user
BT=$B/tests/tare_backend_tests
for f in "$BT" "$B/tare" "$B/tests/tare_xnnpack_fc_repro" "$B/tests/tare_qemu_vsib_repro"; do
  [[ -x $f ]] || { echo "cpu_matrix: $f is missing (build first: platforms/debian/build.sh)"; echo "0 passed, 1 failed"; exit 1; }
done
WORK=$B/cpu_matrix
rm -rf "$WORK"; mkdir -p "$WORK"
# Each group of cells (a CPU model; the oneDNN caps) runs as its own job, two at a time (the
# machine's 2 cores: each test is mostly single-threaded, so the matrix takes about half as long);
# a group's lines go to its summary file, printed in order at the end.
cell() {  # cell NAME LOG COMMAND...: one matrix cell; its output goes to LOG, a line to stdout
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  if "$@" > "$log" 2>&1; then
    echo "PASS  $name ($((SECONDS - t0)) s)"
  else
    echo "FAIL  $name ($((SECONDS - t0)) s): $log"
    grep -E "ERROR|FAIL|failed" "$log" | grep -v "^qemu-x86_64: warning" | head -8 | sed 's/^/      /'
  fi
}
model_cells() {  # model_cells MODEL: the backend tests, the Gemm check and the F1 probe under MODEL
  local model=$1 emu=() isa=() cpu
  if [[ $model != native ]]; then
    cpu=$(quiet_cpu "$model")
    emu=(qemu-x86_64 -cpu "$cpu")
    if shows_f2 "$cpu" "$B"; then
      isa=(ONEDNN_MAX_CPU_ISA=SSE41); echo "      ($model shows F2: oneDNN capped at SSE4.1 under it)"
    fi
  fi
  # The vulkan cases are left out under emulation (about half the binary's time there): tare's
  # vulkan code does not choose by CPU, and lavapipe is the tests' stand-in for a GPU. They run
  # natively in test.sh and under the validation layer.
  local skip=()
  [[ $model != native ]] && skip=("--test-case-exclude=vulkan*")
  cell "$model: backend tests" "$WORK/$model.backend.log" \
    env OMP_WAIT_POLICY=passive "${isa[@]}" "${emu[@]}" "$BT" "${skip[@]}"
  cell "$model: Gemm/MatMul vs numpy, cpu, 1 and 2 threads" "$WORK/$model.gemm.log" \
    "$PY" tests/cli/gemm_threads.py "$B/tare" "$WORK/$model.gemm" --emulator "${emu[*]}"
  local repro
  repro=$("${emu[@]}" "$B/tests/tare_xnnpack_fc_repro" 2>/dev/null | tail -1)
  echo "      (XNNPACK alone, F1: ${repro:-did not run})"
}
onednn_cells() {
  for isa in AVX512_CORE AVX2 AVX SSE41; do
    cell "native, oneDNN capped at $isa: onednn backend tests" "$WORK/onednn_$isa.log" \
      env OMP_WAIT_POLICY=passive ONEDNN_MAX_CPU_ISA=$isa "$BT" --test-case="onednn*"
  done
}
for g in "${groups[@]}"; do
  while (( $(jobs -rp | wc -l) >= 2 )); do wait -n; done
  if [[ $g == onednn ]]; then onednn_cells > "$WORK/$g.summary" 2>&1 &
  else model_cells "$g" > "$WORK/$g.summary" 2>&1 & fi
done
wait
for g in "${groups[@]}"; do cat "$WORK/$g.summary"; done
passed=$(cat "$WORK"/*.summary | grep -c '^PASS' || true)
failed=$(cat "$WORK"/*.summary | grep -c '^FAIL' || true)
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
