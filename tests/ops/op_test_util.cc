#include "tests/ops/op_test_util.h"

#include <algorithm>

namespace tare::test {

Tensor Make(DType dtype, const Shape& shape, std::vector<double> values) {
  Tensor t = Tensor::Alloc(dtype, shape).value();
  REQUIRE(values.size() == static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < values.size(); ++i) WriteDouble(t, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor F32(const Shape& shape, std::vector<double> values) { return Make(DType::kFloat32, shape, std::move(values)); }

Tensor I64(const Shape& shape, std::vector<int64_t> values) {
  Tensor t = Tensor::Alloc(DType::kInt64, shape).value();
  REQUIRE(values.size() == static_cast<size_t>(t.numel()));
  std::copy(values.begin(), values.end(), t.as<int64_t>());
  return t;
}

NodeOf::NodeOf(const std::string& op, int n_out) {
  node.op = op;
  node.name = "test_" + op;
  for (int i = 0; i < n_out; ++i) node.outputs.push_back(100 + i);
}

NodeOf& NodeOf::Attr(const std::string& name, int64_t v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kInt; a.i = v; node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, double v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kFloat; a.f = static_cast<float>(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, const char* v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kString; a.s = v; node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, std::vector<int64_t> v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kInts; a.ints = std::move(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, std::vector<float> v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kFloats; a.floats = std::move(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, const Tensor& v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kTensor; a.tensor = v; node.attrs[name] = a; return *this;
}

Result<std::vector<Tensor>> Run(const Node& node_in, const std::vector<Tensor>& inputs, DType compute) {
  Node node = node_in;
  node.inputs.clear();
  std::vector<Tensor> conv(inputs.size());
  std::vector<const Tensor*> ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    node.inputs.push_back(inputs[i].data ? static_cast<int>(i) : -1);
    if (!inputs[i].data) continue;
    if (inputs[i].dtype == DType::kFloat32) {
      TARE_ASSIGN_OR_RETURN(conv[i], ConvertTensor(inputs[i], compute));
    } else {
      conv[i] = inputs[i];
    }
    ptrs[i] = &conv[i];
  }
  return EvalNode(node, ptrs, compute);
}

void Check(const Node& node, const std::vector<Tensor>& inputs, const std::vector<Expect>& expected,
           double k, double scale) {
  const OpSpec* spec = FindOp(node.op);
  REQUIRE(spec != nullptr);
  for (DType compute : {DType::kFloat64, DType::kFloat32}) {
    const bool is64 = compute == DType::kFloat64;
    CAPTURE(is64);
    Result<std::vector<Tensor>> r = Run(node, inputs, compute);
    if (!r.ok()) FAIL_CHECK(r.status().message());
    REQUIRE(r.ok());
    REQUIRE(r->size() >= expected.size());
    for (size_t o = 0; o < expected.size(); ++o) {
      CAPTURE(o);
      const Tensor& got = (*r)[o];
      const Expect& e = expected[o];
      CHECK(got.shape == e.shape);
      CHECK(got.dtype == StorageType(e.dtype, compute));
      if (got.shape != e.shape) continue;
      REQUIRE(static_cast<size_t>(got.numel()) == e.values.size());
      for (size_t i = 0; i < e.values.size(); ++i) {
        CAPTURE(i);
        const double g = ReadDouble(got, static_cast<int64_t>(i)), want = e.values[i];
        if (!DTypeIsFloat(e.dtype)) { CHECK(g == want); continue; }
        if (std::isnan(want)) { CHECK(std::isnan(g)); continue; }
        if (std::isinf(want)) { CHECK(g == want); continue; }
        const double s = scale > 0 ? scale : std::max(std::fabs(want), 1e-30);
        const double eps32 = 1.0 / (1 << 24);
        // ref64 vs a hand value: the hand value itself is rounded to ~1e-15 relative; allow
        // float32 input rounding to have been applied (inputs are float32 in both).
        const double tol = is64 ? 1e-12 * std::max(s, 1.0)
                                : (spec->budget.c0 + spec->budget.cK * k + 1) * eps32 * s + 1e-37;
        CHECK_MESSAGE(std::fabs(g - want) <= tol, "got " << g << " want " << want << " tol " << tol);
      }
    }
  }
}

void CheckFails(const Node& node, const std::vector<Tensor>& inputs, const std::string& needle) {
  for (DType compute : {DType::kFloat64, DType::kFloat32}) {
    Result<std::vector<Tensor>> r = Run(node, inputs, compute);
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK_MESSAGE(r.status().message().find(needle) != std::string::npos, r.status().message());
  }
}

}  // namespace tare::test
