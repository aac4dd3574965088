// ref64's float truth of TFLite's quantized ops (runtime/passes/float_truth.h). Expected values are
// computed here from the definitions in double (dequantized codes, real-valued op); the integer
// run on ref (bit-exact with LiteRT.js elsewhere) must land within one output step of them.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/passes/float_truth.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {

Node QNode(const std::string& op) {
  Node n;
  n.name = "q";
  n.op = op;
  n.domain = "tflite";
  n.outputs = {0};  // one output (OneNodeGraph makes the values)
  return n;
}
Attr F(double v) { Attr a; a.kind = Attr::Kind::kFloat; a.f = static_cast<float>(v); return a; }
Attr Fs(std::vector<float> v) { Attr a; a.kind = Attr::Kind::kFloats; a.floats = std::move(v); return a; }
Attr S(const std::string& v) { Attr a; a.kind = Attr::Kind::kString; a.s = v; return a; }
Attr I(int64_t v) { return GraphBuilder::Int(v); }
Attr Is(std::vector<int64_t> v) { return GraphBuilder::Ints(std::move(v)); }

/// Runs the one-node graph of `n` (input 0 and `runtime` inputs fed, the rest weights) on
/// `backend`; returns output 0.
Tensor RunOn(const Node& n, const std::vector<Tensor>& ins, const std::vector<size_t>& runtime, DType out, const std::string& backend) {
  std::vector<NamedTensor> feeds;
  std::shared_ptr<Graph> g = OneNodeGraph(n, ins, runtime, {out}, &feeds);
  REQUIRE(g.get() != nullptr);
  SessionOptions o;
  o.backends = {backend};
  auto s = Session::Create(g, o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  std::vector<NamedTensor> outs;
  Status st = (*s)->Run(feeds, &outs);
  REQUIRE_MESSAGE(st.ok(), st.message());
  return outs[0].tensor;
}

/// ref64's output (real values) against `truth` within 1e-12 relative to max|truth|, and ref's
/// codes, dequantized by (y_scale, y_zp), within `steps` output steps of the truth (the cases
/// keep every real output inside the output type's range, so nothing saturates).
void CheckTruth(const Node& n, const std::vector<Tensor>& ins, const std::vector<size_t>& runtime, DType out,
                const std::vector<double>& truth, double steps = 0.5) {
  const Tensor t = RunOn(n, ins, runtime, out, "ref64");
  REQUIRE(t.dtype == DType::kFloat64);
  REQUIRE(t.numel() == static_cast<int64_t>(truth.size()));
  double scale = 0;
  for (double v : truth) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < truth.size(); ++i) CHECK(std::fabs(ReadDouble(t, static_cast<int64_t>(i)) - truth[i]) <= 1e-12 * scale);
  const Tensor codes = RunOn(n, ins, runtime, out, "ref");
  REQUIRE(codes.dtype == out);
  ValueQuant q;
  q.scales = {n.attrs.at("y_scale").f};
  q.zero_points = {n.attrs.count("y_zero_point") ? n.attrs.at("y_zero_point").i : 0};
  Result<Tensor> real = DequantizeCodes(codes, q);
  REQUIRE(real.ok());
  for (size_t i = 0; i < truth.size(); ++i)
    CHECK(std::fabs(ReadDouble(*real, static_cast<int64_t>(i)) - truth[i]) <= steps * q.scales[0] * (1 + 1e-6));
}

}  // namespace

TEST_CASE("float truth: depthwise conv, per-channel int8 weights, bias, RELU6") {
  // x int8 [1,3,3,2] (scale 0.5, zp 1), w [1,2,2,2] scales {0.1, 0.2} along the channels, VALID.
  Tensor x = Make(DType::kInt8, {1, 3, 3, 2}, {3, -4, 7, 2, -1, 9, 5, 5, 0, -8, 11, 1, 2, 3, -6, 4, 8, -2});
  Tensor w = Make(DType::kInt8, {1, 2, 2, 2}, {10, -20, 30, 5, -7, 12, 4, 9});
  Tensor b = Make(DType::kInt32, {2}, {40, -25});
  Node n = QNode("QDepthwiseConv2D");
  n.attrs = {{"padding", S("VALID")}, {"activation", S("RELU6")}, {"depth_multiplier", I(1)}, {"x_scale", F(0.5)},
             {"x_zero_point", I(1)}, {"w_scales", Fs({0.1f, 0.2f})}, {"w_zero_points", Is({0, 0})}, {"y_scale", F(0.03)},
             {"y_zero_point", I(-100)}};
  const double ws[2] = {double(0.1f), double(0.2f)};
  std::vector<double> truth;
  for (int oh = 0; oh < 2; ++oh)
    for (int ow = 0; ow < 2; ++ow)
      for (int c = 0; c < 2; ++c) {
        double acc = ReadDouble(b, c) * 0.5 * ws[c];
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw)
            acc += 0.5 * (ReadDouble(x, ((oh + kh) * 3 + (ow + kw)) * 2 + c) - 1) * ws[c] * ReadDouble(w, (kh * 2 + kw) * 2 + c);
        truth.push_back(std::min(6.0, std::max(0.0, acc)));
      }
  CheckTruth(n, {x, w, b}, {}, DType::kInt8, truth);
}

TEST_CASE("float truth: grouped conv SAME, stride 2") {
  // x int8 [1,3,3,4] (scale 0.25), w [2,1,1,2]: 2 groups of 2 channels, 1x1 stride 2 SAME.
  std::vector<double> xv;
  for (int i = 0; i < 36; ++i) xv.push_back((i * 7) % 23 - 11);
  Tensor x = Make(DType::kInt8, {1, 3, 3, 4}, xv);
  Tensor w = Make(DType::kInt8, {2, 1, 1, 2}, {3, -5, 8, 2});
  Node n = QNode("QConv2D");
  n.attrs = {{"padding", S("SAME")}, {"strides", Is({2, 2})}, {"x_scale", F(0.25)}, {"w_scales", Fs({0.125f})},
             {"y_scale", F(0.5)}, {"y_zero_point", I(0)}};
  std::vector<double> truth;
  for (int oh = 0; oh < 2; ++oh)
    for (int ow = 0; ow < 2; ++ow)
      for (int o = 0; o < 2; ++o) {
        double acc = 0;
        for (int i = 0; i < 2; ++i) acc += 0.25 * xv[((oh * 2) * 3 + ow * 2) * 4 + o * 2 + i] * 0.125 * ReadDouble(w, o * 2 + i);
        truth.push_back(acc);
      }
  CheckTruth(n, {x, w}, {}, DType::kInt8, truth);
}

TEST_CASE("float truth: pools (SAME excludes padding from averages)") {
  Tensor x = Make(DType::kUInt8, {1, 3, 3, 1}, {12, 200, 31, 90, 7, 255, 0, 64, 128});
  for (const char* op : {"QAveragePool2D", "QMaxPool2D"}) {
    CAPTURE(op);
    Node n = QNode(op);
    n.attrs = {{"padding", S("SAME")}, {"kernel_shape", Is({2, 2})}, {"strides", Is({2, 2})}, {"x_scale", F(0.25)},
               {"x_zero_point", I(10)}, {"y_scale", F(0.25)}, {"y_zero_point", I(10)}};
    auto r = [&](int h, int w) { return 0.25 * (ReadDouble(x, h * 3 + w) - 10); };
    std::vector<double> truth;
    const bool avg = std::string(op) == "QAveragePool2D";
    const int hs[2][2] = {{0, 1}, {2, 2}};
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        double sum = 0, mx = -1e300;
        int cnt = 0;
        for (int h = hs[oh][0]; h <= hs[oh][1]; ++h)
          for (int w = hs[ow][0]; w <= hs[ow][1]; ++w) sum += r(h, w), mx = std::max(mx, r(h, w)), ++cnt;
        truth.push_back(avg ? sum / cnt : mx);
      }
    CheckTruth(n, {x}, {}, DType::kUInt8, truth);
  }
}

TEST_CASE("float truth: add and mul with broadcasting and a fused activation") {
  Tensor a = Make(DType::kInt8, {2, 2}, {-30, 12, 100, -128});
  Tensor b = Make(DType::kInt8, {2}, {-5, 40});
  for (const char* op : {"QAdd", "QMul"}) {
    CAPTURE(op);
    Node n = QNode(op);
    const bool add = std::string(op) == "QAdd";
    n.attrs = {{"x_scale", F(0.02)}, {"x2_scale", F(0.03)}, {"x2_zero_point", I(-5)}, {"y_scale", F(add ? 0.01 : 0.03)},
               {"y_zero_point", I(0)}, {"activation", S(add ? "RELU_N1_TO_1" : "NONE")}};
    std::vector<double> truth;
    for (int i = 0; i < 4; ++i) {
      const double u = double(0.02f) * ReadDouble(a, i), v = double(0.03f) * (ReadDouble(b, i % 2) + 5);
      truth.push_back(add ? std::min(1.0, std::max(-1.0, u + v)) : u * v);
    }
    CheckTruth(n, {a, b}, {1}, DType::kInt8, truth);
  }
}

TEST_CASE("float truth: softmax with beta and logistic") {
  Tensor x = Make(DType::kInt8, {2, 3}, {-100, 0, 50, 127, -128, 3});
  Node sm = QNode("QSoftmax");
  sm.attrs = {{"beta", F(2.0)}, {"x_scale", F(0.05)}, {"x_zero_point", I(3)}, {"y_scale", F(1.0 / 256)}, {"y_zero_point", I(-128)}};
  std::vector<double> truth;
  for (int r = 0; r < 2; ++r) {
    double e[3], s = 0;
    for (int c = 0; c < 3; ++c) s += e[c] = std::exp(2.0 * double(0.05f) * (ReadDouble(x, r * 3 + c) - 3));
    for (int c = 0; c < 3; ++c) truth.push_back(e[c] / s);
  }
  CheckTruth(sm, {x}, {}, DType::kInt8, truth, 1.0);
  Node lg = QNode("QLogistic");
  lg.attrs = {{"x_scale", F(0.05)}, {"x_zero_point", I(3)}, {"y_scale", F(1.0 / 256)}, {"y_zero_point", I(-128)}};
  truth.clear();
  for (int i = 0; i < 6; ++i) truth.push_back(1 / (1 + std::exp(-double(0.05f) * (ReadDouble(x, i) - 3))));
  CheckTruth(lg, {x}, {}, DType::kInt8, truth, 1.0);
}

TEST_CASE("float truth: fully connected keep_num_dims, uint8 with zero points") {
  Tensor x = Make(DType::kUInt8, {1, 2, 3}, {0, 128, 255, 17, 99, 140});
  Tensor w = Make(DType::kUInt8, {4, 3}, {120, 130, 128, 0, 255, 64, 200, 10, 128, 128, 128, 129});
  Tensor b = Make(DType::kInt32, {4}, {100, -300, 0, 7});
  Node n = QNode("QFullyConnected");
  n.attrs = {{"keep_num_dims", I(1)}, {"x_scale", F(0.01)}, {"x_zero_point", I(128)}, {"w_scales", Fs({0.02f})},
             {"w_zero_points", Is({128})}, {"y_scale", F(0.1)}, {"y_zero_point", I(128)}};
  std::vector<double> truth;
  const double xs = double(0.01f), wsc = double(0.02f);
  for (int r = 0; r < 2; ++r)
    for (int u = 0; u < 4; ++u) {
      double acc = ReadDouble(b, u) * xs * wsc;
      for (int k = 0; k < 3; ++k) acc += xs * (ReadDouble(x, r * 3 + k) - 128) * wsc * (ReadDouble(w, u * 3 + k) - 128);
      truth.push_back(acc);
    }
  CheckTruth(n, {x, w, b}, {}, DType::kUInt8, truth);
  const Tensor t = RunOn(n, {x, w, b}, {}, DType::kUInt8, "ref64");
  CHECK(t.shape == Shape{1, 2, 4});
}

TEST_CASE("float truth: a quantized input reaches the op through a Reshape; Quantize and Dequantize are identities") {
  // x int8 [1,2,2,1] -> Reshape [1,4] -> QFullyConnected -> Dequantize -> y (float32).
  GraphBuilder gb;
  const int x = gb.Input("x", DType::kInt8, {1, 2, 2, 1});
  const int r = gb.Op("Reshape", {x, gb.Const("shape", Make(DType::kInt64, {2}, {1, 4}))})[0];
  gb.g.values[r].dtype = DType::kInt8;
  const int fc = gb.Op("QFullyConnected", {r, gb.Const("w", Make(DType::kInt8, {1, 4}, {1, -2, 3, 4}))}, 1,
                       {{"x_scale", F(0.5)}, {"x_zero_point", I(-1)}, {"w_scales", Fs({0.25f})}, {"y_scale", F(0.1)},
                        {"y_zero_point", I(0)}})[0];
  gb.g.nodes.back().domain = "tflite";
  gb.g.values[fc].dtype = DType::kInt8;
  const int y = gb.Op("Dequantize", {fc}, 1, {{"x_scales", Fs({0.1f})}, {"x_zero_points", Is({0})}})[0];
  gb.g.nodes.back().domain = "tflite";
  gb.g.values[y].dtype = DType::kFloat32;
  gb.g.values[y].name = "y";
  gb.g.outputs = {y};
  Result<std::map<int, ValueQuant>> q = QuantizedValues(gb.g);
  REQUIRE(q.ok());
  CHECK(q->count(x) == 1);  // from the FC's x_scale, back through the Reshape
  CHECK(q->at(x).zero_points == std::vector<int64_t>{-1});
  SessionOptions o;
  o.backends = {"ref64"};
  auto s = Session::Create(std::make_shared<Graph>(gb.g), o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  std::vector<NamedTensor> outs;
  REQUIRE((*s)->Run({{"x", Make(DType::kInt8, {1, 2, 2, 1}, {9, -11, 0, 20})}}, &outs).ok());
  // 0.5 * 0.25 * (10*1 + -10*-2 + 1*3 + 21*4) = 0.125 * 117
  CHECK(ReadDouble(outs[0].tensor, 0) == doctest::Approx(0.125 * 117).epsilon(1e-14));
}

TEST_CASE("float truth: refusals") {
  SUBCASE("a float op reading codes") {
    GraphBuilder gb;
    const int x = gb.Input("x", DType::kInt8, {4});
    const int l = gb.Op("QLogistic", {x}, 1, {{"x_scale", F(0.1)}, {"y_scale", F(1.0 / 256)}, {"y_zero_point", I(-128)}})[0];
    gb.g.nodes.back().domain = "tflite";
    const int y = gb.Op("Relu", {l})[0];
    gb.g.outputs = {y};
    Result<Graph> t = FloatTruth(gb.g);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().message().find("reads the quantized tensor") != std::string::npos);
  }
  SUBCASE("one tensor, two quantizations") {
    GraphBuilder gb;
    const int x = gb.Input("x", DType::kInt8, {4});
    const int a = gb.Op("QLogistic", {x}, 1, {{"x_scale", F(0.1)}, {"y_scale", F(1.0 / 256)}, {"y_zero_point", I(-128)}})[0];
    gb.g.nodes.back().domain = "tflite";
    const int b = gb.Op("QLogistic", {x}, 1, {{"x_scale", F(0.2)}, {"y_scale", F(1.0 / 256)}, {"y_zero_point", I(-128)}})[0];
    gb.g.nodes.back().domain = "tflite";
    gb.g.outputs = {a, b};
    Result<std::map<int, ValueQuant>> q = QuantizedValues(gb.g);
    REQUIRE_FALSE(q.ok());
    CHECK(q.status().message().find("two quantizations") != std::string::npos);
  }
}

TEST_CASE("DequantizeCodes: per channel along an axis") {
  ValueQuant q;
  q.scales = {0.5f, 2.0f};
  q.zero_points = {1, -3};
  q.axis = 1;
  Result<Tensor> r = DequantizeCodes(Make(DType::kInt8, {2, 2, 2}, {1, 3, -3, 0, 5, 7, 9, -1}), q);
  REQUIRE(r.ok());
  const std::vector<double> e = {0, 1, 0, 6, 2, 3, 24, 4};
  for (int i = 0; i < 8; ++i) CHECK(ReadDouble(*r, i) == e[static_cast<size_t>(i)]);
  CHECK_FALSE(DequantizeCodes(F32({2}, {1, 2}), q).ok());
  q.axis = 0;
  CHECK_FALSE(DequantizeCodes(Make(DType::kInt8, {3, 2}, {0, 0, 0, 0, 0, 0}), q).ok());
}
