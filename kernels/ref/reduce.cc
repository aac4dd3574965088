// Reference kernels of ReduceMean, ReduceMax, ReduceSum (semantics: runtime/ops/reduce.cc).
// Order: every output accumulator starts at 0 (sum, mean) or at the lowest value (-inf for T;
// max), and the input is read once in row-major order, each element folded into its output's
// accumulator: so each output sums its reduced elements in index order. Mean then divides once
// by the element count (in T). Integer sums wrap around (two's complement).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// A run of adjacent input dims that are all reduced or all kept.
struct Run { int64_t size; bool reduced; };

/// Folds v into an accumulator: max (NaN wins and stays) or sum (integers wrap around).
template <class U>
U Fold(bool is_max, U acc, U v) {
  if (is_max) {
    bool nan = false;
    if constexpr (std::is_floating_point_v<U>) nan = std::isnan(v);
    return (v > acc || nan) ? v : acc;
  }
  if constexpr (std::is_integral_v<U>) {
    using S = std::make_unsigned_t<U>;
    return static_cast<U>(static_cast<S>(static_cast<S>(acc) + static_cast<S>(v)));
  } else {
    return acc + v;
  }
}

/// Folds x (with dims `runs`) into y (already initialized); see the file comment for the order.
template <class U>
void ReduceInto(const std::vector<Run>& runs, bool is_max, const U* x, U* y) {
  const size_t m = runs.size();
  std::vector<int64_t> ostride(m, 0), pos(m, 0);
  int64_t st = 1;
  for (size_t i = m; i-- > 0;)
    if (!runs[i].reduced) { ostride[i] = st; st *= runs[i].size; }
  const int64_t inner = runs[m - 1].size;
  const bool inner_reduced = runs[m - 1].reduced;
  int64_t xi = 0;
  while (true) {
    int64_t yi = 0;
    for (size_t i = 0; i + 1 < m; ++i) yi += pos[i] * ostride[i];
    if (inner_reduced) {
      U acc = y[yi];
      for (int64_t j = 0; j < inner; ++j) acc = Fold(is_max, acc, x[xi + j]);
      y[yi] = acc;
    } else {
      for (int64_t j = 0; j < inner; ++j) y[yi + j] = Fold(is_max, y[yi + j], x[xi + j]);
    }
    xi += inner;
    size_t i = m - 1;
    while (i-- > 0) {
      if (++pos[i] < runs[i].size) break;
      pos[i] = 0;
    }
    if (i == static_cast<size_t>(-1)) return;
  }
}

/// Runs one reduction on element type U; `count` is the number of elements per output.
template <class U>
void Reduce(const Tensor& x, Tensor& y, const std::vector<Run>& runs, bool is_max, bool mean, int64_t count) {
  U* yp = y.as<U>();
  const int64_t n = y.numel();
  U init = 0;
  if (is_max) init = std::numeric_limits<U>::has_infinity ? -std::numeric_limits<U>::infinity()
                                                         : std::numeric_limits<U>::lowest();
  for (int64_t i = 0; i < n; ++i) yp[i] = init;
  if (!runs.empty() && x.numel() > 0) ReduceInto<U>(runs, is_max, x.as<U>(), yp);
  if (runs.empty() && x.numel() > 0) yp[0] = Fold(is_max, init, x.as<U>()[0]);  // every dim is 1
  if constexpr (std::is_floating_point_v<U>)
    if (mean)
      for (int64_t i = 0; i < n; ++i) yp[i] = yp[i] / static_cast<U>(count);
}

}  // namespace

template <class T>
Result<KernelFn> MakeReduce(const Node& node) {
  const bool is_max = node.op == "ReduceMax", mean = node.op == "ReduceMean";
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> attr_axes, node.GetInts("axes"));
  TARE_ASSIGN_OR_RETURN(int64_t noop, node.GetInt("noop_with_empty_axes", 0));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    std::vector<int64_t> axes = attr_axes;
    if (in.size() > 1 && in[1])
      for (int64_t i = 0; i < in[1]->numel(); ++i) axes.push_back(ReadInt(*in[1], i));
    if (axes.empty() && noop) {
      if (x.nbytes()) std::memcpy(y.data, x.data, x.nbytes());
      return Status::Ok();
    }
    const int64_t r = static_cast<int64_t>(x.shape.size());
    std::vector<bool> red(static_cast<size_t>(r), axes.empty());
    for (int64_t a : axes) red[static_cast<size_t>(a < 0 ? a + r : a)] = true;
    // Merge adjacent dims of the same kind, dropping unit dims; count = reduced element count.
    std::vector<Run> runs;
    int64_t count = 1;
    for (int64_t i = 0; i < r; ++i) {
      const int64_t d = x.shape[static_cast<size_t>(i)];
      const bool rd = red[static_cast<size_t>(i)];
      if (rd) count *= d;
      if (d == 1) continue;
      if (!runs.empty() && runs.back().reduced == rd) runs.back().size *= d;
      else runs.push_back({d, rd});
    }
    switch (x.dtype) {
      case DType::kInt32: Reduce<int32_t>(x, y, runs, is_max, false, count); break;
      case DType::kInt64: Reduce<int64_t>(x, y, runs, is_max, false, count); break;
      default: Reduce<T>(x, y, runs, is_max, mean, count); break;
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Reduce)

}  // namespace tare
