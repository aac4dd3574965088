// LSTM and GRU on the cpu backend (backends/cpu/rnn.cc) against ref64 on random cases (seeded):
// all directions, batch > 1, odd hidden sizes, with and without biases, initial states (as weights
// or as run-time graph inputs) and peepholes, GRU linear_before_reset 0 and 1; 1 and 2 threads;
// bit-identical repeated runs. Reference values come from ref64 (double, the specification). The
// budget is the op's (runtime/ops/specs.h kBudgetRnn: (16 + K) eps per step, K = input + hidden
// size), times S steps, on the scale max(1, |y|) (hidden states are in (-1, 1); cells grow by at
// most 1 per step).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

int Rnd(std::mt19937& g, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }

/// Runs `node` on cpu as a one-node graph: X (input 0) and the inputs listed in `runtime` are
/// graph inputs, the others constants. Returns the outputs (checks the node ran on cpu).
std::vector<Tensor> RunCpu(const Node& node, const std::vector<Tensor>& inputs, const std::vector<size_t>& runtime,
                           int threads, int repeats) {
  Node n = node;
  n.name = "rnn";
  std::vector<NamedTensor> feeds;
  std::shared_ptr<Graph> g = OneNodeGraph(n, inputs, runtime, std::vector<DType>(n.outputs.size(), DType::kFloat32), &feeds);
  REQUIRE(static_cast<bool>(g));
  SessionOptions opts;
  opts.backends = {"cpu"};
  opts.threads = threads;
  Result<std::unique_ptr<Session>> s = Session::Create(g, opts);
  if (!s.ok()) FAIL(s.status().message());
  CHECK(PlacementOf(**s, "rnn") == "cpu");
  std::vector<Tensor> first;
  for (int r = 0; r < repeats; ++r) {
    std::vector<NamedTensor> outs;
    Status st = (*s)->Run(feeds, &outs);
    if (!st.ok()) FAIL(st.message());
    if (r == 0) {
      for (NamedTensor& o : outs) first.push_back(o.tensor);
      continue;
    }
    REQUIRE(outs.size() == first.size());
    for (size_t o = 0; o < outs.size(); ++o)
      CHECK(std::memcmp(outs[o].tensor.data, first[o].data, first[o].nbytes()) == 0);
  }
  return first;
}

/// One random case of `op` checked against ref64 on 1 and 2 threads; `wide` takes 16 to 96 input
/// features and 6 to 20 steps (the input projection then runs on GemmConv where the CPU has it).
void CheckCase(std::mt19937& rng, const std::string& op, const std::string& dir, int it, bool wide = false) {
  const bool lstm = op == "LSTM";
  const int64_t G = lstm ? 4 : 3, nd = dir == "bidirectional" ? 2 : 1;
  const int64_t S = wide ? Rnd(rng, 6, 20) : Rnd(rng, 1, 7), B = Rnd(rng, 1, 4);
  const int64_t I = wide ? Rnd(rng, 16, 96) : Rnd(rng, 1, 19), H = 2 * Rnd(rng, 0, 12) + 1;
  const bool bias = it % 2 == 0, states = it % 3 != 0, runtime_states = it % 3 == 2, peep = lstm && it % 4 == 1;
  const int lbr = it % 2;
  CAPTURE(op);
  CAPTURE(dir);
  CAPTURE(S);
  CAPTURE(B);
  CAPTURE(I);
  CAPTURE(H);
  CAPTURE(bias);
  CAPTURE(states);
  CAPTURE(runtime_states);
  CAPTURE(peep);
  CAPTURE(lbr);
  NodeOf nb(op, lstm ? 3 : 2);
  nb.Attr("direction", dir.c_str()).Attr("hidden_size", H);
  if (!lstm) nb.Attr("linear_before_reset", lbr);
  const Node& node = nb;
  std::vector<Tensor> in = {RandF32({S, B, I}, rng, -2, 2), RandF32({nd, G * H, I}, rng, -0.6, 0.6),
                            RandF32({nd, G * H, H}, rng, -0.6, 0.6),
                            bias ? RandF32({nd, 2 * G * H}, rng, -0.5, 0.5) : Tensor(),
                            it % 5 == 4 ? I64({B}, std::vector<int64_t>(B, S)) : Tensor(),
                            states ? RandF32({nd, B, H}, rng) : Tensor()};
  if (lstm) {
    in.push_back(states ? RandF32({nd, B, H}, rng, -2, 2) : Tensor());
    in.push_back(peep ? RandF32({nd, 3 * H}, rng, -0.5, 0.5) : Tensor());
  }
  Result<std::vector<Tensor>> r64 = Run(node, in, DType::kFloat64);
  REQUIRE(r64.ok());
  std::vector<size_t> rt;
  if (runtime_states) rt = lstm ? std::vector<size_t>{5, 6} : std::vector<size_t>{5};
  const double units = static_cast<double>(S) * (16.0 + static_cast<double>(I + H));
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    std::vector<Tensor> y = RunCpu(node, in, rt, threads, 3);
    REQUIRE(y.size() == r64->size());
    for (size_t o = 0; o < y.size(); ++o) {
      CAPTURE(o);
      REQUIRE(y[o].shape == (*r64)[o].shape);
      int bad = 0;
      for (int64_t i = 0; i < y[o].numel() && bad < 5; ++i) {
        const double g = ReadDouble(y[o], i), w = ReadDouble((*r64)[o], i);
        const double tol = units * kEps32 * std::max(1.0, std::fabs(w));
        if (!(std::fabs(g - w) <= tol)) {
          ++bad;
          FAIL_CHECK(op << " output " << o << " element " << i << ": cpu " << g << " ref64 " << w << " tol " << tol);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("cpu LSTM: random cases, all directions, states, biases, peepholes") {
  std::mt19937 rng(4242);
  for (int it = 0; it < 24; ++it)
    for (const char* dir : {"forward", "reverse", "bidirectional"}) CheckCase(rng, "LSTM", dir, it);
}

TEST_CASE("cpu GRU: random cases, all directions, states, biases, linear_before_reset 0 and 1") {
  std::mt19937 rng(4343);
  for (int it = 0; it < 24; ++it)
    for (const char* dir : {"forward", "reverse", "bidirectional"}) CheckCase(rng, "GRU", dir, it);
}

TEST_CASE("cpu LSTM/GRU: wide inputs (the input projection on GemmConv)") {
  std::mt19937 rng(4444);
  for (int it = 0; it < 8; ++it)
    for (const char* op : {"LSTM", "GRU"}) CheckCase(rng, op, it % 2 ? "bidirectional" : "forward", it, true);
}

TEST_CASE("cpu LSTM/GRU: a NaN in X, the bias or the initial state, and infinite states, as on ref64") {
  // The fast input projection's clamp would turn a NaN into -inf (sigmoid 0, tanh -1: finite
  // outputs): a NaN in X at run time, or in W or B at plan time, takes the plain product, whose
  // NaN propagates. An infinite initial_h makes a gate exactly 0 or 1 (sigmoid of -inf must be 0,
  // not a tiny number), so 0 times inf gives NaN where the reference does.
  std::mt19937 rng(45);
  for (const char* op : {"LSTM", "GRU"})
    for (int where : {0, 1, 2, 3}) {  // 0: NaN in X, 1: NaN in initial_h, 2: NaN in B, 3: +-inf in initial_h
      CAPTURE(op);
      CAPTURE(where);
      const bool lstm = std::string(op) == "LSTM";
      const int64_t G = lstm ? 4 : 3, S = 8, B = 2, I = 32, H = where == 3 ? 1 : 16;
      NodeOf nb(op, lstm ? 3 : 2);
      nb.Attr("hidden_size", H);
      const Node& node = nb;
      std::vector<Tensor> in = {RandF32({S, B, I}, rng), RandF32({1, G * H, I}, rng, -0.5, 0.5),
                                RandF32({1, G * H, H}, rng, -0.5, 0.5), RandF32({1, 2 * G * H}, rng), Tensor(),
                                RandF32({1, B, H}, rng)};
      if (where == 0) in[0].as<float>()[3 * B * I + I + 5] = NAN;  // step 3, batch row 1
      else if (where == 1) in[5].as<float>()[2] = NAN;              // batch row 0
      else if (where == 2) in[3].as<float>()[G * H - 1] = NAN;      // the bias of the last gate's last unit
      else {
        in[5].as<float>()[0] = INFINITY;
        in[5].as<float>()[1] = -INFINITY;
      }
      Result<std::vector<Tensor>> r64 = Run(node, in, DType::kFloat64);
      REQUIRE(r64.ok());
      std::vector<Tensor> y = RunCpu(node, in, {5}, 1, 1);
      REQUIRE(y.size() == r64->size());
      int nans = 0;
      for (size_t o = 0; o < y.size(); ++o)
        for (int64_t i = 0; i < y[o].numel(); ++i) {
          const double g = ReadDouble(y[o], i), w = ReadDouble((*r64)[o], i);
          CAPTURE(o);
          CAPTURE(i);
          CHECK(std::isnan(g) == std::isnan(w));
          if (std::isnan(w)) ++nans;
          else if (std::isinf(w)) CHECK(g == w);
          else CHECK(std::fabs(g - w) <= 1e-4 * std::max(1.0, std::fabs(w)));
        }
      if (where < 3 || !lstm) CHECK(nans > 0);
    }
}

TEST_CASE("cpu LSTM/GRU: uncovered cases run the reference kernel inside the partition") {
  // sequence_lens with an entry < seq_length: CompileRef (the node is still placed on cpu).
  std::mt19937 rng(7);
  for (const char* op : {"LSTM", "GRU"}) {
    const bool lstm = std::string(op) == "LSTM";
    const int64_t G = lstm ? 4 : 3, S = 4, B = 3, I = 5, H = 3;
    NodeOf nb(op, 2);
    nb.Attr("hidden_size", H);
    const Node& node = nb;
    std::vector<Tensor> in = {RandF32({S, B, I}, rng), RandF32({1, G * H, I}, rng), RandF32({1, G * H, H}, rng),
                              RandF32({1, 2 * G * H}, rng), I64({B}, {4, 2, 0})};
    Result<std::vector<Tensor>> r64 = Run(node, in, DType::kFloat64);
    REQUIRE(r64.ok());
    std::vector<Tensor> y = RunCpu(node, in, {}, 1, 2);
    for (size_t o = 0; o < y.size(); ++o)
      for (int64_t i = 0; i < y[o].numel(); ++i)
        CHECK(std::fabs(ReadDouble(y[o], i) - ReadDouble((*r64)[o], i)) <= 1e-5);
  }
}
