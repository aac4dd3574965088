// tare_silero_check: runs the published Silero VAD models (If, LSTM, dynamic shapes) on 20
// consecutive 512-sample chunks of a fixed 16 kHz signal, carrying the recurrent state from chunk
// to chunk, and compares every output of every chunk with ONNX Runtime's.
//
//   tare_silero_check --models DIR --fixtures DIR [--model legacy|v5|all] [--backend ref|ref64|cpu]
//                     [--tolerance 1e-4] [--state own|ort] [--skip-missing]
//
// --models: the folder tests/models/silero/fetch.sh filled (silero_vad_legacy.onnx,
// silero_vad_v5.onnx). --fixtures: tests/models/silero, written by bench/peers/ort_silero.js:
// input.npy float32 [20,512] (the chunks) and, per model, <model>/<output>.npy holding ONNX
// Runtime's output for every chunk stacked on a leading axis of 20 (legacy: output [20,1,1],
// hn and cn [20,2,1,64]; v5: output [20,1,1], stateN [20,2,1,128]).
// Each chunk runs with input = chunk [1,512] float32, sr = 16000 (int64 scalar) and the state:
// zeros before chunk 0, then tare's own state output of the previous chunk rounded to float32
// (legacy: h <- hn, c <- cn; v5: state <- stateN), as ONNX Runtime did with its own. With
// --state ort each chunk gets ONNX Runtime's previous state instead (isolates one chunk's error
// from the accumulated drift; for diagnosis).
// Metrics per output, over all chunks: max abs error |y - e|, and max relative error |y - e| / |e|
// over the elements with |e| >= 1e-6 (printed only). The check passes when every output of every
// chunk has max abs error <= tolerance (default 1e-4) and is finite.
// Exit status: 0 pass; 1 on any failure, with one line "silero_check: MODEL on BACKEND: ..." on
// stderr per failing model (a model that does not convert or run, a missing or malformed fixture,
// a mismatch); 77 (ctest's skip code) when --skip-missing is given and a model file is absent;
// 2 for bad arguments.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"
#include "format/npy.h"
#include "runtime/session.h"

using namespace tare;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kChunks = 20, kChunkSamples = 512, kSampleRate = 16000;

struct StatePair {
  std::string input, output;
  Shape shape;
};
struct ModelSpec {
  std::string name, file;
  std::vector<StatePair> state;
};
const std::vector<ModelSpec> kModels = {
    {"legacy", "silero_vad_legacy.onnx", {{"h", "hn", {2, 1, 64}}, {"c", "cn", {2, 1, 64}}}},
    {"v5", "silero_vad_v5.onnx", {{"state", "stateN", {2, 1, 128}}}},
};

/// Worst errors of one output over the chunks.
struct Errors {
  double max_abs = 0, max_rel = 0;
  int64_t worst_chunk = 0, worst_index = 0;
  double worst_y = 0, worst_e = 0;
  bool finite = true;
};

// Chunk `c` of a tensor stacked on a leading axis: a float32 view, or an error.
Result<Tensor> Slice(const Tensor& stacked, int64_t c, const std::string& what) {
  if (stacked.dtype != DType::kFloat32 || stacked.shape.empty() || stacked.shape[0] != kChunks)
    return Status::Error(what + " must be float32 with a leading axis of " + std::to_string(kChunks) + ", got " +
                         DTypeName(stacked.dtype) + " " + ShapeStr(stacked.shape));
  Shape s(stacked.shape.begin() + 1, stacked.shape.end());
  const int64_t per = stacked.numel() / kChunks;
  return Tensor::View(DType::kFloat32, s, const_cast<float*>(stacked.as<float>()) + c * per, stacked.owner);
}

// Runs one model. Returns the failure message (empty on success); prints one line per output.
std::string CheckModel(const ModelSpec& spec, const fs::path& models, const fs::path& fixtures,
                       const std::string& backend, double tolerance, bool ort_state) {
  const fs::path model_path = models / spec.file;
  Result<Tensor> input = ReadNpy((fixtures / "input.npy").string());
  if (!input.ok()) return "fixture: " + input.status().message();
  if (input->dtype != DType::kFloat32 || input->shape != Shape{kChunks, kChunkSamples})
    return "fixture input.npy must be float32 [20,512], got " + DTypeName(input->dtype) + " " + ShapeStr(input->shape);

  Result<std::shared_ptr<Model>> model = LoadAnyModel(model_path.string());
  if (!model.ok()) return "conversion failed: " + model.status().message();
  std::shared_ptr<const Graph> graph(*model, &(*model)->graph);
  SessionOptions opts;
  opts.backends = {backend};
  Result<std::unique_ptr<Session>> session = Session::Create(graph, opts);
  if (!session.ok()) return "session creation failed: " + session.status().message();

  // ONNX Runtime's outputs: one stacked fixture per graph output.
  std::map<std::string, Tensor> expected;
  for (int id : graph->outputs) {
    const std::string& name = graph->values[id].name;
    Result<Tensor> e = ReadNpy((fixtures / spec.name / (name + ".npy")).string());
    if (!e.ok()) return "fixture for output '" + name + "': " + e.status().message();
    expected[name] = std::move(e).value();
  }

  Result<Tensor> sr = Tensor::Alloc(DType::kInt64, {});
  if (!sr.ok()) return sr.status().message();
  sr->as<int64_t>()[0] = kSampleRate;
  std::map<std::string, Tensor> state;  // state input name -> tensor
  for (const StatePair& p : spec.state) {
    Result<Tensor> z = Tensor::Alloc(DType::kFloat32, p.shape);
    if (!z.ok()) return z.status().message();
    state[p.input] = std::move(z).value();
  }

  std::map<std::string, Errors> errors;
  for (int64_t c = 0; c < kChunks; ++c) {
    Result<Tensor> chunk = Slice(*input, c, "input.npy");
    if (!chunk.ok()) return chunk.status().message();
    chunk->shape = {1, kChunkSamples};
    std::vector<NamedTensor> inputs = {{"input", *chunk}, {"sr", *sr}};
    for (const auto& [name, t] : state) inputs.push_back({name, t});
    std::vector<NamedTensor> outputs;
    Status s = (*session)->Run(inputs, &outputs);
    if (!s.ok()) return "chunk " + std::to_string(c) + ": " + s.message();

    for (const NamedTensor& o : outputs) {
      Result<Tensor> e = Slice(expected.at(o.name), c, spec.name + "/" + o.name + ".npy");
      if (!e.ok()) return e.status().message();
      if (o.tensor.shape != e->shape)
        return "chunk " + std::to_string(c) + ": output '" + o.name + "' has shape " + ShapeStr(o.tensor.shape) +
               ", ONNX Runtime's " + ShapeStr(e->shape);
      Errors& err = errors[o.name];
      for (int64_t i = 0; i < e->numel(); ++i) {
        const double y = ReadDouble(o.tensor, i), ev = ReadDouble(*e, i), d = std::fabs(y - ev);
        const bool worse = std::isfinite(d) ? err.finite && d > err.max_abs : err.finite;
        if (worse) {  // the first non-finite result, else the largest finite error
          if (std::isfinite(d)) err.max_abs = d; else err.finite = false;
          err.worst_chunk = c, err.worst_index = i, err.worst_y = y, err.worst_e = ev;
        }
        if (std::fabs(ev) >= 1e-6) err.max_rel = std::fmax(err.max_rel, d / std::fabs(ev));
      }
    }
    // Carry the state to the next chunk (float32 inputs take float32; ref64's outputs are float64).
    for (const StatePair& p : spec.state) {
      if (ort_state) {
        Result<Tensor> e = Slice(expected.at(p.output), c, spec.name + "/" + p.output + ".npy");
        if (!e.ok()) return e.status().message();
        state[p.input] = *e;
        continue;
      }
      const NamedTensor* found = nullptr;
      for (const NamedTensor& o : outputs)
        if (o.name == p.output) found = &o;
      if (!found) return "the model has no output '" + p.output + "' to carry into '" + p.input + "'";
      Result<Tensor> f = ConvertTensor(found->tensor, DType::kFloat32);
      if (!f.ok()) return f.status().message();
      state[p.input] = std::move(f).value();
    }
  }

  std::string failure;
  for (int id : graph->outputs) {
    const std::string& name = graph->values[id].name;
    const Errors& err = errors[name];
    const bool ok = err.finite && err.max_abs <= tolerance;
    std::printf("%-7s %-6s %-7s %s max_abs %.3e  max_rel %.3e  (worst: chunk %lld element %lld, tare %.9g, ORT %.9g)\n",
                spec.name.c_str(), backend.c_str(), name.c_str(), ok ? "PASS" : "FAIL", err.max_abs, err.max_rel,
                static_cast<long long>(err.worst_chunk), static_cast<long long>(err.worst_index), err.worst_y,
                err.worst_e);
    if (!ok && failure.empty()) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "output '%s' differs from ONNX Runtime: max abs error %.3e > %.1e at chunk %lld element %lld "
                    "(tare %.9g, ORT %.9g)",
                    name.c_str(), err.max_abs, tolerance, static_cast<long long>(err.worst_chunk),
                    static_cast<long long>(err.worst_index), err.worst_y, err.worst_e);
      failure = err.finite ? buf : "output '" + name + "' is not finite at chunk " + std::to_string(err.worst_chunk);
    }
  }
  return failure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the Silero VAD models on 20 chunks, carrying the state, and compares with ONNX Runtime"};
  std::string models, fixtures, which = "all", backend = "ref", state = "own";
  double tolerance = 1e-4;
  bool skip_missing = false;
  app.add_option("--models", models, "folder with silero_vad_legacy.onnx and silero_vad_v5.onnx (fetch.sh)")
      ->required();
  app.add_option("--fixtures", fixtures, "tests/models/silero (input.npy, <model>/<output>.npy)")->required();
  app.add_option("--model", which, "legacy, v5 or all")->check(CLI::IsMember({"legacy", "v5", "all"}));
  app.add_option("--backend", backend, "tare backend")->check(CLI::IsMember(tare::AvailableBackends()));
  app.add_option("--tolerance", tolerance, "max abs error allowed on every output")->check(CLI::PositiveNumber);
  app.add_option("--state", state, "state fed to chunk c > 0: tare's own (own) or ONNX Runtime's (ort)")
      ->check(CLI::IsMember({"own", "ort"}));
  app.add_flag("--skip-missing", skip_missing, "exit 77 (skip) when a model file is absent");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  int status = 0;  // every selected model is checked; one stderr line per failing model
  for (const ModelSpec& spec : kModels) {
    if (which != "all" && which != spec.name) continue;
    const fs::path model_path = fs::path(models) / spec.file;
    std::string failure;
    if (!fs::exists(model_path)) {
      const std::string hint = " not found (fill the folder with tests/models/silero/fetch.sh " + models + ")";
      if (skip_missing) {
        std::printf("SKIP %s: %s%s\n", spec.name.c_str(), model_path.string().c_str(), hint.c_str());
        return 77;
      }
      failure = model_path.string() + hint;
    } else {
      failure = CheckModel(spec, models, fixtures, backend, tolerance, state == "ort");
    }
    if (!failure.empty()) {
      std::fflush(stdout);
      std::fprintf(stderr, "silero_check: %s on %s: %s\n", spec.name.c_str(), backend.c_str(), failure.c_str());
      status = 1;
    }
  }
  return status;
}
