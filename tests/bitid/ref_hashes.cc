// tare_ref_hashes: the bit-identity check of issue 19 (docs/PLATFORMS.md). Runs a backend (ref by
// default) on a fixed set of models and inputs and hashes every output, so that two platforms
// (x86-64, aarch64 under qemu, wasm) can be compared through one committed manifest.
//
//   tare_ref_hashes --write MANIFEST [SOURCES]    compute and write the manifest (JSON)
//   tare_ref_hashes --check MANIFEST [SOURCES]    recompute every case the manifest lists and whose
//                                                 source was given; exit 1 on any difference
// SOURCES (each optional):
//   --models PREFIX=DIR    every DIR/<name>/model.onnx with DIR/<name>/input.npy (the committed model
//                          fixtures, or the zoo exports of tests/bitid/make_zoo.py): cases PREFIX/<name>
//   --tflite FIXTURES --corpus DIR
//                          the MediaPipe models of FIXTURES/manifest.json (tests/models/tflite), the
//                          .tflite files in DIR (tests/models/tflite/fetch.sh): cases mediapipe/<name>
//   --conformance DATA     ONNX's backend test data (/usr/share/libonnx-testdata/data), folders node,
//                          pytorch-converted, pytorch-operator and simple; test_data_set_0's inputs:
//                          cases onnx/<folder>/<case>
// Other options: --backend B (ref), --filter SUBSTR (only cases whose name has it), --dump DIR
// (write each output as DIR/<case>/<output>.npy), --against DIR (compare with another platform's
// --dump: the largest difference in ULP per output, for backends that are not bit-identical),
// --export DIR (for platforms without the converters, the WebAssembly test: each case that runs
// and whose inputs and outputs are numeric tensors as DIR/<case>/model.tare + input_<i>.npy, and
// DIR/cases.json listing them; bfloat16 inputs are written as their uint16 bits).
//
// The hash of an output: SHA-256 of its canonical bytes (CanonicalBytes below): a header line
// "<dtype>[d0,d1,...]\n" then the elements in little-endian order, every NaN of a floating-point
// type written as the positive quiet NaN (x86-64 makes 0/0 a negative NaN, aarch64 a positive
// one; the payload of a NaN is not a value). A case that does not convert or run here is listed
// under "excluded" with the reason when writing; a listed case that fails when checking fails.
// "known_differences" (edited by hand: case -> {"why", "max_ulp"}) names cases whose outputs may
// differ on some platform for a reason outside tare (a libm function); they are reported, not
// failed, unless --against measures a distance over max_ulp.
// --require-all fails when a case's model file is absent (the MediaPipe corpus not fetched).
// Last line: "N outputs match, N differ, N cases absent, N not checked (source not given)".
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "converters/converter_util.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"
#include "format/npy.h"
#include "runtime/session.h"
#include "tests/conformance/data_set.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace tare;

namespace {

void AppendLE(std::string* out, const void* p, size_t n) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  const uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  if (first == 1) {
    out->append(reinterpret_cast<const char*>(b), n);
  } else {
    for (size_t i = n; i-- > 0;) out->push_back(static_cast<char>(b[i]));
  }
}

/// The canonical bytes of a value (see the file comment); sequences and optionals as
/// "seq(N)\n" / "opt(0|1)\n" followed by their items.
void CanonicalBytes(const Tensor& t, std::string* out) {
  if (t.kind == ValueKind::kSequence || t.kind == ValueKind::kOptional) {
    const size_t n = t.items ? t.items->size() : 0;
    *out += (t.kind == ValueKind::kSequence ? "seq(" : "opt(") + std::to_string(n) + ")\n";
    for (size_t i = 0; i < n; ++i) CanonicalBytes((*t.items)[i], out);
    return;
  }
  *out += DTypeName(t.dtype) + "[";
  for (size_t i = 0; i < t.shape.size(); ++i) *out += (i ? "," : "") + std::to_string(t.shape[i]);
  *out += "]\n";
  const int64_t n = t.numel();
  if (t.dtype == DType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      const std::string& s = t.as<std::string>()[i];
      const uint64_t len = s.size();
      AppendLE(out, &len, 8);
      *out += s;
    }
    return;
  }
  const size_t es = DTypeSize(t.dtype);
  const unsigned char* p = static_cast<const unsigned char*>(t.data);
  for (int64_t i = 0; i < n; ++i, p += es) {
    if (t.dtype == DType::kFloat32) {
      float v;
      std::memcpy(&v, p, 4);
      const uint32_t nan = 0x7fc00000u;
      if (std::isnan(v)) std::memcpy(&v, &nan, 4);
      AppendLE(out, &v, 4);
    } else if (t.dtype == DType::kFloat64) {
      double v;
      std::memcpy(&v, p, 8);
      const uint64_t nan = 0x7ff8000000000000ull;
      if (std::isnan(v)) std::memcpy(&v, &nan, 8);
      AppendLE(out, &v, 8);
    } else if (t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16) {
      uint16_t v;
      std::memcpy(&v, p, 2);
      const bool half = t.dtype == DType::kFloat16;
      const uint16_t exp = half ? 0x7c00 : 0x7f80, man = half ? 0x03ff : 0x007f;
      if ((v & exp) == exp && (v & man) != 0) v = half ? 0x7e00 : 0x7fc0;
      AppendLE(out, &v, 2);
    } else {
      AppendLE(out, p, es);
    }
  }
}

std::string HashOf(const Tensor& t) {
  std::string bytes;
  CanonicalBytes(t, &bytes);
  return Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

/// One case: a model file and its named inputs (read when the case runs).
struct Case {
  std::string model;
  std::function<Result<std::vector<NamedTensor>>(const Graph&)> inputs;
};

/// Runs a case; outputs by name, or an error (the reason a case is excluded).
Result<std::vector<NamedTensor>> RunCase(const Case& c, const std::string& backend) {
  Result<std::shared_ptr<Model>> m = LoadAnyModel(c.model);
  if (!m.ok()) return Status::Error("convert: " + m.status().message());
  std::shared_ptr<Model> model = *m;
  SessionOptions opts;
  opts.backends = {backend};
  Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(model, &model->graph), opts);
  if (!s.ok()) return Status::Error("session: " + s.status().message());
  Result<std::vector<NamedTensor>> in = c.inputs(model->graph);
  if (!in.ok()) return in.status();
  std::vector<NamedTensor> outputs;
  Status st = (*s)->Run(*in, &outputs);
  if (!st.ok()) return Status::Error("run: " + st.message());
  return outputs;
}

/// Inputs from .npy files: (name, path) pairs; an empty name means the graph's i-th input.
std::function<Result<std::vector<NamedTensor>>(const Graph&)> NpyInputs(std::vector<std::pair<std::string, std::string>> files) {
  return [files](const Graph& g) -> Result<std::vector<NamedTensor>> {
    std::vector<NamedTensor> in;
    for (size_t i = 0; i < files.size(); ++i) {
      Result<Tensor> t = ReadNpy(files[i].second);
      if (!t.ok()) return t.status();
      std::string name = files[i].first;
      if (name.empty()) {
        if (i >= g.inputs.size()) return Status::Error("more input files than graph inputs");
        name = g.values[g.inputs[i]].name;
      }
      in.push_back({name, std::move(t).value()});
    }
    return in;
  };
}

void AddModelDir(const std::string& spec, std::map<std::string, Case>* cases) {
  const size_t eq = spec.find('=');
  const std::string prefix = eq == std::string::npos ? "models" : spec.substr(0, eq);
  const fs::path dir = eq == std::string::npos ? spec : spec.substr(eq + 1);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!fs::exists(e.path() / "model.onnx") || !fs::exists(e.path() / "input.npy")) continue;
    (*cases)[prefix + "/" + e.path().filename().string()] = {(e.path() / "model.onnx").string(),
                                                             NpyInputs({{"", (e.path() / "input.npy").string()}})};
  }
}

Status AddTflite(const fs::path& fixtures, const fs::path& corpus, std::map<std::string, Case>* cases) {
  json manifest;
  try {
    std::ifstream f(fixtures / "manifest.json");
    if (!f) return Status::Error("cannot open " + (fixtures / "manifest.json").string());
    manifest = json::parse(f);
    for (const auto& [name, spec] : manifest.at("models").items()) {
      std::vector<std::pair<std::string, std::string>> files;
      for (const json& in : spec.at("inputs"))
        files.push_back({in.at("name").get<std::string>(), (fixtures / in.at("file").get<std::string>()).string()});
      (*cases)["mediapipe/" + name] = {(corpus / spec.at("file").get<std::string>()).string(), NpyInputs(files)};
    }
  } catch (const std::exception& e) {
    return Status::Error("malformed " + (fixtures / "manifest.json").string() + ": " + e.what());
  }
  return Status::Ok();
}

void AddConformance(const fs::path& data, std::map<std::string, Case>* cases) {
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(data / folder, ec)) {
      const fs::path set = e.path() / "test_data_set_0";
      if (!fs::exists(e.path() / "model.onnx") || !fs::is_directory(set)) continue;
      (*cases)[std::string("onnx/") + folder + "/" + e.path().filename().string()] = {
          (e.path() / "model.onnx").string(), [set](const Graph& g) { return ReadDataSetInputs(set, g); }};
    }
  }
}

/// A file-name-safe form of an output name.
std::string SafeName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return s;
}

/// Largest difference in ULP between two float tensors of one shape (-1 when they cannot be
/// compared: other shapes or a non-float dtype).
double MaxUlp(const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape || !a.is_tensor()) return -1;
  // Each value's bits as a key that is monotonic in the value (-0 and +0 both 0); the distance
  // between two keys is the number of representable values between them.
  auto key = [](int64_t bits, int64_t sign_min) { return bits < 0 ? sign_min - bits : bits; };
  auto dist = [](int64_t x, int64_t y) {
    return static_cast<double>(x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                                     : static_cast<uint64_t>(y) - static_cast<uint64_t>(x));
  };
  auto ulps = [&](auto x, auto y, auto sign_min) {  // x, y: float or double; sign_min: the signed min of their width
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y) ? 0.0 : INFINITY;
    decltype(sign_min) bx, by;
    std::memcpy(&bx, &x, sizeof bx);
    std::memcpy(&by, &y, sizeof by);
    return dist(key(bx, sign_min), key(by, sign_min));
  };
  if (a.dtype != DType::kFloat64 && a.dtype != DType::kFloat32) return -1;
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, a.dtype == DType::kFloat64 ? ulps(a.as<double>()[i], b.as<double>()[i], INT64_MIN)
                                                       : ulps(a.as<float>()[i], b.as<float>()[i], INT32_MIN));
  return worst;
}

/// Writes case `name` for --export (see the file comment) and appends its entry to `list`; a
/// reason when it cannot be exported (an input or output that is not a numeric tensor).
std::string ExportCase(const std::string& name, const Case& c, const std::vector<NamedTensor>& outputs,
                       const fs::path& dir, json* list) {
  for (const NamedTensor& t : outputs)
    if (!t.tensor.is_tensor() || t.tensor.dtype == DType::kString) return "output '" + t.name + "' is not a numeric tensor";
  Result<std::shared_ptr<Model>> m = LoadAnyModel(c.model);
  if (!m.ok()) return m.status().message();
  Result<std::vector<NamedTensor>> in = c.inputs((*m)->graph);
  if (!in.ok()) return in.status().message();
  const fs::path d = dir / name;
  fs::create_directories(d);
  json inputs = json::array();
  for (size_t i = 0; i < in->size(); ++i) {
    Tensor t = (*in)[i].tensor;
    if (!t.is_tensor() || t.dtype == DType::kString) return "input '" + (*in)[i].name + "' is not a numeric tensor";
    const std::string dtype = DTypeName(t.dtype);
    if (t.dtype == DType::kBFloat16) t.dtype = DType::kUInt16;  // .npy has no bfloat16: its bits
    const fs::path npy = d / ("input_" + std::to_string(i) + ".npy");
    Status st = WriteNpy(npy.string(), t);
    if (!st.ok()) return st.message();
    inputs.push_back({{"name", (*in)[i].name}, {"npy", npy.string()}, {"dtype", dtype}});
  }
  Status st = SaveModel(**m, (d / "model.tare").string());
  if (!st.ok()) return st.message();
  list->push_back({{"name", name}, {"tare", (d / "model.tare").string()}, {"inputs", inputs}});
  return "";
}

struct Run {
  std::string backend = "ref", write, check, filter, dump, against, export_dir;
  std::vector<std::string> models;
  std::string tflite, corpus, conformance;
  bool require_all = false;
};

int Main(const Run& o) {
  std::map<std::string, Case> cases;
  for (const std::string& m : o.models) AddModelDir(m, &cases);
  if (!o.tflite.empty()) {
    Status s = AddTflite(o.tflite, o.corpus, &cases);
    if (!s.ok()) { std::fprintf(stderr, "ref_hashes: %s\n", s.message().c_str()); return 1; }
  }
  if (!o.conformance.empty()) AddConformance(o.conformance, &cases);
  json manifest;
  if (!o.check.empty()) {
    try {
      std::ifstream f(o.check);
      if (!f) throw std::runtime_error("cannot open " + o.check);
      manifest = json::parse(f);
      if (!manifest.contains("cases") || !manifest["cases"].is_object()) throw std::runtime_error(o.check + " has no \"cases\" object");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ref_hashes: %s\n", e.what());
      return 1;
    }
  } else {
    manifest = {{"backend", o.backend}, {"cases", json::object()}, {"excluded", json::object()},
                {"known_differences", json::object()}};
    std::ifstream old(o.write);  // what is edited by hand survives a rewrite
    if (old) {
      try {
        const json prev = json::parse(old);
        for (const char* k : {"about", "known_differences"})
          if (prev.contains(k)) manifest[k] = prev[k];
      } catch (const std::exception&) {
      }
    }
  }
  int match = 0, differ = 0, known_differ = 0, skipped = 0, absent = 0, ulp_reported = 0;
  json exported = json::array(), not_exported = json::object();
  for (const auto& [name, c] : cases) {
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
    if (!o.check.empty() && !manifest["cases"].contains(name)) continue;  // excluded, or not in the manifest
    if (!fs::exists(c.model)) {  // a fetched model (the MediaPipe corpus) that is not here
      std::printf("SKIP %s: %s not found\n", name.c_str(), c.model.c_str());
      ++absent;
      continue;
    }
    Result<std::vector<NamedTensor>> out = RunCase(c, o.backend);
    if (!out.ok()) {
      if (o.check.empty()) {
        manifest["excluded"][name] = out.status().message().substr(0, 200);
      } else {
        std::printf("FAIL %s: %s\n", name.c_str(), out.status().message().c_str());
        differ += static_cast<int>(manifest["cases"][name].size());
      }
      continue;
    }
    if (!o.export_dir.empty()) {
      const std::string why = ExportCase(name, c, *out, o.export_dir, &exported);
      if (!why.empty()) not_exported[name] = why;
    }
    for (const NamedTensor& t : *out) {
      const std::string h = HashOf(t.tensor);
      const std::string file = SafeName(t.name) + ".npy";
      if (!o.dump.empty() && t.tensor.is_tensor() && t.tensor.dtype != DType::kString) {
        fs::create_directories(fs::path(o.dump) / name);
        (void)WriteNpy((fs::path(o.dump) / name / file).string(), t.tensor);
      }
      double ulp = -1;  // the distance from --against's output, when it differs and can be measured
      if (!o.against.empty() && t.tensor.is_tensor()) {
        Result<Tensor> other = ReadNpy((fs::path(o.against) / name / file).string());
        if (other.ok() && HashOf(*other) != h) {
          ulp = MaxUlp(t.tensor, *other);
          std::printf("ULP %s %s: %g\n", name.c_str(), t.name.c_str(), ulp);
          ++ulp_reported;
        }
      }
      if (o.check.empty()) {
        manifest["cases"][name][t.name] = h;
        continue;
      }
      const json& want = manifest["cases"][name];
      if (!want.contains(t.name)) {
        std::printf("DIFFER %s: output '%s' is not in the manifest\n", name.c_str(), t.name.c_str());
        ++differ;
      } else if (want[t.name].get<std::string>() != h) {
        const json known = manifest.value("known_differences", json::object()).value(name, json::object());
        const bool is_known = known.contains("why") && (ulp < 0 || ulp <= known.value("max_ulp", 0.0));
        std::printf("%s %s: output '%s' hash %s, manifest %s%s%s\n", is_known ? "KNOWN" : "DIFFER", name.c_str(),
                    t.name.c_str(), h.c_str(), want[t.name].get<std::string>().c_str(),
                    ulp >= 0 ? (", " + std::to_string(static_cast<long long>(ulp)) + " ULP from --against").c_str() : "",
                    known.contains("why") ? (" (" + known["why"].get<std::string>() + ")").c_str() : "");
        ++(is_known ? known_differ : differ);
      } else {
        ++match;
      }
    }
    if (!o.check.empty()) {
      for (const auto& item : manifest["cases"][name].items()) {
        const std::string want_name = item.key();  // (a structured binding cannot be captured in C++17)
        const bool produced = std::any_of(out->begin(), out->end(), [&](const NamedTensor& t) { return t.name == want_name; });
        if (!produced) {
          std::printf("DIFFER %s: output '%s' of the manifest was not produced\n", name.c_str(), want_name.c_str());
          ++differ;
        }
      }
    }
  }
  if (!o.check.empty()) {
    // A manifest case whose source was given (its prefix has cases here) but is not among them
    // has gone missing (a renamed fixture, a conformance case left out): a difference.
    std::set<std::string> given;
    for (const auto& [name, c] : cases) given.insert(name.substr(0, name.find('/')));
    for (const auto& [name, outs] : manifest["cases"].items()) {
      if (cases.count(name) || (!o.filter.empty() && name.find(o.filter) == std::string::npos)) continue;
      if (given.count(name.substr(0, name.find('/')))) {
        std::printf("DIFFER %s: in the manifest, not among the cases here\n", name.c_str());
        differ += static_cast<int>(outs.size());
      } else {
        ++skipped;
      }
    }
  } else {
    for (const auto& [name, outs] : manifest["cases"].items()) match += static_cast<int>(outs.size());
    std::ofstream f(o.write);
    f << manifest.dump(1) << "\n";
    if (!f) { std::fprintf(stderr, "ref_hashes: cannot write %s\n", o.write.c_str()); return 1; }
    std::printf("wrote %s: %zu cases, %d outputs, %zu excluded\n", o.write.c_str(), manifest["cases"].size(), match,
                manifest["excluded"].size());
  }
  if (!o.against.empty()) std::printf("%d outputs differ from %s\n", ulp_reported, o.against.c_str());
  if (!o.export_dir.empty()) {
    std::ofstream f(fs::path(o.export_dir) / "cases.json");
    f << json{{"cases", exported}, {"not_exported", not_exported}}.dump(1) << "\n";
    if (!f) { std::fprintf(stderr, "ref_hashes: cannot write %s/cases.json\n", o.export_dir.c_str()); return 1; }
    std::printf("exported %zu cases to %s (%zu not: their reasons are in cases.json)\n", exported.size(),
                o.export_dir.c_str(), not_exported.size());
  }
  std::printf("%d outputs match, %d differ, %d differ as known_differences says, %d cases absent, %d not checked (source not given)\n",
              match, differ, known_differ, absent, skipped);
  if (o.require_all && absent) return 1;
  return differ ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Hashes a backend's outputs on fixed models and inputs (the bit-identity manifest)"};
  Run o;
  auto* w = app.add_option("--write", o.write, "write the manifest here");
  auto* c = app.add_option("--check", o.check, "check against this manifest")->check(CLI::ExistingFile);
  w->excludes(c);
  app.add_option("--backend", o.backend, "backend")->check(CLI::IsMember(AvailableBackends()));
  app.add_option("--models", o.models, "PREFIX=DIR of <name>/model.onnx + input.npy folders");
  app.add_option("--tflite", o.tflite, "tests/models/tflite (manifest.json, inputs)");
  app.add_option("--corpus", o.corpus, "folder with the MediaPipe .tflite files");
  app.add_option("--conformance", o.conformance, "ONNX backend test data folder");
  app.add_option("--filter", o.filter, "only cases whose name contains this");
  app.add_option("--dump", o.dump, "write every output as DIR/<case>/<output>.npy");
  app.add_option("--against", o.against, "report the ULP difference from another platform's --dump");
  app.add_option("--export", o.export_dir, "write each case as a .tare model and .npy inputs, and cases.json");
  app.add_flag("--require-all", o.require_all, "fail when a case's model file is absent (the corpus not fetched)");
  try {
    app.parse(argc, argv);
    if (o.write.empty() && o.check.empty()) throw CLI::RequiredError("--write or --check");
    if (!o.tflite.empty() && o.corpus.empty()) throw CLI::RequiredError("--corpus (with --tflite)");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return Main(o);
}
