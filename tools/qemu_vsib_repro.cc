/* Minimal reproducer of docs/FINDINGS.md F2: Debian 12's qemu-user 7.2 decodes an AVX2 gather
   whose vector index register is xmm4/ymm4 (VSIB index field 100b, VEX.X = 0) as a gather with
   no index, the way the field reads in an ordinary SIB byte, so every lane loads base[0]. Real
   CPUs have no such case in VSIB. (qemu fixed it in 2024: "target/i386: Fix VSIB decode",
   backported to 8.2.7 and 9.0.3.) oneDNN's AVX2/SSE4.1 jit tanh gathers with ymm4 as the index.

   Gathers base[0..7] with the index in ymm2, ymm4 and ymm12. Exit 3 when any gather is wrong
   (the emulator's fault), 0 when all are right. Build: c++ -O1 -mavx2 qemu_vsib_repro.cc.
   Run natively and under `qemu-x86_64 -cpu Haswell`. */
#include <cstdio>

static float table[16];
static const int lanes[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/* vgatherdps with every mask lane set, index register ymm<R>, into ymm3. */
#define GATHER_WITH_INDEX(R, out)                                                   \
  __asm__ volatile("vmovdqu (%[ix]), %%ymm" #R "\n\t"                               \
                   "vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t"                            \
                   "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"                              \
                   "vgatherdps %%ymm0, (%[base],%%ymm" #R ",4), %%ymm3\n\t"         \
                   "vmovups %%ymm3, (%[dst])\n\t"                                   \
                   "vzeroupper"                                                     \
                   :                                                                \
                   : [base] "r"(table), [ix] "r"(lanes), [dst] "r"(out)             \
                   : "xmm0", "xmm3", "xmm" #R, "memory")

static int report(int reg, const float* got) {
  int ok = 1;
  for (int k = 0; k < 8; ++k) ok &= got[k] == table[k];
  std::printf("vgatherdps index ymm%-2d: %g %g %g %g %g %g %g %g: %s\n", reg, got[0], got[1], got[2], got[3], got[4],
         got[5], got[6], got[7], ok ? "right" : "WRONG");
  return !ok;
}

int main(void) {
  float got[8];
  int wrong = 0;
  for (int i = 0; i < 16; ++i) table[i] = 100.0f + i;
  GATHER_WITH_INDEX(2, got);
  wrong += report(2, got);
  GATHER_WITH_INDEX(4, got);
  wrong += report(4, got);
  GATHER_WITH_INDEX(12, got);
  wrong += report(12, got);
  std::printf("AVX2 gathers with index ymm4: %s\n", wrong ? "WRONG (emulation fault F2)" : "right");
  return wrong ? 3 : 0;
}
