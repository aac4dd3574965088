// Reference kernel of DFT and STFT (semantics: runtime/ops/dft.cc). Both backends compute in
// double and round once to the output type: each input value (and window value) is widened to
// double; the transform is the direct O(L^2) sum, for k = 0, 1, ...:
//   re_k = sum over j = 0, 1, ... (ascending) of (xr_j cos t - -+ xi_j sin t), t = 2 pi ((j k) mod L) / L,
//   im_k likewise (xi_j cos t -+ xr_j sin t), each term formed then added to the running sum,
// with the twiddles cos/sin of 2 pi q / L (q < L) evaluated in double; the inverse divides the sums
// by L. Each result is then rounded once to the output type (float16: once, from double). `ref`
// and `ref64` therefore differ only by that final rounding (STFT's window product is in double too).
// The direct sum costs O(L m) per line (no FFT): the reference favours one simple, fixed order
// over speed.
#include <cmath>
#include <vector>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

void StoreRounded(Tensor& y, int64_t i, double v) {
  if (y.dtype == DType::kFloat16)
    y.as<uint16_t>()[i] = DoubleToHalf(v);
  else
    WriteDouble(y, i, v);
}

/// The DFT of length L of the line (xr, xi) of J <= L values (zero-padded to L), bins k < m, into
/// (re, im). `cs`/`sn` hold cos/sin of 2 pi q / L for q < L.
void DftLine(const std::vector<double>& xr, const std::vector<double>& xi, int64_t J, int64_t L, int64_t m,
             bool inverse, const std::vector<double>& cs, const std::vector<double>& sn, std::vector<double>& re,
             std::vector<double>& im) {
  for (int64_t k = 0; k < m; ++k) {
    double sr = 0, si = 0;
    int64_t q = 0;  // (j * k) mod L
    for (int64_t j = 0; j < J; ++j) {
      const double c = cs[static_cast<size_t>(q)], s = sn[static_cast<size_t>(q)];
      const double a = xr[static_cast<size_t>(j)], b = xi[static_cast<size_t>(j)];
      if (inverse) {
        sr += a * c - b * s;
        si += b * c + a * s;
      } else {
        sr += a * c + b * s;
        si += b * c - a * s;
      }
      q += k;
      if (q >= L) q -= L;
    }
    if (inverse) {
      sr /= static_cast<double>(L);
      si /= static_cast<double>(L);
    }
    re[static_cast<size_t>(k)] = sr;
    im[static_cast<size_t>(k)] = si;
  }
}

void Twiddles(int64_t L, std::vector<double>& cs, std::vector<double>& sn) {
  const double pi = std::acos(-1.0);
  cs.resize(static_cast<size_t>(L));
  sn.resize(static_cast<size_t>(L));
  for (int64_t q = 0; q < L; ++q) {
    const double t = 2.0 * pi * static_cast<double>(q) / static_cast<double>(L);
    cs[static_cast<size_t>(q)] = std::cos(t);
    sn[static_cast<size_t>(q)] = std::sin(t);
  }
}

int64_t ScalarInt(const Tensor* t, int64_t dflt) { return t ? ReadInt(*t, 0) : dflt; }

}  // namespace

template <class T>
Result<KernelFn> MakeDft(const Node& node) {
  if (node.op == "STFT") {
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Tensor& s = *in[0];
      const Tensor* w = in.size() > 2 ? in[2] : nullptr;
      const Tensor* fl = in.size() > 3 ? in[3] : nullptr;
      Tensor& y = *out[0];
      if (y.numel() == 0) return Status::Ok();
      const int64_t step = ReadInt(*in[1], 0);
      const int64_t L = fl ? ReadInt(*fl, 0) : w->shape[0];
      const int64_t batch = s.shape[0], len = s.shape[1], c = s.shape[2];
      const int64_t frames = y.shape[1], m = y.shape[2];
      std::vector<double> cs, sn, xr(static_cast<size_t>(L)), xi(static_cast<size_t>(L)), re(static_cast<size_t>(m)),
          im(static_cast<size_t>(m));
      Twiddles(L, cs, sn);
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t j = 0; j < L; ++j) {
            const int64_t p = (b * len + f * step + j) * c;
            const double wj = w ? ReadDouble(*w, j) : 1.0;
            xr[static_cast<size_t>(j)] = ReadDouble(s, p) * wj;
            xi[static_cast<size_t>(j)] = c == 2 ? ReadDouble(s, p + 1) * wj : 0.0;
          }
          DftLine(xr, xi, L, L, m, false, cs, sn, re, im);
          for (int64_t k = 0; k < m; ++k) {
            const int64_t o = ((b * frames + f) * m + k) * 2;
            StoreRounded(y, o, re[static_cast<size_t>(k)]);
            StoreRounded(y, o + 1, im[static_cast<size_t>(k)]);
          }
        }
      return Status::Ok();
    });
  }
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 1));
  TARE_ASSIGN_OR_RETURN(int64_t inverse, node.GetInt("inverse", 0));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (y.numel() == 0) return Status::Ok();
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const int64_t a = axis < 0 ? axis + r : axis;
    const int64_t n = x.shape[a], c = x.shape[r - 1];
    const int64_t L = ScalarInt(in.size() > 1 ? in[1] : nullptr, n);
    const int64_t m = y.shape[a], J = n < L ? n : L;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= x.shape[d];
    for (int64_t d = a + 1; d < r - 1; ++d) inner *= x.shape[d];
    std::vector<double> cs, sn, xr(static_cast<size_t>(J)), xi(static_cast<size_t>(J)), re(static_cast<size_t>(m)),
        im(static_cast<size_t>(m));
    Twiddles(L, cs, sn);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t j = 0; j < J; ++j) {
          const int64_t p = ((o * n + j) * inner + i) * c;
          xr[static_cast<size_t>(j)] = ReadDouble(x, p);
          xi[static_cast<size_t>(j)] = c == 2 ? ReadDouble(x, p + 1) : 0.0;
        }
        DftLine(xr, xi, J, L, m, inverse != 0, cs, sn, re, im);
        for (int64_t k = 0; k < m; ++k) {
          const int64_t q = ((o * m + k) * inner + i) * 2;
          StoreRounded(y, q, re[static_cast<size_t>(k)]);
          StoreRounded(y, q + 1, im[static_cast<size_t>(k)]);
        }
      }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Dft)

}  // namespace tare
