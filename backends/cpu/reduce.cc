// ReduceSum, ReduceMean, ReduceMax, ReduceMin on the cpu backend (ONNX Reduce*-13/18: axes from the
// attribute or a known int64 input 1, keepdims, noop_with_empty_axes; runtime/ops/reduce.cc), float32,
// plain layout. The reduced axes must form one contiguous block of dims [a, b): the input is then
// (outer, K, inner) and y[o, i] folds x[o, 0..K-1, i] in k order, the reference's order and
// operations (kernels/ref/reduce.cc: float adds, the mean divided once by K, NaN wins max and min),
// so the results are bit-identical to `ref`. Outer rows are split over the thread pool; for
// inner > 1 each k adds a contiguous row (vectorized). Other axis sets, noop_with_empty_axes with
// empty axes and empty tensors run the reference kernel.
#include <algorithm>

#include "backends/common/patterns.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

enum class Kind { kSum, kMean, kMax, kMin };

template <Kind K>
inline float Fold(float a, float v) {
  if constexpr (K == Kind::kSum || K == Kind::kMean) return a + v;
  if constexpr (K == Kind::kMax) return v > a || v != v ? v : a;
  return v < a || v != v ? v : a;
}

/// y[o * inner + i] = fold over k of x[(o * K + k) * inner + i], for o in [ob, oe).
template <Kind K>
TARE_CPU_CLONES void ReduceRows(const float* x, float* y, size_t ob, size_t oe, size_t k_len, size_t inner) {
  const float init = K == Kind::kMax ? -INFINITY : K == Kind::kMin ? INFINITY : 0.0f;
  for (size_t o = ob; o < oe; ++o) {
    const float* xo = x + o * k_len * inner;
    float* yo = y + o * inner;
    if (inner == 1) {
      float acc = init;
      for (size_t k = 0; k < k_len; ++k) acc = Fold<K>(acc, xo[k]);
      yo[0] = acc;
    } else {
      for (size_t i = 0; i < inner; ++i) yo[i] = init;
      for (size_t k = 0; k < k_len; ++k) {
        const float* xr = xo + k * inner;
        for (size_t i = 0; i < inner; ++i) yo[i] = Fold<K>(yo[i], xr[i]);
      }
    }
    if constexpr (K == Kind::kMean)
      for (size_t i = 0; i < inner; ++i) yo[i] = yo[i] / static_cast<float>(k_len);
  }
}

using RowsFn = void (*)(const float*, float*, size_t, size_t, size_t, size_t);

RowsFn Pick(Kind k) {
  switch (k) {
    case Kind::kSum: return ReduceRows<Kind::kSum>;
    case Kind::kMean: return ReduceRows<Kind::kMean>;
    case Kind::kMax: return ReduceRows<Kind::kMax>;
    case Kind::kMin: return ReduceRows<Kind::kMin>;
  }
  return nullptr;
}

}  // namespace

bool SupportsReduce(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.empty() || !IsF32(g, n.inputs[0]) || n.outputs.size() != 1) return false;
  if (n.NumInputs() > 1 && n.inputs[1] >= 0 && (!Known(info, n.inputs[1]) || g.values[n.inputs[1]].dtype != DType::kInt64))
    return false;
  return n.NumInputs() <= 2;
}

Status CompileReduce(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  if (c.slot(x).numel() == 0 || c.slot(y).numel() == 0) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, patterns::ReduceAxes(c, n));
  TARE_ASSIGN_OR_RETURN(int64_t noop, n.GetInt("noop_with_empty_axes", 0));
  if (axes.empty() && noop) return c.CompileRef(n);
  const int64_t r = static_cast<int64_t>(s.size());
  std::vector<bool> reduced(s.size(), axes.empty());
  for (int64_t a : axes) {
    const int64_t k = a < 0 ? a + r : a;
    if (k < 0 || k >= r) return c.CompileRef(n);  // inference has refused it already
    reduced[static_cast<size_t>(k)] = true;
  }
  // The reduced dims, ignoring dims of size 1, must be one contiguous block.
  size_t first = s.size(), last = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (reduced[i] && s[i] != 1) {
      first = std::min(first, i);
      last = i;
    }
  size_t outer = 1, k_len = 1, inner = 1;
  if (first < s.size()) {
    for (size_t i = first; i <= last; ++i) {
      if (!reduced[i] && s[i] != 1) return c.CompileRef(n);
      k_len *= static_cast<size_t>(s[i]);
    }
    for (size_t i = 0; i < first; ++i) outer *= static_cast<size_t>(s[i]);
    for (size_t i = last + 1; i < s.size(); ++i) inner *= static_cast<size_t>(s[i]);
  } else {
    outer = static_cast<size_t>(c.slot(x).numel());
  }
  const Kind kind = n.op == "ReduceSum" ? Kind::kSum : n.op == "ReduceMean" ? Kind::kMean : n.op == "ReduceMax" ? Kind::kMax : Kind::kMin;
  const RowsFn f = Pick(kind);
  const float* xp = c.In(x, Layout::kPlain);
  float* yp = c.Out(y, Layout::kPlain);
  ThreadPool* pool = c.pool();
  const size_t per_row = std::max<size_t>(1, k_len * inner);
  c.Add([=] {
    pool->ParallelFor(outer, std::max<size_t>(1, (size_t(1) << 14) / per_row), [=](size_t b, size_t e) { f(xp, yp, b, e, k_len, inner); });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
