// Add, Sub, Mul, Div, Pow and Where on the cpu backend: own loops with numpy broadcasting, any
// rank. Where (ONNX Where-16: bool condition, float32 X and Y, plain layout) copies each element
// from X or Y (exact). For the arithmetic ops each
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

/// `rows` consecutive rows of `inner` outputs: y = a op b elementwise (SA, SB: the operand's
/// innermost stride, 1 or 0 for a broadcast scalar), then clamped to [lo, hi] when `clamp` (NaN
/// kept, as ApplyClamp); row r reads a + r * sa and b + r * sb (0 where the operand repeats) and
/// writes y + r * inner. One loop per x86-64 level (TARE_CPU_CLONES): the same bits on each.
template <Kind K, int SA, int SB>
TARE_CPU_CLONES void Rows(const float* a, size_t sa, const float* b, size_t sb, float* y, size_t inner, size_t rows,
                          float lo, float hi, bool clamp) {
  for (size_t r = 0; r < rows; ++r, a += sa, b += sb, y += inner) {
    if (clamp) {
      for (size_t i = 0; i < inner; ++i) {
        const float v = Apply<K>(a[i * SA], b[i * SB]);
        y[i] = v < lo ? lo : v > hi ? hi : v;
      }
    } else {
      for (size_t i = 0; i < inner; ++i) y[i] = Apply<K>(a[i * SA], b[i * SB]);
    }
  }
}

using RowsFn = void (*)(const float*, size_t, const float*, size_t, float*, size_t, size_t, float, float, bool);

template <Kind K>
RowsFn PickRows(bool sa, bool sb) {
  if (sa && sb) return Rows<K, 1, 1>;
  if (sa) return Rows<K, 1, 0>;
  if (sb) return Rows<K, 0, 1>;
  return Rows<K, 0, 0>;
}

RowsFn Pick(Kind k, bool sa, bool sb) {
  switch (k) {
    case Kind::kAdd: return PickRows<Kind::kAdd>(sa, sb);
    case Kind::kSub: return PickRows<Kind::kSub>(sa, sb);
    case Kind::kMul: return PickRows<Kind::kMul>(sa, sb);
    case Kind::kDiv: return PickRows<Kind::kDiv>(sa, sb);
    case Kind::kPow: return PickRows<Kind::kPow>(sa, sb);
    case Kind::kSquare: return PickRows<Kind::kSquare>(sa, sb);
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

/// The broadcast iteration over operands shaped `in` (numpy broadcasting to y): the output's
/// dims merged where every operand broadcasts alike (size-1 output dims dropped), each operand's
/// stride per outer merged dim (0 = broadcast), and whether its innermost stride is 1 (else 0).
struct Plan {
  std::vector<size_t> dims;            // outer dims (all but the innermost)
  std::vector<std::vector<size_t>> s;  // per operand: its stride per outer dim
  std::vector<char> unit;              // per operand: innermost stride 1 (else 0)
  size_t inner = 1;
  /// The offsets of outer row r (row-major over dims) into each operand.
  void Offsets(size_t r, size_t* off) const {
    for (size_t j = 0; j < s.size(); ++j) off[j] = 0;
    for (size_t k = dims.size(); k-- > 0;) {
      const size_t i = r % dims[k];
      r /= dims[k];
      for (size_t j = 0; j < s.size(); ++j) off[j] += i * s[j][k];
    }
  }
};

Plan MakePlan(const Shape& y, std::vector<Shape> in) {
  const size_t r = y.size(), n = in.size();
  for (Shape& sh : in)
    while (sh.size() < r) sh.insert(sh.begin(), 1);
  // Merge dims (skipping size-1 output dims) whose broadcast classes match.
  std::vector<size_t> md;
  std::vector<std::vector<char>> full;  // per merged dim: per operand, not broadcast
  for (size_t i = 0; i < r; ++i) {
    if (y[i] == 1) continue;
    std::vector<char> f(n);
    for (size_t j = 0; j < n; ++j) f[j] = in[j][i] != 1;
    if (!md.empty() && full.back() == f) {
      md.back() *= static_cast<size_t>(y[i]);
    } else {
      md.push_back(static_cast<size_t>(y[i]));
      full.push_back(f);
    }
  }
  Plan p;
  p.s.assign(n, {});
  p.unit.assign(n, 1);
  if (md.empty()) return p;
  const size_t k = md.size();
  for (size_t j = 0; j < n; ++j) {
    std::vector<size_t> st(k);
    size_t t = 1;
    for (size_t i = k; i-- > 0;) {
      st[i] = full[i][j] ? t : 0;
      if (full[i][j]) t *= md[i];
    }
    p.unit[j] = full[k - 1][j];
    p.s[j].assign(st.begin(), st.end() - 1);
  }
  p.inner = md[k - 1];
  p.dims.assign(md.begin(), md.end() - 1);
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
  const Plan plan = MakePlan(nhwc ? NhwcShape(ys) : ys, {shape[0], shape[1]});
  Clamp cl;
  const int y = FuseClamp(c, y0, &cl);
  const Layout l = nhwc ? Layout::kNHWC : Layout::kPlain;
  float* yp = c.OutFused(y0, y, l, {{ptr[0], c.slot(a).nbytes()}, {ptr[1], c.slot(b).nbytes()}});
  Kind kind = KindOf(n.op);
  if (kind == Kind::kPow && c.IsConst(b) && c.slot(b).numel() == 1 && c.slot(b).as<float>()[0] == 2.0f) kind = Kind::kSquare;
  const RowsFn rows_fn = Pick(kind, plan.unit[0], plan.unit[1]);
  const float* ap = ptr[0];
  const float* bp = ptr[1];
  const size_t inner = plan.inner, rows = count / inner;
  // Tasks of about 16K elements: whole rows, or pieces of a long row (a same-shape Add is one row
  // of the whole tensor). Each thread then reads the part of its operands that the same thread
  // wrote in the step before, rather than one thread pulling the other cores' halves across.
  constexpr size_t kTask = size_t(1) << 14;
  const size_t pieces = (inner + kTask - 1) / kTask, piece = (inner + pieces - 1) / pieces;
  const size_t ua = plan.unit[0], ub = plan.unit[1];
  // Rows along the innermost outer dim advance each operand by a fixed stride: one call per run.
  const size_t run_len = plan.dims.empty() ? 1 : plan.dims.back();
  const size_t step_a = plan.dims.empty() ? 0 : plan.s[0].back(), step_b = plan.dims.empty() ? 0 : plan.s[1].back();
  const float lo = cl.lo, hi = cl.hi;
  const bool clamp = cl.active;
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(rows * pieces, std::max<size_t>(1, kTask / inner), [&](size_t t0, size_t t1) {
      size_t off[2];
      if (pieces > 1) {
        for (size_t t = t0; t < t1; ++t) {
          const size_t r = t / pieces, i0 = (t % pieces) * piece, len = std::min(inner, i0 + piece) - i0;
          plan.Offsets(r, off);
          rows_fn(ap + off[0] + i0 * ua, 0, bp + off[1] + i0 * ub, 0, yp + r * inner + i0, len, 1, lo, hi, clamp);
        }
        return;
      }
      for (size_t r = t0; r < t1;) {
        plan.Offsets(r, off);
        const size_t run = std::min(t1 - r, run_len - r % run_len);
        rows_fn(ap + off[0], step_a, bp + off[1], step_b, yp + r * inner, inner, run, lo, hi, clamp);
        r += run;
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

bool SupportsWhere(const Node& n, const Graph& g, const GraphInfo&) {
  return n.inputs.size() == 3 && n.outputs.size() == 1 && n.inputs[0] >= 0 && g.values[n.inputs[0]].dtype == DType::kBool &&
         IsF32(g, n.inputs[1]) && IsF32(g, n.inputs[2]);
}

Status CompileWhere(Compiler& c, const Node& n) {
  const int y = n.outputs[0];
  const size_t count = static_cast<size_t>(c.slot(y).numel());
  if (count == 0 || c.slot(n.inputs[0]).dtype != DType::kBool || c.slot(y).dtype != DType::kFloat32) return c.CompileRef(n);
  const Plan plan = MakePlan(c.shape(y), {c.shape(n.inputs[0]), c.shape(n.inputs[1]), c.shape(n.inputs[2])});
  const uint8_t* cp = c.slot(n.inputs[0]).as<uint8_t>();
  const float* xp = c.In(n.inputs[1], Layout::kPlain);
  const float* zp = c.In(n.inputs[2], Layout::kPlain);
  float* yp = c.OutFused(y, y, Layout::kPlain,
                         {{cp, c.slot(n.inputs[0]).nbytes()}, {xp, c.slot(n.inputs[1]).nbytes()}, {zp, c.slot(n.inputs[2]).nbytes()}});
  const size_t inner = plan.inner, rows = count / inner;
  const size_t uc = plan.unit[0], ux = plan.unit[1], uz = plan.unit[2];
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(rows, std::max<size_t>(1, (size_t(1) << 14) / inner), [&](size_t r0, size_t r1) {
      size_t off[3];
      for (size_t r = r0; r < r1; ++r) {
        plan.Offsets(r, off);
        const uint8_t* cr = cp + off[0];
        const float* xr = xp + off[1];
        const float* zr = zp + off[2];
        float* yr = yp + r * inner;
        for (size_t i = 0; i < inner; ++i) yr[i] = cr[i * uc] ? xr[i * ux] : zr[i * uz];
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
