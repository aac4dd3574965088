// DFT and STFT. Expected values: small transforms by hand (X_k = sum_j x_j exp(-2 pi i j k / L))
// and checked with numpy (float64): np.fft.fft([1,2,3,4]) = [10, -2+2j, -2, -2-2j];
// np.fft.fft([1,2,3,4], 6) (zero-padded) = [10, -3.5-4.330127018922193j, 2.5+0.8660254037844386j, -2,
// 2.5-0.8660254037844386j, -3.5+4.330127018922193j]; np.fft.fft([1,2,3,4], 2) = [3, -1];
// np.fft.ifft([1+2j, -1+0.5j, 3-1j]) = [1+0.5j, -0.4330127018922193-0.40470053837925146j,
// 0.4330127018922193+1.9047005383792515j]; np.fft.fft([[1,2,3],[4,5,7]], axis=1) =
// [[6, -1.5+0.8660254037844386j, -1.5-0.8660254037844386j], [16, -2+1.7320508075688772j, -2-1.7320508075688772j]];
// STFT of 0..7, frame 4, step 2: np.fft.fft(s[2f:2f+4]) -> [6|14|22, -2+2j, -2] (first 3 bins); with
// window [0,1,1,0]: [3|7|11, -2-1j|-4-3j|-6-5j, 1] (and bin 3 the conjugate of bin 1).
// Checks use k = L and scale = sum|x| (the dot-product budget).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("DFT of a real signal: full, onesided, padded, truncated") {
  const Tensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  Check(NodeOf("DFT"), {x}, {{{1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}}}, 4, 10);
  Check(NodeOf("DFT").Attr("onesided", 1), {x}, {{{1, 3, 2}, {10, 0, -2, 2, -2, 0}}}, 4, 10);
  Check(NodeOf("DFT"), {x, I64({}, {6})},
        {{{1, 6, 2},
          {10, 0, -3.5, -4.330127018922193, 2.5, 0.8660254037844386, -2, 0, 2.5, -0.8660254037844386, -3.5,
           4.330127018922193}}},
        6, 10);
  Check(NodeOf("DFT"), {x, Make(DType::kInt32, {}, {2})}, {{{1, 2, 2}, {3, 0, -1, 0}}}, 2, 10);
  Check(NodeOf("DFT").Attr("onesided", 1), {x, I64({}, {6})},
        {{{1, 4, 2}, {10, 0, -3.5, -4.330127018922193, 2.5, 0.8660254037844386, -2, 0}}}, 6, 10);
}

TEST_CASE("DFT of an empty signal is empty") { Check(NodeOf("DFT"), {F32({2, 0, 1}, {})}, {{{2, 0, 2}, {}}}); }

TEST_CASE("DFT inverse of a complex signal, and along axis 2") {
  Check(NodeOf("DFT").Attr("inverse", 1), {F32({1, 3, 2}, {1, 2, -1, 0.5, 3, -1})},
        {{{1, 3, 2}, {1, 0.5, -0.4330127018922193, -0.40470053837925146, 0.4330127018922193, 1.9047005383792515}}}, 3,
        8.5);
  // x [1, 2, 3, 1]: rows [1,2,3] and [4,5,7] transformed along axis 2 (negative axis -2 too).
  const Tensor x = F32({1, 2, 3, 1}, {1, 2, 3, 4, 5, 7});
  const Expect y{{1, 2, 3, 2},
                 {6, 0, -1.5, 0.8660254037844386, -1.5, -0.8660254037844386, 16, 0, -2, 1.7320508075688772, -2,
                  -1.7320508075688772}};
  Check(NodeOf("DFT").Attr("axis", 2), {x}, {y}, 3, 16);
  Check(NodeOf("DFT").Attr("axis", -2), {x}, {y}, 3, 16);
  // Along axis 1 each column [a, b] gives [a + b, a - b].
  Check(NodeOf("DFT"), {x}, {{{1, 2, 3, 2}, {5, 0, 7, 0, 10, 0, -3, 0, -3, 0, -4, 0}}}, 2, 10);
}

TEST_CASE("STFT with frame_length, with a window, two-sided") {
  const Tensor s = F32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  Check(NodeOf("STFT"), {s, I64({}, {2}), Tensor(), I64({}, {4})},
        {{{1, 3, 3, 2}, {6, 0, -2, 2, -2, 0, 14, 0, -2, 2, -2, 0, 22, 0, -2, 2, -2, 0}}}, 4, 22);
  const Tensor w = F32({4}, {0, 1, 1, 0});
  Check(NodeOf("STFT"), {s, I64({}, {2}), w},
        {{{1, 3, 3, 2}, {3, 0, -2, -1, 1, 0, 7, 0, -4, -3, 1, 0, 11, 0, -6, -5, 1, 0}}}, 4, 22);
  Check(NodeOf("STFT").Attr("onesided", 0), {s, I64({}, {2}), w, I64({}, {4})},
        {{{1, 3, 4, 2}, {3, 0, -2, -1, 1, 0, -2, 1, 7, 0, -4, -3, 1, 0, -4, 3, 11, 0, -6, -5, 1, 0, -6, 5}}}, 4, 22);
  // A step that does not divide: frames = (8 - 4) / 3 + 1 = 2 (starts 0 and 3: 3+4+5+6 = 18).
  Check(NodeOf("STFT"), {s, I64({}, {3}), Tensor(), I64({}, {4})},
        {{{1, 2, 3, 2}, {6, 0, -2, 2, -2, 0, 18, 0, -2, 2, -2, 0}}}, 4, 22);
}

TEST_CASE("DFT and STFT reject bad shapes and attributes") {
  CheckFails(NodeOf("DFT"), {F32({4, 1}, {1, 2, 3, 4})}, "rank >= 3");
  CheckFails(NodeOf("DFT"), {F32({1, 2, 3}, {1, 2, 3, 4, 5, 6})}, "last dimension");
  CheckFails(NodeOf("DFT").Attr("axis", 0), {F32({1, 4, 1}, {1, 2, 3, 4})}, "axis");
  CheckFails(NodeOf("DFT").Attr("axis", 2), {F32({1, 4, 1}, {1, 2, 3, 4})}, "axis");
  CheckFails(NodeOf("DFT").Attr("onesided", 1), {F32({1, 2, 2}, {1, 2, 3, 4})}, "real input");
  CheckFails(NodeOf("DFT").Attr("onesided", 1).Attr("inverse", 1), {F32({1, 4, 1}, {1, 2, 3, 4})}, "inverse");
  CheckFails(NodeOf("DFT").Attr("inverse", 3), {F32({1, 4, 1}, {1, 2, 3, 4})}, "inverse");
  CheckFails(NodeOf("DFT"), {F32({1, 4, 1}, {1, 2, 3, 4}), I64({}, {0})}, "dft_length");
  CheckFails(NodeOf("DFT").Attr("onesided", 1), {F32({1, 0, 1}, {})}, "non-empty");
  CheckFails(NodeOf("DFT"), {Make(DType::kInt32, {1, 4, 1}, {1, 2, 3, 4})}, "not supported");
  const Tensor s = F32({1, 8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  CheckFails(NodeOf("STFT"), {s, I64({}, {2})}, "window and frame_length");
  CheckFails(NodeOf("STFT"), {s, I64({}, {0}), Tensor(), I64({}, {4})}, "frame_step");
  CheckFails(NodeOf("STFT"), {s, I64({}, {2}), Tensor(), I64({}, {9})}, "exceeds");
  CheckFails(NodeOf("STFT"), {s, I64({}, {2}), F32({3}, {1, 1, 1}), I64({}, {4})}, "differs");
  CheckFails(NodeOf("STFT"), {F32({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), I64({}, {2}), Tensor(), I64({}, {2})},
             "real signal");
  CheckFails(NodeOf("STFT"), {F32({8, 1}, {0, 1, 2, 3, 4, 5, 6, 7}), I64({}, {2}), Tensor(), I64({}, {2})}, "shape");
}
