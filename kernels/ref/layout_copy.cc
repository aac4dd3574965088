// Reference kernels of the element-moving layout ops (semantics: runtime/ops/layout_copy.cc).
// All are dtype-generic: elements are copied as DTypeSize(dtype) bytes, never converted, so they
// are exact for every type. Contiguous inner runs are copied with memcpy; strided runs with a
// fixed-size per-element copy the compiler turns into plain loads and stores.
#include <algorithm>
#include <cstring>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/slice_geometry.h"
#include "runtime/ops/data_dependent.h"

namespace tare {
namespace layout_ref {
namespace {

using Ins = std::vector<const Tensor*>;
using Outs = std::vector<Tensor*>;

/// Row-major element strides of `shape`.
std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

/// Product of shape[lo:hi].
int64_t Prod(const Shape& shape, size_t lo, size_t hi) {
  int64_t p = 1;
  for (size_t d = lo; d < hi; ++d) p *= shape[d];
  return p;
}

/// StridedRun for a compile-time element size E (memcpy of E bytes compiles to one load/store).
template <size_t E>
void RunFixed(const char* src, int64_t st, char* dst, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * E, src + j * st * static_cast<int64_t>(E), E);
}

/// Copies n elements of es bytes from src (element stride st, may be 0 or negative) to dense dst.
void StridedRun(const char* src, int64_t st, char* dst, int64_t n, size_t es) {
  if (st == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  switch (es) {
    case 1: RunFixed<1>(src, st, dst, n); break;
    case 2: RunFixed<2>(src, st, dst, n); break;
    case 4: RunFixed<4>(src, st, dst, n); break;
    case 8: RunFixed<8>(src, st, dst, n); break;
    default:
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * es, src + j * st * static_cast<int64_t>(es), es);
  }
}

/// Writes n copies of the es-byte element `value` to dst.
void Fill(char* dst, int64_t n, const char* value, size_t es) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * es, value, es);
}

/// Copies an ni x nj tile: dst[i*di + j] = src[i + j*sj] (elements of E bytes), j outer.
template <size_t E>
void TileFixed(const char* src, int64_t sj, char* dst, int64_t di, int64_t ni, int64_t nj) {
  for (int64_t j = 0; j < nj; ++j)
    for (int64_t i = 0; i < ni; ++i)
      std::memcpy(dst + (i * di + j) * static_cast<int64_t>(E), src + (i + j * sj) * static_cast<int64_t>(E), E);
}

/// CopyStrided for coalesced dims `sh`/`st` when the innermost dim k is strided in the source and
/// dim p (< k) is contiguous there: (p, k) is copied in 32x32 tiles so that both the reads (along
/// p) and the writes (along k) stay within a few cache lines; the other dims are iterated outside.
void CopyTiled(const char* src, char* dst, size_t es, const std::vector<int64_t>& sh, const std::vector<int64_t>& st,
               int64_t base, size_t p) {
  const size_t k = sh.size() - 1;
  const std::vector<int64_t> ds = Strides(sh);
  std::vector<size_t> others;
  for (size_t d = 0; d < k; ++d)
    if (d != p) others.push_back(d);
  std::vector<int64_t> idx(others.size(), 0);
  int64_t soff = base, doff = 0;
  const int64_t count = Prod(sh, 0, k) / sh[p], B = 32, e = static_cast<int64_t>(es);
  for (int64_t o = 0; o < count; ++o) {
    for (int64_t i0 = 0; i0 < sh[p]; i0 += B)
      for (int64_t j0 = 0; j0 < sh[k]; j0 += B) {
        const char* s = src + (soff + i0 + j0 * st[k]) * e;
        char* d = dst + (doff + i0 * ds[p] + j0) * e;
        const int64_t ni = std::min(B, sh[p] - i0), nj = std::min(B, sh[k] - j0);
        switch (es) {
          case 1: TileFixed<1>(s, st[k], d, ds[p], ni, nj); break;
          case 2: TileFixed<2>(s, st[k], d, ds[p], ni, nj); break;
          case 4: TileFixed<4>(s, st[k], d, ds[p], ni, nj); break;
          default: TileFixed<8>(s, st[k], d, ds[p], ni, nj); break;
        }
      }
    for (size_t q = others.size(); q-- > 0;) {
      const size_t d = others[q];
      soff += st[d];
      doff += ds[d];
      if (++idx[q] < sh[d]) break;
      soff -= st[d] * sh[d];
      doff -= ds[d] * sh[d];
      idx[q] = 0;
    }
  }
}

/// Dense dst of shape `shape` gets dst[i_0..i_k] = src[base + sum_d i_d * stride[d]] (element
/// units). Size-1 dims are dropped and adjacent dims that walk memory contiguously are merged, so
/// e.g. an inner slice of whole rows becomes one memcpy per row; transposes go through CopyTiled.
void CopyStrided(const void* src_v, void* dst_v, size_t es, const Shape& shape, const std::vector<int64_t>& stride,
                 int64_t base) {
  const char* src = static_cast<const char*>(src_v);
  char* dst = static_cast<char*>(dst_v);
  std::vector<int64_t> sh, st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    if (!sh.empty() && st.back() == stride[d] * shape[d]) {
      sh.back() *= shape[d];
      st.back() = stride[d];
    } else {
      sh.push_back(shape[d]);
      st.push_back(stride[d]);
    }
  }
  if (sh.empty()) {
    std::memcpy(dst, src + base * static_cast<int64_t>(es), es);
    return;
  }
  const size_t k = sh.size() - 1;
  if (st[k] != 1) {
    // A transpose-like copy: if some outer dim is contiguous in the source, copy in tiles.
    for (size_t p = 0; p < k; ++p)
      if (st[p] == 1 && (es == 1 || es == 2 || es == 4 || es == 8)) return CopyTiled(src, dst, es, sh, st, base, p);
  }
  const int64_t n = sh[k], outer = Prod(sh, 0, k);
  std::vector<int64_t> idx(k, 0);
  int64_t off = base;
  for (int64_t o = 0; o < outer; ++o) {
    StridedRun(src + off * static_cast<int64_t>(es), st[k], dst + o * n * static_cast<int64_t>(es), n, es);
    for (size_t d = k; d-- > 0;) {
      off += st[d];
      if (++idx[d] < sh[d]) break;
      off -= st[d] * sh[d];
      idx[d] = 0;
    }
  }
}

/// Writes y from x given, per axis, the map output index -> source index (-1 = `value`).
void PadRows(const Tensor& x, Tensor& y, const std::vector<std::vector<int64_t>>& maps, const std::vector<char>& value) {
  const size_t r = maps.size(), es = value.size();
  if (y.numel() == 0) return;
  struct Run {
    int64_t dst, src, len;  // src < 0: fill
  };
  std::vector<Run> runs;
  const std::vector<int64_t>& last = maps[r - 1];
  for (size_t o = 0; o < last.size(); ++o) {
    const int64_t m = last[o];
    if (!runs.empty()) {
      Run& b = runs.back();
      if ((m < 0 && b.src < 0) || (m >= 0 && b.src >= 0 && b.src + b.len == m)) {
        ++b.len;
        continue;
      }
    }
    runs.push_back({static_cast<int64_t>(o), m, 1});
  }
  const std::vector<int64_t> xs = Strides(x.shape);
  const int64_t n = y.shape[r - 1], rows = y.numel() / n, esi = static_cast<int64_t>(es);
  const char* src = static_cast<const char*>(x.data);
  std::vector<int64_t> idx(r - 1, 0);
  for (int64_t row = 0; row < rows; ++row) {
    char* drow = static_cast<char*>(y.data) + row * n * esi;
    int64_t off = 0;
    bool fill = false;
    for (size_t d = 0; d + 1 < r && !fill; ++d) {
      const int64_t m = maps[d][idx[d]];
      fill = m < 0;
      off += m * xs[d];
    }
    if (fill) {
      Fill(drow, n, value.data(), es);
    } else {
      for (const Run& run : runs) {
        if (run.src < 0) Fill(drow + run.dst * esi, run.len, value.data(), es);
        else std::memcpy(drow + run.dst * esi, src + (off + run.src) * esi, static_cast<size_t>(run.len * esi));
      }
    }
    for (size_t d = r - 1; d-- > 0;) {
      if (++idx[d] < y.shape[d]) break;
      idx[d] = 0;
    }
  }
}

/// Normalizes an axis attribute already validated by shape inference.
int64_t Axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

/// Reads a small integer input (starts, pads, ...) as int64 values; empty for an omitted input.
std::vector<int64_t> Ints(const Tensor* t) {
  std::vector<int64_t> v;
  if (t)
    for (int64_t i = 0; i < t->numel(); ++i) v.push_back(ReadInt(*t, i));
  return v;
}

}  // namespace

/// Transpose: y.dims[i] = x.dims[perm[i]]; a strided gather (whole memcpy runs when perm keeps
/// the trailing axes in place).
Result<KernelFn> MakeTranspose(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm_attr, node.GetInts("perm"));
  const bool has_perm = node.has("perm");
  return KernelFn([perm_attr, has_perm](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    const size_t r = x.shape.size();
    std::vector<int64_t> perm = perm_attr;
    if (!has_perm) {
      perm.resize(r);
      for (size_t i = 0; i < r; ++i) perm[i] = static_cast<int64_t>(r - 1 - i);
    }
    const std::vector<int64_t> xs = Strides(x.shape);
    std::vector<int64_t> st(r);
    for (size_t d = 0; d < r; ++d) st[d] = xs[perm[d]];
    CopyStrided(x.data, out[0]->data, DTypeSize(x.dtype), out[0]->shape, st, 0);
    return Status::Ok();
  });
}

/// Slice: recomputes the clamped start/step of each sliced axis from the (known) inputs exactly as
/// shape inference does, then does one strided copy (negative steps walk memory backwards).
Result<KernelFn> MakeSlice(const Node&) {
  return KernelFn([](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    std::vector<int64_t> axes, steps, st;
    if (in.size() > 3 && in[3]) axes = Ints(in[3]);
    if (in.size() > 4 && in[4]) steps = Ints(in[4]);
    int64_t base = 0;
    TARE_RETURN_IF_ERROR(SliceGeometry(x.shape, y.shape, Ints(in[1]), Ints(in[2]), axes, steps, &base, &st));
    CopyStrided(x.data, y.data, DTypeSize(x.dtype), y.shape, st, base);
    return Status::Ok();
  });
}

/// Expand: a strided copy with stride 0 along broadcast dims.
Result<KernelFn> MakeExpand(const Node&) {
  return KernelFn([](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const size_t big = y.shape.size(), off = big - x.shape.size();
    const std::vector<int64_t> xs = Strides(x.shape);
    std::vector<int64_t> st(big, 0);
    for (size_t d = off; d < big; ++d) st[d] = x.shape[d - off] == 1 ? 0 : xs[d - off];
    CopyStrided(x.data, y.data, DTypeSize(x.dtype), y.shape, st, 0);
    return Status::Ok();
  });
}

/// Concat: for each outer index, the inputs' contiguous blocks are copied one after another.
Result<KernelFn> MakeConcat(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  return KernelFn([axis](const Ins& in, const Outs& out) {
    Tensor& y = *out[0];
    const size_t a = static_cast<size_t>(Axis(axis, y.shape.size()));
    const int64_t es = static_cast<int64_t>(DTypeSize(y.dtype));
    const int64_t inner = Prod(y.shape, a + 1, y.shape.size()), outer = Prod(y.shape, 0, a);
    const int64_t row = y.shape[a] * inner * es;
    int64_t pos = 0;
    for (const Tensor* x : in) {
      if (!x) continue;
      const int64_t chunk = x->shape[a] * inner * es;
      const char* src = static_cast<const char*>(x->data);
      char* dst = static_cast<char*>(y.data) + pos;
      if (chunk)
        for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * row, src + o * chunk, static_cast<size_t>(chunk));
      pos += chunk;
    }
    return Status::Ok();
  });
}

/// Split: the inverse of Concat; part sizes come from the `split` input or the equal division.
Result<KernelFn> MakeSplit(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  return KernelFn([axis](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    const size_t a = static_cast<size_t>(Axis(axis, x.shape.size()));
    std::vector<int64_t> sizes = in.size() > 1 && in[1] ? Ints(in[1]) : std::vector<int64_t>();
    if (sizes.empty()) sizes = SplitSizes(x.shape[a], static_cast<int64_t>(out.size()));  // equal, or Split-18's
    const int64_t es = static_cast<int64_t>(DTypeSize(x.dtype));
    const int64_t inner = Prod(x.shape, a + 1, x.shape.size()), outer = Prod(x.shape, 0, a);
    const int64_t row = x.shape[a] * inner * es;
    int64_t pos = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t chunk = sizes[i] * inner * es;
      if (out[i] && chunk) {
        const char* src = static_cast<const char*>(x.data) + pos;
        char* dst = static_cast<char*>(out[i]->data);
        for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * chunk, src + o * row, static_cast<size_t>(chunk));
      }
      pos += chunk;
    }
    return Status::Ok();
  });
}

/// Gather: indices are read and checked first (an out-of-range index is a run-time error naming
/// it), then one contiguous block of the trailing dims is copied per (outer, index) pair.
Result<KernelFn> MakeGather(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  return KernelFn([axis](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    const Tensor& ind = *in[1];
    const size_t a = static_cast<size_t>(Axis(axis, x.shape.size()));
    const int64_t dim = x.shape[a], n = ind.numel();
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const int64_t v = ind.dtype == DType::kInt32 ? ind.as<int32_t>()[j] : ind.as<int64_t>()[j];
      if (v < -dim || v >= dim)
        return Status::Error("index " + std::to_string(v) + " (position " + std::to_string(j) +
                             ") is out of range for axis " + std::to_string(a) + " of size " + std::to_string(dim));
      idx[j] = v < 0 ? v + dim : v;
    }
    const int64_t es = static_cast<int64_t>(DTypeSize(x.dtype));
    const int64_t block = Prod(x.shape, a + 1, x.shape.size()) * es, outer = Prod(x.shape, 0, a);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(out[0]->data);
    if (block == 0) return Status::Ok();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(dst + (o * n + j) * block, src + (o * dim + idx[j]) * block, static_cast<size_t>(block));
    return Status::Ok();
  });
}

/// Pad: each axis gets a map output index -> source index (-1 = the constant) from the crop, the
/// pads and the mode; the innermost map is cut into runs (memcpy for consecutive sources, fill for
/// the constant), and each output row either copies those runs or is filled whole.
Result<KernelFn> MakePad(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string mode_s, node.GetString("mode", "constant"));
  const int mode = mode_s == "reflect" ? 1 : mode_s == "edge" ? 2 : mode_s == "wrap" ? 3 : 0;
  return KernelFn([mode](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const size_t r = x.shape.size(), es = DTypeSize(x.dtype);
    std::vector<char> value(es, 0);
    if (mode == 0 && in.size() > 2 && in[2]) std::memcpy(value.data(), in[2]->data, es);  // same storage type
    if (r == 0) {
      std::memcpy(y.data, x.data, es);
      return Status::Ok();
    }
    // Nothing to write; and one dim of an empty output may be huge (the index maps below are per dim).
    if (y.numel() == 0) return Status::Ok();
    const std::vector<int64_t> pads = Ints(in[1]);
    std::vector<int64_t> axes(r);
    for (size_t i = 0; i < r; ++i) axes[i] = static_cast<int64_t>(i);
    if (in.size() > 3 && in[3]) axes = Ints(in[3]);
    const size_t n = axes.size();
    std::vector<int64_t> pb(r, 0), pe(r, 0);
    for (size_t i = 0; i < n; ++i) {
      pb[Axis(axes[i], r)] = pads[i];
      pe[Axis(axes[i], r)] = pads[i + n];
    }
    std::vector<std::vector<int64_t>> maps(r);
    for (size_t d = 0; d < r; ++d) {
      // Source range kept after cropping: [lo, lo + len); output index o maps to o - begin.
      const int64_t od = y.shape[d], begin = pb[d];
      const int64_t lo = std::max<int64_t>(0, -begin), len = x.shape[d] - lo - std::max<int64_t>(0, -pe[d]);
      const int64_t period = 2 * (len - 1);
      maps[d].resize(static_cast<size_t>(od));
      for (int64_t o = 0; o < od; ++o) {
        const int64_t s = o - begin;
        int64_t m = s;
        if (s < lo || s >= lo + len) {
          if (mode == 0) m = -1;
          else if (mode == 2) m = s < lo ? lo : lo + len - 1;
          else if (mode == 3) m = lo + (((s - lo) % len) + len) % len;  // wrap (Pad-19): the kept range repeats
          else if (period == 0) m = lo;
          else {
            int64_t t = (s - lo) % period;
            if (t < 0) t += period;
            m = lo + (t >= len ? period - t : t);
          }
        }
        maps[d][o] = m;
      }
    }
    PadRows(x, y, maps, value);
    return Status::Ok();
  });
}

/// CenterCropPad: per axis, output index o reads source o + floor((D - S) / 2) when S <= D (crop),
/// o - floor((S - D) / 2) when S > D (pad, zeros outside the source); the sizes D (input) and S
/// (output) are all it needs, so the `shape` input and `axes` are not read here.
Result<KernelFn> MakeCenterCropPad(const Node&) {
  return KernelFn([](const Ins& in, const Outs& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const size_t r = x.shape.size(), es = DTypeSize(x.dtype);
    if (r == 0) {
      std::memcpy(y.data, x.data, es);
      return Status::Ok();
    }
    if (y.numel() == 0) return Status::Ok();
    std::vector<std::vector<int64_t>> maps(r);
    for (size_t d = 0; d < r; ++d) {
      const int64_t dim = x.shape[d], size = y.shape[d];
      const int64_t shift = size <= dim ? (dim - size) / 2 : -((size - dim) / 2);  // source = o + shift
      maps[d].resize(static_cast<size_t>(size));
      for (int64_t o = 0; o < size; ++o) {
        const int64_t src = o + shift;
        maps[d][static_cast<size_t>(o)] = src >= 0 && src < dim ? src : -1;
      }
    }
    PadRows(x, y, maps, std::vector<char>(es, 0));
    return Status::Ok();
  });
}

}  // namespace layout_ref
}  // namespace tare
