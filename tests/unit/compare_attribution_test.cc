// compare/attribution, compare/dataset, compare/report: the verdict on two small models (same
// function, then a bias changed at a known layer), the data-set helpers and the JSON and HTML helpers.
#include <doctest/doctest.h>

#include <cmath>

#include "compare/attribution.h"
#include "compare/dataset.h"
#include "compare/report.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {
// x [1,1,4,4] -> Conv(2x2, +b1) -> Relu -> Conv(2x2, +b2) -> Sigmoid.
std::shared_ptr<Model> Net(float b2, float b1 = 0.1f) {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 4, 4});
  int w1 = b.Const("w1", F32({1, 1, 2, 2}, {1, -1, -0.5, 0.25}));
  int c1 = b.Const("b1", F32({1}, {b1}));
  int w2 = b.Const("w2", F32({1, 1, 2, 2}, {0.5, 0.5, -0.5, 1}));
  int c2 = b.Const("b2", F32({1}, {b2}));
  int v = b.Op("Conv", {x, w1, c1})[0];
  v = b.Op("Relu", {v})[0];
  v = b.Op("Conv", {v, w2, c2})[0];
  v = b.Op("Sigmoid", {v})[0];
  b.g.outputs = {v};
  auto m = std::make_shared<Model>();
  m->graph = b.g;
  return m;
}

BackendRun Traced(const std::shared_ptr<Model>& m) {
  size_t traced = 0;
  Tensor x = F32({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  Result<BackendRun> r = RunModel(m, "ref64", {{"x", x}}, true, &traced);
  REQUIRE(r.ok());
  CHECK(traced > 0);
  return std::move(r).value();
}
}  // namespace

TEST_CASE("attribution: same function, then models differ at the changed Conv") {
  auto a = Net(0.2f), same = Net(0.2f), changed = Net(0.7f);
  BackendRun ra = Traced(a), rs = Traced(same), rc = Traced(changed);
  PairVerdict v = JudgeModels("a", *a, ra, "same", *same, rs, 1e-9, true);
  CHECK(v.verdict == "same function");
  CHECK(v.ref64.has_value());
  CHECK_FALSE(v.layers.has_value());
  v = JudgeModels("a", *a, ra, "changed", *changed, rc, 1e-9, true);
  CHECK(v.verdict == "models differ at Conv_2 / Conv_2");
  REQUIRE(v.first_divergence.has_value());
  CHECK((*v.first_divergence)[0].op == "Conv");
  REQUIRE(v.layers.has_value());
  CHECK(v.layers->size() == 4);
  nlohmann::json j = PairJson(v);
  CHECK(j["kind"] == "models");
  CHECK(j["first_divergence"]["b"]["node"] == "Conv_2");
  CHECK(j["layers"].size() == 4);
  CHECK(CompareHtml(CompareReport(1e-9, {}, {v})).find("<svg") != std::string::npos);
}

TEST_CASE("attribution: JudgeQuantization names the layer where the error grows most") {
  // b2 0.2 -> 0.7 with b1 0.1 (Conv_0's outputs are all negative, so Relu zeroes them): Conv_2's
  // outputs go from 0.2 to 0.7 (rel L2 2.5) while every layer before it agrees.
  auto a = Net(0.2f), same = Net(0.2f), late = Net(0.7f);
  BackendRun ra = Traced(a), rs = Traced(same), rl = Traced(late);
  CHECK(JudgeQuantization("a", *a, ra, "same", *same, rs, 1e-9).verdict == "same function");
  PairVerdict v = JudgeQuantization("a", *a, ra, "late", *late, rl, 1e-9);
  CHECK(v.verdict == "quantization error, most added at Conv_2");
  REQUIRE(v.first_divergence.has_value());
  CHECK((*v.first_divergence)[1].node == "Conv_2");
  // b1 5 -> 5.5 (Conv_0's outputs 3 - i - j/4 -> 3.5 - i - j/4, all positive): by hand, rel L2 (over
  // the second run's norm) 1.5 / 7.207 = 0.2081 at Conv_0 and Relu, then 1.5 / 7.438 = 0.2017 at
  // Conv_2 (each of its 4 outputs moves by 0.5 * 1.5): nothing after Conv_0 rises above it.
  auto e = Net(0.2f, 5.0f), early = Net(0.2f, 5.5f);
  BackendRun re = Traced(e), rr = Traced(early);
  v = JudgeQuantization("e", *e, re, "early", *early, rr, 1e-9);
  CHECK(v.verdict == "quantization error, most added at Conv_0");
  INFO(v.text);
  CHECK(v.text.find("its rel L2 2.081e-01") != std::string::npos);
}

TEST_CASE("attribution: WorstOutput, Within") {
  std::vector<NamedTensor> a = {{"p", F32({2}, {1, 2})}, {"q", F32({2}, {1, 1})}};
  std::vector<NamedTensor> b = {{"p", F32({2}, {1, 2})}, {"q", F32({2}, {1, 2})}};
  std::string which;
  Result<Metrics> m = WorstOutput(a, b, &which);
  REQUIRE(m.ok());
  CHECK(which == "q");
  CHECK_FALSE(Within(*m, 1e-3));
  CHECK_FALSE(WorstOutput(a, {b[0]}, &which).ok());
}

TEST_CASE("dataset: Argmax, MakeBatch, PredictRow, AccuracyOf") {
  Tensor y = F32({2, 3}, {0.1, 0.7, 0.2, 1, 1, 0});
  double margin = 0;
  CHECK(Argmax(y, 0, 3, &margin) == 1);
  CHECK(margin == doctest::Approx(0.5));
  CHECK(Argmax(y, 1, 3) == 0);  // ties go to the lower index
  DataSet ds{F32({3, 2}, {1, 2, 3, 4, 5, 6}), {1, 0, 2}};
  Tensor batch = MakeBatch(ds, 2, {2, 2});
  CHECK(batch.as<float>()[0] == 5);
  CHECK(batch.as<float>()[2] == 0);  // past the end
  RunPred rp;
  PredictRow(y, 0, 3, &rp);
  PredictRow(F32({1, 2}, {NAN, 1}), 0, 2, &rp);
  CHECK(rp.pred == std::vector<int64_t>{1, -1});
  CHECK(std::isnan(rp.margin[1]));
  Accuracy acc = AccuracyOf(rp, ds, 2);
  CHECK(acc.correct == 1);
  CHECK(acc.nan == 1);
  CHECK_FALSE(LoadDataSet("nodir").ok());
}

TEST_CASE("report: JsonNumber, HtmlEscape") {
  CHECK(JsonNumber(1.5) == 1.5);
  CHECK(JsonNumber(NAN) == "nan");
  CHECK(JsonNumber(-INFINITY) == "-inf");
  CHECK(HtmlEscape("<a & \"b\">") == "&lt;a &amp; &quot;b&quot;&gt;");
}
