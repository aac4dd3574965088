// MelWeightMatrix. Expected values from an independent numpy (float64) transcription of the
// ONNX definition: P = n + 2, step = (mel(hi) - mel(lo)) / P, mel(f) = 2595 log10(1 + f/700),
// bin[p] = floor((dft + 1) * 700 (10^((mel(lo) + p step) / 2595) - 1) / sr), then the triangles
// (rise (j - l)/(c - l) on [l, c], fall (r - j)/(r - c) on [c, r)) written by hand from the bins:
//   (8, 16, 8192, 0, 4096): bins [0 0 0 1 1 2 3 4 5 6] (the ONNX test case; its comment lists the matrix)
//   (3, 32, 16000, 100, 8000): bins [0 1 2 5 9]
//   (2, 8, 8000, 0, 20000): bins [0 1 3 9] (upper edge above Nyquist: rows 5..8 are dropped)
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
std::vector<Tensor> Args(int64_t mels, int64_t dft, int64_t sr, double lo, double hi, DType it = DType::kInt64) {
  return {Make(it, {}, {double(mels)}), Make(it, {}, {double(dft)}), Make(it, {}, {double(sr)}), F32({}, {lo}),
          F32({}, {hi})};
}
}  // namespace

TEST_CASE("MelWeightMatrix: the ONNX example") {
  std::vector<double> want(9 * 8, 0.0);
  const int ones[][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& rc : ones) want[rc[0] * 8 + rc[1]] = 1;
  Check(NodeOf("MelWeightMatrix"), Args(8, 16, 8192, 0, 4096, DType::kInt32), {{{9, 8}, want}}, 1, 1);
}

TEST_CASE("MelWeightMatrix: sloped filters, dropped rows, output types") {
  std::vector<double> want(17 * 3, 0.0);
  // Filter 0: l=0 c=1 r=2; filter 1: l=1 c=2 r=5; filter 2: l=2 c=5 r=9.
  want[1 * 3 + 0] = 1;
  want[2 * 3 + 1] = 1, want[3 * 3 + 1] = 2.0 / 3, want[4 * 3 + 1] = 1.0 / 3;
  want[3 * 3 + 2] = 1.0 / 3, want[4 * 3 + 2] = 2.0 / 3, want[5 * 3 + 2] = 1, want[6 * 3 + 2] = 0.75,
               want[7 * 3 + 2] = 0.5, want[8 * 3 + 2] = 0.25;
  Check(NodeOf("MelWeightMatrix"), Args(3, 32, 16000, 100, 8000), {{{17, 3}, want}}, 1, 1);
  Check(NodeOf("MelWeightMatrix").Attr("output_datatype", 11), Args(3, 32, 16000, 100, 8000),
        {{{17, 3}, want, DType::kFloat64}}, 1, 1);
  // Filter 0: l=0 c=1 r=3 -> rows 0..2 = 0, 1, 0.5; filter 1: l=1 c=3 r=9 -> rows 1..4 = 0, 0.5, 1, 5/6.
  Check(NodeOf("MelWeightMatrix"), Args(2, 8, 8000, 0, 20000), {{{5, 2}, {0, 0, 1, 0, 0.5, 0.5, 0, 1, 0, 5.0 / 6}}}, 1,
        1);
  Check(NodeOf("MelWeightMatrix").Attr("output_datatype", 7), Args(2, 8, 8000, 0, 20000),
        {{{5, 2}, {0, 0, 1, 0, 0, 0, 0, 1, 0, 0}, DType::kInt64}});
}

TEST_CASE("MelWeightMatrix rejects bad arguments") {
  CheckFails(NodeOf("MelWeightMatrix"), Args(0, 16, 8000, 0, 4000), "num_mel_bins");
  CheckFails(NodeOf("MelWeightMatrix"), Args(4, 0, 8000, 0, 4000), "dft_length");
  CheckFails(NodeOf("MelWeightMatrix"), Args(4, 16, -1, 0, 4000), "sample_rate");
  CheckFails(NodeOf("MelWeightMatrix"), Args(4, 16, 8000, 100, 50), "lower_edge_hertz <= upper_edge_hertz");
  CheckFails(NodeOf("MelWeightMatrix"), Args(4, 16, 8000, -5, 50), "lower_edge_hertz <= upper_edge_hertz");
  CheckFails(NodeOf("MelWeightMatrix"), Args(4, 16, 8000, 0, NAN), "finite");
  CheckFails(NodeOf("MelWeightMatrix").Attr("output_datatype", 9), Args(4, 16, 8000, 0, 4000), "output_datatype");
  std::vector<Tensor> a = Args(4, 16, 8000, 0, 4000);
  a[0] = F32({}, {4});
  CheckFails(NodeOf("MelWeightMatrix"), a, "int32 or int64");
  a = Args(4, 16, 8000, 0, 4000);
  a[4] = F32({2}, {1, 2});
  CheckFails(NodeOf("MelWeightMatrix"), a, "scalar");
}
