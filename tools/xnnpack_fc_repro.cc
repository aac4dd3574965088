// Minimal reproducer of docs/FINDINGS.md F1: Debian's XNNPACK snapshot (0.0~git20220216) computes
// wrong columns in xnn_create/setup_fully_connected_nc_f32 when a pool of 2 threads splits the
// output columns and the CPU makes XNNPACK pick its "s4" GEMM kernels (AMD Zen 1, Hygon Dhyana:
// FMA3 without AVX-512). Calls XNNPACK directly, no tare code.
//
// y[M=1, N=40] = x[1, K=7] @ W[7, 40], small integers, so every correct result is exact in float.
// Prints each wrong element and exits 3 when the library is wrong, 0 when it is right, 2 when
// XNNPACK cannot be initialized. Run it natively and under `qemu-x86_64 -cpu EPYC`.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  constexpr size_t M = 1, K = 7, N = 40;
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnn_initialize failed\n");
    return 2;
  }
  std::vector<float> x(K + 4), w(K * N), y(M * N, -1.0f);  // x: XNNPACK may over-read 16 bytes
  for (size_t k = 0; k < K; ++k) x[k] = static_cast<float>(k + 1);
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n) w[k * N + n] = static_cast<float>((k * 3 + n) % 5) - 2.0f;
  pthreadpool_t pool = pthreadpool_create(2);
  xnn_operator_t op = nullptr;
  // W is [K][N] (input channels major): XNN_FLAG_TRANSPOSE_WEIGHTS.
  if (xnn_create_fully_connected_nc_f32(K, N, K, N, w.data(), nullptr, -INFINITY, INFINITY,
                                        XNN_FLAG_TRANSPOSE_WEIGHTS, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, M, x.data(), y.data(), pool) != xnn_status_success ||
      xnn_run_operator(op, pool) != xnn_status_success) {
    std::fprintf(stderr, "XNNPACK fully connected failed\n");
    return 2;
  }
  int wrong = 0;
  for (size_t n = 0; n < N; ++n) {
    float want = 0.0f;
    for (size_t k = 0; k < K; ++k) want += x[k] * w[k * N + n];
    if (y[n] != want) {
      std::printf("column %zu: XNNPACK %g, exact %g\n", n, y[n], want);
      ++wrong;
    }
  }
  xnn_delete_operator(op);
  pthreadpool_destroy(pool);
  std::printf("XNNPACK fully connected, M=%zu K=%zu N=%zu, 2 threads: %s (%d of %zu columns wrong)\n", M, K, N,
              wrong ? "WRONG" : "right", wrong, N);
  return wrong ? 3 : 0;
}
