// Range; expected sequences written out by hand (n = max(ceil((limit - start) / delta), 0)).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("Range on floats and integers") {
  // ceil((5 - 1) / 2) = 2 -> [1, 3].
  Check(NodeOf("Range"), {F32({}, {1}), F32({}, {5}), F32({}, {2})}, {{{2}, {1, 3}}});
  // ceil((1 - 0) / 0.25) = 4 -> [0, 0.25, 0.5, 0.75].
  Check(NodeOf("Range"), {F32({}, {0}), F32({}, {1}), F32({}, {0.25})}, {{{4}, {0, 0.25, 0.5, 0.75}}});
  // float32 0.1 (= 0.100000001490116) to 0.5: ceil(3.99999994) = 4 -> about 0.1, 0.2, 0.3, 0.4.
  Check(NodeOf("Range"), {F32({}, {0.1}), F32({}, {0.5}), F32({}, {0.1})}, {{{4}, {0.1, 0.2, 0.3, 0.4}}});
  // ONNX examples: 3..9 step 3 -> [3, 6]; 10..4 step -2 -> [10, 8, 6].
  const DType i32 = DType::kInt32;
  Check(NodeOf("Range"), {Make(i32, {}, {3}), Make(i32, {}, {9}), Make(i32, {}, {3})}, {{{2}, {3, 6}, i32}});
  Check(NodeOf("Range"), {I64({}, {10}), I64({}, {4}), I64({}, {-2})}, {{{3}, {10, 8, 6}, DType::kInt64}});
  Check(NodeOf("Range"), {I64({}, {10}), I64({}, {5}), I64({}, {-2})}, {{{3}, {10, 8, 6}, DType::kInt64}});
  Check(NodeOf("Range"), {Make(DType::kFloat64, {}, {-1}), Make(DType::kFloat64, {}, {0}), Make(DType::kFloat64, {}, {0.5})},
        {{{2}, {-1, -0.5}, DType::kFloat64}});
  // An empty range: start beyond limit for a positive delta.
  Check(NodeOf("Range"), {I64({}, {5}), I64({}, {1}), I64({}, {1})}, {{{0}, {}, DType::kInt64}});
}

TEST_CASE("Range rejects zero delta, mixed and unsupported types") {
  CheckFails(NodeOf("Range"), {I64({}, {0}), I64({}, {4}), I64({}, {0})}, "non-zero");
  CheckFails(NodeOf("Range"), {F32({}, {0}), F32({}, {4}), F32({}, {0})}, "non-zero");
  CheckFails(NodeOf("Range"), {I64({}, {0}), F32({}, {4}), I64({}, {1})}, "expected int64");
  CheckFails(NodeOf("Range"), {Make(DType::kUInt8, {}, {0}), Make(DType::kUInt8, {}, {4}), Make(DType::kUInt8, {}, {1})},
             "not supported");
  CheckFails(NodeOf("Range"), {I64({2}, {0, 1}), I64({}, {4}), I64({}, {1})}, "scalar");
  CheckFails(NodeOf("Range"), {F32({}, {0}), F32({}, {1e30}), F32({}, {1e-30})}, "too many");
}
