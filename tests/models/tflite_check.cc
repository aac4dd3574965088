// tare_tflite_check: converts the seven published MediaPipe .tflite models, runs each on the
// committed real-image input and compares every output, and the intermediate tensors listed in the
// manifest (pre-sigmoid logits where an output saturates), with LiteRT.js's.
//
//   tare_tflite_check --models DIR --fixtures DIR [--model NAME|all] [--backend ref|ref64|cpu]
//                     [--tolerance 1e-4] [--exact] [--skip-missing] [--manifest manifest.json]
//
// --models: the folder tests/models/tflite/fetch.sh filled (<model>.tflite). --fixtures:
// tests/models/tflite (manifest.json, <model>/input_0.npy, <model>/expected/*.npy, written by
// tests/models/tflite/make_fixtures.sh with bench/peers/tflite_run.js on LiteRT.js); --manifest
// names another manifest in that folder (tests/models/tflite_quant/float_truth.json: numpy's float
// truth of the quantized models, for ref64).
// Metric per tensor: relative L2 error ||y - e|| / ||e|| (e = LiteRT's, in float64), which must be
// <= tolerance (default 1e-4, issue 6) and finite; max abs error printed too. --exact requires
// every value to equal LiteRT's bit for bit (quantized models: issue 6 asks for exact equality). Intermediates are
// traced by their TFLite names; tare carries rank-4 tensors in NCHW inside, so a traced tensor of
// shape [N,C,H,W] is compared with LiteRT's NHWC one after transposing.
// Exit status: 0 pass; 1 on any failure (one stderr line per failing model); 77 (ctest's skip code)
// when --skip-missing is given and a model file is absent; 2 for bad arguments.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "converters/load_any.h"
#include "format/npy.h"
#include "runtime/session.h"

using namespace tare;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Err {
  double rel_l2 = 0, max_abs = 0;
  bool finite = true;
};

// y against e (same element count; y possibly NCHW of e's NHWC shape).
Result<Err> Compare(const Tensor& y, const Tensor& e) {
  const Tensor* a = &y;
  Tensor nhwc;
  if (y.shape != e.shape) {
    const Shape& s = e.shape;
    if (s.size() != 4 || y.shape != Shape{s[0], s[3], s[1], s[2]})
      return Status::Error("shape " + ShapeStr(y.shape) + " vs LiteRT's " + ShapeStr(e.shape));
    TARE_ASSIGN_OR_RETURN(nhwc, Tensor::Alloc(DType::kFloat32, s));
    for (int64_t n = 0; n < s[0]; ++n)
      for (int64_t h = 0; h < s[1]; ++h)
        for (int64_t w = 0; w < s[2]; ++w)
          for (int64_t c = 0; c < s[3]; ++c)
            WriteDouble(nhwc, ((n * s[1] + h) * s[2] + w) * s[3] + c, ReadDouble(y, ((n * s[3] + c) * s[1] + h) * s[2] + w));
    a = &nhwc;
  }
  Err r;
  double num = 0, den = 0;
  for (int64_t i = 0; i < e.numel(); ++i) {
    const double yv = ReadDouble(*a, i), ev = ReadDouble(e, i), d = yv - ev;
    if (!std::isfinite(yv)) r.finite = false;
    num += d * d, den += ev * ev;
    r.max_abs = std::fmax(r.max_abs, std::fabs(d));
  }
  r.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return r;
}

std::string CheckModel(const std::string& name, const json& spec, const fs::path& models, const fs::path& fixtures,
                       const std::string& backend, double tolerance, bool exact) {
  Result<std::shared_ptr<Model>> model = LoadAnyModel((models / spec.at("file").get<std::string>()).string());
  if (!model.ok()) return "conversion failed: " + model.status().message();
  std::shared_ptr<const Graph> graph(*model, &(*model)->graph);
  SessionOptions opts;
  opts.backends = {backend};
  for (const json& im : spec.value("intermediates", json::array())) opts.trace.push_back(im.at("name").get<std::string>());
  Result<std::unique_ptr<Session>> session = Session::Create(graph, opts);
  if (!session.ok()) return "session creation failed: " + session.status().message();
  std::vector<NamedTensor> inputs;
  for (const json& in : spec.at("inputs")) {
    Result<Tensor> t = ReadNpy((fixtures / in.at("file").get<std::string>()).string());
    if (!t.ok()) return "fixture: " + t.status().message();
    inputs.push_back({in.at("name").get<std::string>(), std::move(t).value()});
  }
  std::vector<NamedTensor> outputs;
  Status s = (*session)->Run(inputs, &outputs);
  if (!s.ok()) return "run failed: " + s.message();
  std::map<std::string, Tensor> got;
  for (NamedTensor& o : outputs) got[o.name] = std::move(o.tensor);
  for (TraceEntry& t : (*session)->Trace()) got.emplace(t.value, std::move(t.tensor));
  std::string failure;
  auto check = [&](const json& item, const char* kind) {
    const std::string tname = item.at("name").get<std::string>();
    Result<Tensor> e = ReadNpy((fixtures / item.at("file").get<std::string>()).string());
    if (!e.ok()) {
      failure += (failure.empty() ? "" : "; ") + e.status().message();
      return;
    }
    auto it = got.find(tname);
    if (it == got.end()) {
      failure += (failure.empty() ? "" : "; ") + std::string(kind) + " '" + tname + "' was not produced";
      return;
    }
    Result<Err> r = Compare(it->second, *e);
    if (!r.ok()) {
      failure += (failure.empty() ? "" : "; ") + std::string(kind) + " '" + tname + "': " + r.status().message();
      return;
    }
    const bool ok = r->finite && (exact ? r->max_abs == 0 : r->rel_l2 <= tolerance);
    std::printf("%s %s on %s: %s '%s' rel L2 %.3g, max abs %.3g (|expected| up to %.4g)\n", ok ? "PASS" : "FAIL", name.c_str(),
                backend.c_str(), kind, tname.c_str(), r->rel_l2, r->max_abs, item.value("maxAbs", 0.0));
    if (!ok)
      failure += (failure.empty() ? "" : "; ") + std::string(kind) + " '" + tname + "' rel L2 " + std::to_string(r->rel_l2) +
                 (exact ? " (not bit-identical)" : " > " + std::to_string(tolerance));
  };
  for (const json& o : spec.at("outputs")) check(o, "output");
  for (const json& im : spec.value("intermediates", json::array())) check(im, "tensor");
  return failure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the MediaPipe .tflite models on real images and compares with LiteRT.js"};
  std::string models, fixtures, which = "all", backend = "ref", manifest_name = "manifest.json";
  double tolerance = 1e-4;
  bool skip_missing = false, exact = false;
  app.add_option("--models", models, "folder with the .tflite files (tests/models/tflite/fetch.sh)")->required();
  app.add_option("--fixtures", fixtures, "tests/models/tflite (manifest.json, inputs, expected outputs)")->required();
  app.add_option("--model", which, "a model name from the manifest, or all");
  app.add_option("--backend", backend, "tare backend")->check(CLI::IsMember(tare::AvailableBackends()));
  app.add_option("--tolerance", tolerance, "max relative L2 error allowed on every tensor")->check(CLI::PositiveNumber);
  app.add_flag("--skip-missing", skip_missing, "exit 77 (skip) when a model file is absent");
  app.add_option("--manifest", manifest_name, "manifest file in the --fixtures folder");
  app.add_flag("--exact", exact, "require bit-identical values (instead of the rel L2 tolerance)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  json manifest;
  try {
    std::ifstream f(fs::path(fixtures) / manifest_name);
    if (!f) throw std::runtime_error("cannot open " + (fs::path(fixtures) / manifest_name).string());
    manifest = json::parse(f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tflite_check: %s\n", e.what());
    return 1;
  }
  int status = 0, checked = 0;
  for (const auto& [name, spec] : manifest.at("models").items()) {
    if (which != "all" && which != name) continue;
    ++checked;
    const fs::path path = fs::path(models) / spec.at("file").get<std::string>();
    std::string failure;
    if (!fs::exists(path)) {
      const std::string hint = " not found (fill the folder with tests/models/tflite/fetch.sh " + models + ")";
      if (skip_missing) {
        std::printf("SKIP %s: %s%s\n", name.c_str(), path.string().c_str(), hint.c_str());
        return 77;
      }
      failure = path.string() + hint;
    } else {
      try {
        failure = CheckModel(name, spec, models, fixtures, backend, tolerance, exact);
      } catch (const std::exception& e) {
        failure = std::string("malformed manifest entry: ") + e.what();
      }
    }
    if (!failure.empty()) {
      std::fflush(stdout);
      std::fprintf(stderr, "tflite_check: %s on %s: %s\n", name.c_str(), backend.c_str(), failure.c_str());
      status = 1;
    }
  }
  if (checked == 0) {
    std::fprintf(stderr, "tflite_check: no model called '%s' in the manifest\n", which.c_str());
    return 1;
  }
  return status;
}
