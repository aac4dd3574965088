#!/usr/bin/env bash
# The sanitizer job of CI (issue 8, docs/RELIABILITY.md): one clang build of everything (libraries,
# CLI, tests, libFuzzer targets) with AddressSanitizer and UndefinedBehaviorSanitizer (any report is
# fatal), the whole ctest suite under the sanitizers, then each fuzz target for SECONDS (default 60)
# on its seed corpus, two at a time (tests/fuzz/run.sh). Run after platforms/debian/test.sh, whose
# build/ supplies the published models (build/corpus) and the seed conversions.
# Usage: bash platforms/debian/sanitize.sh [SECONDS]
# Exit status 1 when a test fails or a fuzz target finds something (its reproducer is in
# build-san/fuzz/findings/<target>/: commit it under tests/fuzz/regressions/<target>/).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
platforms/debian/setup.sh --sanitize
root=$PWD
log=$root/build-san.log
CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTARE_FUZZ=ON -DTARE_CORPUS="$root/build/corpus" -DTARE_REQUIRE_CORPUS=ON > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build-san -j "$(nproc)" >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
echo "sanitize: build ok (log in build-san.log)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$root/platforms/debian/lsan.supp
# The vulkan tests run on lavapipe here too (instrumented tare code, uninstrumented driver).
lvp=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
if [[ -f $lvp ]]; then export VK_ICD_FILENAMES=$lvp; fi
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# conformance.vulkan.* is left out here (75 s under ASan): the same cases run natively in test.sh
# and under the validation layer in vulkan_validation.sh; every other vulkan test runs here. So is
# model.tfjs_corpus.* (13 published TF.js models, minutes under ASan): the TF.js converter runs
# under the sanitizers on its fixtures (model.tfjs.*) and in the fuzz target fuzz_tfjs. So is
# cli.gemm_threads (113 s under ASan): 500 Gemm shapes at 1 and 2 threads checking XNNPACK's
# fully connected columns (docs/FINDINGS.md F1), run natively in test.sh and under every emulated
# CPU model of the matrix; tare's own Gemm paths run under ASan in the per-op and model tests.
# So is cli.fuzz_peers (ONNX Runtime and LiteRT.js on generated models, about 30 s: the peers' node.js
# runners; tare's side of it runs here in cli.fuzz), and cli.compare_study (45 s under ASan: the
# study report's assembly from tare compare runs that cli.compare and cli.compare_html cover here). ONNX's node tests run here on every CPU
# backend (a few seconds each since tare_conformance runs its cases in one worker process).
(cd build-san && ctest --output-on-failure -j "$(nproc)" -E '^(conformance\.vulkan\.|model\.tfjs_corpus\.|cli\.(gemm_threads|fuzz_peers|compare_study)$)' > ../build-san-ctest.log 2>&1) || {
  grep -E "Failed|\*\*\*|ERROR: (Address|Undefined)|runtime error" build-san-ctest.log | head -40; tail -5 build-san-ctest.log; exit 1; }
tail -3 build-san-ctest.log
echo "sanitize: ctest under ASan+UBSan passed; fuzzing each target for ${secs} s"
rm -rf build-san/fuzz
FUZZ_SEED=1 bash tests/fuzz/run.sh build-san build-san/fuzz "$secs"
