// tare bench: times one model on one backend list (issue 5, docs/PERFORMANCE.md).
//
//   tare bench MODEL [--backend B] [--threads N] [--iters K] [--warmup W] [--input [NAME=]FILE ...]
//                    [--json FILE]
//
// What is measured, in this order, on one thread of control (steady_clock):
//   load        LoadAnyModel (read a .tare, or convert an .onnx in memory) plus Session::Create
//               (validation, backend choice, kernel preparation), reported together and apart;
//   first run   the first Session::Run: it plans (shape inference, plan-time folding, arena
//               allocation, partition compilation) and then runs;
//   warm-up     W more runs, not recorded;
//   timed runs  K runs, each timed alone: Session::Run only (inputs are bound before; the outputs
//               vector is reused). Statistics over the K times: median (the mean of the two middle
//               values when K is even), p90 and p99 by nearest rank (the ceil(p*K/100)-th smallest),
//               min, mean. bench/peers/ort_bench.js and torch_bench.py use the same definitions.
//   phases      what the backends time apart (Session::Phases; the vulkan backend: "upload" = copies
//               into the staging buffer and on to the device, "dispatch" = the shaders, "download" =
//               the copies back, from GPU timestamps and host clocks; "host" = reference kernels
//               run on the host between dispatches), the mean per timed run (not in the median);
//   memory      Session::arena_bytes() (the planned arena: peak memory for run-time values) and the
//               process's peak resident set size (getrusage ru_maxrss, in bytes) after the timed runs.
//   FLOPs       2 x multiply-accumulates of the nodes that run (not folded at plan time, not unused)
//               among: Conv (numel(Y) * C/group * kernel size), ConvTranspose (numel(X) * M/group *
//               kernel size), Gemm (M*N*K), MatMul (numel(Y) * K, batched included), LSTM / GRU / RNN
//               (the gate GEMMs: seq * batch * (numel(W) + numel(R)), i.e. directions * gates*H *
//               (input + H) per step and batch row). Biases, activations, elementwise ops, pooling,
//               normalization, gate nonlinearities and nodes inside control-flow bodies (If, Loop,
//               Scan: counted and reported as not included) are not counted. The shapes come from
//               one extra run of a second session with those nodes' values traced, made after the
//               timed runs and after peak RSS is read, so it affects none of the numbers above.
//               Achieved GFLOP/s = FLOPs / median time.
// Inputs: --input as `tare run` (BindInputs). Graph inputs not given are generated from their
// declared shape (a dynamic dim becomes 1, said on stdout): float inputs uniform in [-1, 1) (the
// top 24 bits of std::mt19937_64 seeded with 20240501, one stream over the inputs in graph order:
// x = 2 * (bits / 2^24) - 1, exact in float32), integer and bool inputs 0. Inputs without a declared
// rank, string, sequence and optional inputs must be given.
// Errors (one line on stderr, exit 1): unreadable model or input, unknown backend, a failed run, an
// input that cannot be generated, an unwritable --json file.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli/cli.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"

using namespace tare;
using ojson = nlohmann::ordered_json;

namespace tare_cli {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

/// v with three decimals.
std::string Fixed3(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

struct Stats {
  double median = 0, p90 = 0, p99 = 0, min = 0, mean = 0;
};

// The statistics of the header comment (times in ms, at least one).
Stats Summarize(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const size_t k = t.size();
  Stats s;
  s.median = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
  auto rank = [&](double p) {
    size_t r = static_cast<size_t>(std::ceil(p * static_cast<double>(k) / 100.0));
    return t[std::min(k, std::max<size_t>(r, 1)) - 1];
  };
  s.p90 = rank(90);
  s.p99 = rank(99);
  s.min = t.front();
  double sum = 0;
  for (double v : t) sum += v;
  s.mean = sum / static_cast<double>(k);
  return s;
}

bool CountedOp(const Node& n) {
  static const std::set<std::string> kOps = {"Conv", "ConvTranspose", "Gemm", "MatMul", "LSTM", "GRU", "RNN"};
  return n.domain.empty() && kOps.count(n.op) != 0;
}

// Counted ops inside the bodies of control-flow nodes (not included in the FLOPs).
int64_t CountInBodies(const Graph& g) {
  int64_t count = 0;
  for (const Node& n : g.nodes)
    for (const auto& [name, attr] : n.attrs)
      if (attr.kind == Attr::Kind::kGraph && attr.graph) {
        for (const Node& b : attr.graph->nodes) count += CountedOp(b) ? 1 : 0;
        count += CountInBodies(*attr.graph);
      }
  return count;
}

int64_t Prod(const Shape& s, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

// Multiply-accumulates of one counted node, given a shape lookup (nullptr: unknown). -1 when a
// shape is missing or malformed.
int64_t NodeMacs(const Node& n, const std::function<const Shape*(int)>& shape_of) {
  auto in = [&](size_t i) -> const Shape* { return i < n.inputs.size() && n.inputs[i] >= 0 ? shape_of(n.inputs[i]) : nullptr; };
  auto out = [&](size_t i) -> const Shape* { return i < n.outputs.size() && n.outputs[i] >= 0 ? shape_of(n.outputs[i]) : nullptr; };
  if (n.op == "Conv") {
    const Shape *w = in(1), *y = out(0);
    if (!w || !y || w->size() < 2) return -1;
    return Prod(*y) * Prod(*w, 1);
  }
  if (n.op == "ConvTranspose") {
    const Shape *x = in(0), *w = in(1);
    if (!x || !w || w->size() < 2) return -1;
    return Prod(*x) * Prod(*w, 1);
  }
  if (n.op == "Gemm") {
    const Shape *a = in(0), *y = out(0);
    if (!a || !y || a->size() != 2) return -1;
    Result<int64_t> ta = n.GetInt("transA", 0);
    if (!ta.ok()) return -1;
    return Prod(*y) * (*ta ? (*a)[0] : (*a)[1]);
  }
  if (n.op == "MatMul") {
    const Shape *a = in(0), *y = out(0);
    if (!a || !y || a->empty()) return -1;
    return Prod(*y) * a->back();
  }
  // LSTM, GRU, RNN: X is [seq, batch, input] (or [batch, seq, input] with layout 1).
  const Shape *x = in(0), *w = in(1), *r = in(2);
  if (!x || !w || !r || x->size() != 3) return -1;
  return (*x)[0] * (*x)[1] * (Prod(*w) + Prod(*r));
}

struct FlopCount {
  bool known = false;
  std::string why_unknown;
  int64_t flops = 0;
  std::map<std::string, std::pair<int64_t, int64_t>> by_op;  // op -> (nodes, FLOPs)
  int64_t in_bodies = 0;
};

/// The FLOPs lines of the report.
void PrintFlops(const FlopCount& fc, double gflops) {
  if (fc.known) {
    std::string parts;
    for (const auto& [op, c] : fc.by_op)
      parts += (parts.empty() ? "" : ", ") + op + " x" + std::to_string(c.first) + " " + std::to_string(c.second);
    std::printf("FLOPs: %lld (2 x MACs: %s)\n", static_cast<long long>(fc.flops), parts.empty() ? "none counted" : parts.c_str());
    std::printf("achieved: %.3f GFLOP/s at the median\n", gflops);
  } else {
    std::printf("FLOPs: unknown (%s)\n", fc.why_unknown.c_str());
  }
  if (fc.in_bodies)
    std::printf("note: %lld Conv/ConvTranspose/Gemm/MatMul/LSTM/GRU/RNN node(s) inside control-flow bodies are not counted\n",
                static_cast<long long>(fc.in_bodies));
}

/// Session::Phases accumulated between `before` and `after`, per run (ms): what the backends time
/// apart (vulkan: upload, dispatch, download).
std::vector<std::pair<std::string, double>> PhasesPerRun(const std::vector<std::pair<std::string, double>>& before,
                                                         std::vector<std::pair<std::string, double>> after, int runs) {
  for (auto& [name, ms] : after) {
    for (const auto& [n0, ms0] : before)
      if (n0 == name) ms -= ms0;
    ms /= runs;
  }
  return after;
}

FlopCount CountFlops(std::shared_ptr<const Graph> graph, const SessionOptions& base, const Session& timed,
                     const std::vector<NamedTensor>& inputs) {
  const Graph& g = *graph;
  FlopCount fc;
  fc.in_bodies = CountInBodies(g);
  std::vector<std::pair<std::string, std::string>> placement = timed.Placement();
  std::vector<int> counted;
  std::set<int> wanted;
  std::map<int, Shape> shapes;  // value id -> shape
  for (const NamedTensor& nt : inputs) {
    int v = g.FindValue(nt.name);
    if (v >= 0) shapes[v] = nt.tensor.shape;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string& where = placement[i].second;
    if (!CountedOp(n) || where == "folded" || where == "unused") continue;
    counted.push_back(static_cast<int>(i));
    for (int v : n.inputs)
      if (v >= 0 && !g.values[v].is_constant && !shapes.count(v)) wanted.insert(v);
    for (int v : n.outputs)
      if (v >= 0) wanted.insert(v);
  }
  if (!wanted.empty()) {
    SessionOptions opts = base;
    opts.trace_all = false;
    opts.trace.clear();
    for (int v : wanted) opts.trace.push_back(g.values[v].name);
    Result<std::unique_ptr<Session>> probe = Session::Create(graph, opts);
    if (!probe.ok()) {
      fc.why_unknown = "shape probe: " + probe.status().message();
      return fc;
    }
    std::vector<NamedTensor> outs;
    Status s = (*probe)->Run(inputs, &outs);
    if (!s.ok()) {
      fc.why_unknown = "shape probe: " + s.message();
      return fc;
    }
    for (const TraceEntry& t : (*probe)->Trace()) {
      int v = g.FindValue(t.value);
      if (v >= 0 && t.tensor.is_tensor()) shapes[v] = t.tensor.shape;
    }
  }
  auto shape_of = [&](int v) -> const Shape* {
    if (g.values[v].is_constant) return &g.values[v].constant.shape;
    auto it = shapes.find(v);
    return it == shapes.end() ? nullptr : &it->second;
  };
  for (int i : counted) {
    const Node& n = g.nodes[i];
    int64_t macs = NodeMacs(n, shape_of);
    if (macs < 0) {
      fc.why_unknown = "no shapes for " + n.Where();
      return fc;
    }
    auto& entry = fc.by_op[n.op];
    entry.first += 1;
    entry.second += 2 * macs;
    fc.flops += 2 * macs;
  }
  fc.known = true;
  return fc;
}

// Generates graph input `v` as the header comment says. `note` receives what was made of its shape.
Result<Tensor> GenerateInput(const Value& val, std::mt19937_64& rng, std::vector<std::string>* notes) {
  if (val.kind != ValueKind::kTensor)
    return Status::Error("input '" + val.name + "' is a " + ValueKindName(val.kind) + ": give it with --input");
  if (val.dtype == DType::kString || val.dtype == DType::kUndefined)
    return Status::Error("input '" + val.name + "' is " + DTypeName(val.dtype) + ": give it with --input");
  if (!val.has_shape) return Status::Error("input '" + val.name + "' has no declared rank: give it with --input");
  Shape shape = val.shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0) {
      shape[d] = 1;
      notes->push_back("input '" + val.name + "' dim " + std::to_string(d) + " is dynamic: using 1");
    }
  if (!DTypeIsFloat(val.dtype) && val.dtype != DType::kBFloat16) return Tensor::Alloc(val.dtype, shape);
  TARE_ASSIGN_OR_RETURN(Tensor f, Tensor::Alloc(DType::kFloat32, shape));
  float* p = f.as<float>();
  for (int64_t i = 0, n = f.numel(); i < n; ++i)
    p[i] = 2.0f * (static_cast<float>(rng() >> 40) * 0x1p-24f) - 1.0f;
  if (val.dtype == DType::kFloat32) return f;
  return ConvertTensor(f, val.dtype);
}

ojson ShapeJson(const Shape& s) { return ojson(s); }

}  // namespace

int CmdBench(const BenchArgs& args) {
  if (args.backends.empty()) return Fail("--backend is empty");
  if (args.iters < 1) return Fail("--iters must be at least 1");
  if (args.warmup < 0) return Fail("--warmup must not be negative");
  if (!args.json.empty())
    if (Status st = CheckOutputFile("--json", args.json); !st.ok()) return Fail(st.message());
  auto t0 = Clock::now();
  Result<std::shared_ptr<Model>> m = LoadAnyModel(args.model, args.from);
  if (!m.ok()) return Fail(m.status().message());
  auto t1 = Clock::now();
  std::shared_ptr<Model> model = *m;
  std::shared_ptr<const Graph> graph(model, &model->graph);
  SessionOptions opts;
  opts.backends = args.backends;
  opts.threads = args.threads;
  Result<std::unique_ptr<Session>> sr = Session::Create(graph, opts);
  if (!sr.ok()) return Fail(sr.status().message());
  auto t2 = Clock::now();
  Session& session = **sr;
  const Graph& g = model->graph;

  // Inputs: given ones, then generated ones for the rest (graph order).
  Result<std::vector<NamedTensor>> bound = BindInputs(g, args.inputs);
  if (!bound.ok()) return Fail(bound.status().message());
  std::vector<NamedTensor> given = std::move(bound).value();
  std::vector<NamedTensor> inputs;
  std::vector<std::string> sources, notes;
  std::mt19937_64 rng(20240501);
  for (int v : g.inputs) {
    const Value& val = g.values[v];
    auto it = std::find_if(given.begin(), given.end(), [&](const NamedTensor& nt) { return nt.name == val.name; });
    if (it != given.end()) {
      inputs.push_back(std::move(*it));
      sources.push_back("given");
      continue;
    }
    Result<Tensor> t = GenerateInput(val, rng, &notes);
    if (!t.ok()) return Fail(t.status().message());
    inputs.push_back({val.name, std::move(t).value()});
    sources.push_back(DTypeIsFloat(val.dtype) || val.dtype == DType::kBFloat16 ? "generated uniform [-1,1)" : "generated zeros");
  }

  std::vector<NamedTensor> outputs;
  auto r0 = Clock::now();
  Status s = session.Run(inputs, &outputs);
  auto r1 = Clock::now();
  if (!s.ok()) {
    // Generated values (zeros for integer inputs) may not be what the model expects, e.g. a
    // sample rate or a length: say which inputs were generated.
    std::string generated;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (sources[i] != "given") generated += (generated.empty() ? "" : ", ") + inputs[i].name;
    return Fail(s.message() + (generated.empty() ? "" : " (generated inputs: " + generated + "; give real ones with --input NAME=FILE)"));
  }
  const double first_ms = Ms(r0, r1);
  for (int i = 0; i < args.warmup; ++i) {
    s = session.Run(inputs, &outputs);
    if (!s.ok()) return Fail(s.message());
  }
  const std::vector<std::pair<std::string, double>> phases0 = session.Phases();
  std::vector<double> times;
  times.reserve(static_cast<size_t>(args.iters));
  for (int i = 0; i < args.iters; ++i) {
    auto a = Clock::now();
    s = session.Run(inputs, &outputs);
    auto b = Clock::now();
    if (!s.ok()) return Fail(s.message());
    times.push_back(Ms(a, b));
  }
  const Stats st = Summarize(times);
  const std::vector<std::pair<std::string, double>> phases = PhasesPerRun(phases0, session.Phases(), args.iters);
  const size_t arena = session.arena_bytes();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const int64_t rss = static_cast<int64_t>(ru.ru_maxrss) * 1024;  // Linux: KiB
  FlopCount fc = CountFlops(graph, opts, session, inputs);
  const double gflops = fc.known && st.median > 0 ? static_cast<double>(fc.flops) / (st.median * 1e6) : 0;

  const double load_ms = Ms(t0, t1), create_ms = Ms(t1, t2);
  std::string backend_list;
  for (const std::string& b : args.backends) backend_list += (backend_list.empty() ? "" : ",") + b;
  std::printf("model: %s\n", args.model.c_str());
  std::printf("backend: %s, threads: %d\n", backend_list.c_str(), args.threads);
  for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
  for (size_t i = 0; i < inputs.size(); ++i)
    std::printf("input: %s %s (%s)\n", inputs[i].name.c_str(), TypeStr(inputs[i].tensor).c_str(), sources[i].c_str());
  std::printf("load: %.3f ms (load/convert %.3f ms, Session::Create %.3f ms)\n", load_ms + create_ms, load_ms, create_ms);
  std::printf("first run: %.3f ms\n", first_ms);
  std::printf("timed runs: %d after %d warm-up\n", args.iters, args.warmup);
  std::printf("median: %.3f ms, p90: %.3f ms, p99: %.3f ms, min: %.3f ms, mean: %.3f ms\n", st.median, st.p90, st.p99,
              st.min, st.mean);
  if (!phases.empty()) {
    std::string parts;
    for (const auto& [name, ms] : phases) parts += (parts.empty() ? "" : ", ") + name + " " + Fixed3(ms) + " ms";
    std::printf("phases (mean per timed run): %s\n", parts.c_str());
  }
  std::printf("peak arena: %zu bytes\n", arena);
  std::printf("peak RSS: %lld bytes\n", static_cast<long long>(rss));
  PrintFlops(fc, gflops);

  if (!args.json.empty()) {
    ojson j;
    j["tool"] = "tare";
    j["version"] = TARE_VERSION;
    j["model"] = args.model;
    j["backend"] = backend_list;
    j["threads"] = args.threads;
    j["iters"] = args.iters;
    j["warmup"] = args.warmup;
    ojson ins = ojson::array();
    for (size_t i = 0; i < inputs.size(); ++i)
      ins.push_back({{"name", inputs[i].name}, {"dtype", DTypeName(inputs[i].tensor.dtype)},
                     {"shape", ShapeJson(inputs[i].tensor.shape)}, {"source", sources[i]}});
    j["inputs"] = ins;
    j["notes"] = notes;
    j["load_ms"] = load_ms + create_ms;
    j["convert_ms"] = load_ms;
    j["create_ms"] = create_ms;
    j["first_run_ms"] = first_ms;
    j["median_ms"] = st.median;
    j["p90_ms"] = st.p90;
    j["p99_ms"] = st.p99;
    j["min_ms"] = st.min;
    j["mean_ms"] = st.mean;
    j["times_ms"] = times;
    ojson ph = ojson::object();
    for (const auto& [name, ms] : phases) ph[name] = ms;
    j["phases_ms"] = ph;
    j["arena_bytes"] = arena;
    j["peak_rss_bytes"] = rss;
    if (fc.known) {
      j["flops"] = fc.flops;
      ojson by = ojson::object();
      for (const auto& [op, c] : fc.by_op) by[op] = {{"nodes", c.first}, {"flops", c.second}};
      j["flops_by_op"] = by;
      j["gflops_per_s"] = gflops;
    } else {
      j["flops"] = nullptr;
      j["flops_unknown_reason"] = fc.why_unknown;
      j["gflops_per_s"] = nullptr;
    }
    j["flops_uncounted_body_nodes"] = fc.in_bodies;
    if (Status st = WriteTextFile(args.json, j.dump(2) + "\n"); !st.ok()) return Fail(st.message());
  }
  return 0;
}

}  // namespace tare_cli
