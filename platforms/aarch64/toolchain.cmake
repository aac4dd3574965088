# CMake toolchain file: Linux on aarch64 (arm64) with Debian's GNU cross compiler, the libraries
# from the private sysroot that platforms/aarch64/setup.sh unpacks (.sysroot-arm64/), programs
# that run at build time (flatc, protoc, glslc, python3) from the host, and tests run by
# qemu-aarch64 (docs/PLATFORMS.md).
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=platforms/aarch64/toolchain.cmake
# TARE_AARCH64_CPU: the CPU qemu emulates (default cortex-a72, NEON without SVE: qemu's default
# "max" CPU has SVE, whose paths in oneDNN are slow to emulate and rare on real devices).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
get_filename_component(_tare_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(TARE_ARM64_SYSROOT "${_tare_root}/.sysroot-arm64" CACHE PATH "The arm64 packages unpacked by platforms/aarch64/setup.sh")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu "${TARE_ARM64_SYSROOT}")
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Debian's multiarch headers (openssl/opensslconf.h, ...) live in the sysroot's usr/include/aarch64-linux-gnu.
set(CMAKE_C_FLAGS_INIT "-idirafter ${TARE_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")
set(CMAKE_CXX_FLAGS_INIT "-idirafter ${TARE_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")
# The unpacked shared libraries need each other (libXNNPACK.so -> libcpuinfo.so.0, ...).
set(_tare_libdirs "${TARE_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu:${TARE_ARM64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${TARE_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${TARE_ARM64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")
set(TARE_AARCH64_CPU cortex-a72 CACHE STRING "The CPU model qemu-aarch64 emulates for the tests")
# Every test runs tare's binaries under this (tests/CMakeLists.txt: TARE_TEST_EMULATOR). qemu's
# -E splits its value on commas: the library path has none.
set(TARE_TEST_EMULATOR "qemu-aarch64;-cpu;${TARE_AARCH64_CPU};-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=${_tare_libdirs}"
    CACHE STRING "Command list that tests run tare's binaries under")
