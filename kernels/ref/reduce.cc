// Reference kernels of the Reduce* ops (semantics: runtime/ops/reduce.cc).
// Order: every output accumulator starts at the identity (0 for sums, 1 for Prod, -inf / the
// lowest value for Max, +inf / the highest for Min), and the input is read once in row-major
// order, each element folded into its output's accumulator: so each output folds its reduced
// elements in index order. Each fold is one operation in the element type (for T = float: one
// rounding), after the element's own map, also one rounding: x*x (SumSquare, L2), |x| (L1, exact).
// Then, once per output: Mean divides by the count; L2 takes sqrt (correctly rounded); LogSum
// takes log in double rounded once. LogSumExp makes two passes: m = max (as ReduceMax), then
// acc = 0 + e_0 + e_1 + ... with e = exp(x - m) (x - m rounded once, exp in double rounded once),
// and y = m + log(acc) (log in double rounded once, then one addition); a non-finite m is
// replaced by 0 in both places. Integer arithmetic wraps around (two's complement).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// The reduction an op performs.
enum class Kind { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

/// A run of adjacent input dims that are all reduced or all kept.
struct Run { int64_t size; bool reduced; };

/// Wrapping integer arithmetic (plain arithmetic for floats).
template <class U>
U Add(U a, U b) {
  if constexpr (std::is_integral_v<U>) {
    using S = std::make_unsigned_t<U>;
    return static_cast<U>(static_cast<S>(static_cast<S>(a) + static_cast<S>(b)));
  } else {
    return a + b;
  }
}
template <class U>
U Mul(U a, U b) {
  if constexpr (std::is_integral_v<U>) {
    using S = std::make_unsigned_t<U>;
    // Promote to at least unsigned int so narrow types never multiply as (signed) int.
    using W = std::conditional_t<(sizeof(S) < sizeof(unsigned)), unsigned, S>;
    return static_cast<U>(static_cast<S>(static_cast<W>(static_cast<S>(a)) * static_cast<W>(static_cast<S>(b))));
  } else {
    return a * b;
  }
}
template <class U>
U AbsOf(U v) {
  if constexpr (std::is_unsigned_v<U>) return v;
  else if constexpr (std::is_integral_v<U>) return v < 0 ? static_cast<U>(Mul<U>(v, U(-1))) : v;
  else return std::fabs(v);
}
template <class U>
bool IsNan(U v) {
  if constexpr (std::is_floating_point_v<U>) return std::isnan(v);
  else return false;
}

/// Folds the elements of x (dims `runs`) into y, already initialized, in row-major order:
/// y[o] = f(y[o], x[i], o) for each input element i of output o.
template <class U, class F>
void ReduceInto(const std::vector<Run>& runs, const U* x, U* y, F f) {
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
      for (int64_t j = 0; j < inner; ++j) acc = f(acc, x[xi + j], yi);
      y[yi] = acc;
    } else {
      for (int64_t j = 0; j < inner; ++j) y[yi + j] = f(y[yi + j], x[xi + j], yi + j);
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
void Reduce(const Tensor& x, Tensor& y, const std::vector<Run>& runs, Kind kind, int64_t count) {
  U* yp = y.as<U>();
  const U* xp = x.as<U>();
  const int64_t n = y.numel();
  using L = std::numeric_limits<U>;
  U init = 0;
  if (kind == Kind::kProd) init = 1;
  if (kind == Kind::kMax || kind == Kind::kLogSumExp) init = L::has_infinity ? -L::infinity() : L::lowest();
  if (kind == Kind::kMin) init = L::has_infinity ? L::infinity() : L::max();
  for (int64_t i = 0; i < n; ++i) yp[i] = init;
  const bool empty = x.numel() == 0;
  auto fold = [&](auto f) { if (!empty) ReduceInto<U>(runs, xp, yp, f); };
  switch (kind) {
    case Kind::kSum: case Kind::kMean: case Kind::kLogSum:
      fold([](U a, U v, int64_t) { return Add<U>(a, v); }); break;
    case Kind::kSumSquare: case Kind::kL2:
      fold([](U a, U v, int64_t) { return Add<U>(a, Mul<U>(v, v)); }); break;
    case Kind::kL1: fold([](U a, U v, int64_t) { return Add<U>(a, AbsOf<U>(v)); }); break;
    case Kind::kProd: fold([](U a, U v, int64_t) { return Mul<U>(a, v); }); break;
    case Kind::kMax: case Kind::kLogSumExp:
      fold([](U a, U v, int64_t) { return v > a || IsNan(v) ? v : a; }); break;  // NaN wins and stays
    case Kind::kMin: fold([](U a, U v, int64_t) { return v < a || IsNan(v) ? v : a; }); break;
  }
  if constexpr (std::is_floating_point_v<U>) {
    if (kind == Kind::kMean)
      for (int64_t i = 0; i < n; ++i) yp[i] = yp[i] / static_cast<U>(count);
    if (kind == Kind::kL2)
      for (int64_t i = 0; i < n; ++i) yp[i] = std::sqrt(yp[i]);
    if (kind == Kind::kLogSum)
      for (int64_t i = 0; i < n; ++i) yp[i] = ViaDouble<U>([](double d) { return std::log(d); }, yp[i]);
    if (kind == Kind::kLogSumExp) {
      std::vector<U> shift(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        shift[static_cast<size_t>(i)] = std::isfinite(yp[i]) ? yp[i] : U(0);
        yp[i] = 0;
      }
      const U* s = shift.data();
      fold([s](U a, U v, int64_t o) {
        const U d = v - s[o];
        return a + ViaDouble<U>([](double e) { return std::exp(e); }, d);
      });
      for (int64_t i = 0; i < n; ++i)
        yp[i] = s[i] + ViaDouble<U>([](double e) { return std::log(e); }, yp[i]);
    }
  }
}

/// Maps an op name to its Kind.
Result<Kind> KindOf(const Node& node) {
  static const std::pair<const char*, Kind> kTable[] = {
      {"ReduceSum", Kind::kSum}, {"ReduceMean", Kind::kMean}, {"ReduceMax", Kind::kMax},
      {"ReduceMin", Kind::kMin}, {"ReduceProd", Kind::kProd}, {"ReduceSumSquare", Kind::kSumSquare},
      {"ReduceL1", Kind::kL1}, {"ReduceL2", Kind::kL2}, {"ReduceLogSum", Kind::kLogSum},
      {"ReduceLogSumExp", Kind::kLogSumExp}};
  for (const auto& e : kTable)
    if (node.op == e.first) return e.second;
  return Status::Error(node.Where() + ": not a Reduce op");
}

}  // namespace

template <class T>
Result<KernelFn> MakeReduce(const Node& node) {
  TARE_ASSIGN_OR_RETURN(Kind kind, KindOf(node));
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
    if (runs.empty()) runs.push_back({1, true});  // a single element (every dim is 1)
    switch (x.dtype) {
      case DType::kFloat32: Reduce<T>(x, y, runs, kind, count); break;
      case DType::kFloat64: Reduce<double>(x, y, runs, kind, count); break;
      case DType::kInt32: Reduce<int32_t>(x, y, runs, kind, count); break;
      case DType::kInt64: Reduce<int64_t>(x, y, runs, kind, count); break;
      case DType::kUInt32: Reduce<uint32_t>(x, y, runs, kind, count); break;
      case DType::kUInt64: Reduce<uint64_t>(x, y, runs, kind, count); break;
      case DType::kInt8: Reduce<int8_t>(x, y, runs, kind, count); break;
      case DType::kUInt8: Reduce<uint8_t>(x, y, runs, kind, count); break;
      case DType::kBool: {  // ReduceMax / ReduceMin-20: any / all, on the 0/1 bytes
        Reduce<uint8_t>(x, y, runs, kind, count);
        uint8_t* yp = y.as<uint8_t>();
        for (int64_t i = 0; i < y.numel(); ++i) yp[i] = yp[i] != 0;  // an empty Min's 255 is true
        break;
      }
      default: return Status::Error("Reduce: unsupported dtype " + DTypeName(x.dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Reduce)

}  // namespace tare
