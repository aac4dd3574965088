// Add, Sub, Mul, Div, Pow on the cpu backend: own loops with numpy broadcasting, any rank. Each
// element is one IEEE operation in float, as in the reference (bit-identical to `ref`, NaN and inf
// included); Pow is the reference's std::pow in double rounded once (ONNX Pow-15), and x * x in
// float for a known exponent of 2 (the same single rounding of the exact square); XNNPACK's binary kernels are not used because their output clamp turns NaN into a
// bound. When an operand is held NHWC and the output is 4-D, the op runs in NHWC: every operand's
// shape, padded to rank 4, is permuted to (N, H, W, C) (constants are transposed once at compile
// time; run-time operands of rank 4, or with one element, are used as they are held). A following
// Relu/Clip is fused (applied to each output row right after it is computed, with the absorbed
// op's own NaN rule).
//
// Loop: the output's dims are merged where both operands broadcast alike, the innermost merged dim
// is a contiguous row (operand strides 0 or 1); rows are split over the thread pool.
#include <algorithm>
#include <cmath>

#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

enum class Kind { kAdd, kSub, kMul, kDiv, kPow, kSquare };

Kind KindOf(const std::string& op) {
  if (op == "Add") return Kind::kAdd;
  if (op == "Sub") return Kind::kSub;
  if (op == "Mul") return Kind::kMul;
  if (op == "Pow") return Kind::kPow;
  return Kind::kDiv;
}

template <Kind K>
inline float Apply(float a, float b) {
  if constexpr (K == Kind::kAdd) return a + b;
  if constexpr (K == Kind::kSub) return a - b;
  if constexpr (K == Kind::kMul) return a * b;
  if constexpr (K == Kind::kPow) return static_cast<float>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  if constexpr (K == Kind::kSquare) return a * a;
  return a / b;
}

template <Kind K, int SA, int SB>
void Row(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = Apply<K>(a[i * SA], b[i * SB]);
}

using RowFn = void (*)(const float*, const float*, float*, size_t);

template <Kind K>
RowFn PickRow(bool sa, bool sb) {
  if (sa && sb) return Row<K, 1, 1>;
  if (sa) return Row<K, 1, 0>;
  if (sb) return Row<K, 0, 1>;
  return Row<K, 0, 0>;
}

RowFn Pick(Kind k, bool sa, bool sb) {
  switch (k) {
    case Kind::kAdd: return PickRow<Kind::kAdd>(sa, sb);
    case Kind::kSub: return PickRow<Kind::kSub>(sa, sb);
    case Kind::kMul: return PickRow<Kind::kMul>(sa, sb);
    case Kind::kDiv: return PickRow<Kind::kDiv>(sa, sb);
    case Kind::kPow: return PickRow<Kind::kPow>(sa, sb);
    case Kind::kSquare: return PickRow<Kind::kSquare>(sa, sb);
  }
  return nullptr;
}

/// A constant operand of shape s (rank <= 4) padded to rank 4 and transposed to NHWC order.
const float* ConstToNhwc(Compiler& c, int v, Shape* shape) {
  const Shape& s = c.shape(v);
  int64_t d[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < s.size(); ++i) d[4 - s.size() + i] = s[i];
  const float* x = c.slot(v).as<float>();
  float* y = c.Alloc(static_cast<size_t>(d[0] * d[1] * d[2] * d[3]));
  const int64_t hw = d[2] * d[3];
  for (int64_t n = 0; n < d[0]; ++n)
    for (int64_t ch = 0; ch < d[1]; ++ch)
      for (int64_t p = 0; p < hw; ++p) y[(n * hw + p) * d[1] + ch] = x[(n * d[1] + ch) * hw + p];
  *shape = {d[0], d[2], d[3], d[1]};
  return y;
}

/// The broadcast iteration: merged output dims with each operand's stride per dim (0 = broadcast).
struct Plan {
  std::vector<size_t> dims, sa, sb;  // outer dims (all but the innermost)
  size_t inner = 1;
  bool ia = true, ib = true;  // innermost strides are 1 (else 0)
};

Plan MakePlan(const Shape& y, Shape a, Shape b) {
  const size_t r = y.size();
  while (a.size() < r) a.insert(a.begin(), 1);
  while (b.size() < r) b.insert(b.begin(), 1);
  // Merge dims (skipping size-1 output dims) whose broadcast classes match.
  std::vector<size_t> md;
  std::vector<char> fa, fb;
  for (size_t i = 0; i < r; ++i) {
    if (y[i] == 1) continue;
    const char ca = a[i] != 1, cb = b[i] != 1;
    if (!md.empty() && fa.back() == ca && fb.back() == cb) {
      md.back() *= static_cast<size_t>(y[i]);
    } else {
      md.push_back(static_cast<size_t>(y[i]));
      fa.push_back(ca);
      fb.push_back(cb);
    }
  }
  Plan p;
  if (md.empty()) return p;
  const size_t k = md.size();
  std::vector<size_t> sa(k), sb(k);
  size_t ta = 1, tb = 1;
  for (size_t i = k; i-- > 0;) {
    sa[i] = fa[i] ? ta : 0;
    sb[i] = fb[i] ? tb : 0;
    if (fa[i]) ta *= md[i];
    if (fb[i]) tb *= md[i];
  }
  p.inner = md[k - 1];
  p.ia = fa[k - 1];
  p.ib = fb[k - 1];
  p.dims.assign(md.begin(), md.end() - 1);
  p.sa.assign(sa.begin(), sa.end() - 1);
  p.sb.assign(sb.begin(), sb.end() - 1);
  return p;
}

}  // namespace

bool SupportsBinary(const Node& n, const Graph& g, const GraphInfo&) {
  // Legacy (opset < 7) broadcast/axis attributes run the reference.
  return n.inputs.size() == 2 && IsF32(g, n.inputs[0]) && IsF32(g, n.inputs[1]) && n.outputs.size() == 1 &&
         !n.has("broadcast") && !n.has("axis");
}

Status CompileBinary(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1], y0 = n.outputs[0];
  const Shape& ys = c.shape(y0);
  const size_t count = static_cast<size_t>(c.slot(y0).numel());
  if (count == 0) return c.CompileRef(n);
  const int ops[2] = {a, b};
  bool nhwc = ys.size() == 4 && c.LayoutMatters(y0) && (c.HasNHWC(a) || c.HasNHWC(b));
  for (int v : ops) nhwc = nhwc && (c.IsConst(v) ? c.shape(v).size() <= 4 : c.shape(v).size() == 4 || c.slot(v).numel() == 1);
  Shape shape[2];
  const float* ptr[2];
  for (int i = 0; i < 2; ++i) {
    const int v = ops[i];
    const Shape& s = c.shape(v);
    if (nhwc && c.IsConst(v)) {
      ptr[i] = ConstToNhwc(c, v, &shape[i]);
      continue;
    }
    ptr[i] = c.In(v, nhwc ? Layout::kNHWC : Layout::kPlain);
    shape[i] = nhwc && s.size() == 4 ? NhwcShape(s) : s;
  }
  const Plan plan = MakePlan(nhwc ? NhwcShape(ys) : ys, shape[0], shape[1]);
  Clamp cl;
  const int y = FuseClamp(c, y0, &cl);
  const Layout l = nhwc ? Layout::kNHWC : Layout::kPlain;
  float* yp = c.OutFused(y0, y, l, {{ptr[0], c.slot(a).nbytes()}, {ptr[1], c.slot(b).nbytes()}});
  Kind kind = KindOf(n.op);
  if (kind == Kind::kPow && c.IsConst(b) && c.slot(b).numel() == 1 && c.slot(b).as<float>()[0] == 2.0f) kind = Kind::kSquare;
  const RowFn row = Pick(kind, plan.ia, plan.ib);
  const float* ap = ptr[0];
  const float* bp = ptr[1];
  const size_t inner = plan.inner, rows = count / inner;
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(rows, std::max<size_t>(1, (size_t(1) << 14) / inner), [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        size_t rem = r, oa = 0, ob = 0;
        for (size_t k = plan.dims.size(); k-- > 0;) {
          const size_t i = rem % plan.dims[k];
          rem /= plan.dims[k];
          oa += i * plan.sa[k];
          ob += i * plan.sb[k];
        }
        float* yr = yp + r * inner;
        row(ap + oa, bp + ob, yr, inner);
        if (cl.active) ApplyClamp(cl, yr, inner);
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
