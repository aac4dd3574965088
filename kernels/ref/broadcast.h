// Multidirectional (numpy) broadcasting for the elementwise reference kernels: y[i] = f(a[.], b[.])
// (and the three-operand form) over the broadcast of the operand shapes. Each output element is
// computed independently from its own operands, so no accumulation order applies.
//
// The output shape is iterated as rows: size-1 output dims are dropped and adjacent dims merged
// while every operand stays contiguous (or stays broadcast) across them, so the common cases
// become one flat loop: same shape (vector op vector), a scalar operand (vector op scalar), a
// per-channel operand like [1,C,1,1] against [N,C,H,W] (N*C rows of H*W, each vector op scalar),
// a trailing [W] operand (rows of vector op vector). Anything else walks the rows with strides.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "runtime/ir/tensor.h"

namespace tare {

/// The row decomposition of a broadcast: collapsed output dims (innermost last, at least one) and
/// each operand's element stride along them (0 where the operand is broadcast).
struct BroadcastPlan {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;  ///< strides[k][d] for operand k
};

/// Plans broadcasting operands of shapes `ins` (each broadcastable to `out`) to `out`.
inline BroadcastPlan MakeBroadcastPlan(const Shape& out, std::initializer_list<const Shape*> ins) {
  const size_t r = out.size(), nk = ins.size();
  std::vector<std::vector<int64_t>> s(nk, std::vector<int64_t>(r));
  size_t k = 0;
  for (const Shape* in : ins) {
    int64_t acc = 1;
    for (size_t d = r; d-- > 0;) {
      const int64_t dim = d + in->size() >= r ? (*in)[d + in->size() - r] : 1;
      s[k][d] = dim == 1 ? 0 : acc;
      acc *= dim;
    }
    ++k;
  }
  BroadcastPlan p;
  p.strides.resize(nk);
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    bool merge = !p.dims.empty();
    for (size_t j = 0; j < nk && merge; ++j) merge = p.strides[j].back() == s[j][d] * out[d];
    if (merge) {
      p.dims.back() *= out[d];
      for (size_t j = 0; j < nk; ++j) p.strides[j].back() = s[j][d];
    } else {
      p.dims.push_back(out[d]);
      for (size_t j = 0; j < nk; ++j) p.strides[j].push_back(s[j][d]);
    }
  }
  if (p.dims.empty()) {
    p.dims = {1};
    for (auto& st : p.strides) st = {0};
  }
  return p;
}

/// Calls row(out_offset, offsets, n) for each row of n output elements, in output order;
/// offsets[k] is operand k's element offset at the row start. The output must not be empty.
template <class F>
void ForEachBroadcastRow(const BroadcastPlan& p, F&& row) {
  const size_t outer = p.dims.size() - 1, nk = p.strides.size();
  const int64_t n = p.dims.back();
  std::vector<int64_t> idx(outer, 0), off(nk, 0);
  for (int64_t oy = 0;; oy += n) {
    row(oy, off.data(), n);
    size_t d = outer;  // odometer over the outer dims, innermost first
    for (;;) {
      if (d == 0) return;
      --d;
      for (size_t k = 0; k < nk; ++k) off[k] += p.strides[k][d];
      if (++idx[d] < p.dims[d]) break;
      for (size_t k = 0; k < nk; ++k) off[k] -= p.strides[k][d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

/// Element count of a concrete shape (no validation: shapes reaching kernels are valid).
inline int64_t ShapeElements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

/// One row of n outputs; sa/sb are the operand strides (specialised for the contiguous and the
/// scalar-operand cases so the compiler can vectorise them).
template <class A, class B, class Y, class F>
inline void BroadcastRow(const A* a, const B* b, Y* y, int64_t n, int64_t sa, int64_t sb, F& f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const A av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i * sa], b[i * sb]);
  }
}

/// y = f(a, b) elementwise; a has shape `as`, b shape `bs`, y (shape `ys`) their broadcast.
template <class A, class B, class Y, class F>
void BroadcastBinary(const A* a, const Shape& as, const B* b, const Shape& bs, Y* y, const Shape& ys, F f) {
  if (ShapeElements(ys) == 0) return;
  const BroadcastPlan p = MakeBroadcastPlan(ys, {&as, &bs});
  const int64_t sa = p.strides[0].back(), sb = p.strides[1].back();
  ForEachBroadcastRow(p, [&](int64_t oy, const int64_t* off, int64_t n) {
    BroadcastRow(a + off[0], b + off[1], y + oy, n, sa, sb, f);
  });
}

/// Tensor form of BroadcastBinary: storage types A, B, Y; shapes from the tensors.
template <class A, class B, class Y, class F>
void BroadcastBinary(const Tensor& ta, const Tensor& tb, Tensor& ty, F f) {
  BroadcastBinary(ta.as<A>(), ta.shape, tb.as<B>(), tb.shape, ty.as<Y>(), ty.shape, f);
}

/// y = f(a, b, c) elementwise over the broadcast of three operands (y has the broadcast shape).
template <class A, class B, class C, class Y, class F>
void BroadcastTernary(const Tensor& ta, const Tensor& tb, const Tensor& tc, Tensor& ty, F f) {
  if (ty.numel() == 0) return;
  const BroadcastPlan p = MakeBroadcastPlan(ty.shape, {&ta.shape, &tb.shape, &tc.shape});
  const int64_t sa = p.strides[0].back(), sb = p.strides[1].back(), sc = p.strides[2].back();
  const A* a = ta.as<A>();
  const B* b = tb.as<B>();
  const C* c = tc.as<C>();
  Y* y = ty.as<Y>();
  ForEachBroadcastRow(p, [&](int64_t oy, const int64_t* off, int64_t n) {
    const A* ra = a + off[0];
    const B* rb = b + off[1];
    const C* rc = c + off[2];
    Y* ry = y + oy;
    if (sa == 1 && sb == 1 && sc == 1) {
      for (int64_t i = 0; i < n; ++i) ry[i] = f(ra[i], rb[i], rc[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) ry[i] = f(ra[i * sa], rb[i * sb], rc[i * sc]);
    }
  });
}

}  // namespace tare
