// tare compare: runs one or more models on tare's backends with every layer traced, and says where
// and why outputs differ (DESIGN.md section 2):
//   same function                    the models compute the same function on ref64 (outputs within
//                                    the threshold, relative L2); with --expect, the frameworks' own
//                                    outputs then differ by a framework computing difference
//   framework computing difference   each framework's distance from ref64 is reported
//   models differ at <layer>         the first aligned layer whose output diverges while the layers
//                                    feeding it agree (node and tensor name on each side)
//   kernel noise floor               how far tare's own backends drift from ref64 on the model
// Terminal table, and JSON with --json. Exit status 0 when the comparison ran (whatever the verdict).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cstring>

#include "cli/cli.h"
#include "compare/align.h"
#include "converters/onnx/onnx_converter.h"
#include "format/npy.h"

namespace fs = std::filesystem;
using namespace tare;
using json = nlohmann::json;

namespace tare_cli {
namespace {

struct Run {
  std::string backend;
  std::vector<NamedTensor> outputs;
  std::vector<Layer> layers;
};

struct ModelRuns {
  std::string label;
  std::shared_ptr<Model> model;
  std::vector<Run> runs;  // one per backend, ref64 first
  std::string expect_label;
  std::vector<NamedTensor> expected;  // the framework's own outputs, in output order
};

json MetricsJson(const Metrics& m) {
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")); };
  return {{"max_abs", num(m.max_abs)}, {"max_rel", num(m.max_rel)}, {"rel_l2", num(m.rel_l2)},
          {"cosine", num(m.cosine)},   {"max_ulp", m.max_ulp},      {"top1", m.top1},
          {"topk", m.topk},            {"k", m.k},                  {"nan_mismatch", m.nan_mismatch}};
}

std::string Attrs(const Node& n) {
  std::string s;
  for (const auto& [name, a] : n.attrs) {
    if (name.rfind("tare.", 0) == 0) continue;
    s += (s.empty() ? "" : ", ") + name + "=";
    switch (a.kind) {
      case Attr::Kind::kInt: s += std::to_string(a.i); break;
      case Attr::Kind::kFloat: { char b[32]; std::snprintf(b, sizeof b, "%.9g", a.f); s += b; break; }
      case Attr::Kind::kString: s += "'" + a.s + "'"; break;
      case Attr::Kind::kInts: { s += "["; for (size_t i = 0; i < a.ints.size(); ++i) s += (i ? "," : "") + std::to_string(a.ints[i]); s += "]"; break; }
      case Attr::Kind::kFloats: { s += "["; for (size_t i = 0; i < a.floats.size(); ++i) { char b[32]; std::snprintf(b, sizeof b, "%s%.9g", i ? "," : "", a.floats[i]); s += b; } s += "]"; break; }
      default: s += AttrKindName(a.kind); break;
    }
  }
  return s;
}

// Worst (largest rel L2) output comparison between two output lists, matched by position.
Result<Metrics> WorstOutput(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b, std::string* which) {
  if (a.size() != b.size())
    return Status::Error("the models have " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " outputs");
  Metrics worst;
  worst.rel_l2 = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    Result<Metrics> m = CompareTensors(a[i].tensor, b[i].tensor);
    if (!m.ok()) return Status::Error("output " + std::to_string(i) + " ('" + a[i].name + "'): " + m.status().message());
    if (m->rel_l2 > worst.rel_l2 || std::isnan(m->rel_l2)) {
      worst = *m;
      *which = a[i].name;
    }
  }
  return worst;
}

std::string Esc(const std::string& in) {
  std::string o;
  for (char c : in) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// One self-contained HTML page (no scripts, no network): the verdicts, the runs table and, per
// pair of models, the relative L2 error of every aligned layer on a log scale (inline SVG).
std::string Html(const json& report) {
  std::string h = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tare compare</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:2px 6px;font-size:13px}.v{font-size:18px;font-weight:bold}</style></head><body>"
                  "<h1>tare compare</h1>";
  auto num = [](const json& v) {
    if (v.is_number()) { char b[32]; std::snprintf(b, sizeof b, "%.3e", v.get<double>()); return std::string(b); }
    return v.is_string() ? v.get<std::string>() : std::string("?");
  };
  h += "<h2>Runs against ref64</h2><table><tr><th>model</th><th>run</th><th>rel L2</th><th>max abs</th><th>cosine</th><th>max ULP</th></tr>";
  for (const json& m : report["models"]) {
    auto row = [&](const std::string& run, const json& met) {
      h += "<tr><td>" + Esc(m["file"].get<std::string>()) + "</td><td>" + Esc(run) + "</td><td>" + num(met["rel_l2"]) +
           "</td><td>" + num(met["max_abs"]) + "</td><td>" + num(met["cosine"]) + "</td><td>" + std::to_string(met["max_ulp"].get<uint64_t>()) + "</td></tr>";
    };
    for (const json& r : m["runs"]) row(r["backend"].get<std::string>(), r["metrics"]);
    if (m.contains("framework")) row(m["framework"]["label"].get<std::string>() + " (framework)", m["framework"]["metrics"]);
  }
  h += "</table><p>Kernel noise floor: how far tare's own backends are from ref64 on the same model.</p>";
  for (const json& p : report["pairs"]) {
    h += "<h2>" + Esc(p["a"].get<std::string>()) + " vs " + Esc(p["b"].get<std::string>()) + "</h2><p class=\"v\">" +
         Esc(p["verdict"].get<std::string>()) + "</p>";
    if (p.contains("first_divergence")) {
      const json& f = p["first_divergence"];
      for (const char* side : {"a", "b"})
        h += "<p>" + Esc(p[side].get<std::string>()) + ": node <b>" + Esc(f[side]["node"].get<std::string>()) + "</b> (" +
             Esc(f[side]["op"].get<std::string>()) + ", tensor " + Esc(f[side]["tensor"].get<std::string>()) + ") {" +
             Esc(f[side]["attributes"].get<std::string>()) + "}</p>";
    }
    if (!p.contains("layers") || p["layers"].empty()) continue;
    // rel L2 per aligned layer, log10 from -18 to +2 (0 drawn at the bottom).
    const json& layers = p["layers"];
    const double W = 900, H = 300, L = 60, B = 30;
    const size_t n = layers.size();
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(W + L + 20)) + "\" height=\"" +
                      std::to_string(int(H + B + 20)) + "\">";
    auto y_of = [&](double e) {
      double lg = e > 0 ? std::log10(e) : -18;
      lg = std::min(2.0, std::max(-18.0, lg));
      return 10 + H * (2 - lg) / 20;
    };
    for (int d = -18; d <= 2; d += 4) {
      const double y = y_of(std::pow(10.0, d));
      svg += "<line x1=\"" + std::to_string(L) + "\" x2=\"" + std::to_string(L + W) + "\" y1=\"" + std::to_string(y) + "\" y2=\"" +
             std::to_string(y) + "\" stroke=\"#eee\"/><text x=\"5\" y=\"" + std::to_string(y + 4) + "\" font-size=\"11\">1e" +
             std::to_string(d) + "</text>";
    }
    std::string pts;
    for (size_t i = 0; i < n; ++i) {
      const json& l = layers[i];
      const double e = l.contains("metrics") && l["metrics"]["rel_l2"].is_number() ? l["metrics"]["rel_l2"].get<double>() : 1e2;
      const double x = L + (n > 1 ? W * static_cast<double>(i) / static_cast<double>(n - 1) : W / 2);
      const double y = y_of(e);
      pts += std::to_string(x) + "," + std::to_string(y) + " ";
      svg += "<circle cx=\"" + std::to_string(x) + "\" cy=\"" + std::to_string(y) + "\" r=\"3\" fill=\"" +
             (l["diverges"].get<bool>() ? "#c00" : "#080") + "\"><title>" + Esc(l["op"].get<std::string>() + " " + l["a"].get<std::string>() +
             " / " + l["b"].get<std::string>()) + " rel L2 " + num(l.contains("metrics") ? l["metrics"]["rel_l2"] : json("error")) + "</title></circle>";
    }
    svg += "<polyline fill=\"none\" stroke=\"#888\" points=\"" + pts + "\"/><text x=\"" + std::to_string(L) + "\" y=\"" +
           std::to_string(H + B + 10) + "\" font-size=\"12\">aligned layers in graph order (red: diverges); y: relative L2 (log)</text></svg>";
    h += svg;
  }
  return h + "</body></html>\n";
}

// A labelled data set: items [N, ...] (float32, one item per row) and labels.
struct DataSet {
  Tensor items;
  std::vector<int64_t> labels;
};

// Reads an IDX file (gzip or plain; magic 0x0000080D with D dims of uint8).
Result<std::vector<uint8_t>> ReadIdx(const std::string& path, int dims, Shape* shape) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return Status::Error("cannot open '" + path + "'");
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    data.insert(data.end(), buf, buf + n);
    if (data.size() > (size_t(1) << 31)) { gzclose(f); return Status::Error("'" + path + "' is too large"); }
  }
  gzclose(f);
  const size_t header = 4 + 4 * static_cast<size_t>(dims);
  if (n < 0 || data.size() < header || data[0] || data[1] || data[2] != 8 || data[3] != dims)
    return Status::Error("'" + path + "' is not an IDX file of " + std::to_string(dims) + " uint8 dims");
  shape->clear();
  size_t count = 1;
  for (int d = 0; d < dims; ++d) {
    const uint8_t* p = data.data() + 4 + 4 * d;
    shape->push_back((int64_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]);
    count *= static_cast<size_t>(shape->back());
  }
  if (data.size() != header + count) return Status::Error("'" + path + "' has the wrong size for its dims");
  return std::vector<uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(header), data.end());
}

// fashion-mnist:DIR (t10k files, pixels / 255, items [N,1,28,28]) or npy:DIR (items.npy [N,...]
// float32 and labels.npy [N] integers).
Result<DataSet> LoadDataSet(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return Status::Error("--dataset must be fashion-mnist:DIR or npy:DIR, got '" + spec + "'");
  const std::string kind = spec.substr(0, colon), dir = spec.substr(colon + 1);
  DataSet ds;
  if (kind == "fashion-mnist") {
    auto file = [&](const std::string& base) {
      std::string p = (fs::path(dir) / base).string();
      return fs::exists(p + ".gz") ? p + ".gz" : p;
    };
    Shape is, ls;
    TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> px, ReadIdx(file("t10k-images-idx3-ubyte"), 3, &is));
    TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> lb, ReadIdx(file("t10k-labels-idx1-ubyte"), 1, &ls));
    if (is[0] != ls[0]) return Status::Error("images and labels differ in count");
    TARE_ASSIGN_OR_RETURN(ds.items, Tensor::Alloc(DType::kFloat32, {is[0], 1, is[1], is[2]}));
    for (size_t i = 0; i < px.size(); ++i) ds.items.as<float>()[i] = static_cast<float>(px[i]) / 255.0f;
    ds.labels.assign(lb.begin(), lb.end());
    return ds;
  }
  if (kind == "npy") {
    TARE_ASSIGN_OR_RETURN(ds.items, ReadNpy((fs::path(dir) / "items.npy").string()));
    TARE_ASSIGN_OR_RETURN(Tensor labels, ReadNpy((fs::path(dir) / "labels.npy").string()));
    if (ds.items.dtype != DType::kFloat32 || ds.items.shape.empty()) return Status::Error("items.npy must be float32 [N, ...]");
    if (labels.shape.size() != 1 || labels.shape[0] != ds.items.shape[0] || DTypeIsFloat(labels.dtype))
      return Status::Error("labels.npy must hold N integers");
    for (int64_t i = 0; i < labels.numel(); ++i) ds.labels.push_back(ReadInt(labels, i));
    return ds;
  }
  return Status::Error("unknown data set kind '" + kind + "' (fashion-mnist or npy)");
}

int64_t Argmax(const Tensor& t, int64_t row, int64_t classes) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c)
    if (ReadDouble(t, row * classes + c) > ReadDouble(t, row * classes + best)) best = c;
  return best;
}

// Data-set mode: accuracy of every run and, for every pair of runs, the inputs whose top-1
// prediction flips, each with its attribution.
int DataSetMode(const CompareArgs& args) {
  Result<DataSet> dsr = LoadDataSet(args.dataset);
  if (!dsr.ok()) return Fail(dsr.status().message());
  DataSet ds = std::move(dsr).value();
  int64_t n = ds.items.shape[0];
  if (args.limit > 0) n = std::min<int64_t>(n, args.limit);
  const int64_t item_elems = n ? ds.items.numel() / ds.items.shape[0] : 0;
  struct RunPred { std::string label, model, kind; std::vector<int64_t> pred; };
  std::vector<RunPred> runs;
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    Result<std::shared_ptr<Model>> m = LoadAnyModel(args.models[mi]);
    if (!m.ok()) return Fail(m.status().message());
    std::shared_ptr<Model> model = *m;
    const Graph& g = model->graph;
    if (g.inputs.size() != 1) return Fail("data-set mode needs models with one input");
    const Value& in = g.values[g.inputs[0]];
    const int64_t batch = in.has_shape && !in.shape.empty() && in.shape[0] > 0 ? in.shape[0] : 1;
    Shape bshape = ds.items.shape;
    bshape[0] = batch;
    const std::string label = fs::path(args.models[mi]).filename().string();
    for (const std::string& backend : args.backends) {
      SessionOptions o;
      o.backends = {backend};
      Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(model, &g), o);
      if (!s.ok()) return Fail(label + " on " + backend + ": " + s.status().message());
      RunPred rp{label + " " + backend, label, backend, {}};
      for (int64_t start = 0; start < n; start += batch) {
        Tensor x = Tensor::Alloc(DType::kFloat32, bshape).value();
        const int64_t take = std::min(batch, n - start);
        std::memcpy(x.data, ds.items.as<float>() + start * item_elems, static_cast<size_t>(take * item_elems) * sizeof(float));
        std::vector<NamedTensor> out;
        Status st = (*s)->Run({{in.name, x}}, &out);
        if (!st.ok()) return Fail(label + " on " + backend + ": " + st.message());
        const Tensor& y = out[0].tensor;
        const int64_t classes = y.shape.empty() ? 1 : y.shape.back();
        for (int64_t r = 0; r < take; ++r) rp.pred.push_back(Argmax(y, r, classes));
        if ((start / batch) % 1000 == 999) std::printf("  %s: %lld/%lld\n", rp.label.c_str(), static_cast<long long>(start + take), static_cast<long long>(n));
      }
      runs.push_back(std::move(rp));
    }
    if (mi < args.expects.size()) {
      const std::string& e = args.expects[mi];
      size_t eq = e.find('=');
      if (eq == std::string::npos) return Fail("--expect must be LABEL=DIR, got '" + e + "'");
      const std::string out_name = g.values[g.outputs[0]].name;
      Result<Tensor> t = ReadNpy((fs::path(e.substr(eq + 1)) / (SafeName(out_name) + ".npy")).string());
      if (!t.ok()) return Fail("--expect " + e.substr(0, eq) + ": " + t.status().message());
      if (t->shape.size() != 2 || t->shape[0] < n) return Fail("--expect " + e.substr(0, eq) + ": " + out_name + ".npy must be [N, classes] with N >= " + std::to_string(n));
      RunPred rp{e.substr(0, eq), label, "framework", {}};
      for (int64_t r = 0; r < n; ++r) rp.pred.push_back(Argmax(*t, r, t->shape[1]));
      runs.push_back(std::move(rp));
    }
  }
  json report = {{"items", n}, {"runs", json::array()}, {"pairs", json::array()}};
  for (const RunPred& r : runs) {
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i) correct += r.pred[static_cast<size_t>(i)] == ds.labels[static_cast<size_t>(i)];
    const double acc = n ? static_cast<double>(correct) / static_cast<double>(n) : 0;
    std::printf("accuracy %-36s %.4f (%lld/%lld)\n", r.label.c_str(), acc, static_cast<long long>(correct), static_cast<long long>(n));
    report["runs"].push_back({{"run", r.label}, {"accuracy", acc}, {"correct", correct}});
  }
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      // Attribution of a flip: two of tare's backends on one model: kernel noise floor; a framework
      // against tare on its own model: framework computing difference; two models: models differ.
      std::string why;
      if (runs[a].model == runs[b].model)
        why = runs[a].kind == "framework" || runs[b].kind == "framework" ? "framework computing difference" : "kernel noise floor";
      else
        why = "models differ (run tare compare on the item for the layer)";
      json flips = json::array();
      for (int64_t i = 0; i < n; ++i)
        if (runs[a].pred[static_cast<size_t>(i)] != runs[b].pred[static_cast<size_t>(i)])
          flips.push_back({{"item", i}, {"label", ds.labels[static_cast<size_t>(i)]}, {"a", runs[a].pred[static_cast<size_t>(i)]},
                           {"b", runs[b].pred[static_cast<size_t>(i)]}, {"attribution", why}});
      std::printf("flips %s vs %s: %zu\n", runs[a].label.c_str(), runs[b].label.c_str(), flips.size());
      for (const json& f : flips)
        std::printf("  item %lld (label %lld): %lld -> %lld, %s\n", static_cast<long long>(f["item"].get<int64_t>()),
                    static_cast<long long>(f["label"].get<int64_t>()), static_cast<long long>(f["a"].get<int64_t>()),
                    static_cast<long long>(f["b"].get<int64_t>()), why.c_str());
      report["pairs"].push_back({{"a", runs[a].label}, {"b", runs[b].label}, {"flips", flips}});
    }
  }
  if (!args.json.empty()) {
    std::ofstream f(args.json);
    if (!f) return Fail("cannot write '" + args.json + "'");
    f << report.dump(2) << "\n";
  }
  return 0;
}

}  // namespace

int CmdCompare(const CompareArgs& args) {
  if (!args.dataset.empty()) {
    if (args.models.empty()) return Fail("compare needs at least one --model");
    return DataSetMode(args);
  }
  if (args.models.empty()) return Fail("compare needs at least one --model");
  if (args.expects.size() > args.models.size()) return Fail("more --expect folders than --model files");
  if (args.backends.empty() || args.backends[0] != "ref64") return Fail("--backends must start with ref64 (the reference)");
  std::vector<ModelRuns> all;
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    ModelRuns mr;
    mr.label = fs::path(args.models[mi]).filename().string();
    Result<std::shared_ptr<Model>> m = LoadAnyModel(args.models[mi]);
    if (!m.ok()) return Fail(m.status().message());
    mr.model = *m;
    const Graph& g = mr.model->graph;
    Result<std::vector<NamedTensor>> inputs = BindInputs(g, args.inputs);
    if (!inputs.ok()) return Fail(mr.label + ": " + inputs.status().message());
    for (const std::string& backend : args.backends) {
      SessionOptions o;
      o.backends = {backend};
      o.trace_all = true;
      Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(mr.model, &g), o);
      if (!s.ok()) return Fail(mr.label + " on " + backend + ": " + s.status().message());
      Run r;
      r.backend = backend;
      Status st = (*s)->Run(*inputs, &r.outputs);
      if (!st.ok()) return Fail(mr.label + " on " + backend + ": " + st.message());
      r.layers = TracedLayers(g, (*s)->Trace());
      mr.runs.push_back(std::move(r));
    }
    if (mi < args.expects.size()) {
      const std::string& e = args.expects[mi];
      size_t eq = e.find('=');
      if (eq == std::string::npos) return Fail("--expect must be LABEL=DIR, got '" + e + "'");
      mr.expect_label = e.substr(0, eq);
      const std::string dir = e.substr(eq + 1);
      for (const NamedTensor& o : mr.runs[0].outputs) {
        Result<Tensor> t = ReadNpy((fs::path(dir) / (SafeName(o.name) + ".npy")).string());
        if (!t.ok()) return Fail("--expect " + mr.expect_label + ": " + t.status().message());
        mr.expected.push_back({o.name, std::move(t).value()});
      }
    }
    all.push_back(std::move(mr));
  }

  json report = {{"threshold_rel_l2", args.threshold}, {"models", json::array()}, {"pairs", json::array()}};
  std::printf("%-28s %-10s %-12s %-12s %-12s %-10s\n", "model / run", "vs", "rel_l2", "max_abs", "cosine", "max_ulp");
  for (const ModelRuns& mr : all) {
    json jm = {{"file", mr.label}, {"runs", json::array()}};
    double floor = 0;
    for (size_t r = 1; r < mr.runs.size(); ++r) {
      std::string which;
      Result<Metrics> m = WorstOutput(mr.runs[r].outputs, mr.runs[0].outputs, &which);
      if (!m.ok()) return Fail(m.status().message());
      floor = std::max(floor, m->rel_l2);
      std::printf("%-28s %-10s %-12.3e %-12.3e %-12.9f %-10llu\n", (mr.label + " " + mr.runs[r].backend).c_str(), "ref64",
                  m->rel_l2, m->max_abs, m->cosine, static_cast<unsigned long long>(m->max_ulp));
      jm["runs"].push_back({{"backend", mr.runs[r].backend}, {"vs", "ref64"}, {"worst_output", which}, {"metrics", MetricsJson(*m)}});
    }
    jm["kernel_noise_floor_rel_l2"] = floor;
    if (!mr.expected.empty()) {
      std::string which;
      Result<Metrics> m = WorstOutput(mr.expected, mr.runs[0].outputs, &which);
      if (!m.ok()) return Fail(mr.expect_label + ": " + m.status().message());
      std::printf("%-28s %-10s %-12.3e %-12.3e %-12.9f %-10llu\n", (mr.label + " " + mr.expect_label).c_str(), "ref64",
                  m->rel_l2, m->max_abs, m->cosine, static_cast<unsigned long long>(m->max_ulp));
      jm["framework"] = {{"label", mr.expect_label}, {"vs", "ref64"}, {"worst_output", which}, {"metrics", MetricsJson(*m)}};
    }
    std::printf("kernel noise floor of %s: rel L2 %.3e (tare's backends against ref64)\n", mr.label.c_str(), floor);
    report["models"].push_back(jm);
  }

  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      const ModelRuns &a = all[i], &b = all[j];
      std::string which;
      Result<Metrics> truth = WorstOutput(a.runs[0].outputs, b.runs[0].outputs, &which);
      json jp = {{"a", a.label}, {"b", b.label}};
      std::string verdict;
      if (truth.ok() && truth->nan_mismatch == 0 && truth->rel_l2 <= args.threshold) {
        verdict = "same function";
        jp["ref64"] = MetricsJson(*truth);
        std::printf("%s vs %s: same function (ref64 outputs: rel L2 %.3e)\n", a.label.c_str(), b.label.c_str(), truth->rel_l2);
        if (!a.expected.empty() && !b.expected.empty()) {
          std::string w2;
          Result<Metrics> fw = WorstOutput(a.expected, b.expected, &w2);
          if (fw.ok()) {
            verdict = "framework computing difference";
            jp["frameworks"] = MetricsJson(*fw);
            std::printf("framework computing difference: %s vs %s rel L2 %.3e (each from ref64: see above)\n",
                        a.expect_label.c_str(), b.expect_label.c_str(), fw->rel_l2);
          }
        }
      } else {
        const Run &ra = a.runs[0], &rb = b.runs[0];
        std::vector<AlignedPair> pairs = AlignLayers(ra.layers, rb.layers);
        std::vector<LayerDiff> diffs = CompareLayers(ra.layers, rb.layers, pairs, args.threshold);
        int first = FirstDivergence(a.model->graph, ra.layers, diffs);
        jp["aligned_layers"] = pairs.size();
        json layers = json::array();
        for (const LayerDiff& d : diffs) {
          json jl = {{"a", ra.layers[d.pair.a].trace.value}, {"b", rb.layers[d.pair.b].trace.value},
                     {"op", ra.layers[d.pair.a].op}, {"how", d.pair.how}, {"diverges", d.diverges}};
          if (d.error.empty()) jl["metrics"] = MetricsJson(d.metrics);
          else jl["error"] = d.error;
          layers.push_back(jl);
        }
        jp["layers"] = layers;
        if (first >= 0) {
          const LayerDiff& d = diffs[static_cast<size_t>(first)];
          const Layer &la = ra.layers[d.pair.a], &lb = rb.layers[d.pair.b];
          const Node &na = a.model->graph.nodes[static_cast<size_t>(la.node)], &nb = b.model->graph.nodes[static_cast<size_t>(lb.node)];
          verdict = "models differ at " + na.name + " / " + nb.name;
          std::printf("%s vs %s: models differ at node '%s' (%s, tensor '%s') / node '%s' (%s, tensor '%s'): rel L2 %.3e\n",
                      a.label.c_str(), b.label.c_str(), na.name.c_str(), na.op.c_str(), la.trace.value.c_str(),
                      nb.name.c_str(), nb.op.c_str(), lb.trace.value.c_str(), d.metrics.rel_l2);
          std::printf("  attributes: %s: {%s}; %s: {%s}\n", a.label.c_str(), Attrs(na).c_str(), b.label.c_str(), Attrs(nb).c_str());
          jp["first_divergence"] = {{"a", {{"node", na.name}, {"op", na.op}, {"tensor", la.trace.value}, {"attributes", Attrs(na)}}},
                                    {"b", {{"node", nb.name}, {"op", nb.op}, {"tensor", lb.trace.value}, {"attributes", Attrs(nb)}}}};
        } else {
          verdict = "models differ";
          std::printf("%s vs %s: models differ (%s), but no aligned layer diverges first (%zu layers aligned)\n",
                      a.label.c_str(), b.label.c_str(), truth.ok() ? "outputs beyond the threshold" : truth.status().message().c_str(),
                      pairs.size());
        }
      }
      jp["verdict"] = verdict;
      report["pairs"].push_back(jp);
    }
  }
  if (!args.html.empty()) {
    std::ofstream f(args.html);
    if (!f) return Fail("cannot write '" + args.html + "'");
    f << Html(report);
    if (!f) return Fail("error writing '" + args.html + "'");
  }
  if (!args.json.empty()) {
    std::ofstream f(args.json);
    if (!f) return Fail("cannot write '" + args.json + "'");
    f << report.dump(2) << "\n";
    if (!f) return Fail("error writing '" + args.json + "'");
  }
  return 0;
}

}  // namespace tare_cli
