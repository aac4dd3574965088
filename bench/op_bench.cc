// Per-op benchmarks (Google Benchmark) over the case tables the backends' tests check
// (tests/backends/op_cases.h: the classic CNN layers and issue 23's transformer layers): each case is a one-node session, created and planned once (weights
// packed), then timed with Run; and the chains the fast backends fuse (ChainCases: LayerNorm,
// Gelu, SiLU, hard_swish, attention), "chain/<model>/<chain>", one session of the whole chain,
// and "<chain>.unfused", the same with its first intermediate made a graph output (node by node). Counters: FLOP/s (2 x multiply-adds, for GEMM-like ops) and the
// elements written per second. Backends and threads from the environment:
//   TARE_OP_BENCH_BACKENDS (default "cpu"; e.g. "cpu,ref"), TARE_OP_BENCH_THREADS (default "1,2").
// Usage: build/bench/tare_op_bench [--benchmark_filter=resnet18] [--benchmark_min_time=0.2]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/session.h"
#include "tests/backends/op_cases.h"

namespace {

using tare::test::OpCase;

std::vector<std::string> Split(const char* env, const char* dflt) {
  std::vector<std::string> out;
  std::stringstream ss(env && *env ? env : dflt);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void RunCase(benchmark::State& state, const OpCase* c, std::string backend, int threads) {
  tare::Tensor x;
  std::shared_ptr<tare::Graph> g = tare::test::CaseGraph(*c, &x);
  tare::SessionOptions opts;
  opts.backends = {backend};
  opts.threads = threads;
  tare::Result<std::unique_ptr<tare::Session>> s = tare::Session::Create(g, opts);
  if (!s.ok()) {
    state.SkipWithError(s.status().message().c_str());
    return;
  }
  std::vector<tare::NamedTensor> in = {{"x", x}}, out;
  tare::Status st = (*s)->Run(in, &out);  // plans: weights packed, arena allocated
  if (!st.ok()) {
    state.SkipWithError(st.message().c_str());
    return;
  }
  const std::string placed = (*s)->Placement()[0].second;
  if (placed != backend) {
    state.SkipWithError(("the node ran on " + placed + ", not " + backend).c_str());
    return;
  }
  const double elems = static_cast<double>(out[0].tensor.numel());
  for (auto _ : state) {
    st = (*s)->Run(in, &out);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
  }
  state.counters["elems/s"] = benchmark::Counter(elems, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  if (c->macs_per_output > 0)
    state.counters["FLOP/s"] =
        benchmark::Counter(2 * c->macs_per_output * elems, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

/// A chain case (op_cases.h), every node placed on `backend`. `unfused`: the first node's output
/// is a graph output too, so no fusion can skip it (the chain runs node by node).
void RunChain(benchmark::State& state, const tare::test::ChainCase* c, std::string backend, int threads, bool unfused) {
  tare::SessionOptions opts;
  opts.backends = {backend};
  opts.threads = threads;
  auto g = std::make_shared<tare::Graph>(*c->graph);
  if (unfused) g->outputs.push_back(g->nodes[0].outputs[0]);
  tare::Result<std::unique_ptr<tare::Session>> s = tare::Session::Create(g, opts);
  if (!s.ok()) {
    state.SkipWithError(s.status().message().c_str());
    return;
  }
  std::vector<tare::NamedTensor> in = {{"x", c->x}}, out;
  tare::Status st = (*s)->Run(in, &out);
  if (!st.ok()) {
    state.SkipWithError(st.message().c_str());
    return;
  }
  for (const auto& [node, placed] : (*s)->Placement())
    if (placed != backend) {
      state.SkipWithError((node + " ran on " + placed + ", not " + backend).c_str());
      return;
    }
  for (auto _ : state) {
    st = (*s)->Run(in, &out);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
  }
  state.counters["elems/s"] = benchmark::Counter(static_cast<double>(out[0].tensor.numel()), benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> backends = Split(std::getenv("TARE_OP_BENCH_BACKENDS"), "cpu");
  std::vector<int> threads;
  for (const std::string& t : Split(std::getenv("TARE_OP_BENCH_THREADS"), "1,2")) {
    const int n = std::atoi(t.c_str());
    if (n < 1 || n > 1024) {
      std::fprintf(stderr, "tare_op_bench: TARE_OP_BENCH_THREADS must list thread counts in [1, 1024], got '%s'\n", t.c_str());
      return 1;
    }
    threads.push_back(n);
  }
  std::vector<const OpCase*> cases;
  for (const OpCase& c : tare::test::PerfOpCases()) cases.push_back(&c);
  for (const OpCase& c : tare::test::TransformerOpCases()) cases.push_back(&c);
  for (const OpCase* cp : cases)
    for (const std::string& b : backends)
      for (int t : threads) {
        if (t > 1 && b.rfind("ref", 0) == 0) continue;  // the reference backends are single-threaded
        benchmark::RegisterBenchmark((cp->name + "/" + b + "/threads:" + std::to_string(t)).c_str(), RunCase, cp, b, t)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
  for (const tare::test::ChainCase& c : tare::test::ChainCases())
    for (const std::string& b : backends)
      for (int t : threads) {
        if (t > 1 && b.rfind("ref", 0) == 0) continue;
        for (bool unfused : {false, true})
          benchmark::RegisterBenchmark(
              ("chain/" + c.name + (unfused ? ".unfused/" : "/") + b + "/threads:" + std::to_string(t)).c_str(), RunChain, &c, b, t, unfused)
              ->Unit(benchmark::kMicrosecond)
              ->UseRealTime();
      }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
