// MatMul on run-time operands (or a known B of rank > 2) on the cpu backend: ONNX MatMul-13
// (numpy.matmul): A (..., M, K) times B (..., K, N), the batch dims broadcast: on the own tile
// loop (BatchedGemm, conv_gemm.h) where the CPU has AVX2 or AVX-512 and the shapes fill its tiles,
// else each batch one Sgemm (eigen_kernels.h), batches and row blocks split over the thread pool. A known 2-D B takes XNNPACK's fully
// connected operator instead (gemm.cc). Rank-1 operands and empty tensors run the reference.
#include <algorithm>
#include <tuple>

#include "backends/cpu/ops.h"
#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/eigen_kernels.h"

namespace tare::cpu {

void Sgemm(const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, size_t m, size_t k, size_t n) {
  if (EigenAvailable()) return SgemmEigen(a, lda, b, ldb, c, ldc, m, k, n);
  for (size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    std::fill(ci, ci + n, 0.0f);
    for (size_t p = 0; p < k; ++p) {
      const float av = a[i * lda + p];
      const float* bp = b + p * ldb;
      for (size_t j = 0; j < n; ++j) ci[j] += av * bp[j];
    }
  }
}

namespace {

/// The product on Eigen's Sgemm: one task per (batch, block of rows).
void AddEigenBatched(Compiler& c, const float* ap, const float* bp, float* yp, size_t batches, size_t M, size_t K, size_t N,
                     std::function<std::pair<size_t, size_t>(size_t)> offsets) {
  // Tasks: (batch, block of rows); a block is at least 16 rows and about 2^18 multiply-adds.
  const size_t rows = std::min(M, std::max<size_t>(16, (size_t(1) << 18) / std::max<size_t>(1, K * N)));
  const size_t blocks = (M + rows - 1) / rows;
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(batches * blocks, 1, [&](size_t t0, size_t t1) {
      for (size_t t = t0; t < t1; ++t) {
        const size_t bi = t / blocks, r0 = (t % blocks) * rows, r1 = std::min(M, r0 + rows);
        const auto [oa, ob] = offsets(bi);
        Sgemm(ap + oa * M * K + r0 * K, K, bp + ob * K * N, N, yp + bi * M * N + r0 * N, N, r1 - r0, K, N);
      }
    });
    return Status::Ok();
  });
}

/// The product on BatchedGemm (conv_gemm.h), Eigen's where an operand holds NaN or inf.
Status AddOwnBatchedGemm(Compiler& c, const Node& n, const float* ap, const float* bp, float* yp, size_t M, size_t K, size_t N,
                         std::vector<size_t> a_off, std::vector<size_t> b_off, size_t a_count, size_t b_count) {
  std::vector<size_t> ao = a_off, bo = b_off;
  auto g = std::make_shared<BatchedGemm>(M, K, N, std::move(a_off), std::move(b_off), ap, bp, yp);
  if (!g->ok()) return Status::Error(n.Where() + ": out of memory for the batched product's buffers");
  c.Hold(g);
  const BatchedGemm* raw = g.get();
  ThreadPool* pool = c.pool();
  const size_t batches = ao.size();
  // The tile loop's clamp would turn a NaN into -inf: operands holding NaN or inf take Eigen's
  // product (which keeps them) instead.
  c.Add([=] {
    if (AllFiniteParallel(ap, a_count, pool) && AllFiniteParallel(bp, b_count, pool)) {
      raw->Run(pool);
      return Status::Ok();
    }
    pool->ParallelFor(batches, 1, [&](size_t b0, size_t b1) {
      for (size_t bi = b0; bi < b1; ++bi) Sgemm(ap + ao[bi] * M * K, K, bp + bo[bi] * K * N, N, yp + bi * M * N, N, M, K, N);
    });
    return Status::Ok();
  });
  return Status::Ok();
}

}  // namespace

Status AddBatchedProduct(Compiler& c, const Node& n, const float* ap, const float* bp, float* yp, size_t batches, size_t M, size_t K,
                         size_t N, std::function<std::pair<size_t, size_t>(size_t)> offsets, size_t a_count, size_t b_count) {
  if (!BatchedGemm::Worth(M, K, N)) {
    AddEigenBatched(c, ap, bp, yp, batches, M, K, N, std::move(offsets));
    return Status::Ok();
  }
  std::vector<size_t> ao(batches), bo(batches);
  for (size_t bi = 0; bi < batches; ++bi) std::tie(ao[bi], bo[bi]) = offsets(bi);
  return AddOwnBatchedGemm(c, n, ap, bp, yp, M, K, N, std::move(ao), std::move(bo), a_count, b_count);
}

Status CompileBatchedMatMul(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  const Shape& as = c.shape(a);
  const Shape& bs = c.shape(b);
  const Shape& ys = c.shape(y);
  if (as.size() < 2 || bs.size() < 2 || c.slot(y).numel() == 0 || c.slot(a).numel() == 0 || c.slot(b).numel() == 0)
    return c.CompileRef(n);
  const size_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  // Batch strides (in matrices) of A and B over Y's batch dims, 0 where an operand broadcasts.
  const size_t rank = ys.size() - 2;
  std::vector<size_t> dims(rank), sa(rank, 0), sb(rank, 0);
  size_t batches = 1;
  for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<size_t>(ys[i]);
  auto strides = [&](const Shape& s, std::vector<size_t>* st) {
    size_t acc = 1;
    const size_t r = s.size() - 2;
    for (size_t i = 0; i < r; ++i) {
      const size_t d = r - 1 - i, yd = rank - 1 - i;
      if (s[d] != 1) (*st)[yd] = acc;
      acc *= static_cast<size_t>(s[d]);
    }
  };
  strides(as, &sa);
  strides(bs, &sb);
  for (size_t d : dims) batches *= d;
  const float* ap = c.In(a, Layout::kPlain);
  const float* bp = c.In(b, Layout::kPlain);
  float* yp = c.Out(y, Layout::kPlain);
  auto offsets = [=](size_t bi) {
    size_t rem = bi, oa = 0, ob = 0;
    for (size_t d = rank; d-- > 0;) {
      const size_t i = rem % dims[d];
      rem /= dims[d];
      oa += i * sa[d];
      ob += i * sb[d];
    }
    return std::make_pair(oa, ob);
  };
  TARE_RETURN_IF_ERROR(AddBatchedProduct(c, n, ap, bp, yp, batches, M, K, N, offsets, static_cast<size_t>(c.slot(a).numel()),
                                         static_cast<size_t>(c.slot(b).numel())));
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
