#!/usr/bin/env bash
# Installs what the aarch64 cross build needs (issue 19, docs/PLATFORMS.md), on an x86-64 Debian 12:
#   - the host packages of platforms/debian/setup.sh (flatc, protoc, glslc, python3 for the tests),
#   - the GNU cross compiler (g++-aarch64-linux-gnu) and qemu-user (qemu-aarch64 runs the tests),
#   - a private sysroot, .sysroot-arm64/ at the top of the checkout: the arm64 builds of the
#     libraries tare links (XNNPACK, pthreadpool, cpuinfo, oneDNN, FlatBuffers, protobuf, zlib,
#     OpenSSL, the Vulkan loader) and the header-only ones (doctest, CLI11, nlohmann-json), taken
#     with `apt-get download` and unpacked with `dpkg -x`. Nothing arm64 is installed into the host's
#     dpkg database: Debian's libxnnpack-dev and others are not Multi-Arch: same, and installing
#     their :arm64 builds would remove the host's (and python3-torch with them).
# Idempotent; the .debs are kept in .sysroot-arm64/.debs. As root it calls apt-get directly,
# otherwise through sudo. Needs the arm64 package indices: it adds the architecture once.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/setup.sh
SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
host=(g++-aarch64-linux-gnu qemu-user)
missing=()
for p in "${host[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
need_update=0
dpkg --print-foreign-architectures | grep -qx arm64 || { $SUDO dpkg --add-architecture arm64; need_update=1; }
apt-cache show libxnnpack0:arm64 > /dev/null 2>&1 || need_update=1
export DEBIAN_FRONTEND=noninteractive
((need_update)) && $SUDO apt-get update -qq
((${#missing[@]})) && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

SYSROOT=$PWD/.sysroot-arm64
# Each library's runtime and -dev package (the arm64 builds), then the arch-independent headers
# that the toolchain file's ONLY search mode must find inside the sysroot.
debs=(libxnnpack0:arm64 libxnnpack-dev:arm64 libpthreadpool0:arm64 libpthreadpool-dev:arm64
      libcpuinfo0:arm64 libcpuinfo-dev:arm64 libflatbuffers2:arm64 libflatbuffers-dev:arm64
      libprotobuf32:arm64 libprotobuf-dev:arm64 zlib1g:arm64 zlib1g-dev:arm64
      libssl3:arm64 libssl-dev:arm64 libdnnl2:arm64 libdnnl-dev:arm64
      libvulkan1:arm64 libvulkan-dev:arm64 libbenchmark1debian:arm64 libbenchmark-dev:arm64
      doctest-dev libcli11-dev nlohmann-json3-dev libeigen3-dev)
stamp=$SYSROOT/.packages
if [[ -f $stamp && "$(cat "$stamp")" == "${debs[*]}" ]]; then
  echo "aarch64 setup: sysroot present ($SYSROOT)"; exit 0
fi
mkdir -p "$SYSROOT/.debs"
(cd "$SYSROOT/.debs" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "${debs[@]}")
for f in "$SYSROOT"/.debs/*.deb; do dpkg -x "$f" "$SYSROOT"; done
echo "${debs[*]}" > "$stamp"
echo "aarch64 setup: sysroot of ${#debs[@]} packages in $SYSROOT"
