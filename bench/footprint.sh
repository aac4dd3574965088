#!/usr/bin/env bash
# Footprint and per-run overhead of the embeddable runtime (issue 17; figures in
# docs/PERFORMANCE.md, "Embedding"):
#   1. stripped size of libtare.so with ref only (Release, and MinSizeRel with -ffunction-sections),
#      with cpu, and with cpu + onednn (the main build),
#      and of the C example (examples/c/top5.c) linked statically with each libtare.a
#      (--gc-sections; the backends' own libraries, shared on Debian, are not counted);
#   2. what dominates the ref-only library: the code (.text) of each layer's objects;
#   3. the C API's per-run overhead on a one-node model (tests/api/relu.onnx, Relu on [1, 16]):
#      bench/c_api_overhead.cc beside the C++ Session::Run the CLI calls, and `tare bench`.
# Usage: bash bench/footprint.sh [MAIN_BUILD]   (default build/, built with the tools and bench)
set -euo pipefail
cd "$(dirname "$0")/.."
main=${1:-build}
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DTARE_BUILD_TOOLS=OFF -DTARE_BUILD_TESTS=OFF -DTARE_LINK_CHECKS=OFF)
for v in ref cpu ref-os; do
  flags=(-DTARE_WITH_ONEDNN=OFF); [[ $v == ref* ]] && flags+=(-DTARE_WITH_CPU=OFF)
  # ref-os: the ref-only library built for size (-Os, one section per function for --gc-sections).
  [[ $v == ref-os ]] && flags+=(-DCMAKE_BUILD_TYPE=MinSizeRel "-DCMAKE_CXX_FLAGS=-ffunction-sections -fdata-sections")
  cmake -S . -B "build-fp-$v" "${common[@]}" "${flags[@]}" > "build-fp-$v.log" 2>&1 || { cat "build-fp-$v.log"; exit 1; }
  cmake --build "build-fp-$v" -j "$(nproc)" --target tare_shared tare_lib >> "build-fp-$v.log" 2>&1 || { tail -30 "build-fp-$v.log"; exit 1; }
done
grep -m1 "model name" /proc/cpuinfo
echo "compiler: $(c++ --version | head -1)"
printf "%-22s %18s %26s\n" "build" "libtare.so" "static C example"
for v in ref ref-os cpu onednn; do
  b=build-fp-$v; [[ $v == onednn ]] && b=$main
  strip -o "$b/libtare.stripped" "$b/libtare.so"
  deps=$(sed -n 's/^Libs.private://p' "$b/tare.pc")
  cc -std=c99 -O2 -Wall -Werror examples/c/top5.c -Iinclude -Iexamples -Wl,--gc-sections "$b/libtare.a" $deps -lm -o "$b/top5_static"
  strip "$b/top5_static"
  label=$v; [[ $v == cpu ]] && label="cpu (XNNPACK)"; [[ $v == onednn ]] && label="cpu + onednn"
  [[ $v == ref-os ]] && label="ref, -Os + sections"
  so=$(stat -c %s "$b/libtare.stripped"); ex=$(stat -c %s "$b/top5_static")
  printf "%-22s %10d B %5.2f MiB %12d B %5.2f MiB\n" "$label" "$so" "$(echo "$so / 1048576" | bc -l)" "$ex" "$(echo "$ex / 1048576" | bc -l)"
done
echo
echo "code (.text) of the ref-only library's objects by layer, before --gc-sections:"
for d in build-fp-ref/CMakeFiles/tare_*.dir; do
  layer=$(basename "$d" .dir)
  t=$(find "$d" -name '*.o' -exec size -A {} + 2>/dev/null | awk '$1 ~ /^\.text/ {s += $2} END {print s + 0}')
  if [[ $t -gt 0 ]]; then printf "  %-22s %8.2f MiB\n" "$layer" "$(echo "$t / 1048576" | bc -l)"; fi
done | sort -k2 -n -r
echo
relu=$main/relu.tare
"$main/tare" convert tests/api/relu.onnx -o "$relu" > /dev/null
for bk in ref cpu,ref; do
  "$main/bench/tare_c_api_overhead" "$relu" x 1 16 --backends "$bk" --runs 20000 --rounds 7
  "$main/tare" bench "$relu" --backend "$bk" --iters 20000 --warmup 100 --json "$main/relu_bench.json" > /dev/null
  /usr/bin/python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print('tare bench (each run timed alone)  median %.3f us, mean %.3f us' % (1000 * j['median_ms'], 1000 * j['mean_ms']))" "$main/relu_bench.json"
done
