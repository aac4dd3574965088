// peak_flops: this machine's fp32 peak GFLOP/s per core, measured (issue 5: tare's achieved
// GFLOP/s in bench/run_peers.sh are given as a percentage of it).
//
// Usage: peak_flops [--threads N] [--seconds S] [--reps R] [--isa avx512|avx2|scalar] [--json]
//   --threads N   run N copies at once, one per thread (default 1); the per-core figure is the
//                 total divided by N (threads are not pinned: use N <= physical cores)
//   --seconds S   measuring time per repetition (default 0.05)
//   --reps R      repetitions (default 20); the best one counts (short repetitions, many of them:
//                 on a shared machine some run undisturbed)
//   --isa         force a kernel (default: the widest the CPU supports, by __builtin_cpu_supports)
//
// The kernel: ACC independent accumulators (registers) updated as acc = acc * m + a with fused
// multiply-adds, m = 1 - 2^-20 and a = 2^-20, so the values stay bounded (they converge to 1).
// Each FMA is 2 FLOPs per lane; with 16 (AVX-512) or 8 (AVX2) fp32 lanes and enough independent
// chains to cover the FMA latency on every FMA port, the loop runs at the core's peak FMA rate.
// 24 accumulators (AVX-512: 32 registers) or 12 (AVX2: 16 registers) cover latency 4-6 x 2-4 ports.
// Each kernel is compiled for its ISA with a target attribute, so the binary runs on any x86-64
// and chooses at run time. Output: one line "peak fp32: X GFLOP/s per core (ISA, N thread(s))",
// or one JSON object with --json. Exit 1 with one line on stderr on bad arguments.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TARE_X86 1
#endif

namespace {

using Clock = std::chrono::steady_clock;
volatile float g_sink;          // keeps the results alive
volatile float g_seed = 0.5f;   // read once per accumulator: the compiler cannot merge them

constexpr float kMul = 1.0f - 1.0f / 1048576.0f;
constexpr float kAdd = 1.0f / 1048576.0f;

#ifdef TARE_X86
// The accumulators are named locals (not an array), so they live in registers for the whole loop.
#define TARE_FMA_STEP(r) r = FMA(r, m, a);
#define TARE_12(X) X(r0) X(r1) X(r2) X(r3) X(r4) X(r5) X(r6) X(r7) X(r8) X(r9) X(r10) X(r11)
#define TARE_24(X) TARE_12(X) X(r12) X(r13) X(r14) X(r15) X(r16) X(r17) X(r18) X(r19) X(r20) X(r21) X(r22) X(r23)

// `iters` iterations of 24 FMAs on 16 lanes: 24 * 16 * 2 FLOPs each.
__attribute__((target("avx512f"))) double KernelAvx512(long iters) {
#define FMA _mm512_fmadd_ps
#define TARE_INIT(r) __m512 r = _mm512_set1_ps(g_seed);
  const __m512 m = _mm512_set1_ps(kMul), a = _mm512_set1_ps(kAdd);
  TARE_24(TARE_INIT)
  for (long it = 0; it < iters; ++it) {
    TARE_24(TARE_FMA_STEP)
  }
  __m512 s = _mm512_setzero_ps();
#define TARE_SUM(r) s = _mm512_add_ps(s, r);
  TARE_24(TARE_SUM)
  float out[16];  // (not _mm512_reduce_add_ps: GCC 12 warns inside it, -Wuninitialized)
  _mm512_storeu_ps(out, s);
  float t = 0;
  for (float v : out) t += v;
  g_sink = t;
  return static_cast<double>(iters) * 24 * 16 * 2;
#undef TARE_INIT
#undef TARE_SUM
#undef FMA
}

// `iters` iterations of 12 FMAs on 8 lanes.
__attribute__((target("avx2,fma"))) double KernelAvx2(long iters) {
#define FMA _mm256_fmadd_ps
#define TARE_INIT(r) __m256 r = _mm256_set1_ps(g_seed);
  const __m256 m = _mm256_set1_ps(kMul), a = _mm256_set1_ps(kAdd);
  TARE_12(TARE_INIT)
  for (long it = 0; it < iters; ++it) {
    TARE_12(TARE_FMA_STEP)
  }
  __m256 s = _mm256_setzero_ps();
#define TARE_SUM(r) s = _mm256_add_ps(s, r);
  TARE_12(TARE_SUM)
  float out[8];
  _mm256_storeu_ps(out, s);
  float t = 0;
  for (float v : out) t += v;
  g_sink = t;
  return static_cast<double>(iters) * 12 * 8 * 2;
#undef TARE_INIT
#undef TARE_SUM
#undef FMA
}
#endif

// Portable fallback: 8 scalar chains of multiply-add (2 FLOPs each, whatever the compiler makes of them).
double KernelScalar(long iters) {
  float r[8];
  for (int i = 0; i < 8; ++i) r[i] = static_cast<float>(i) * 0.01f;
  for (long it = 0; it < iters; ++it)
    for (int i = 0; i < 8; ++i) r[i] = r[i] * kMul + kAdd;
  float t = 0;
  for (float v : r) t += v;
  g_sink = t;
  return static_cast<double>(iters) * 8 * 2;
}

using Kernel = double (*)(long);

// GFLOP/s of one thread running `k` for about `seconds` (after calibrating the iteration count).
double Measure(Kernel k, double seconds) {
  long iters = 1 << 14;
  for (;;) {  // calibrate: grow until a run takes >= 1/8 of the target
    auto a = Clock::now();
    k(iters);
    double s = std::chrono::duration<double>(Clock::now() - a).count();
    if (s >= seconds / 8 || iters > (1L << 40)) {
      iters = static_cast<long>(static_cast<double>(iters) * seconds / (s > 0 ? s : 1e-9));
      break;
    }
    iters *= 4;
  }
  if (iters < 1) iters = 1;
  auto a = Clock::now();
  double flops = k(iters);
  double s = std::chrono::duration<double>(Clock::now() - a).count();
  return flops / s / 1e9;
}

int Usage(const std::string& msg) {
  std::fprintf(stderr, "peak_flops: error: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  double seconds = 0.05;
  int reps = 20;
  std::string isa;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)name;
      return argv[++i];
    };
    if (a == "--threads") {
      const char* v = value("--threads");
      if (!v) return Usage("--threads needs a value");
      char* end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 1024) return Usage(std::string("--threads must be in [1, 1024], got '") + v + "'");
      threads = static_cast<int>(n);
    } else if (a == "--seconds") {
      const char* v = value("--seconds");
      if (!v) return Usage("--seconds needs a value");
      char* end = nullptr;
      seconds = std::strtod(v, &end);
      if (*end || !(seconds >= 0.01 && seconds <= 60)) return Usage(std::string("--seconds must be in [0.01, 60], got '") + v + "'");
    } else if (a == "--reps") {
      const char* v = value("--reps");
      if (!v) return Usage("--reps needs a value");
      char* end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 1000) return Usage(std::string("--reps must be in [1, 1000], got '") + v + "'");
      reps = static_cast<int>(n);
    } else if (a == "--isa") {
      const char* v = value("--isa");
      if (!v) return Usage("--isa needs a value");
      isa = v;
    } else if (a == "--json") {
      json = true;
    } else {
      return Usage("unknown argument '" + a + "' (usage: peak_flops [--threads N] [--seconds S] [--reps R] [--isa avx512|avx2|scalar] [--json])");
    }
  }
  bool has512 = false, has2 = false;
#ifdef TARE_X86
  __builtin_cpu_init();
  has512 = __builtin_cpu_supports("avx512f");
  has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  if (isa.empty()) isa = has512 ? "avx512" : has2 ? "avx2" : "scalar";
  Kernel k = KernelScalar;
#ifdef TARE_X86
  if (isa == "avx512") {
    if (!has512) return Usage("this CPU has no AVX-512F");
    k = KernelAvx512;
  } else if (isa == "avx2") {
    if (!has2) return Usage("this CPU has no AVX2+FMA");
    k = KernelAvx2;
  } else
#endif
      if (isa != "scalar") {
    return Usage("unknown or unavailable --isa '" + isa + "'");
  }
  // Best of `reps` repetitions; each repetition runs `threads` copies at once and sums their rates.
  double best = 0;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<double> rates(threads, 0);
    std::vector<std::thread> pool;
    std::atomic<int> ready{0};
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < threads) std::this_thread::yield();
        rates[t] = Measure(k, seconds);
      });
    for (auto& th : pool) th.join();
    double total = 0;
    for (double r : rates) total += r;
    if (total > best) best = total;
  }
  double per_core = best / threads;
  if (json)
    std::printf("{\"isa\": \"%s\", \"threads\": %d, \"gflops_total\": %.2f, \"gflops_per_core\": %.2f}\n", isa.c_str(), threads,
                best, per_core);
  else
    std::printf("peak fp32: %.1f GFLOP/s per core (%s, %d thread(s), %.1f GFLOP/s in all)\n", per_core, isa.c_str(), threads, best);
  return 0;
}
