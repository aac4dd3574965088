// Reference kernel of MelWeightMatrix (semantics: runtime/ops/mel_weight.cc). The mel points and
// their bins are computed in double (the same on every backend); each filter value is the quotient
// of two integers, evaluated in double and rounded once to the output type (integer types
// truncate toward zero), so `ref` and `ref64` differ by that one rounding.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeMelWeight(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    Tensor& y = *out[0];
    const int64_t rows = y.shape[0], mels = y.shape[1];
    if (y.numel() == 0) return Status::Ok();
    const int64_t dft_length = ReadInt(*in[1], 0), sample_rate = ReadInt(*in[2], 0);
    const double lower = ReadDouble(*in[3], 0), upper = ReadDouble(*in[4], 0);
    auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    const double low_mel = mel(lower), high_mel = mel(upper);
    const int64_t points = mels + 2;
    const double step = (high_mel - low_mel) / static_cast<double>(points);
    // bin[p], clamped to [0, 2^50]: the hz of the first point may round to a hair below 0, and an
    // upper edge far above the Nyquist frequency must not overflow int64 (bins past the last row
    // only place rows that are dropped; the slopes of the rows inside are kept).
    std::vector<int64_t> bin(static_cast<size_t>(points));
    for (int64_t p = 0; p < points; ++p) {
      const double hz = 700.0 * (std::pow(10.0, (low_mel + static_cast<double>(p) * step) / 2595.0) - 1.0);
      const double b = std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate));
      bin[static_cast<size_t>(p)] = static_cast<int64_t>(std::clamp(b, 0.0, 1125899906842624.0));  // 2^50
    }
    // y is zero-filled (all-zero bytes are 0 in every numeric type), then each filter's values are
    // written in the order of the definition (the fall overwrites the rise's 1 at the center with 1).
    std::memset(y.data, 0, y.nbytes());
    auto put = [&](int64_t j, int64_t i, double v) {
      const int64_t e = j * mels + i;
      if (y.dtype == DType::kFloat16)
        y.as<uint16_t>()[e] = DoubleToHalf(v);
      else
        WriteDouble(y, e, v);
    };
    for (int64_t i = 0; i < mels; ++i) {
      const int64_t left = bin[static_cast<size_t>(i)], center = bin[static_cast<size_t>(i + 1)],
                    right = bin[static_cast<size_t>(i + 2)];
      if (center == left) {
        if (center < rows) put(center, i, 1.0);
      } else {
        for (int64_t j = left; j <= std::min(center, rows - 1); ++j)
          put(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
      }
      if (right > center)
        for (int64_t j = center; j < std::min(right, rows); ++j)
          put(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(MelWeight)

}  // namespace tare
