#!/usr/bin/env bash
# CI's Vulkan validation job (issue 18): every vulkan test of the release build (build/, made by
# test.sh) again with the Khronos validation layer and a debug messenger that fails the run on
# any error it reports (TARE_VULKAN_VALIDATION=1, backends/vulkan/device.h), on lavapipe. Missing
# barriers or bad descriptor ranges "work" on lavapipe's single memory type; the layer sees them.
# ctest's summary goes to build-vkval-ctest.log. Skipped (exit 0) when the build has no vulkan
# backend or the machine no lavapipe.
set -uo pipefail
cd "$(dirname "$0")/../.."
lvp=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
if [[ ! -f $lvp || ! -x build/bench/tare_vulkan_probe ]]; then
  echo "vulkan validation: skipped (no lavapipe or no vulkan backend in build/)" | tee build-vkval-ctest.log
  echo "100% tests passed, 0 tests failed out of 0" >> build-vkval-ctest.log
  exit 0
fi
cd build
VK_ICD_FILENAMES=$lvp TARE_VULKAN_VALIDATION=1 ctest -R vulkan --output-on-failure -j "$(nproc)" 2>&1 | tee ../build-vkval-ctest.log
exit "${PIPESTATUS[0]}"
