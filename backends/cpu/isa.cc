#include "backends/cpu/isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tare::cpu {

Isa CpuIsa() {
  static const Isa isa = [] {
    Isa have = Isa::kGeneric;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) have = Isa::kAvx2;
    if (have == Isa::kAvx2 && __builtin_cpu_supports("avx512f")) have = Isa::kAvx512;
#endif
    const char* e = std::getenv("TARE_CPU_ISA");
    if (!e || !*e) return have;
    Isa cap = have;
    if (std::strcmp(e, "generic") == 0) cap = Isa::kGeneric;
    else if (std::strcmp(e, "avx2") == 0) cap = Isa::kAvx2;
    else if (std::strcmp(e, "avx512") == 0) cap = Isa::kAvx512;
    else std::fprintf(stderr, "tare: TARE_CPU_ISA='%s' is not avx512, avx2 or generic; ignored\n", e);
    return static_cast<int>(cap) < static_cast<int>(have) ? cap : have;
  }();
  return isa;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    case Isa::kGeneric: return "generic";
  }
  return "generic";
}

}  // namespace tare::cpu
