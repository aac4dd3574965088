// The backend's own convolution for AVX-512 and AVX2 machines (NHWC, float32): an implicit GEMM
// over output pixels x output channels with a 6 x 64 register tile on AVX-512 (24 zmm accumulators;
// XNNPACK's 2022 AVX-512 kernels use 7 x 16, which keeps the FMA units about 85% busy) and 6 x 16
// strips of it on AVX2 + FMA (12 ymm accumulators; issue 23). Per output element
// the sum is acc = bias, then acc = fma(x, w, acc) over taps (kernel rows, then columns) and, per
// tap, input channels in order: one rounding per term, as a dot product; within the op's budget.
// Each output element is computed by one task in that fixed order, so the result does not depend
// on the thread count.
// Chosen at run time: GemmConv::Available() (CpuIsa(), isa.h: AVX-512F, or AVX2 and FMA; capped by
// TARE_CPU_ISA); otherwise the caller uses XNNPACK, which dispatches itself. conv_gemm_avx512.cc is
// the only file built with -mavx512f, conv_gemm_avx2.cc (with eigen_kernels.cc) with -mavx2 -mfma.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "backends/cpu/buffer.h"
#include "backends/cpu/threadpool.h"

namespace tare::cpu {

struct GemmConvShape {
  size_t n = 1, ih = 1, iw = 1, oh = 1, ow = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
  size_t groups = 1, cg = 1, og = 1;  // input and output channels per group
  float lo = 0, hi = 0;               // output clamp
  size_t ystride = 0;                 // output pixel stride in floats (0: groups * og)
};

class GemmConv {
 public:
  /// True when this CPU can run it (CpuIsa() is AVX-512 or AVX2).
  static bool Available();
  /// Whether it should be preferred to XNNPACK for this shape (enough channels to fill its tiles).
  static bool Worth(const GemmConvShape& s);
  /// Packs the weights (OIHW, [groups * og][cg][kh][kw]) and bias (groups * og, may be null).
  GemmConv(const GemmConvShape& s, const float* w_oihw, const float* bias);
  /// Binds the input (NHWC, n x ih x iw x groups*cg), the output (NHWC, n x oh x ow x groups*og)
  /// and an optional residual of the output's shape, added before the clamp; builds the
  /// indirection table of input pixel pointers.
  void Bind(const float* x, float* y, const float* residual);
  /// False when a buffer could not be allocated (after the constructor and Bind).
  bool ok() const;
  /// Computes y; tasks split over the pool.
  void Run(const ThreadPool* pool) const;

 private:
  GemmConvShape s_;
  size_t nblocks_ = 0, tiles_ = 0, taps_ = 0, chunk_taps_ = 1;
  // Narrow inputs (groups == 1, cg < 16, dw == 1): the input is copied into a zero-padded buffer
  // at each run, so the kw taps of a kernel row are kw * cg contiguous floats: one tap per row.
  bool merged_ = false;
  size_t ktaps_ = 0, kcg_ = 0;  // taps and channels per tap as the tile loop sees them
  size_t hp_ = 0, wp_ = 0;      // padded input dims
  Buffer<float> padded_;
  const float* x_ = nullptr;
  Buffer<float> w_;                    // [groups][nblocks]: [taps][cg][64] (AVX-512), [4][taps][cg][16] (AVX2)
  Buffer<float> bias_;                 // [groups][nblocks][64]
  Buffer<float> zeros_;                // padding taps read these
  Buffer<const float*> ind_;           // [tiles][taps][6] input pixel pointers (group 0)
  float* y_ = nullptr;
  const float* res_ = nullptr;
};

/// Batched matrix products on run-time operands on GemmConv's tile loop (issue 23: attention's
/// Q K^T and P V): y[b] (M x N, row-major, batches contiguous) = A[a_off[b]] (M x K) times
/// B[b_off[b]] (K x N), the offsets in matrices from a and b. A's rows are the "pixels" (one tap of
/// K channels); at each run every B matrix is packed into 64-column blocks (zero-padded; [K][64],
/// or [4][K][16] on AVX2),
/// then (batch, column block, run of row tiles) tasks split over the pool. Each output is acc = 0,
/// then acc = fma(a, b, acc) over k in order. The tile loop's clamp would turn a NaN into -inf:
/// Run is for finite operands only (the caller checks, AllFinite).
class BatchedGemm {
 public:
  BatchedGemm(size_t M, size_t K, size_t N, std::vector<size_t> a_off, std::vector<size_t> b_off, const float* a,
              const float* b, float* y);
  /// False when a buffer could not be allocated.
  bool ok() const { return ok_; }
  void Run(const ThreadPool* pool) const;
  /// Whether the tile loop should take these shapes (a CPU with AVX2 or AVX-512, and blocks of
  /// 64 columns and 6 rows mostly filled); otherwise Eigen's product is used.
  static bool Worth(size_t M, size_t K, size_t N);

 private:
  size_t M_, K_, N_, nblocks_, tiles_, bmats_;
  std::vector<size_t> a_off_, b_off_;
  const float* b_;
  float* y_;
  Buffer<float> packed_;       // [bmats][nblocks][64 K] (GemmConv's block layout), filled at each run
  Buffer<float> zeros_;        // K zeros (rows past M) and the 64 zero biases
  Buffer<const float*> ind_;   // [batches][tiles][6] row pointers of A
  bool ok_ = false;
};

/// The AVX-512 tile loop (conv_gemm_avx512.cc): output rows of pixel tiles [t0, t1) for output
/// channel block nb of group g, taps chunked by `chunk_taps`.
struct GemmConvTask {
  const float* const* ind;  // [tiles][taps][6]
  const float* w;           // this group's and block's packed weights ([taps][cg][64]; AVX2 [4][taps][cg][16])
  const float* bias;        // [64]
  float* y;                 // output, pixel p at y + p * ystride (already offset to the block)
  const float* res;         // residual (or null), pixel p at res + p * rstride
  size_t rstride;
  size_t ystride, nvalid, taps, cg, coff, chunk_taps, pixels;
  size_t t0, t1;
  float lo, hi;
};
void GemmConvAvx512(const GemmConvTask& task);
/// The same on AVX2 + FMA (conv_gemm_avx2.cc): 6 x 16 strips, the same order of terms.
void GemmConvAvx2(const GemmConvTask& task);

}  // namespace tare::cpu
