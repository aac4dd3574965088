#!/usr/bin/env bash
# Installs every Debian 12 package that tare's build and tests need. Idempotent: run it as often as
# you like. As root it calls apt-get directly, otherwise through sudo.
#   platforms/debian/setup.sh              build + tests (what CI needs)
#   platforms/debian/setup.sh --fixtures   also PyTorch, torchvision and Fashion-MNIST, to
#                                          regenerate tests/models/ with tests/models/make_fixtures.py
#   platforms/debian/setup.sh --sanitize   also clang and its sanitizer/libFuzzer runtimes (sanitize.sh)
#   TARE_NO_VULKAN=1 platforms/debian/setup.sh   without the Vulkan packages (a build without the
#                                          vulkan backend: its tests report skipped)
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libflatbuffers-dev flatbuffers-compiler flatbuffers-compiler-dev
      libprotobuf-dev protobuf-compiler libonnx-dev
      libcli11-dev nlohmann-json3-dev libssl-dev zlib1g-dev doctest-dev libonnx-testdata python3
      python3-numpy python3-onnx
      libxnnpack-dev libpthreadpool-dev libeigen3-dev libbenchmark-dev libdnnl-dev
      pybind11-dev python3-dev python3-pytest  # the Python module and its tests (issue 17)
      python3-distributed  # tare campaign on Dask (issue 25)
      chromium  # headless screenshots of tare compare's HTML reports (tests/cli/compare_html.sh)
      # the vulkan backend (issue 18): headers and glslc to build; lavapipe (Mesa's software Vulkan
      # on the CPU), the loader, the validation layer and spirv-val to run its tests in CI.
      libvulkan-dev glslc libvulkan1 mesa-vulkan-drivers vulkan-validationlayers spirv-tools)
if [[ -n "${TARE_NO_VULKAN:-}" ]]; then
  kept=()
  for p in "${pkgs[@]}"; do
    case $p in libvulkan-dev|glslc|libvulkan1|mesa-vulkan-drivers|vulkan-validationlayers|spirv-tools) ;; *) kept+=("$p") ;; esac
  done
  pkgs=("${kept[@]}")
fi
# qemu-user: platforms/debian/cpu_matrix.sh runs the tests under emulated x86-64 CPU models.
[[ $(uname -m) == x86_64 ]] && pkgs+=(qemu-user)
if [[ "${1:-}" == "--fixtures" ]]; then
  pkgs+=(python3-torch python3-torchvision dataset-fashion-mnist)
fi
if [[ "${1:-}" == "--sanitize" ]]; then  # platforms/debian/sanitize.sh: clang with ASan, UBSan, libFuzzer
  pkgs+=(clang libclang-rt-14-dev)
fi
# npm fetches the published Silero VAD models for the tests (tests/models/silero/fetch.sh). A
# machine may already have npm from another source (e.g. NodeSource's nodejs): keep that one.
command -v npm >/dev/null || pkgs+=(nodejs npm)
SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: all ${#pkgs[@]} packages present"
