#include "converters/tflite/tflite_writer.h"

#include <fstream>
#include <map>
#include <set>

#include "converters/tflite/builtin_ops.h"
#include "converters/tflite/tflite_builder.h"

namespace tare {
namespace {

namespace tfl = tare::tfl;
using tflite::ModelBuilder;
using BO = tfl::BuiltinOptions;

const std::map<std::string, int>& UnaryOps() {
  static const std::map<std::string, int> ops = {{"Relu", tflite::RELU}, {"Tanh", tflite::TANH}, {"Sigmoid", tflite::LOGISTIC},
                                                 {"Exp", tflite::EXP},   {"Sqrt", tflite::SQRT}, {"Abs", tflite::ABS},
                                                 {"Neg", tflite::NEG},   {"LeakyRelu", tflite::LEAKY_RELU}};
  return ops;
}

const std::map<std::string, int>& BinaryOps() {
  static const std::map<std::string, int> ops = {{"Add", tflite::ADD}, {"Sub", tflite::SUB},     {"Mul", tflite::MUL},
                                                 {"Div", tflite::DIV}, {"Max", tflite::MAXIMUM},
                                                 {"Min", tflite::MINIMUM}};
  return ops;
}

const std::map<std::string, int>& ReduceOps() {
  static const std::map<std::string, int> ops = {{"ReduceMean", tflite::MEAN},
                                                 {"ReduceSum", tflite::SUM},
                                                 {"ReduceMax", tflite::REDUCE_MAX},
                                                 {"ReduceMin", tflite::REDUCE_MIN}};
  return ops;
}

/// r's value, or d when r is an error.
template <class T, class D>
T Or(Result<T> r, D d) {
  return r.ok() ? *r : T(d);
}

bool StaticShape(const Value& v) {
  if (!v.has_shape) return false;
  for (int64_t d : v.shape)
    if (d < 1 || d > (int64_t{1} << 30)) return false;
  return true;
}

/// The constant int64 values of input i of n, or false.
bool ConstInts(const Graph& g, const Node& n, size_t i, std::vector<int64_t>* out) {
  if (i >= n.inputs.size() || n.inputs[i] < 0) return false;
  const Value& v = g.values[static_cast<size_t>(n.inputs[i])];
  if (!v.is_constant || v.constant.dtype != DType::kInt64) return false;
  out->assign(v.constant.as<int64_t>(), v.constant.as<int64_t>() + v.constant.numel());
  return true;
}

/// A reduction's axes (normalized, sorted) and keepdims, or why not.
std::string ReduceAxes(const Graph& g, const Node& n, std::vector<int32_t>* axes, bool* keep) {
  const size_t rank = g.values[static_cast<size_t>(n.inputs[0])].shape.size();
  std::vector<int64_t> a;
  const bool given = n.has("axes") ? n.GetInts("axes").ok() : ConstInts(g, n, 1, &a);
  if (n.has("axes")) a = n.GetInts("axes").value();
  if (n.inputs.size() > 1 && n.inputs[1] >= 0 && !given) return "axes not a constant";
  if (a.empty()) {
    if (Or(n.GetInt("noop_with_empty_axes", 0), 0) != 0) return "noop_with_empty_axes";
    for (size_t d = 0; d < rank; ++d) a.push_back(static_cast<int64_t>(d));
  }
  std::set<int32_t> s;
  for (int64_t v : a) s.insert(static_cast<int32_t>(v < 0 ? v + static_cast<int64_t>(rank) : v));
  axes->assign(s.begin(), s.end());
  *keep = Or(n.GetInt("keepdims", 1), 1) != 0;
  return "";
}

/// Why node n cannot be written ("" when it can).
std::string NodeWhyNot(const Graph& g, const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx") return "domain " + n.domain;
  for (int v : n.outputs)
    if (v < 0 || g.values[static_cast<size_t>(v)].dtype != DType::kFloat32 || !StaticShape(g.values[static_cast<size_t>(v)]))
      return "an output that is not a float32 tensor of static shape";
  if (n.outputs.size() != 1) return "more than one output";
  auto in_rank = [&](size_t i) { return g.values[static_cast<size_t>(n.inputs[i])].shape.size(); };
  const bool x_ok = !n.inputs.empty() && n.inputs[0] >= 0 && g.values[static_cast<size_t>(n.inputs[0])].dtype == DType::kFloat32 &&
                    StaticShape(g.values[static_cast<size_t>(n.inputs[0])]);
  if (!x_ok) return "a first input that is not a float32 tensor of static shape";
  if (UnaryOps().count(n.op)) {
    return n.NumInputs() == 1 ? "" : "inputs";
  }
  if (BinaryOps().count(n.op)) {
    if (n.NumInputs() != 2 || n.inputs[1] < 0) return "not two inputs";
    const Value& b = g.values[static_cast<size_t>(n.inputs[1])];
    if (b.dtype != DType::kFloat32 || !StaticShape(b)) return "a second input that is not a float32 tensor of static shape";
    return in_rank(0) <= 4 && in_rank(1) <= 4 ? "" : "rank over 4";
  }
  if (n.op == "Clip") {
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (n.inputs[i] < 0) continue;
      const Value& b = g.values[static_cast<size_t>(n.inputs[i])];
      if (!b.is_constant || b.constant.dtype != DType::kFloat32 || b.constant.numel() != 1) return "bounds that are not float32 constants";
    }
    return in_rank(0) <= 4 ? "" : "rank over 4";
  }
  if (n.op == "MatMul") {
    if (n.NumInputs() != 2) return "inputs";
    const Value& b = g.values[static_cast<size_t>(n.inputs[1])];
    if (b.dtype != DType::kFloat32 || !StaticShape(b)) return "a second input that is not a float32 tensor of static shape";
    return in_rank(0) >= 2 && in_rank(0) <= 4 && b.shape.size() >= 2 && b.shape.size() <= 4 ? "" : "ranks outside 2..4";
  }
  if (n.op == "Softmax" || n.op == "LogSoftmax") {
    if (n.has("legacy_2d")) return "the opset-1..12 form (2-D coercion)";
    const int64_t axis = Or(n.GetInt("axis", -1), 0);
    return axis == -1 || axis == static_cast<int64_t>(in_rank(0)) - 1 ? "" : "an axis other than the last";
  }
  if (n.op == "Transpose") return in_rank(0) <= 4 ? "" : "rank over 4";
  if (n.op == "Concat") {
    for (int v : n.inputs)
      if (v < 0 || g.values[static_cast<size_t>(v)].dtype != DType::kFloat32 || !StaticShape(g.values[static_cast<size_t>(v)]))
        return "an input that is not a float32 tensor of static shape";
    return "";
  }
  if (n.op == "Reshape") return "";
  if (ReduceOps().count(n.op)) {
    std::vector<int32_t> axes;
    bool keep = true;
    return ReduceAxes(g, n, &axes, &keep);
  }
  return "no TFLite builtin with ONNX's semantics in tare's writer";
}

Result<std::vector<uint8_t>> Build(const Graph& g) {
  const std::string why = TfliteInexpressible(g);
  if (!why.empty()) return Status::Error(why);
  ModelBuilder b;
  std::map<int, int> t;  // value id -> tensor index
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    t[v] = b.Input(val.name, ModelBuilder::Dims(val.shape.begin(), val.shape.end()));
  }
  auto tensor = [&](int v) {
    if (auto it = t.find(v); it != t.end()) return it->second;
    const Value& val = g.values[static_cast<size_t>(v)];
    const ModelBuilder::Dims dims(val.shape.begin(), val.shape.end());
    const int k = val.is_constant ? b.ConstF(val.name, dims, std::vector<float>(val.constant.as<float>(), val.constant.as<float>() + val.constant.numel()))
                                  : b.Act(val.name, dims);
    t[v] = k;
    return k;
  };
  auto& fbb = b.fbb();
  for (const Node& n : g.nodes) {
    const int y = tensor(n.outputs[0]);
    const int x = tensor(n.inputs[0]);
    const Value& xv = g.values[static_cast<size_t>(n.inputs[0])];
    const std::string& yname = g.values[static_cast<size_t>(n.outputs[0])].name;
    if (auto u = UnaryOps().find(n.op); u != UnaryOps().end()) {
      if (n.op == "LeakyRelu") {
        const auto o = tfl::CreateLeakyReluOptions(fbb, Or(n.GetFloat("alpha", 0.01f), 0.01f));
        b.Op(u->second, 1, {x}, {y}, BO::LeakyReluOptions, o.Union());
      } else {
        b.Op(u->second, 1, {x}, {y});
      }
    } else if (auto bin = BinaryOps().find(n.op); bin != BinaryOps().end()) {
      const int z = tensor(n.inputs[1]);
      b.Op(bin->second, 1, {x, z}, {y});
    } else if (n.op == "Clip") {
      const bool lo = n.inputs.size() > 1 && n.inputs[1] >= 0, hi = n.inputs.size() > 2 && n.inputs[2] >= 0;
      int cur = x;
      if (lo) {
        const int m = hi ? b.Act(yname + "/max", ModelBuilder::Dims(xv.shape.begin(), xv.shape.end())) : y;
        const int lov = tensor(n.inputs[1]);
        b.Op(tflite::MAXIMUM, 1, {cur, lov}, {m});
        cur = m;
      }
      if (hi) {
        const int hiv = tensor(n.inputs[2]);
        b.Op(tflite::MINIMUM, 1, {cur, hiv}, {y});
      }
      if (!lo && !hi) {
        const int shape = b.ConstI32(yname + "/shape", {static_cast<int32_t>(xv.shape.size())}, std::vector<int32_t>(xv.shape.begin(), xv.shape.end()));
        b.Op(tflite::RESHAPE, 1, {x, shape}, {y});  // Clip without bounds: a copy
      }
    } else if (n.op == "MatMul") {
      const int z = tensor(n.inputs[1]);
      const auto o = tfl::CreateBatchMatMulOptions(fbb, false, false);
      b.Op(tflite::BATCH_MATMUL, 1, {x, z}, {y}, BO::BatchMatMulOptions, o.Union());
    } else if (n.op == "Softmax" || n.op == "LogSoftmax") {
      if (n.op == "Softmax") {
        const auto o = tfl::CreateSoftmaxOptions(fbb, 1.0f);
        b.Op(tflite::SOFTMAX, 1, {x}, {y}, BO::SoftmaxOptions, o.Union());
      } else {
        b.Op(tflite::LOG_SOFTMAX, 1, {x}, {y});
      }
    } else if (n.op == "Transpose") {
      std::vector<int64_t> perm = Or(n.GetInts("perm"), std::vector<int64_t>{});
      if (perm.empty())
        for (size_t d = xv.shape.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
      const int p = b.ConstI32(yname + "/perm", {static_cast<int32_t>(perm.size())}, std::vector<int32_t>(perm.begin(), perm.end()));
      b.Op(tflite::TRANSPOSE, 1, {x, p}, {y});
    } else if (n.op == "Concat") {
      std::vector<int> ins;
      for (int v : n.inputs) ins.push_back(tensor(v));
      int64_t axis = Or(n.GetInt("axis", 0), 0);
      if (axis < 0) axis += static_cast<int64_t>(xv.shape.size());
      const auto o = tfl::CreateConcatenationOptions(fbb, static_cast<int32_t>(axis));
      b.Op(tflite::CONCATENATION, 1, ins, {y}, BO::ConcatenationOptions, o.Union());
    } else if (n.op == "Reshape") {
      const Shape& ys = g.values[static_cast<size_t>(n.outputs[0])].shape;
      const std::vector<int32_t> dims(ys.begin(), ys.end());
      const int shape = b.ConstI32(yname + "/shape", {static_cast<int32_t>(dims.size())}, dims);
      const auto nv = fbb.CreateVector(dims);
      const auto o = tfl::CreateReshapeOptions(fbb, nv);
      b.Op(tflite::RESHAPE, 1, {x, shape}, {y}, BO::ReshapeOptions, o.Union());
    } else if (auto r = ReduceOps().find(n.op); r != ReduceOps().end()) {
      std::vector<int32_t> axes;
      bool keep = true;
      ReduceAxes(g, n, &axes, &keep);
      const int a = b.ConstI32(yname + "/axes", {static_cast<int32_t>(axes.size())}, axes);
      const auto o = tfl::CreateReducerOptions(fbb, keep);
      b.Op(r->second, 1, {x, a}, {y}, BO::ReducerOptions, o.Union());
    }
  }
  for (int v : g.outputs) b.Output(tensor(v));
  return b.Finish("tare converters/tflite/tflite_writer.cc");
}

}  // namespace

std::string TfliteInexpressible(const Graph& g) {
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.dtype != DType::kFloat32 || !StaticShape(val)) return "graph input '" + val.name + "' is not a float32 tensor of static shape";
  }
  std::set<int> produced;
  for (const Node& n : g.nodes) {
    const std::string why = NodeWhyNot(g, n);
    if (!why.empty()) return n.Where() + ": " + why + " (tare's TFLite writer, converters/tflite/tflite_writer.h)";
    produced.insert(n.outputs[0]);
  }
  for (int v : g.outputs)
    if (!produced.count(v)) return "graph output '" + g.values[static_cast<size_t>(v)].name + "' is not written by a node";
  return "";
}

Status WriteTfliteModel(const Graph& g, const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Build(g));
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return Status::Error("cannot write " + path);
  return Status::Ok();
}

}  // namespace tare
