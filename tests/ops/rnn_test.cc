// LSTM, GRU and RNN. The hidden-size-1 cases are computed by hand: the arithmetic is in the
// comments, and tanh/sigmoid values are written as closed forms evaluated in double (std::tanh,
// std::exp). The larger cases (bidirectional, batch 2, bias, initial states, sequence_lens,
// layout 1, GRU linear_before_reset 0 and 1) paste values printed by the Python script at the end of
// this file: an independent numpy implementation of the ONNX equations in float64 that also asserts
// agreement (1e-14) with torch.nn.LSTM/GRU/RNN in float64 wherever torch has the same semantics
// (all but GRU linear_before_reset=0 and per-direction activations). Weights are multiples of 1/16
// and inputs multiples of 1/8, exact in float32.
#include <cmath>
#include <string>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

double Sig(double v) { return 1 / (1 + std::exp(-v)); }

/// Sets the `activations` strings attribute (NodeOf has no strings overload).
NodeOf Acts(NodeOf n, std::vector<std::string> names) {
  tare::Attr a;
  a.kind = tare::Attr::Kind::kStrings;
  a.strings = std::move(names);
  n.node.attrs["activations"] = a;
  return n;
}

/// Check with the recurrent budget: S steps, gate dots of length K = input + hidden size, scale 1
/// (hidden states and cells here are of magnitude <= ~2).
void CheckRnn(const Node& node, const std::vector<Tensor>& in, const std::vector<Expect>& want, int S, int K) {
  Check(node, in, want, S * (K + 16.0), 1.0);
}

/// One larger case: flat values in ONNX layout 0 (c0 and yc empty for GRU/RNN).
struct RnnCase {
  std::vector<double> x, w, r, b, h0, c0, y, yh, yc;
};
/// Dimensions of a case: steps, batch, input, hidden, gates, directions.
struct Dims {
  int64_t S, N, I, H, G, nd;
};

/// [a, b, inner] -> [b, a, inner] (layout 0 <-> layout 1 re-indexing).
std::vector<double> Swap01(const std::vector<double>& v, int64_t a, int64_t b, int64_t inner) {
  std::vector<double> o(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < inner; ++k) o[(j * a + i) * inner + k] = v[(i * b + j) * inner + k];
  return o;
}

/// Inputs X, W, R, B, sequence_lens (omitted when `lens` is empty), initial_h[, initial_c].
std::vector<Tensor> CaseInputs(const RnnCase& c, const Dims& d, std::vector<double> lens, bool layout1) {
  auto state = [&](const std::vector<double>& v) {
    return layout1 ? F32({d.N, d.nd, d.H}, Swap01(v, d.nd, d.N, d.H)) : F32({d.nd, d.N, d.H}, v);
  };
  std::vector<Tensor> in = {
      layout1 ? F32({d.N, d.S, d.I}, Swap01(c.x, d.S, d.N, d.I)) : F32({d.S, d.N, d.I}, c.x),
      F32({d.nd, d.G * d.H, d.I}, c.w), F32({d.nd, d.G * d.H, d.H}, c.r), F32({d.nd, 2 * d.G * d.H}, c.b),
      lens.empty() ? Tensor() : Make(DType::kInt32, {d.N}, lens), state(c.h0)};
  if (!c.c0.empty()) in.push_back(state(c.c0));
  return in;
}

/// Expected Y, Y_h[, Y_c] in the requested layout.
std::vector<Expect> CaseOutputs(const RnnCase& c, const Dims& d, bool layout1) {
  auto state = [&](const std::vector<double>& v) {
    return layout1 ? Expect{{d.N, d.nd, d.H}, Swap01(v, d.nd, d.N, d.H)} : Expect{{d.nd, d.N, d.H}, v};
  };
  std::vector<Expect> out = {layout1 ? Expect{{d.N, d.S, d.nd, d.H}, Swap01(c.y, d.S * d.nd, d.N, d.H)}
                                     : Expect{{d.S, d.nd, d.N, d.H}, c.y},
                             state(c.yh)};
  if (!c.yc.empty()) out.push_back(state(c.yc));
  return out;
}

// LSTM bidirectional
const RnnCase kLstmBi = {
    {1.0, 0.25, 0.375, 0.875, 0.125, 0.625, 0.75, -0.625, -1.0, -0.375, -0.5, 0.75},
    {0.875, -1.0, 0.0, 0.6875, -0.75, 0.625, -0.8125, -0.0625, 0.625, -0.375, -0.3125, -0.4375, 0.4375, -0.5, 1.0, -0.125, -0.0625, 0.0, 0.1875, 0.125, 0.0, 1.0, 0.625, 0.625, 0.4375, 0.25, -0.3125, 1.0, -0.0625, -0.5625, 0.6875, -0.6875, 0.75, 0.25, -0.8125, -0.9375, -0.125, -0.9375, -0.75, 0.0, 1.0, -0.0625, 0.625, 0.875, 0.6875, 0.25, -0.125, 0.0},
    {-0.5, 0.0, -0.25, -0.5, 1.0, -1.0, -0.8125, -0.625, 0.9375, 0.375, 0.8125, -0.625, 0.4375, -0.25, 0.0, -1.0, 0.25, 0.6875, 0.3125, -0.6875, 0.0625, -0.5, 0.9375, 0.8125, -0.625, 0.0, 0.9375, 0.6875, 0.4375, 0.3125, -0.9375, 0.5},
    {-0.0625, -0.8125, -0.5, 0.0625, 0.4375, 0.0, 0.25, 0.75, 0.375, -0.3125, 0.3125, 0.1875, -0.8125, -0.9375, 0.3125, -0.25, 0.1875, -0.375, -0.5625, -0.75, -0.25, 0.625, -0.1875, -0.25, 0.125, 1.0, -0.25, 0.1875, -0.125, 0.1875, -0.125, 0.3125},
    {0.125, 0.375, 0.9375, -0.75, 0.125, -0.125, -0.3125, -0.5625},
    {-0.9375, -0.1875, 0.6875, -0.8125, -0.1875, 0.9375, 0.9375, -0.5625},
    {-0.040144059642653156, 0.08936354499896573, 0.6009371108843121, 0.010512729137647284, 0.12645867113539302, 0.24320893404278737, 0.23994050755479543, -0.007568041606787741, 0.06693827521268078, 0.07320151481081519, 0.619011733787461, 0.04332710207554553, -0.2124715855979991, 0.43514116989657403, 0.10125223388846237, -0.03052241206189432},
    {0.06693827521268078, 0.07320151481081519, 0.619011733787461, 0.04332710207554553, 0.12645867113539302, 0.24320893404278737, 0.23994050755479543, -0.007568041606787741},
    {0.38918065383287287, 0.11475664295504107, 1.1099386173557155, 0.10077001834882826, 0.29667131061746216, 0.9489215760704508, 0.46935159589166364, -0.02736255432943524},
};
// LSTM bidirectional lens [3,1]
const RnnCase kLstmLens = {
    {-1.0, 0.375, -1.0, -0.375, 0.0, 0.75, -0.875, 0.375, 0.125, -0.75, 0.75, 0.75, 0.0, 1.0, 0.25, 0.875, 1.0, 0.125},
    {-0.4375, -0.75, 0.125, -0.625, 0.5, 0.875, -0.5, 0.125, -0.9375, -0.6875, -0.25, 0.8125, 0.9375, 0.3125, 0.1875, 0.125, -0.875, -0.25, 1.0, -0.1875, -0.5625, -0.5625, 0.4375, -0.9375, 0.9375, 0.75, 0.125, -0.0625, 0.5625, 0.125, -0.0625, -0.375, -0.125, 0.5, -0.9375, -1.0, 0.4375, -0.25, 0.625, -0.9375, 0.8125, -0.75, -0.1875, 0.9375, -0.8125, 0.3125, 0.5, -0.125},
    {-0.875, 0.0625, -0.125, 0.75, 0.375, -0.3125, -0.9375, 0.1875, -0.4375, 0.375, 0.75, -0.3125, 0.8125, 0.0625, 0.0625, 0.5625, 0.625, 0.875, 1.0, -0.75, -0.1875, 0.875, -0.375, -1.0, 0.1875, 0.5, 0.5, 0.625, 0.3125, -0.75, 0.6875, -0.1875},
    {0.6875, 0.625, 1.0, -1.0, 0.75, 0.25, 0.0, 0.625, 0.9375, 0.0, -0.875, 0.4375, -0.5625, -0.5625, -0.625, -0.625, 0.875, -0.3125, -0.8125, -0.6875, -0.1875, -0.3125, -0.375, 0.9375, 0.75, 0.125, 1.0, -0.3125, -0.75, -0.5, -0.875, 0.9375},
    {-0.5625, -0.125, -0.625, 1.0, -0.6875, 0.0625, 0.9375, 0.0625},
    {0.8125, 0.8125, 0.5625, 0.5, 0.1875, 0.1875, 0.6875, -0.125},
    {-0.3986044535467194, 0.2894100954868806, -0.13314439519584495, 0.0988308106043239, -0.06225427365110472, 0.21545832821883984, -0.24332986867003129, 0.04873684294742745, -0.45009816498091026, 0.3701258795172011, 0.0, 0.0, -0.3107541877197282, 0.07754610298621543, 0.0, 0.0, -0.38855823111767746, 0.1847030470002373, 0.0, 0.0, -0.23836866711230667, 0.052594463129946624, 0.0, 0.0},
    {-0.38855823111767746, 0.1847030470002373, -0.13314439519584495, 0.0988308106043239, -0.06225427365110472, 0.21545832821883984, -0.24332986867003129, 0.04873684294742745},
    {-1.4564379660724334, 0.41480037760386257, -0.5141089676488184, 0.1332391925237262, -0.10606206664308745, 0.8693386559924361, -0.532922774888775, 0.6336632956481282},
};
// GRU bidirectional lbr=1 lens [2,3]
const RnnCase kGruLbr1 = {
    {1.0, 0.75, -0.25, -0.25, 0.5, 0.875, -0.875, -0.875, -0.5, -0.125, -0.75, 0.0, 0.125, 1.0, 0.5, -0.5, 0.625, 0.625},
    {0.375, 0.375, -0.375, 0.4375, -0.75, 0.25, 0.875, 1.0, -0.4375, -0.375, 0.25, -0.1875, 0.5, -0.625, -0.6875, -0.9375, -0.0625, -0.5625, -0.4375, 0.875, 0.625, 0.6875, 0.1875, -0.8125, 0.5, 0.1875, 0.8125, -0.0625, -0.6875, 0.1875, -0.0625, 0.3125, -0.25, -0.375, -0.75, 0.9375},
    {0.5, -0.0625, -0.5625, 0.25, -0.1875, 0.25, -0.875, -0.625, 0.5, -0.875, 0.375, -0.1875, -1.0, 0.5625, 0.4375, 0.625, 0.8125, 0.5, 0.6875, -0.8125, 0.875, 0.875, 0.375, 0.625},
    {0.5, 0.75, 0.8125, 0.0625, 0.625, 0.875, -0.4375, -0.9375, -0.6875, -1.0, -0.125, -1.0, -0.5, -0.5, 0.4375, -0.5, 0.9375, -0.625, 1.0, 0.125, -0.5, -0.9375, -0.375, 0.1875},
    {-0.8125, -0.6875, -0.8125, 0.375, -0.875, -1.0, -0.0625, -0.375},
    {},
    {-0.21910360727610945, -0.599481660456562, -0.7507634942516471, 0.21385573511842645, 0.10973536814357152, -0.6633243601906084, 0.34822682161773166, -0.05871538158670306, 0.41794777492046886, 0.18504171487301446, 0.17201050036712712, 0.3045981655161311, -0.1918132910465296, -0.44993885626938995, 0.27068912290800307, -0.11521986391922649, 0.0, 0.0, -0.1944123894713526, 0.5058464066387731, 0.0, 0.0, 0.0480765985752243, -0.33252873636473357},
    {0.41794777492046886, 0.18504171487301446, -0.1944123894713526, 0.5058464066387731, 0.10973536814357152, -0.6633243601906084, 0.34822682161773166, -0.05871538158670306},
    {},
};
// GRU bidirectional lbr=0
const RnnCase kGruLbr0 = {
    {-0.625, 0.25, -0.5, -0.625, 0.5, 0.125, -0.25, -1.0, -0.5, 0.625, -0.125, 1.0},
    {0.8125, 0.75, -1.0, -0.9375, 0.1875, -0.3125, 0.6875, -0.375, -0.6875, -0.8125, -0.4375, 0.25, -0.75, 0.625, -0.4375, -0.375, 0.3125, 0.75, -0.125, 0.625, -0.375, -0.75, 0.6875, 0.5625, 0.5, 0.8125, 0.0, -0.625, 0.1875, 0.125, -0.25, 0.3125, -0.5, 0.25, 0.625, -0.8125},
    {-0.125, 0.3125, -0.9375, 0.25, 0.875, 0.6875, 0.375, 0.625, -0.3125, -0.375, -0.875, 0.4375, -0.375, 0.75, -0.0625, 0.8125, -0.75, -0.6875, -0.3125, -1.0, 0.0, 0.3125, 0.3125, -0.5625},
    {-0.6875, 0.125, 0.25, 0.9375, 0.8125, -0.25, -0.6875, -0.5, 0.8125, -0.0625, 1.0, 0.3125, 0.1875, -0.8125, 0.1875, -0.25, 0.6875, -0.75, -0.625, 0.3125, 0.375, 0.6875, 0.0625, -0.25},
    {-0.375, -0.25, 0.3125, 0.0625, -0.4375, -0.5625, 0.4375, -0.5},
    {},
    {0.6823792885360483, -0.1281889247894052, 0.8771891589968785, 0.21669054547448868, 0.6210892936158873, -0.3603002188172796, 0.45531482453050715, -0.6292016939969426, 0.8680131719251087, -0.6009416158579483, 0.5336179520781612, -0.015363700895035838, 0.3045297214200275, -0.7721592593114603, 0.0441174653573247, -0.7854328050076267},
    {0.8680131719251087, -0.6009416158579483, 0.5336179520781612, -0.015363700895035838, 0.6210892936158873, -0.3603002188172796, 0.45531482453050715, -0.6292016939969426},
    {},
};
// RNN bidirectional lens [1,3]
const RnnCase kRnnLens = {
    {0.625, 0.125, 0.75, -0.375, -0.75, -0.875, -0.625, 0.5, 0.875, -0.75, 0.0, -0.75},
    {0.6875, -0.75, 0.3125, -0.875, 0.5, 0.8125, 0.5, -0.5, 0.6875, -0.375, 0.5, 0.6875},
    {0.0, 0.25, 0.75, -0.625, -1.0, -0.125, -0.6875, 0.8125, 0.75, -0.25, -0.375, 0.4375, -0.125, -0.8125, 0.3125, 0.5, -0.875, 0.5625},
    {0.0625, 0.6875, 0.75, 0.375, -0.3125, -0.25, 0.4375, -0.875, -0.5625, 0.0625, 0.9375, 0.5},
    {0.625, -0.625, -0.4375, -0.5, 0.5, 0.0625, -0.625, 0.5, 0.3125, 0.8125, 0.125, -0.75},
    {},
    {0.2812717096797961, 0.6351489523872873, -0.33776052074201707, 0.8866951493840524, 0.630464978704, 0.8780496382700703, 0.6939156855102074, 0.21159808769779126, -0.23387166263888975, 0.8652752771716106, 0.8367653233757367, 0.3180104819931678, 0.0, 0.0, 0.0, 0.42104866343334113, -0.9141507355535873, 0.8193830448587206, 0.0, 0.0, 0.0, -0.349466591942533, -0.6070761123906657, -0.14526864443587637, 0.0, 0.0, 0.0, 0.882287648323713, 0.9185741587355865, -0.48312757911017945, 0.0, 0.0, 0.0, 0.2884502129727393, -0.09347630396922774, -0.606347592713803},
    {0.2812717096797961, 0.6351489523872873, -0.33776052074201707, 0.882287648323713, 0.9185741587355865, -0.48312757911017945, 0.6939156855102074, 0.21159808769779126, -0.23387166263888975, 0.8652752771716106, 0.8367653233757367, 0.3180104819931678},
    {},
};
// RNN bidirectional Relu/Tanh
const RnnCase kRnnActs = {
    {0.625, 0.75, -0.875, 0.625, 0.25, -0.25, -0.375, 0.25},
    {-0.625, -0.625, 0.75, 0.5625, 0.1875, 0.5625, -0.375, 0.4375},
    {-0.625, -0.125, -0.75, -0.25, -0.3125, -0.1875, -0.0625, -0.9375},
    {-0.3125, 0.6875, -0.125, 0.0625, -0.8125, -0.25, 1.0, 0.125},
    {-1.0, 0.4375, 0.5625, -0.25, -0.9375, 0.6875, -0.5, 0.875},
    {},
    {0.0, 2.28125, 0.0, 0.0859375, 0.6546034388362476, 0.5586500383712103, 0.38627285060661987, 0.764102273075331, 0.0, 0.2265625, 0.0, 0.587890625, 0.25224835445660676, -0.7230764188620712, 0.24491866240370913, -0.5810606373393494},
    {0.0, 0.2265625, 0.0, 0.587890625, 0.6546034388362476, 0.5586500383712103, 0.38627285060661987, 0.764102273075331},
    {},
};

}  // namespace

TEST_CASE("RNN Relu, hidden 1: steps, clip, reverse, sequence_lens 0") {
  // X = [1, 2] ([S=2, B=1, I=1]), W = 2, R = 0.5, Wb = 1, Rb = 0.25, h0 = 0:
  //   h1 = relu(2*1 + 0.5*0 + 1 + 0.25) = 3.25;  h2 = relu(2*2 + 0.5*3.25 + 1 + 0.25) = 6.875
  const Tensor x = F32({2, 1, 1}, {1, 2}), w = F32({1, 1, 1}, {2}), r = F32({1, 1, 1}, {0.5});
  const Tensor b = F32({1, 2}, {1, 0.25});
  const NodeOf relu = Acts(NodeOf("RNN", 2), {"Relu"});
  CheckRnn(relu, {x, w, r, b}, {{{2, 1, 1, 1}, {3.25, 6.875}}, {{1, 1, 1}, {6.875}}}, 2, 2);
  // clip = 3: h1 = relu(min(3.25, 3)) = 3;  h2 = relu(min(4 + 0.5*3 + 1.25, 3)) = 3
  CheckRnn(NodeOf(relu).Attr("clip", 3.0), {x, w, r, b}, {{{2, 1, 1, 1}, {3, 3}}, {{1, 1, 1}, {3}}}, 2, 2);
  // reverse: t = 1 first: h = relu(2*2 + 0 + 1.25) = 5.25; then t = 0: relu(2*1 + 0.5*5.25 + 1.25) = 5.875
  CheckRnn(NodeOf(relu).Attr("direction", "reverse"), {x, w, r, b},
           {{{2, 1, 1, 1}, {5.875, 5.25}}, {{1, 1, 1}, {5.875}}}, 2, 2);
  // batch 2, sequence_lens = [2, 0], h0 = [0, -4]: entry 0 as above; entry 1 runs no step:
  // Y zeros, Y_h = its initial state -4.
  const Tensor x2 = F32({2, 2, 1}, {1, 7, 2, 9}), lens = Make(DType::kInt32, {2}, {2, 0});
  CheckRnn(relu, {x2, w, r, b, lens, F32({1, 2, 1}, {0, -4})},
           {{{2, 1, 2, 1}, {3.25, 0, 6.875, 0}}, {{1, 2, 1}, {6.875, -4}}}, 2, 2);
}

TEST_CASE("RNN default Tanh with hidden_size and initial_h") {
  // W = 0.5, R = 1, no B, h0 = 0.5, X = [1, 2]:
  //   h1 = tanh(0.5*1 + 1*0.5) = tanh(1);  h2 = tanh(0.5*2 + 1*tanh(1))
  const double h1 = std::tanh(1.0), h2 = std::tanh(1 + h1);
  CheckRnn(NodeOf("RNN", 2).Attr("hidden_size", int64_t(1)),
           {F32({2, 1, 1}, {1, 2}), F32({1, 1, 1}, {0.5}), F32({1, 1, 1}, {1}), Tensor(), Tensor(),
            F32({1, 1, 1}, {0.5})},
           {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}}, 2, 2);
}

TEST_CASE("LSTM hidden 1: plain, peepholes, input_forget, clip") {
  // Gates i, o, f, c. W = [0, 0, 0, 1], R = 0: a_i = a_o = a_f = 0 (gates 0.5), c_t = tanh(x_t).
  const Tensor x = F32({2, 1, 1}, {0.5, -1}), w = F32({1, 4, 1}, {0, 0, 0, 1}), r = F32({1, 4, 1}, {0, 0, 0, 0});
  {  // C1 = 0.5*0 + 0.5*tanh(0.5), H1 = 0.5*tanh(C1); C2 = 0.5*C1 + 0.5*tanh(-1), H2 = 0.5*tanh(C2)
    const double c1 = 0.5 * std::tanh(0.5), c2 = 0.5 * c1 + 0.5 * std::tanh(-1.0);
    const double h1 = 0.5 * std::tanh(c1), h2 = 0.5 * std::tanh(c2);
    CheckRnn(NodeOf("LSTM", 3), {x, w, r},
             {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}, {{1, 1, 1}, {c2}}}, 2, 2);
  }
  {  // P = [1, 1, 1] (i, o, f): i = f = Sig(C_prev), o = Sig(C_new).
     // Step 1 (C0 = 0): i = f = 0.5, C1 = 0.5*tanh(0.5), H1 = Sig(C1)*tanh(C1).
     // Step 2: i = f = Sig(C1), C2 = Sig(C1)*C1 + Sig(C1)*tanh(-1), H2 = Sig(C2)*tanh(C2).
    const double c1 = 0.5 * std::tanh(0.5), c2 = Sig(c1) * c1 + Sig(c1) * std::tanh(-1.0);
    const double h1 = Sig(c1) * std::tanh(c1), h2 = Sig(c2) * std::tanh(c2);
    CheckRnn(NodeOf("LSTM", 3), {x, w, r, Tensor(), Tensor(), Tensor(), Tensor(), F32({1, 3}, {1, 1, 1})},
             {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}, {{1, 1, 1}, {c2}}}, 2, 2);
  }
  {  // input_forget = 1, B = [Wb: 1, 0, 0, 0 | Rb: 0, 0, 5, 0], C0 = 2: a_i = 1 so i = Sig(1);
     // f = 1 - i (the forget gate's own bias 5 is ignored); o = 0.5.
     // C1 = (1 - Sig(1))*2 + Sig(1)*tanh(0.5), H1 = 0.5*tanh(C1);
     // C2 = (1 - Sig(1))*C1 + Sig(1)*tanh(-1), H2 = 0.5*tanh(C2)
    const double i = Sig(1), c1 = (1 - i) * 2 + i * std::tanh(0.5), c2 = (1 - i) * c1 + i * std::tanh(-1.0);
    const double h1 = 0.5 * std::tanh(c1), h2 = 0.5 * std::tanh(c2);
    CheckRnn(NodeOf("LSTM", 3).Attr("input_forget", int64_t(1)),
             {x, w, r, F32({1, 8}, {1, 0, 0, 0, 0, 0, 5, 0}), Tensor(), Tensor(), F32({1, 1, 1}, {2})},
             {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}, {{1, 1, 1}, {c2}}}, 2, 2);
  }
  {  // clip = 0.25, C0 = 2: c_t = tanh(clip(x_t)) = tanh(+-0.25); the cell is stored unclipped but
     // h's input is clipped: C1 = 0.5*2 + 0.5*tanh(0.25) = 1.12, H1 = 0.5*tanh(min(C1, 0.25));
     // C2 = 0.5*C1 + 0.5*tanh(-0.25) = 0.44, H2 = 0.5*tanh(0.25).
    const double c1 = 1 + 0.5 * std::tanh(0.25), c2 = 0.5 * c1 + 0.5 * std::tanh(-0.25), h = 0.5 * std::tanh(0.25);
    CheckRnn(NodeOf("LSTM", 3).Attr("clip", 0.25), {x, w, r, Tensor(), Tensor(), Tensor(), F32({1, 1, 1}, {2})},
             {{{2, 1, 1, 1}, {h, h}}, {{1, 1, 1}, {h}}, {{1, 1, 1}, {c2}}}, 2, 2);
  }
}

TEST_CASE("LSTM hidden 1 with HardSigmoid gates (Keras' recurrent_activation), activation_alpha/beta") {
  // Gates i, o, f, c; f = HardSigmoid(a) = clip(0.25 a + 0.75, 0, 1), g = h = tanh. W = [1, 0, 0, 1],
  // R = 0: a_i = x_t, a_o = a_f = 0 (o = f = 0.75), c_t = tanh(x_t); x = 0.5 then -1:
  // i1 = 0.25*0.5 + 0.75 = 0.875, C1 = 0.875*tanh(0.5), H1 = 0.75*tanh(C1);
  // i2 = 0.25*(-1) + 0.75 = 0.5, C2 = 0.75*C1 + 0.5*tanh(-1), H2 = 0.75*tanh(C2).
  const Tensor x = F32({2, 1, 1}, {0.5, -1}), w = F32({1, 4, 1}, {1, 0, 0, 1}), r = F32({1, 4, 1}, {0, 0, 0, 0});
  const double c1 = 0.875 * std::tanh(0.5), c2 = 0.75 * c1 + 0.5 * std::tanh(-1.0);
  const double h1 = 0.75 * std::tanh(c1), h2 = 0.75 * std::tanh(c2);
  CheckRnn(Acts(NodeOf("LSTM", 3), {"HardSigmoid", "Tanh", "Tanh"})
               .Attr("activation_alpha", std::vector<float>{0.25f})
               .Attr("activation_beta", std::vector<float>{0.75f}),
           {x, w, r}, {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}, {{1, 1, 1}, {c2}}}, 2, 2);
  // Defaults alpha 0.2, beta 0.5: i1 = 0.6, o = f = 0.5; i2 = 0.3.
  const double d1 = 0.6 * std::tanh(0.5), d2 = 0.5 * d1 + 0.3 * std::tanh(-1.0);
  CheckRnn(Acts(NodeOf("LSTM", 3), {"hardsigmoid", "tanh", "tanh"}), {x, w, r},
           {{{2, 1, 1, 1}, {0.5 * std::tanh(d1), 0.5 * std::tanh(d2)}}, {{1, 1, 1}, {0.5 * std::tanh(d2)}}, {{1, 1, 1}, {d2}}}, 2, 2);
}

TEST_CASE("GRU hidden 1: linear_before_reset 0 and 1, activations") {
  // Gates z, r, h. W = [0, 0, 1], R = [0, 0, 2], B = [Wb: 0, 0, 0 | Rb: 0, 0, 0.5], X = [1, -1],
  // h0 = 0: z = r = Sig(0) = 0.5 every step; H' = 0.5*g(a_h) + 0.5*H.
  const Tensor x = F32({2, 1, 1}, {1, -1}), w = F32({1, 3, 1}, {0, 0, 1}), r = F32({1, 3, 1}, {0, 0, 2});
  const Tensor b = F32({1, 6}, {0, 0, 0, 0, 0, 0.5});
  {  // linear_before_reset = 0: a_h = x + (0.5*H)*2 + 0 + 0.5 = x + H + 0.5
     // H1 = 0.5*tanh(1.5);  H2 = 0.5*tanh(-1 + H1 + 0.5) + 0.5*H1
    const double h1 = 0.5 * std::tanh(1.5), h2 = 0.5 * std::tanh(h1 - 0.5) + 0.5 * h1;
    CheckRnn(NodeOf("GRU", 2), {x, w, r, b}, {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}}, 2, 2);
    // activations Sigmoid, Relu: H1 = 0.5*relu(1.5) = 0.75; H2 = 0.5*relu(-1 + 0.75 + 0.5) + 0.5*0.75 = 0.5
    CheckRnn(Acts(NodeOf("GRU", 2), {"sigmoid", "RELU"}), {x, w, r, b},
             {{{2, 1, 1, 1}, {0.75, 0.5}}, {{1, 1, 1}, {0.5}}}, 2, 2);
  }
  {  // linear_before_reset = 1: a_h = x + 0.5*(2*H + 0.5) + 0 = x + H + 0.25
     // H1 = 0.5*tanh(1.25);  H2 = 0.5*tanh(-1 + H1 + 0.25) + 0.5*H1
    const double h1 = 0.5 * std::tanh(1.25), h2 = 0.5 * std::tanh(h1 - 0.75) + 0.5 * h1;
    CheckRnn(NodeOf("GRU", 2).Attr("linear_before_reset", int64_t(1)), {x, w, r, b},
             {{{2, 1, 1, 1}, {h1, h2}}, {{1, 1, 1}, {h2}}}, 2, 2);
  }
}

TEST_CASE("LSTM bidirectional, bias and initial states (torch)") {
  const Dims d{2, 2, 3, 2, 4, 2};
  const NodeOf n = NodeOf("LSTM", 3).Attr("direction", "bidirectional").Attr("hidden_size", int64_t(2));
  CheckRnn(n, CaseInputs(kLstmBi, d, {}, false), CaseOutputs(kLstmBi, d, false), 2, 5);
  CheckRnn(NodeOf(n).Attr("layout", int64_t(1)), CaseInputs(kLstmBi, d, {}, true), CaseOutputs(kLstmBi, d, true), 2, 5);
}

TEST_CASE("LSTM bidirectional sequence_lens, layout 0 and 1 (torch)") {
  const Dims d{3, 2, 3, 2, 4, 2};
  const NodeOf n = NodeOf("LSTM", 3).Attr("direction", "bidirectional");
  CheckRnn(n, CaseInputs(kLstmLens, d, {3, 1}, false), CaseOutputs(kLstmLens, d, false), 3, 5);
  CheckRnn(NodeOf(n).Attr("layout", int64_t(1)), CaseInputs(kLstmLens, d, {3, 1}, true),
           CaseOutputs(kLstmLens, d, true), 3, 5);
}

TEST_CASE("GRU bidirectional: linear_before_reset 1 with sequence_lens (torch), 0 (numpy)") {
  const NodeOf n = NodeOf("GRU", 2).Attr("direction", "bidirectional");
  const Dims d1{3, 2, 3, 2, 3, 2};
  CheckRnn(NodeOf(n).Attr("linear_before_reset", int64_t(1)), CaseInputs(kGruLbr1, d1, {2, 3}, false),
           CaseOutputs(kGruLbr1, d1, false), 3, 5);
  const Dims d0{2, 2, 3, 2, 3, 2};
  CheckRnn(n, CaseInputs(kGruLbr0, d0, {}, false), CaseOutputs(kGruLbr0, d0, false), 2, 5);
  CheckRnn(NodeOf(n).Attr("layout", int64_t(1)), CaseInputs(kGruLbr0, d0, {}, true), CaseOutputs(kGruLbr0, d0, true),
           2, 5);
}

TEST_CASE("RNN bidirectional: sequence_lens and layout 1 (torch), per-direction activations (numpy)") {
  const NodeOf n = NodeOf("RNN", 2).Attr("direction", "bidirectional");
  const Dims d{3, 2, 2, 3, 1, 2};
  CheckRnn(n, CaseInputs(kRnnLens, d, {1, 3}, false), CaseOutputs(kRnnLens, d, false), 3, 5);
  CheckRnn(NodeOf(n).Attr("layout", int64_t(1)), CaseInputs(kRnnLens, d, {1, 3}, true),
           CaseOutputs(kRnnLens, d, true), 3, 5);
  const Dims d2{2, 2, 2, 2, 1, 2};
  CheckRnn(Acts(n, {"Relu", "Tanh"}), CaseInputs(kRnnActs, d2, {}, false), CaseOutputs(kRnnActs, d2, false), 2, 4);
}

TEST_CASE("LSTM with omitted outputs computes the requested ones") {
  // The plain hidden-1 case above with only Y_c requested: C2 = 0.5*(0.5*tanh(0.5)) + 0.5*tanh(-1).
  NodeOf n("LSTM", 3);
  n.node.outputs = {-1, -1, 102};
  const double c2 = 0.25 * std::tanh(0.5) + 0.5 * std::tanh(-1.0);
  for (DType compute : {DType::kFloat64, DType::kFloat32}) {
    Result<std::vector<Tensor>> r =
        Run(n, {F32({2, 1, 1}, {0.5, -1}), F32({1, 4, 1}, {0, 0, 0, 1}), F32({1, 4, 1}, {0, 0, 0, 0})}, compute);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 3);
    CHECK((*r)[0].data == nullptr);
    CHECK((*r)[1].data == nullptr);
    REQUIRE((*r)[2].shape == Shape{1, 1, 1});
    CHECK(std::fabs(ReadDouble((*r)[2], 0) - c2) < 1e-6);
  }
}

TEST_CASE("LSTM, GRU and RNN reject invalid models") {
  const Tensor x = F32({2, 1, 1}, {1, 2}), w4 = F32({1, 4, 1}, {0, 0, 0, 1}), r4 = F32({1, 4, 1}, {0, 0, 0, 0});
  const Tensor w1 = F32({1, 1, 1}, {1}), r1 = F32({1, 1, 1}, {1});
  CheckFails(NodeOf("LSTM", 3), {x, F32({1, 4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), r4}, "'W' must have shape [1,4,1]");
  CheckFails(NodeOf("LSTM", 3).Attr("hidden_size", int64_t(2)), {x, w4, r4}, "'hidden_size' 2 does not match");
  CheckFails(NodeOf("LSTM", 3), {x, w4, F32({1, 3, 1}, {0, 0, 0})}, "'R' must have shape");
  CheckFails(NodeOf("LSTM", 3).Attr("direction", "bidirectional"), {x, w4, r4}, "'R' must have shape");
  CheckFails(Acts(NodeOf("RNN", 2), {"Softsign"}), {x, w1, r1}, "activation 'Softsign' is not supported");
  CheckFails(Acts(NodeOf("LSTM", 3), {"Sigmoid", "Tanh"}), {x, w4, r4}, "must list 3");
  CheckFails(NodeOf("RNN", 2).Attr("activation_alpha", std::vector<float>{0.5f}), {x, w1, r1},
             "'activation_alpha' must give at most one float per HardSigmoid activation (0 here)");
  CheckFails(NodeOf("RNN", 2).Attr("direction", "sideways"), {x, w1, r1}, "'direction'");
  CheckFails(NodeOf("RNN", 2).Attr("layout", int64_t(2)), {x, w1, r1}, "'layout'");
  CheckFails(NodeOf("RNN", 2).Attr("clip", -1.0), {x, w1, r1}, "'clip' must be > 0");
  CheckFails(NodeOf("GRU", 3), {x, F32({1, 3, 1}, {0, 0, 0}), F32({1, 3, 1}, {0, 0, 0})}, "at most 2");
  CheckFails(NodeOf("RNN", 2), {x, w1, r1, Tensor(), Make(DType::kInt32, {1}, {3})},
             "sequence_lens[0] = 3 is outside [0, 2]");
  CheckFails(NodeOf("RNN", 2), {x, w1, r1, Tensor(), F32({1}, {2})}, "must be int32");
  CheckFails(NodeOf("RNN", 2), {x, w1, r1, F32({1, 3}, {0, 0, 0})}, "'B' must have shape [1,2]");
  CheckFails(NodeOf("RNN", 2), {x, w1, r1, Tensor(), Tensor(), F32({1, 2, 1}, {0, 0})},
             "'initial_h' must have shape [1,1,1]");
  CheckFails(NodeOf("RNN", 2), {I64({2, 1, 1}, {1, 2}), w1, r1}, "must be float32");
  CheckFails(NodeOf("RNN", 2), {F32({2, 1}, {1, 2}), w1, r1}, "must be 3-D");
}

// The script that printed the RnnCase values above (python3 with numpy 1.24 and torch 1.13):
// # Expected values for tests/ops/rnn_test.cc: an independent numpy implementation of ONNX
// # LSTM/GRU/RNN (float64), cross-checked against torch.nn.LSTM/GRU/RNN in float64 where torch has the
// # same semantics (GRU: linear_before_reset=1). Weights are multiples of 1/16 (exact in float32).
// import numpy as np, torch
// sig = lambda v: 1 / (1 + np.exp(-v))
// def onnx_rnn(op, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, nd=1, rev=False, lbr=0, acts=None):
//     S, N, _ = X.shape; G = W.shape[1] // R.shape[2]; H = R.shape[2]
//     Y = np.zeros((S, nd, N, H)); Yh = np.zeros((nd, N, H)); Yc = np.zeros((nd, N, H))
//     lens = [S] * N if lens is None else lens
//     for d in range(nd):
//         f, g, hh = (acts or [sig, np.tanh, np.tanh] * 2)[3 * d:3 * d + 3] if op == 'LSTM' else (None, None, None)
//         if op == 'GRU': f, g = (acts or [sig, np.tanh] * 2)[2 * d:2 * d + 2]
//         if op == 'RNN': f = (acts or [np.tanh] * 2)[d]
//         Wb, Rb = np.split(B[d] if B is not None else np.zeros(2 * G * H), 2)
//         p = P[d] if P is not None else np.zeros(3 * H)
//         for n in range(N):
//             h = h0[d, n].copy() if h0 is not None else np.zeros(H)
//             c = c0[d, n].copy() if c0 is not None else np.zeros(H)
//             L = lens[n]
//             for s in range(L):
//                 t = L - 1 - s if (rev or d == 1) else s
//                 xw = W[d] @ X[t, n]; hr = R[d] @ h
//                 a = xw + hr + Wb + Rb
//                 if op == 'RNN': h = f(a)
//                 elif op == 'GRU':
//                     z, r = f(a[:H]), f(a[H:2 * H])
//                     if lbr: ah = xw[2 * H:] + r * (hr[2 * H:] + Rb[2 * H:]) + Wb[2 * H:]
//                     else: ah = xw[2 * H:] + R[d][2 * H:] @ (r * h) + Wb[2 * H:] + Rb[2 * H:]
//                     h = (1 - z) * g(ah) + z * h
//                 else:
//                     i = f(a[:H] + p[:H] * c); fg = f(a[2 * H:3 * H] + p[2 * H:] * c)
//                     c = fg * c + i * g(a[3 * H:]); o = f(a[H:2 * H] + p[H:2 * H] * c); h = o * hh(c)
//                 Y[t, d, n] = h
//             Yh[d, n] = h; Yc[d, n] = c
//     return Y, Yh, Yc
//
// def torch_rnn(op, X, W, R, B, lens, h0, c0, nd):
//     S, N, I = X.shape; H = R.shape[2]
//     perm = {'LSTM': [0, 2, 3, 1], 'GRU': [1, 0, 2], 'RNN': [0]}[op]  # torch gate k = ONNX gate perm[k]
//     m = getattr(torch.nn, op)(I, H, bidirectional=nd == 2).double()
//     blk = lambda a: np.concatenate([a[q * H:(q + 1) * H] for q in perm])
//     G = len(perm)
//     with torch.no_grad():
//         for d in range(nd):
//             sfx = '_reverse' if d else ''
//             getattr(m, 'weight_ih_l0' + sfx).copy_(torch.tensor(blk(W[d])))
//             getattr(m, 'weight_hh_l0' + sfx).copy_(torch.tensor(blk(R[d])))
//             getattr(m, 'bias_ih_l0' + sfx).copy_(torch.tensor(blk(B[d][:G * H])))
//             getattr(m, 'bias_hh_l0' + sfx).copy_(torch.tensor(blk(B[d][G * H:])))
//         x = torch.tensor(X)
//         if lens is not None: x = torch.nn.utils.rnn.pack_padded_sequence(x, lens, enforce_sorted=False)
//         st = (torch.tensor(h0), torch.tensor(c0)) if op == 'LSTM' else torch.tensor(h0)
//         y, hn = m(x, st)
//         if lens is not None: y = torch.nn.utils.rnn.pad_packed_sequence(y, total_length=S)[0]
//         hn, cn = hn if op == 'LSTM' else (hn, None)
//     y = y.numpy().reshape(S, N, nd, H).transpose(0, 2, 1, 3)
//     return y, hn.numpy(), cn.numpy() if cn is not None else None
//
// rng = np.random.default_rng(7)
// q = lambda shape, s=16: rng.integers(-s, s + 1, size=shape) / s
// fmt = lambda a: '{' + ', '.join(repr(float(v)) for v in np.asarray(a).ravel()) + '}'
// def case(var, name, op, S, N, I, H, nd, lens=None, lbr=0, torch_ok=True, **kw):
//     G = {'LSTM': 4, 'GRU': 3, 'RNN': 1}[op]
//     X, W, R, B = q((S, N, I), 8), q((nd, G * H, I)), q((nd, G * H, H)), q((nd, 2 * G * H))
//     h0, c0 = q((nd, N, H)), q((nd, N, H))
//     Y, Yh, Yc = onnx_rnn(op, X, W, R, B, lens, h0, c0 if op == 'LSTM' else None, nd=nd, lbr=lbr, **kw)
//     if torch_ok:
//         ty, th, tc = torch_rnn(op, X, W, R, B, lens, h0, c0, nd)
//         assert np.allclose(ty, Y, atol=1e-14) and np.allclose(th, Yh, atol=1e-14), name
//         if op == 'LSTM': assert np.allclose(tc, Yc, atol=1e-14), name
//     lstm = op == 'LSTM'
//     vals = [X, W, R, B, h0, c0 if lstm else [], Y, Yh, Yc if lstm else []]
//     print(f'// {name}\nconst RnnCase {var} = {{\n' + ''.join(f'    {fmt(v)},\n' for v in vals) + '};')
//
// case('kLstmBi', 'LSTM bidirectional', 'LSTM', 2, 2, 3, 2, 2)
// case('kLstmLens', 'LSTM bidirectional lens [3,1]', 'LSTM', 3, 2, 3, 2, 2, lens=[3, 1])
// case('kGruLbr1', 'GRU bidirectional lbr=1 lens [2,3]', 'GRU', 3, 2, 3, 2, 2, lens=[2, 3], lbr=1)
// case('kGruLbr0', 'GRU bidirectional lbr=0', 'GRU', 2, 2, 3, 2, 2, lbr=0, torch_ok=False)
// case('kRnnLens', 'RNN bidirectional lens [1,3]', 'RNN', 3, 2, 2, 3, 2, lens=[1, 3])
// relu = lambda v: np.maximum(v, 0)
// case('kRnnActs', 'RNN bidirectional Relu/Tanh', 'RNN', 2, 2, 2, 2, 2, torch_ok=False, acts=[relu, np.tanh])
