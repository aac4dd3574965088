// TF.js graph models: elementwise math, comparisons, Select, reductions, ArgMax, Softmax, TopKV2 -> ONNX-domain ops (graph_converter.h lists the files).

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
  return b_.Elementwise(y, it->second, n.ins, {}, cmp ? DType::kBool : DType::kUndefined);
}

/// TensorFlow NotEqual.
Status GraphConverter::NotEqual(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/equal", "Equal", n.ins, {}, DType::kBool));
  return b_.Elementwise(y, "Not", {y + "/equal"}, {}, DType::kBool);
}

/// TensorFlow SquaredDifference.
Status GraphConverter::SquaredDifference(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/difference", "Sub", n.ins));
  return b_.Elementwise(y, "Mul", {y + "/difference", y + "/difference"});
}

/// TensorFlow FloorDiv.
Status GraphConverter::FloorDiv(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  if (b_.S(n.ins[0]).dtype == DType::kFloat32) {
    TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/quotient", "Div", n.ins));
    return b_.Elementwise(y, "Floor", {y + "/quotient"});
  }
  // Integers: floor(a / b) = (a - mod(a, b)) / b with mod's sign from b (TensorFlow FloorDiv).
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/mod", "Mod", n.ins, {{"fmod", IntAttr(0)}}));
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/sub", "Sub", {n.ins[0], y + "/mod"}));
  return b_.Elementwise(y, "Div", {y + "/sub", n.ins[1]});
}

/// TensorFlow FloorMod.
Status GraphConverter::FloorMod(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 2) return Error("expects two inputs");
  const bool f = b_.S(n.ins[0]).dtype == DType::kFloat32;
  if (!f) return b_.Elementwise(y, "Mod", n.ins, {{"fmod", IntAttr(0)}});
  // Floats: a - floor(a / b) * b (TensorFlow FloorMod: the result takes b's sign).
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/quotient", "Div", n.ins));
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/floor", "Floor", {y + "/quotient"}));
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/product", "Mul", {y + "/floor", n.ins[1]}));
  return b_.Elementwise(y, "Sub", {n.ins[0], y + "/product"});
}

/// TensorFlow AddN.
Status GraphConverter::AddN(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.empty()) return Error("adds nothing");
  if (n.ins.size() == 1) return b_.Alias(y, n.ins[0]);
  return b_.Elementwise(y, "Sum", n.ins);
}

/// TensorFlow Abs, Neg, Exp, Log, Sqrt, Reciprocal, ....
Status GraphConverter::Unary(const NodeView& n) {
  const std::string& y = n.name;
  auto it = kUnaryOps.find(n.op);
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_.Elementwise(y, it->second, {x});
}

/// TensorFlow Rsqrt.
Status GraphConverter::Rsqrt(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_RETURN_IF_ERROR(b_.Elementwise(y + "/sqrt", "Sqrt", {x}));
  return b_.Elementwise(y, "Reciprocal", {y + "/sqrt"});
}

/// TensorFlow Square.
Status GraphConverter::Square(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_.Elementwise(y, "Mul", {x, x});
}

/// TensorFlow Select, SelectV2.
Status GraphConverter::Select(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  if (n.ins.size() != 3) return Error("expects inputs (condition, x, y)");
  if (op == "Select" && b_.Rank(n.ins[0]) == 1 && b_.Rank(n.ins[1]) > 1)
    return Error("Select with a rank-1 condition over rows is not supported");
  return b_.Elementwise(y, "Where", n.ins, {}, b_.S(n.ins[1]).dtype);
}

/// TensorFlow Mean, Sum, Max, Min, Prod.
Status GraphConverter::Reduction(const NodeView& n) {
  const std::string& y = n.name;
  auto it = kReductionOps.find(n.op);
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, b_.ConstInts(ax, "the axes"));
  return b_.Reduce(y, x, it->second, axes, n.B("keep_dims", false));
}

/// TensorFlow ArgMax, ArgMin.
Status GraphConverter::ArgMax(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, b_.ConstInts(ax, "the dimension"));
  if (axes.size() != 1) return Error("the dimension must be one value");
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(x));
  const int v = b_.Node1(op, y + "/index", {xv}, y + "/int64", DType::kInt64, {{"axis", IntAttr(axes[0])}, {"keepdims", IntAttr(0)}});
  const int c = b_.Node1("Cast", y, {v}, b_.NameFor(y, false), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_.Set(y, c, false, b_.Rank(x) < 0 ? -1 : b_.Rank(x) - 1, DType::kInt32);
  return Status::Ok();
}

/// TensorFlow Softmax, LogSoftmax.
Status GraphConverter::Softmax(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_.Softmax(y, x, op == "LogSoftmax");
}

/// TensorFlow TopKV2.
Status GraphConverter::TopKV2(const NodeView& n) {
  const std::string& y = n.name;
  // TensorFlow TopKV2 (last axis, ties to the lower index; `sorted` only orders the result, and
  // ONNX TopK's sorted=1 gives the order TF.js returns): values and int32 indices.
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string kk, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(x));
  TARE_ASSIGN_OR_RETURN(int kv, AsI64(kk, y + "/k"));
  if (b_.Rank(kk) != 1) kv = b_.Node1("Reshape", y + "/k1", {kv, b_.ConstI64(y + "/k1/shape", {1})}, y + "/k1", DType::kInt64);
  const DType dt = b_.S(x).dtype;
  const int vals = b_.NewValue(b_.NameFor(y, false), dt);
  const int idx = b_.NewValue(y + "/indices_int64", DType::kInt64);
  b_.AddNode("TopK", y, {xv, kv}, {vals, idx}, {{"axis", IntAttr(-1)}, {"largest", IntAttr(1)}, {"sorted", IntAttr(1)}});
  const int i32 = b_.Node1("Cast", y + "/indices", {idx}, y + ":1", DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_.Set(y, vals, false, b_.Rank(x), dt);
  b_.Set(y + ":1", i32, false, b_.Rank(x), DType::kInt32);
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
