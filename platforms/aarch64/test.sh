#!/usr/bin/env bash
# Builds tare for aarch64 (platforms/aarch64/build.sh) and runs its ctest suite under qemu-aarch64
# (a Cortex-A72: NEON, no SVE), every tare binary through the toolchain file's emulator, with the
# MediaPipe and Silero models fetched into build-aarch64/corpus (docs/PLATFORMS.md).
#   platforms/aarch64/test.sh         every test (about 6 min of ctest on 2 cores)
#   platforms/aarch64/test.sh --ci    what .ci/run runs: the same without the tests whose ground is
#                                     covered more cheaply (about 3 min; the list is in docs/PLATFORMS.md)
# Ends with ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
exclude=(); build_args=(-DTARE_LINK_CHECKS=ON)
if [[ ${1:-} == --ci ]]; then
  # (ONNX's node tests run here on every backend: a few seconds each under qemu since
  # tare_conformance runs its cases in one worker process.) cli.gemm_threads: XNNPACK's
  # thread split, checked on x86-64 by the CPU matrix (its aarch64 kernels by the op tables).
  # fuzz.replay.*: parsing, the same code on every platform (run natively and under ASan).
  # model.tfjs.*, model.tfjs_corpus.*: the TF.js converter is parsing too (natively and under
  # ASan); the kernels its models run are the op tables' and the other models'.
  # cli.bad_inputs, cli.compare_study: the CLI's argument checks and the report's assembly, the
  # same code on every platform (natively and under ASan); the kernels they reach run above.
  # cli.fuzz_peers: the peers are node.js programs (x86-64 here); tare fuzz itself runs in cli.fuzz.
  # The layers' link checks are not built (the layering is the same on every platform).
  exclude=(-E '^(cli\.gemm_threads|cli\.(bad_inputs|compare_study|fuzz_peers)|fuzz\.replay\..*|model\.tfjs(_corpus)?\..*)$')
  build_args=(-DTARE_LINK_CHECKS=OFF)
fi
platforms/aarch64/build.sh "${build_args[@]}"
mkdir -p build-aarch64/corpus
if [[ -d build/corpus ]]; then cp -n build/corpus/* build-aarch64/corpus/ 2> /dev/null || true; fi  # the native build's copies
bash tests/models/silero/fetch.sh build-aarch64/corpus
bash tests/models/tflite/fetch.sh build-aarch64/corpus
[[ ${1:-} == --ci ]] || bash tests/models/tfjs/fetch.sh build-aarch64/corpus
cd build-aarch64 && ctest --output-on-failure -j "$(nproc)" --timeout 3000 "${exclude[@]}"
