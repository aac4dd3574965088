// TF.js graph models: elementwise math, comparisons, Select, reductions, ArgMax, Softmax, TopKV2 -> ONNX-domain ops (graph_converter.h lists the files).

#include <cmath>

#include "converters/tfjs/graph_converter.h"

namespace tare {
namespace tfjs {

namespace {

const std::map<std::string, std::string> kBinaryOps = {
    {"Add", "Add"}, {"AddV2", "Add"}, {"BiasAdd", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"RealDiv", "Div"}, {"Div", "Div"},
    {"Maximum", "Max"}, {"Minimum", "Min"}, {"Pow", "Pow"}, {"Equal", "Equal"}, {"Greater", "Greater"},
    {"GreaterEqual", "GreaterOrEqual"}, {"Less", "Less"}, {"LessEqual", "LessOrEqual"}, {"LogicalAnd", "And"},
    {"LogicalOr", "Or"}};
const std::map<std::string, std::string> kUnaryOps = {
    {"Abs", "Abs"}, {"Neg", "Neg"}, {"Exp", "Exp"}, {"Log", "Log"}, {"Sqrt", "Sqrt"}, {"Reciprocal", "Reciprocal"},
    {"Floor", "Floor"}, {"Ceil", "Ceil"}, {"Sin", "Sin"}, {"Cos", "Cos"}, {"Round", "Round"}, {"Sign", "Sign"},
    {"LogicalNot", "Not"}};
const std::map<std::string, std::string> kReductionOps = {
    {"Mean", "ReduceMean"}, {"Sum", "ReduceSum"}, {"Max", "ReduceMax"}, {"Min", "ReduceMin"}, {"Prod", "ReduceProd"}};

}  // namespace

/// TensorFlow Add, AddV2, BiasAdd, Sub, Mul, RealDiv, ....
Status GraphConverter::Binary(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  auto it = kBinaryOps.find(n.op);
  if (n.ins.size() != 2) return Error("expects two inputs");
  const bool cmp = op == "Equal" || op == "Greater" || op == "GreaterEqual" || op == "Less" || op == "LessEqual";
  return b_->Elementwise(y, it->second, n.ins, {}, cmp ? DType::kBool : DType::kUndefined);
}

/// TensorFlow NotEqual.
Status GraphConverter::NotEqual(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/equal", "Equal", n.ins, {}, DType::kBool));
  return b_->Elementwise(y, "Not", {y + "/equal"}, {}, DType::kBool);
}

/// TensorFlow SquaredDifference.
Status GraphConverter::SquaredDifference(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/difference", "Sub", n.ins));
  return b_->Elementwise(y, "Mul", {y + "/difference", y + "/difference"});
}

/// TensorFlow FloorDiv.
Status GraphConverter::FloorDiv(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  if (b_->S(n.ins[0]).dtype == DType::kFloat32) {
    TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/quotient", "Div", n.ins));
    return b_->Elementwise(y, "Floor", {y + "/quotient"});
  }
  // Integers: floor(a / b) = (a - mod(a, b)) / b with mod's sign from b (TensorFlow FloorDiv).
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/mod", "Mod", n.ins, {{"fmod", IntAttr(0)}}));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/sub", "Sub", {n.ins[0], y + "/mod"}));
  return b_->Elementwise(y, "Div", {y + "/sub", n.ins[1]});
}

/// TensorFlow FloorMod.
Status GraphConverter::FloorMod(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  const bool f = b_->S(n.ins[0]).dtype == DType::kFloat32;
  if (!f) return b_->Elementwise(y, "Mod", n.ins, {{"fmod", IntAttr(0)}});
  // Floats: a - floor(a / b) * b (TensorFlow FloorMod: the result takes b's sign).
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/quotient", "Div", n.ins));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/floor", "Floor", {y + "/quotient"}));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/product", "Mul", {y + "/floor", n.ins[1]}));
  return b_->Elementwise(y, "Sub", {n.ins[0], y + "/product"});
}

/// TensorFlow AddN.
Status GraphConverter::AddN(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.empty()) return Error("adds nothing");
  if (n.ins.size() == 1) return b_->Alias(y, n.ins[0]);
  return b_->Elementwise(y, "Sum", n.ins);
}

/// TensorFlow Abs, Neg, Exp, Log, Sqrt, Reciprocal, ....
Status GraphConverter::Unary(const NodeView& n) {
  const std::string& y = n.name;
  auto it = kUnaryOps.find(n.op);
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_->Elementwise(y, it->second, {x});
}

/// TensorFlow Rsqrt.
Status GraphConverter::Rsqrt(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/sqrt", "Sqrt", {x}));
  return b_->Elementwise(y, "Reciprocal", {y + "/sqrt"});
}

/// TensorFlow Square.
Status GraphConverter::Square(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_->Elementwise(y, "Mul", {x, x});
}

/// TensorFlow Select, SelectV2.
Status GraphConverter::Select(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  if (n.ins.size() != 3) return Error("expects inputs (condition, x, y)");
  if (op == "Select" && b_->Rank(n.ins[0]) == 1 && b_->Rank(n.ins[1]) > 1)
    return Error("Select with a rank-1 condition over rows is not supported");
  return b_->Elementwise(y, "Where", n.ins, {}, b_->S(n.ins[1]).dtype);
}

/// TensorFlow Mean, Sum, Max, Min, Prod.
Status GraphConverter::Reduction(const NodeView& n) {
  const std::string& y = n.name;
  auto it = kReductionOps.find(n.op);
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, b_->ConstInts(ax, "the axes"));
  return b_->Reduce(y, x, it->second, axes, n.B("keep_dims", false));
}

/// TensorFlow ArgMax, ArgMin.
Status GraphConverter::ArgMax(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, b_->ConstInts(ax, "the dimension"));
  if (axes.size() != 1) return Error("the dimension must be one value");
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const int v = b_->Node1(op, y + "/index", {xv}, y + "/int64", DType::kInt64, {{"axis", IntAttr(axes[0])}, {"keepdims", IntAttr(0)}});
  const int c = b_->Node1("Cast", y, {v}, b_->NameFor(y, false), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_->Set(y, c, false, b_->Rank(x) < 0 ? -1 : b_->Rank(x) - 1, DType::kInt32);
  return Status::Ok();
}

/// TensorFlow Softmax, LogSoftmax.
Status GraphConverter::Softmax(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_->Softmax(y, x, op == "LogSoftmax");
}

/// TensorFlow TopKV2.
Status GraphConverter::TopKV2(const NodeView& n) {
  const std::string& y = n.name;
  // TensorFlow TopKV2 (last axis, ties to the lower index; `sorted` only orders the result, and
  // ONNX TopK's sorted=1 gives the order TF.js returns): values and int32 indices.
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string kk, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int kv, AsI64(kk, y + "/k"));
  if (b_->Rank(kk) != 1) kv = b_->Node1("Reshape", y + "/k1", {kv, b_->ConstI64(y + "/k1/shape", {1})}, y + "/k1", DType::kInt64);
  const DType dt = b_->S(x).dtype;
  const int vals = b_->NewValue(b_->NameFor(y, false), dt);
  const int idx = b_->NewValue(y + "/indices_int64", DType::kInt64);
  b_->AddNode("TopK", y, {xv, kv}, {vals, idx}, {{"axis", IntAttr(-1)}, {"largest", IntAttr(1)}, {"sorted", IntAttr(1)}});
  const int i32 = b_->Node1("Cast", y + "/indices", {idx}, y + ":1", DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_->Set(y, vals, false, b_->Rank(x), dt);
  b_->Set(y + ":1", i32, false, b_->Rank(x), DType::kInt32);
  return Status::Ok();
}

/// TensorFlow NonMaxSuppressionV3 / V4 / V5 (boxes [N, 4] as [y1, x1, y2, x2], scores [N],
/// max_output_size, iou_threshold, score_threshold; V5: soft_nms_sigma, which must be 0):
/// ONNX NonMaxSuppression on [1, N, 4] and [1, 1, N], its box column cast to int32. TF.js drops a
/// box whose IoU with a selected one is >= the threshold (ONNX: >), so the threshold is lowered by
/// one float32 step. V4 and V5 with pad_to_max_output_size pad the indices (and V5's scores) with 0
/// to max_output_size; V5's outputs are the indices, their scores and the count (int32 scalar).
Status GraphConverter::NonMaxSuppression(const NodeView& n) {
  const std::string& y = n.name;
  const bool v5 = n.op == "NonMaxSuppressionV5", v4 = n.op == "NonMaxSuppressionV4";
  if (n.ins.size() < (v5 ? 6u : 5u)) return Error("expects inputs (boxes, scores, max_output_size, iou_threshold, score_threshold" + std::string(v5 ? ", soft_nms_sigma)" : ")"));
  if (v5) {
    TARE_ASSIGN_OR_RETURN(Tensor sigma, b_->ConstFloat(n.ins[5], "soft_nms_sigma"));
    if (sigma.numel() != 1 || static_cast<const float*>(sigma.data)[0] != 0.f) return Error("soft NMS (soft_nms_sigma != 0) is not supported");
  }
  TARE_ASSIGN_OR_RETURN(Tensor iou, b_->ConstFloat(n.ins[3], "iou_threshold"));
  if (iou.numel() != 1) return Error("iou_threshold must be a scalar");
  const float thr = std::nextafter(static_cast<const float*>(iou.data)[0], -INFINITY);
  TARE_ASSIGN_OR_RETURN(int bv, b_->Plain(n.ins[0]));
  TARE_ASSIGN_OR_RETURN(int sv, b_->Plain(n.ins[1]));
  TARE_ASSIGN_OR_RETURN(int mv, AsI64(n.ins[2], y + "/max_output_size"));
  TARE_ASSIGN_OR_RETURN(int tv, b_->Plain(n.ins[4]));
  const int boxes = b_->Node1("Unsqueeze", y + "/boxes", {bv, b_->ConstI64(y + "/boxes/axes", {0})}, y + "/boxes", DType::kFloat32);
  const int scores = b_->Node1("Unsqueeze", y + "/scores", {sv, b_->ConstI64(y + "/scores/axes", {0, 1})}, y + "/scores", DType::kFloat32);
  const int m1 = b_->Node1("Reshape", y + "/max1", {mv, b_->ConstI64(y + "/max1/shape", {1})}, y + "/max1", DType::kInt64);
  const int t1 = b_->Node1("Reshape", y + "/score_threshold", {tv, b_->ConstI64(y + "/score_threshold/shape", {1})}, y + "/score_threshold", DType::kFloat32);
  Tensor tt = Tensor::Alloc(DType::kFloat32, {1}).value();
  static_cast<float*>(tt.data)[0] = thr;
  const int sel = b_->Node1("NonMaxSuppression", y + "/nms", {boxes, scores, m1, b_->Const(y + "/iou_threshold", tt), t1}, y + "/selected", DType::kInt64);
  const int col = b_->Node1("Gather", y + "/box_column", {sel, b_->Const(y + "/two", Int64Vector({2}))}, y + "/box_column", DType::kInt64, {{"axis", IntAttr(1)}});
  int idx = b_->Node1("Reshape", y + "/indices64", {col, b_->ConstI64(y + "/indices64/shape", {-1})}, y + "/indices64", DType::kInt64);
  const bool pad = (v4 || v5) && n.B("pad_to_max_output_size", false);
  int count = b_->Node1("Shape", y + "/count", {idx}, y + "/count", DType::kInt64);
  auto padded = [&](int v, const std::string& what, DType dt) {
    if (!pad) return v;
    const int rest = b_->Node1("Sub", y + "/" + what + "/pad_count", {m1, count}, y + "/" + what + "/pad_count", DType::kInt64);
    const int pads = b_->Node1("Concat", y + "/" + what + "/pads", {b_->Const(y + "/" + what + "/zero", Int64Vector({0})), rest}, y + "/" + what + "/pads", DType::kInt64, {{"axis", IntAttr(0)}});
    return b_->Node1("Pad", y + "/" + what + "/pad", {v, pads}, y + "/" + what + "/padded", dt, {{"mode", StrAttr("constant")}});
  };
  const int sc = v5 ? b_->Node1("Gather", y + "/selected_scores", {sv, idx}, y + "/selected_scores", DType::kFloat32, {{"axis", IntAttr(0)}}) : -1;
  idx = padded(idx, "indices", DType::kInt64);
  const int i32 = b_->Node1("Cast", y, {idx}, b_->NameFor(y, false), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_->Set(y, i32, false, 1, DType::kInt32);
  if (v5 || v4) {
    const int cnt = b_->Node1("Reshape", y + "/valid", {count, b_->ConstI64(y + "/valid/shape", {})}, y + "/valid64", DType::kInt64);
    const int c32 = b_->Node1("Cast", y + "/valid_outputs", {cnt}, y + (v5 ? ":2" : ":1"), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
    b_->Set(y + (v5 ? ":2" : ":1"), c32, false, 0, DType::kInt32);
  }
  if (v5) {
    const int sp = padded(sc, "scores", DType::kFloat32);
    b_->Set(y + ":1", sp, false, 1, DType::kFloat32);
  }
  return Status::Ok();
}

/// TensorFlow Atan2(y, x): atan(y / x), plus pi (y >= 0) or -pi (y < 0) where x < 0; 0 where both
/// are 0 (as Math.atan2(0, 0) in TF.js).
Status GraphConverter::Atan2(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs (y, x)");
  const std::string& a = n.ins[0], &x = n.ins[1];
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/quotient", "Div", {a, x}));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/atan", "Atan", {y + "/quotient"}));
  b_->SetConst(y + "/zero", Float32Scalar(0));
  b_->SetConst(y + "/pi", Float32Scalar(static_cast<float>(M_PI)));
  b_->SetConst(y + "/minus_pi", Float32Scalar(static_cast<float>(-M_PI)));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/x_negative", "Less", {x, y + "/zero"}, {}, DType::kBool));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/y_nonnegative", "GreaterOrEqual", {a, y + "/zero"}, {}, DType::kBool));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/half_turn", "Where", {y + "/y_nonnegative", y + "/pi", y + "/minus_pi"}, {}, DType::kFloat32));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/correction", "Where", {y + "/x_negative", y + "/half_turn", y + "/zero"}, {}, DType::kFloat32));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/sum", "Add", {y + "/atan", y + "/correction"}));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/x_zero", "Equal", {x, y + "/zero"}, {}, DType::kBool));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/y_zero", "Equal", {a, y + "/zero"}, {}, DType::kBool));
  TARE_RETURN_IF_ERROR(b_->Elementwise(y + "/origin", "And", {y + "/x_zero", y + "/y_zero"}, {}, DType::kBool));
  return b_->Elementwise(y, "Where", {y + "/origin", y + "/zero", y + "/sum"}, {}, DType::kFloat32);
}

/// TensorFlow SparseToDense(sparse_indices [N] or [N, R], output_shape, sparse_values (scalar or
/// [N]), default_value): ONNX ScatterND of the values into default_value expanded to the shape.
Status GraphConverter::SparseToDense(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 4) return Error("expects inputs (sparse_indices, output_shape, sparse_values, default_value)");
  TARE_ASSIGN_OR_RETURN(int iv, AsI64(n.ins[0], y + "/indices"));
  TARE_ASSIGN_OR_RETURN(int sv, AsI64(n.ins[1], y + "/shape"));
  TARE_ASSIGN_OR_RETURN(int vv, b_->Plain(n.ins[2]));
  TARE_ASSIGN_OR_RETURN(int dv, b_->Plain(n.ins[3]));
  const DType dt = b_->S(n.ins[2]).dtype;
  if (b_->Rank(n.ins[0]) == 1 || b_->Rank(n.ins[0]) == 0)
    iv = b_->Node1("Reshape", y + "/indices2", {iv, b_->ConstI64(y + "/indices2/shape", {-1, 1})}, y + "/indices2", DType::kInt64);
  else if (b_->Rank(n.ins[0]) != 2)
    return Error("sparse_indices must have rank 0, 1 or 2 (its rank must be known)");
  const int dense = b_->Node1("Expand", y + "/default", {dv, sv}, y + "/default", dt);
  // The values: one per index row (a scalar is broadcast to the rows' count).
  const int rows = b_->Node1("Shape", y + "/rows", {iv}, y + "/rows", DType::kInt64, {{"end", IntAttr(1)}});
  const int vals = b_->Node1("Expand", y + "/values", {vv, rows}, y + "/values", dt);
  const int v = b_->Node1("ScatterND", y, {dense, iv, vals}, b_->NameFor(y, false), dt);
  b_->Set(y, v, false, -1, dt);
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
