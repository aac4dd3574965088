#!/usr/bin/env bash
# The ThreadSanitizer job of CI (issue 17; docs/EMBEDDING.md, "Threads"): a clang build with
# -fsanitize=thread of the C API test binary (libtare.so, libtare_converters.so and what they
# need), then its thread tests: sessions of one shared model created and run on 4 threads at once
# (outputs bit-identical to a single-threaded run) and two threads on one session. Any report is
# fatal. Backends: ref and cpu at 1 thread each (oneDNN is left out: its OpenMP runtime, libgomp,
# is not instrumented, and TSan cannot see its synchronization).
# Usage: bash platforms/debian/tsan.sh     Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/setup.sh --sanitize
log=$PWD/build-tsan.log
CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTARE_TSAN=ON -DTARE_WITH_ONEDNN=OFF -DTARE_LINK_CHECKS=OFF > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build-tsan -j "$(nproc)" --target tare_api_tests >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
echo "tsan: build ok (log in build-tsan.log)"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export TARE_API_THREADS_BACKENDS="ref;cpu,ref"
cd build-tsan && ctest --output-on-failure -R "c_api\.threads" 2>&1 | tee ../build-tsan-ctest.log | tail -15
