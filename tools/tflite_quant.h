// Quantization parameters as the test-model tools write them into .tflite files through tare's
// model builder (converters/tflite/tflite_builder.h): a tensor's scales and zero points, and
// TFLite's symmetric int8 weight quantization. Shared by tools/make_tflite_ops.cc (the quantized
// op cases) and tools/make_tflite_twin.cc (the int8 twin).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "converters/tflite/tflite_builder.h"
#include "tflite_schema_generated.h"

namespace tare::tools {

/// Quantization parameters of one tensor (per channel when scale has more than one value).
struct QParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int axis = 0;
};

/// The QuantizationParameters table of `q` (quantized_dimension = q.axis).
inline flatbuffers::Offset<tfl::QuantizationParameters> MakeQ(tflite::ModelBuilder& w, const QParams& q) {
  const auto s = w.fbb().CreateVector(q.scale);
  const auto z = w.fbb().CreateVector(q.zero_point);
  return tfl::CreateQuantizationParameters(w.fbb(), 0, 0, s, z, tfl::QuantizationDetails::NONE, 0, q.axis);
}

/// Symmetric int8 weights: per channel (`channels` > 1; the channel of element i is i / (n /
/// channels), or i % channels when `last_axis`), else per tensor; scale max|w| / 127 (float32),
/// codes round(w / scale) (ties away from zero) clamped to [-127, 127], zero point 0.
struct QWeights {
  std::vector<int8_t> q;
  std::vector<double> real;  // dequantized
  QParams p;
};
inline QWeights QuantizeWeights(const std::vector<float>& f, int channels, bool last_axis, int axis) {
  QWeights r;
  const size_t n = f.size(), per = n / static_cast<size_t>(channels);
  auto ch = [&](size_t i) { return channels == 1 ? size_t{0} : (last_axis ? i % static_cast<size_t>(channels) : i / per); };
  std::vector<float> m(static_cast<size_t>(channels), 0.0f);
  for (size_t i = 0; i < n; ++i) m[ch(i)] = std::max(m[ch(i)], std::fabs(f[i]));
  for (float v : m) r.p.scale.push_back(v / 127.0f), r.p.zero_point.push_back(0);
  r.p.axis = axis;
  for (size_t i = 0; i < n; ++i) {
    const float sc = r.p.scale[ch(i)];
    const int64_t q = std::min<int64_t>(127, std::max<int64_t>(-127, std::llround(f[i] / sc)));
    r.q.push_back(static_cast<int8_t>(q));
    r.real.push_back(static_cast<double>(q) * sc);
  }
  return r;
}

}  // namespace tare::tools
