// Layout ops (data movement and shape ops). Expected values are worked out by hand (index
// arithmetic noted per case); the Transpose, Slice and Pad cases were also cross-checked with
// numpy (np.transpose, basic slicing, np.pad), as noted.
#include <cstdint>
#include <limits>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
constexpr DType kI64 = DType::kInt64;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// 0, 1, ..., n-1 as doubles.
std::vector<double> Iota(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}
}  // namespace

TEST_CASE("Flatten at every axis, negative axis, rejection") {
  const Tensor x = F32({2, 3, 4}, Iota(24));
  Check(NodeOf("Flatten"), {x}, {{{2, 12}, Iota(24)}});  // default axis 1: [2, 3*4]
  Check(NodeOf("Flatten").Attr("axis", int64_t(0)), {x}, {{{1, 24}, Iota(24)}});
  Check(NodeOf("Flatten").Attr("axis", int64_t(-1)), {x}, {{{6, 4}, Iota(24)}});
  Check(NodeOf("Flatten").Attr("axis", int64_t(3)), {x}, {{{24, 1}, Iota(24)}});
  CheckFails(NodeOf("Flatten").Attr("axis", int64_t(4)), {x}, "out of range");
}

TEST_CASE("Reshape with 0, -1, allowzero; rejections") {
  const Tensor x = F32({2, 3, 4}, Iota(24));
  Check(NodeOf("Reshape"), {x, I64({2}, {0, -1})}, {{{2, 12}, Iota(24)}});   // 0 copies dim 0 (2); -1 = 24/2
  Check(NodeOf("Reshape"), {x, I64({3}, {-1, 3, 2})}, {{{4, 3, 2}, Iota(24)}});
  Check(NodeOf("Reshape"), {F32({1, 1}, {5}), I64({0}, {})}, {{{}, {5}}});  // empty shape -> scalar
  // allowzero=1: 0 is a real zero dim; input [0,3] has 0 elements like [3,0].
  Check(NodeOf("Reshape").Attr("allowzero", int64_t(1)), {F32({0, 3}, {}), I64({2}, {3, 0})}, {{{3, 0}, {}}});
  Check(NodeOf("Reshape"), {I64({4}, {1, 2, 3, 4}), I64({2}, {2, 2})}, {{{2, 2}, {1, 2, 3, 4}, kI64}});
  CheckFails(NodeOf("Reshape"), {x, I64({2}, {5, 5})}, "has 25 elements");
  CheckFails(NodeOf("Reshape"), {x, I64({2}, {-1, -1})}, "more than one -1");
  CheckFails(NodeOf("Reshape"), {x, I64({2}, {-1, 5})}, "cannot infer");
  CheckFails(NodeOf("Reshape"), {x, I64({2}, {-2, 12})}, "must be >= -1");
  CheckFails(NodeOf("Reshape"), {x, I64({4}, {0, 0, 0, 0})}, "copies input dim 3");
  CheckFails(NodeOf("Reshape").Attr("allowzero", int64_t(1)), {F32({0, 3}, {}), I64({2}, {0, -1})}, "both 0 and -1");
}

TEST_CASE("Squeeze and Unsqueeze with axes inputs, negative axes, rejections") {
  const Tensor x = F32({1, 3, 1, 2}, Iota(6));
  Check(NodeOf("Squeeze"), {x, I64({1}, {-2})}, {{{1, 3, 2}, Iota(6)}});  // -2 -> axis 2
  Check(NodeOf("Squeeze"), {x}, {{{3, 2}, Iota(6)}});                    // every dim of 1
  Check(NodeOf("Squeeze"), {x, I64({2}, {0, 2})}, {{{3, 2}, Iota(6)}});
  CheckFails(NodeOf("Squeeze"), {x, I64({1}, {1})}, "dim is 3, not 1");
  CheckFails(NodeOf("Squeeze"), {x, I64({2}, {0, -4})}, "twice");
  CheckFails(NodeOf("Squeeze"), {x, I64({1}, {4})}, "out of range");
  const Tensor y = F32({3, 2}, Iota(6));
  Check(NodeOf("Unsqueeze"), {y, I64({2}, {0, -1})}, {{{1, 3, 2, 1}, Iota(6)}});  // output rank 4: -1 -> 3
  Check(NodeOf("Unsqueeze"), {y, I64({1}, {1})}, {{{3, 1, 2}, Iota(6)}});
  Check(NodeOf("Unsqueeze"), {I64({}, {7}), I64({1}, {0})}, {{{1}, {7}, kI64}});
  CheckFails(NodeOf("Unsqueeze"), {y, I64({2}, {1, 1})}, "twice");
  CheckFails(NodeOf("Unsqueeze"), {y, I64({1}, {3})}, "out of range");
  CheckFails(NodeOf("Unsqueeze"), {y}, "expects 2 inputs");
}

TEST_CASE("Transpose default and explicit perm, any dtype") {
  // [2,3]: y[j][i] = x[i][j].
  Check(NodeOf("Transpose"), {F32({2, 3}, {0, 1, 2, 3, 4, 5})}, {{{3, 2}, {0, 3, 1, 4, 2, 5}}});
  // [2,3,4], perm (1,2,0): y[j][k][i] = x[i][j][k] = 12i + 4j + k (numpy-checked).
  Check(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{1, 2, 0}), {F32({2, 3, 4}, Iota(24))},
        {{{3, 4, 2}, {0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23}}});
  Check(NodeOf("Transpose"), {Make(DType::kBool, {1, 2}, {1, 0})}, {{{2, 1}, {1, 0}, DType::kBool}});
  Check(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{0, 2, 1}), {Make(DType::kFloat16, {1, 2, 2}, {1, 2, 3, 4})},
        {{{1, 2, 2}, {1, 3, 2, 4}, DType::kFloat16}});
  Check(NodeOf("Transpose"), {F32({}, {3})}, {{{}, {3}}});
  CheckFails(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{0, 0, 1}), {F32({1, 2, 3}, Iota(6))}, "not a permutation");
  CheckFails(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{1, 0}), {F32({1, 2, 3}, Iota(6))}, "has 2 entries");
}

TEST_CASE("Concat along inner, outer and negative axes; rejections") {
  const Tensor a = F32({2, 2}, {1, 2, 3, 4}), b = F32({2, 1}, {5, 6});
  // Rows: [1 2 | 5], [3 4 | 6].
  Check(NodeOf("Concat").Attr("axis", int64_t(1)), {a, b}, {{{2, 3}, {1, 2, 5, 3, 4, 6}}});
  Check(NodeOf("Concat").Attr("axis", int64_t(-1)), {a, b, b}, {{{2, 4}, {1, 2, 5, 5, 3, 4, 6, 6}}});
  Check(NodeOf("Concat").Attr("axis", int64_t(0)), {a, F32({1, 2}, {7, 8})}, {{{3, 2}, {1, 2, 3, 4, 7, 8}}});
  Check(NodeOf("Concat").Attr("axis", int64_t(0)), {I64({1}, {1}), I64({0}, {}), I64({2}, {-1, 4})},
        {{{3}, {1, -1, 4}, kI64}});
  Check(NodeOf("Concat").Attr("axis", int64_t(0)), {Make(DType::kUInt8, {1}, {200}), Make(DType::kUInt8, {1}, {7})},
        {{{2}, {200, 7}, DType::kUInt8}});
  CheckFails(NodeOf("Concat").Attr("axis", int64_t(0)), {a, b}, "does not match");
  CheckFails(NodeOf("Concat").Attr("axis", int64_t(1)), {a, F32({2}, {1, 2})}, "does not match");
  CheckFails(NodeOf("Concat").Attr("axis", int64_t(0)), {I64({1}, {1}), F32({1}, {1})}, "has type");
  CheckFails(NodeOf("Concat"), {a, b}, "'axis' is required");
  CheckFails(NodeOf("Concat").Attr("axis", int64_t(2)), {a, b}, "out of range");
  CheckFails(NodeOf("Concat").Attr("axis", int64_t(0)), {F32({}, {1}), F32({}, {2})}, "rank >= 1");
}

TEST_CASE("Split equal parts and by the split input; rejections") {
  Check(NodeOf("Split", 3), {F32({6}, Iota(6))}, {{{2}, {0, 1}}, {{2}, {2, 3}}, {{2}, {4, 5}}});
  // [2,3] split [1,2] on axis 1 (= -1): columns {0} and {1,2}.
  Check(NodeOf("Split", 2).Attr("axis", int64_t(-1)), {F32({2, 3}, Iota(6)), I64({2}, {1, 2})},
        {{{2, 1}, {0, 3}}, {{2, 2}, {1, 2, 4, 5}}});
  Check(NodeOf("Split", 2), {I64({3}, {4, 5, 6}), I64({2}, {3, 0})}, {{{3}, {4, 5, 6}, kI64}, {{0}, {}, kI64}});
  CheckFails(NodeOf("Split", 2), {F32({3}, Iota(3))}, "equal parts");
  CheckFails(NodeOf("Split", 2), {F32({3}, Iota(3)), I64({2}, {1, 1})}, "sums to 2");
  CheckFails(NodeOf("Split", 2), {F32({3}, Iota(3)), I64({3}, {1, 1, 1})}, "3 entries for 2 outputs");
  CheckFails(NodeOf("Split", 2), {F32({3}, Iota(3)), I64({2}, {-1, 4})}, "invalid size");
}

TEST_CASE("Slice: negative, clamped and reversed ranges, axes and steps") {
  const Tensor x = F32({3, 4}, Iota(12));  // x[i][j] = 4i + j
  // rows 1..2, cols 0..2 (end -1 -> 3): numpy x[1:3, 0:-1] (numpy-checked).
  Check(NodeOf("Slice"), {x, I64({2}, {1, 0}), I64({2}, {3, -1})}, {{{2, 3}, {4, 5, 6, 8, 9, 10}}});
  // Both axes reversed, steps -2 and -3, starts/ends at the int64 extremes: x[::-2, ::-3].
  Check(NodeOf("Slice"), {x, I64({2}, {kMax, -1}), I64({2}, {kMin, kMin}), I64({2}, {0, 1}), I64({2}, {-2, -3})},
        {{{2, 2}, {11, 8, 3, 0}}});
  // Axis -1 only, from 3 down to (not incl.) 0 step -2: cols 3, 1: x[:, 3:0:-2].
  Check(NodeOf("Slice"), {x, I64({1}, {3}), I64({1}, {0}), I64({1}, {-1}), I64({1}, {-2})},
        {{{3, 2}, {3, 1, 7, 5, 11, 9}}});
  // Out-of-range values clamp: rows [-100, 100) -> all; cols [2, 1) -> empty.
  Check(NodeOf("Slice"), {x, I64({2}, {-100, 2}), I64({2}, {100, 1})}, {{{3, 0}, {}}});
  // Step larger than the dim takes one element; step INT64_MIN likewise.
  Check(NodeOf("Slice"), {x, I64({1}, {1}), I64({1}, {kMax}), I64({1}, {1}), I64({1}, {kMax})}, {{{3, 1}, {1, 5, 9}}});
  Check(NodeOf("Slice"), {x, I64({1}, {-1}), I64({1}, {kMin}), I64({1}, {0}), I64({1}, {kMin})}, {{{1, 4}, {8, 9, 10, 11}}});
  // int64 shape arithmetic: the last two entries of a shape vector.
  Check(NodeOf("Slice"), {I64({4}, {1, 3, 224, 224}), I64({1}, {-2}), I64({1}, {kMax})}, {{{2}, {224, 224}, kI64}});
  CheckFails(NodeOf("Slice"), {x, I64({1}, {0}), I64({1}, {1}), I64({1}, {0}), I64({1}, {0})}, "steps[0] is 0");
  CheckFails(NodeOf("Slice"), {x, I64({2}, {0, 0}), I64({2}, {1, 1}), I64({2}, {1, -1})}, "twice");
  CheckFails(NodeOf("Slice"), {x, I64({2}, {0, 0}), I64({1}, {1})}, "different lengths");
  CheckFails(NodeOf("Slice"), {x, I64({1}, {0}), I64({1}, {1}), I64({1}, {2})}, "out of range");
}

TEST_CASE("Gather on axes 0 and 1, negative and int32 indices") {
  const Tensor data = F32({3, 2}, {1.0, 1.2, 2.3, 3.4, 4.5, 5.7});
  // ONNX doc example, axis 0, indices [[0,1],[1,2]]: rows 0,1,1,2.
  Check(NodeOf("Gather"), {data, I64({2, 2}, {0, 1, 1, 2})},
        {{{2, 2, 2}, {1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7}}});
  // axis 1, indices [-1, 0] (int32): columns 1, 0 of each row.
  Check(NodeOf("Gather").Attr("axis", int64_t(1)), {data, Make(DType::kInt32, {2}, {-1, 0})},
        {{{3, 2}, {1.2, 1.0, 3.4, 2.3, 5.7, 4.5}}});
  // Scalar index removes the axis: shape vector [1,3,8,8], index -3 -> 3.
  Check(NodeOf("Gather"), {I64({4}, {1, 3, 8, 8}), I64({}, {-3})}, {{{}, {3}, kI64}});
  Check(NodeOf("Gather"), {Make(DType::kInt32, {2, 2}, {5, 6, 7, 8}), I64({1}, {1})}, {{{1, 2}, {7, 8}, DType::kInt32}});
  CheckFails(NodeOf("Gather"), {data, I64({1}, {3})}, "index 3 is out of range");
  CheckFails(NodeOf("Gather"), {data, I64({1}, {-4})}, "index -4 is out of range");
  CheckFails(NodeOf("Gather"), {data, F32({1}, {0})}, "must be int32 or int64");
  CheckFails(NodeOf("Gather").Attr("axis", int64_t(2)), {data, I64({1}, {0})}, "out of range");
}

TEST_CASE("Gather kernel rejects an out-of-range index at run time") {
  // Indices unknown at plan time reach the kernel unchecked; it must refuse them, naming the index.
  Node node = NodeOf("Gather");
  node.inputs = {0, 1};
  const Tensor data = F32({3}, {1, 2, 3});
  for (DType idx_type : {DType::kInt64, DType::kInt32}) {
    Tensor idx = Make(idx_type, {2}, {0, 7});
    Tensor out = Tensor::Alloc(DType::kFloat32, {2}).value();
    Result<KernelFn> k = MakeRefKernel(node, DType::kFloat32);
    REQUIRE(k.ok());
    Status st = (*k)({&data, &idx}, {&out});
    CHECK_FALSE(st.ok());
    CHECK(st.message().find("index 7") != std::string::npos);
  }
}

TEST_CASE("Expand broadcasts both ways") {
  // [3,1] to [2,1,4]: y[b][i][j] = x[i].
  Check(NodeOf("Expand"), {F32({3, 1}, {1, 2, 3}), I64({3}, {2, 1, 4})},
        {{{2, 3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}}});
  // Shape of lower rank: [3,1] with [3] -> [3,3]; a 1 in shape keeps x's dim.
  Check(NodeOf("Expand"), {F32({3, 1}, {1, 2, 3}), I64({1}, {3})}, {{{3, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3}}});
  Check(NodeOf("Expand"), {I64({1, 2}, {4, 5}), I64({2}, {2, 1})}, {{{2, 2}, {4, 5, 4, 5}, kI64}});
  CheckFails(NodeOf("Expand"), {F32({3, 2}, Iota(6)), I64({1}, {4})}, "cannot be broadcast");
  CheckFails(NodeOf("Expand"), {F32({3}, Iota(3)), I64({1}, {-1})}, "negative");
}

TEST_CASE("Pad constant, reflect, edge, negative pads, axes") {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  // pads [b0,b1,e0,e1] = [1,0,0,1], value 9 (numpy-checked).
  Check(NodeOf("Pad"), {x, I64({4}, {1, 0, 0, 1}), F32({}, {9})}, {{{3, 4}, {9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9}}});
  Check(NodeOf("Pad"), {x, I64({4}, {0, 1, 0, 0})}, {{{2, 4}, {0, 1, 2, 3, 0, 4, 5, 6}}});  // default 0
  // reflect, pads [0,2,1,0]: rows 0 1 | 0 ; cols 2 1 | 0 1 2 (numpy-checked).
  Check(NodeOf("Pad").Attr("mode", "reflect"), {x, I64({4}, {0, 2, 1, 0})},
        {{{3, 5}, {3, 2, 1, 2, 3, 6, 5, 4, 5, 6, 3, 2, 1, 2, 3}}});
  // edge, one on every side.
  Check(NodeOf("Pad").Attr("mode", "edge"), {x, I64({4}, {1, 1, 1, 1})},
        {{{4, 5}, {1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6}}});
  // reflect longer than the range (numpy repeats the reflection): [1,2,3] pads 5,4.
  Check(NodeOf("Pad").Attr("mode", "reflect"), {F32({3}, {1, 2, 3}), I64({2}, {5, 4})},
        {{{12}, {2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}}});
  // Negative pads crop: drop column 0 and row 1, then pad one column of 7 at the end.
  Check(NodeOf("Pad"), {x, I64({4}, {0, -1, -1, 1}), F32({}, {7})}, {{{1, 3}, {2, 3, 7}}});
  // Crop then edge: [1,2,3,4] pads (-1, 2) -> [2,3,4] then repeat 4 twice.
  Check(NodeOf("Pad").Attr("mode", "edge"), {F32({4}, {1, 2, 3, 4}), I64({2}, {-1, 2})}, {{{5}, {2, 3, 4, 4, 4}}});
  // Pad-18 axes input: pad only axis -1 by (1, 0); int64 data and constant value.
  Check(NodeOf("Pad"), {I64({2, 2}, {1, 2, 3, 4}), I64({2}, {1, 0}), I64({}, {-5}), I64({1}, {-1})},
        {{{2, 3}, {-5, 1, 2, -5, 3, 4}, kI64}});
  CheckFails(NodeOf("Pad").Attr("mode", "symmetric"), {x, I64({4}, {0, 0, 0, 0})}, "mode");
  // Pad-19 wrap, pads [0,2,0,1]: numpy.pad(x, ((0, 0), (2, 1)), 'wrap') (hand-checked).
  Check(NodeOf("Pad").Attr("mode", "wrap"), {x, I64({4}, {0, 2, 0, 1})},
        {{{2, 6}, {2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4}}});
  CheckFails(NodeOf("Pad"), {x, I64({2}, {0, 0})}, "expected 4");
  CheckFails(NodeOf("Pad"), {x, I64({4}, {0, -2, 0, -2})}, "crop more than dim 3");
  CheckFails(NodeOf("Pad").Attr("mode", "edge"), {F32({2, 0}, {}), I64({4}, {0, 1, 0, 0})}, "no elements");
  CheckFails(NodeOf("Pad"), {x, I64({4}, {0, 0, 0, 0}), I64({}, {1})}, "constant_value' has type");
}

TEST_CASE("Shape with start and end (Shape-15 clamping)") {
  const Tensor x = F32({2, 3, 4}, Iota(24));
  Check(NodeOf("Shape"), {x}, {{{3}, {2, 3, 4}, kI64}});
  Check(NodeOf("Shape").Attr("start", int64_t(-1)), {x}, {{{1}, {4}, kI64}});
  Check(NodeOf("Shape").Attr("end", int64_t(-1)), {x}, {{{2}, {2, 3}, kI64}});
  Check(NodeOf("Shape").Attr("start", int64_t(1)).Attr("end", int64_t(2)), {x}, {{{1}, {3}, kI64}});
  Check(NodeOf("Shape").Attr("start", int64_t(-10)).Attr("end", int64_t(10)), {x}, {{{3}, {2, 3, 4}, kI64}});
  Check(NodeOf("Shape").Attr("start", int64_t(2)).Attr("end", int64_t(1)), {x}, {{{0}, {}, kI64}});
  Check(NodeOf("Shape"), {F32({}, {1})}, {{{0}, {}, kI64}});
}

TEST_CASE("Constant from each value attribute; ConstantOfShape") {
  Check(NodeOf("Constant").Attr("value", F32({2}, {1.5, -2})), {}, {{{2}, {1.5, -2}}});
  Check(NodeOf("Constant").Attr("value", I64({2, 1}, {3, 4})), {}, {{{2, 1}, {3, 4}, kI64}});
  Check(NodeOf("Constant").Attr("value_float", 0.25), {}, {{{}, {0.25}}});
  Check(NodeOf("Constant").Attr("value_floats", std::vector<float>{1, 2}), {}, {{{2}, {1, 2}}});
  Check(NodeOf("Constant").Attr("value_int", int64_t(-3)), {}, {{{}, {-3}, kI64}});
  Check(NodeOf("Constant").Attr("value_ints", std::vector<int64_t>{5, 6, 7}), {}, {{{3}, {5, 6, 7}, kI64}});
  CheckFails(NodeOf("Constant"), {}, "exactly one");
  CheckFails(NodeOf("Constant").Attr("value_int", int64_t(1)).Attr("value_float", 1.0), {}, "exactly one");
  CheckFails(NodeOf("Constant").Attr("value", int64_t(1)), {}, "should be tensor");

  Check(NodeOf("ConstantOfShape"), {I64({2}, {2, 1})}, {{{2, 1}, {0, 0}}});  // default float32 0
  Check(NodeOf("ConstantOfShape").Attr("value", I64({1}, {7})), {I64({1}, {3})}, {{{3}, {7, 7, 7}, kI64}});
  Check(NodeOf("ConstantOfShape").Attr("value", F32({1}, {0.5})), {I64({0}, {})}, {{{}, {0.5}}});  // scalar
  Check(NodeOf("ConstantOfShape").Attr("value", Make(DType::kBool, {1}, {1})), {I64({1}, {2})}, {{{2}, {1, 1}, DType::kBool}});
  CheckFails(NodeOf("ConstantOfShape"), {I64({2}, {2, -1})}, "negative");
  CheckFails(NodeOf("ConstantOfShape").Attr("value", F32({2}, {1, 2})), {I64({1}, {2})}, "exactly one element");
  CheckFails(NodeOf("ConstantOfShape"), {Make(DType::kInt32, {1}, {2})}, "must be int64");
}

TEST_CASE("int64 shape arithmetic chain: Shape -> Gather -> Unsqueeze -> Concat -> Reshape") {
  // x: [2,3,4,5]; batch = shape[0] = 2; new shape = concat([2], [-1]) = [2,-1]; y: [2, 60].
  const Tensor x = F32({2, 3, 4, 5}, Iota(120));
  for (DType compute : {DType::kFloat64, DType::kFloat32}) {
    Result<std::vector<Tensor>> shape = Run(NodeOf("Shape"), {x}, compute);
    REQUIRE(shape.ok());
    Result<std::vector<Tensor>> batch = Run(NodeOf("Gather"), {(*shape)[0], I64({}, {0})}, compute);
    REQUIRE(batch.ok());
    CHECK((*batch)[0].shape == Shape{});
    Result<std::vector<Tensor>> b1 = Run(NodeOf("Unsqueeze"), {(*batch)[0], I64({1}, {0})}, compute);
    REQUIRE(b1.ok());
    Result<std::vector<Tensor>> spec = Run(NodeOf("Concat").Attr("axis", int64_t(0)), {(*b1)[0], I64({1}, {-1})}, compute);
    REQUIRE(spec.ok());
    const Tensor& s = (*spec)[0];
    REQUIRE(s.shape == Shape{2});
    CHECK(s.dtype == DType::kInt64);
    CHECK(s.as<int64_t>()[0] == 2);
    CHECK(s.as<int64_t>()[1] == -1);
    Result<std::vector<Tensor>> y = Run(NodeOf("Reshape"), {x, s}, compute);
    REQUIRE(y.ok());
    CHECK((*y)[0].shape == Shape{2, 60});
  }
}

TEST_CASE("CNN-sized Transpose, Concat, Slice, Pad on 1x256x32x32") {
  // x[c][h][w] = c*1024 + h*32 + w, so every expected value is a closed form in its indices.
  const int C = 256, H = 32, W = 32, N = C * H * W;
  Tensor x = Tensor::Alloc(DType::kFloat32, {1, C, H, W}).value();
  for (int i = 0; i < N; ++i) x.as<float>()[i] = static_cast<float>(i);
  std::vector<const Tensor*> in1{&x};
  auto run = [](const Node& n_in, std::vector<const Tensor*> in) {
    Node n = n_in;
    n.inputs.clear();
    for (size_t i = 0; i < in.size(); ++i) n.inputs.push_back(static_cast<int>(i));
    Result<std::vector<Tensor>> r = EvalNode(n, in, DType::kFloat32);
    REQUIRE(r.ok());
    return (*r)[0];
  };
  // NCHW -> NHWC: y[h][w][c] = c*1024 + h*32 + w.
  Tensor t = run(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{0, 2, 3, 1}), in1);
  bool ok = true;
  for (int h = 0; h < H; ++h)
    for (int w = 0; w < W; ++w)
      for (int c = 0; c < C; ++c) ok &= t.as<float>()[(h * W + w) * C + c] == c * 1024 + h * 32 + w;
  CHECK(ok);
  // Concat(x, x) on channels: y[c'][h][w] = (c' mod 256)*1024 + h*32 + w.
  Tensor cat = run(NodeOf("Concat").Attr("axis", int64_t(1)), {&x, &x});
  ok = cat.shape == Shape{1, 2 * C, H, W};
  for (int i = 0; ok && i < 2 * N; ++i) ok &= cat.as<float>()[i] == static_cast<float>(i % N);
  CHECK(ok);
  // Slice h in [1, 31) step 2, w reversed: y[c][i][j] = c*1024 + (1+2i)*32 + (31-j).
  Tensor starts = I64({2}, {1, -1}), ends = I64({2}, {31, kMin}), axes = I64({2}, {2, 3}), steps = I64({2}, {2, -1});
  Tensor sl = run(NodeOf("Slice"), {&x, &starts, &ends, &axes, &steps});
  ok = sl.shape == Shape{1, C, 15, W};
  for (int c = 0; ok && c < C; ++c)
    for (int i = 0; i < 15; ++i)
      for (int j = 0; j < W; ++j) ok &= sl.as<float>()[(c * 15 + i) * W + j] == c * 1024 + (1 + 2 * i) * 32 + (31 - j);
  CHECK(ok);
  // Pad h and w by 1 with zeros: y[c][h'][w'] = x[c][h'-1][w'-1] inside, 0 on the border.
  Tensor pads = I64({8}, {0, 0, 1, 1, 0, 0, 1, 1});
  Tensor pd = run(NodeOf("Pad"), {&x, &pads});
  ok = pd.shape == Shape{1, C, H + 2, W + 2};
  for (int c = 0; ok && c < C; ++c)
    for (int h = 0; h < H + 2; ++h)
      for (int w = 0; w < W + 2; ++w) {
        const bool in = h >= 1 && h <= H && w >= 1 && w <= W;
        ok &= pd.as<float>()[(c * (H + 2) + h) * (W + 2) + w] == (in ? c * 1024 + (h - 1) * 32 + (w - 1) : 0);
      }
  CHECK(ok);
}

TEST_CASE("Transpose tiled path: batch dim, partial tiles, 1/4/8-byte elements") {
  // x[n][c][h][w] = ((n*C + c)*H + h)*W + w with N=2, C=40, H=5, W=7 (tiles of 32 are partial).
  // NCHW -> NHWC: y[n][h][w][c] = x[n][c][h][w]; NCHW -> NWCH: y[n][w][c][h] = x[n][c][h][w].
  const int N = 2, C = 40, H = 5, W = 7;
  std::vector<double> v(N * C * H * W);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 251);  // fits uint8 exactly
  auto x_at = [&](int n, int c, int h, int w) { return v[((n * C + c) * H + h) * W + w]; };
  std::vector<double> nhwc, nwch;
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w)
        for (int c = 0; c < C; ++c) nhwc.push_back(x_at(n, c, h, w));
  for (int n = 0; n < N; ++n)
    for (int w = 0; w < W; ++w)
      for (int c = 0; c < C; ++c)
        for (int h = 0; h < H; ++h) nwch.push_back(x_at(n, c, h, w));
  for (DType t : {DType::kFloat32, DType::kUInt8, DType::kInt64}) {
    CAPTURE(DTypeName(t));
    const Tensor x = Make(t, {N, C, H, W}, v);
    Check(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{0, 2, 3, 1}), {x}, {{{N, H, W, C}, nhwc, t}});
    Check(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{0, 3, 1, 2}), {x}, {{{N, W, C, H}, nwch, t}});
  }
}
