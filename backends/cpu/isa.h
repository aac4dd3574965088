// The instruction-set level the cpu backend's own kernels use (issue 23): the CPU's, capped by the
// environment variable TARE_CPU_ISA (avx512 | avx2 | generic) for tests and measurements. XNNPACK
// chooses its own kernels by CPU and is not affected.
#pragma once

namespace tare::cpu {

enum class Isa { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };

/// The level the own kernels may use: AVX-512 (AVX-512F), AVX2 (AVX2 and FMA) or generic (any
/// other CPU, and every non-x86-64 build), no higher than TARE_CPU_ISA when that is set. Read once.
/// An unknown TARE_CPU_ISA value is ignored (a line on stderr says so).
Isa CpuIsa();
/// "avx512", "avx2" or "generic".
const char* IsaName(Isa isa);

}  // namespace tare::cpu
