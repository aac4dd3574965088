// tare compare: runs one or more models on tare's backends with every layer traced, and says where
// and why outputs differ (docs/ARCHITECTURE.md, the numerics contract):
//   same function                    two models compute the same function on ref64 (outputs within
//                                    the threshold, relative L2), or two frameworks' outputs agree
//   framework computing difference   two frameworks' outputs (--expect) differ although their models
//                                    compute the same function; each one's distance from ref64 and
//                                    the ratio to the kernel noise floor are reported
//   models differ at <layer>         the first aligned layer whose output diverges while the layers
//                                    feeding it agree (node and tensor name on each side)
//   kernel noise floor               how far tare's own backends drift from ref64 on the model
// Data-set mode (--dataset) gives every run's accuracy and, for every pair of runs, the items whose
// top-1 prediction flips, each flip attributed with the same words.
// Terminal table, JSON (--json) and HTML (--html). Exit status 0 when the comparison ran (whatever
// the verdict).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "compare/align.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"
#include "format/npy.h"
#include "runtime/passes/float_truth.h"

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

// A framework's own outputs for one model (--expect LABEL=DIR).
struct Framework {
  std::string label, dir;
  std::vector<NamedTensor> outputs;  // in the model's output order (single-input mode)
};

struct ModelRuns {
  std::string label;
  std::shared_ptr<Model> model;
  std::vector<Run> runs;  // one per backend, ref64 first
  std::vector<Framework> frameworks;
  double floor = 0;  // kernel noise floor: worst rel L2 of tare's other backends against ref64
};

json Num(double v) { return std::isfinite(v) ? json(v) : json(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")); }

json MetricsJson(const Metrics& m) {
  return {{"max_abs", Num(m.max_abs)}, {"max_rel", Num(m.max_rel)}, {"rel_l2", Num(m.rel_l2)},
          {"cosine", Num(m.cosine)},   {"max_ulp", m.max_ulp},      {"top1", m.top1},
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

bool Within(const Metrics& m, double threshold) { return m.nan_mismatch == 0 && m.rel_l2 <= threshold; }

// Splits --expect LABEL=DIR.
Status SplitExpect(const std::string& e, std::string* label, std::string* dir) {
  const size_t eq = e.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) return Status::Error("--expect must be LABEL=DIR, got '" + e + "'");
  *label = e.substr(0, eq);
  *dir = e.substr(eq + 1);
  return Status::Ok();
}

// Labels of the models: file names, or the paths as given when two file names are the same.
std::vector<std::string> ModelLabels(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  std::map<std::string, int> count;
  for (const std::string& p : paths) ++count[fs::path(p).filename().string()];
  for (const std::string& p : paths) out.push_back(count[fs::path(p).filename().string()] > 1 ? p : fs::path(p).filename().string());
  return out;
}

// The frameworks of every model from --expect (each belongs to the --model before it). Labels must
// be unique and differ from the model labels and the run names tare gives its own runs.
Result<std::vector<std::vector<Framework>>> ParseExpects(const CompareArgs& args) {
  std::vector<std::vector<Framework>> out(args.models.size());
  std::map<std::string, int> seen;
  for (const std::string& m : ModelLabels(args.models)) {
    seen[m] = 1;
    for (const std::string& b : args.backends) seen[m + " " + b] = 1;
  }
  for (const std::string& b : args.backends) seen[b] = 1;
  for (size_t i = 0; i < args.expects.size(); ++i) {
    Framework f;
    TARE_RETURN_IF_ERROR(SplitExpect(args.expects[i], &f.label, &f.dir));
    if (seen[f.label]++) return Status::Error("--expect label '" + f.label + "' is given twice or names a model or a run of tare");
    const size_t mi = i < args.expect_model.size() ? args.expect_model[i] : std::min(i, args.models.size() - 1);
    out[std::min(mi, args.models.size() - 1)].push_back(std::move(f));
  }
  return out;
}

// Bytes of traced layers all runs of one `tare compare` may keep: half of this machine's memory.
size_t TraceBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2 : size_t(4) << 30;
}

// The quantization of each run-time quantized tensor of `g` by name (empty for float models).
Result<std::map<std::string, ValueQuant>> QuantByName(const Graph& g) {
  std::map<std::string, ValueQuant> out;
  if (!HasTfliteQuantOps(g)) return out;
  TARE_ASSIGN_OR_RETURN(auto q, QuantizedValues(g));
  for (const auto& [v, vq] : q) out[g.values[static_cast<size_t>(v)].name] = vq;
  return out;
}

// Replaces the codes of a quantized tensor by its real values (float64), so that an integer run
// compares with ref64's float truth and with a model quantized otherwise.
Status ToReal(const std::map<std::string, ValueQuant>& quant, const std::string& name, Tensor* t) {
  auto it = quant.find(name);
  if (it == quant.end() || t->kind != ValueKind::kTensor || DTypeIsFloat(t->dtype)) return Status::Ok();
  TARE_ASSIGN_OR_RETURN(*t, DequantizeCodes(*t, it->second));
  return Status::Ok();
}

// Run of `model` on one backend, with every layer traced when `trace` (then the traced bytes are
// added to *traced_bytes, and a run that takes the total over TraceBudget() fails with a clear error).
// Quantized tensors (TFLite's quantized ops) come back as real values: ref64 computes the float
// truth, the other backends' codes are dequantized.
Result<Run> ModelRun(const std::shared_ptr<Model>& model, const std::string& backend, const std::vector<NamedTensor>& inputs,
                     bool trace, size_t* traced_bytes) {
  TARE_ASSIGN_OR_RETURN(auto quant, QuantByName(model->graph));
  SessionOptions o;
  o.backends = {backend};
  o.trace_all = trace;
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(std::shared_ptr<const Graph>(model, &model->graph), o));
  Run r;
  r.backend = backend;
  TARE_RETURN_IF_ERROR(s->Run(inputs, &r.outputs));
  for (NamedTensor& o : r.outputs) TARE_RETURN_IF_ERROR(ToReal(quant, o.name, &o.tensor));
  if (trace) {
    std::vector<TraceEntry> t = s->Trace();
    for (TraceEntry& e : t) TARE_RETURN_IF_ERROR(ToReal(quant, e.value, &e.tensor));
    for (const TraceEntry& e : t) *traced_bytes += e.tensor.nbytes();
    if (*traced_bytes > TraceBudget())
      return Status::Error("the traced layers need " + std::to_string(*traced_bytes >> 20) + " MiB, over half of this machine's memory (" +
                           std::to_string(TraceBudget() >> 20) + " MiB): compare a smaller batch");
    r.layers = TracedLayers(model->graph, t);
  }
  return r;
}

// Step 1 and 2 of the attribution for two models' ref64 runs: "same function" when the outputs agree
// within `threshold`, else "models differ at NODE_A / NODE_B" (the first divergence), or "models
// differ" when no aligned layer diverges first. `text` gets the sentence for the terminal; the JSON
// has the verdict, the aligned layers and the first divergence.
json JudgeModels(const std::string& la, const Model& ma, const Run& ra, const std::string& lb, const Model& mb,
                 const Run& rb, double threshold, bool with_layers, std::string* text) {
  std::string which;
  Result<Metrics> truth = WorstOutput(ra.outputs, rb.outputs, &which);
  json jp = {{"a", la}, {"b", lb}, {"kind", "models"}};
  char buf[64];
  if (truth.ok() && Within(*truth, threshold)) {
    jp["verdict"] = "same function";
    jp["ref64"] = MetricsJson(*truth);
    std::snprintf(buf, sizeof buf, "%.3e", truth->rel_l2);
    *text = la + " vs " + lb + ": same function (ref64 outputs: rel L2 " + buf + ")";
    return jp;
  }
  if (truth.ok()) jp["ref64"] = MetricsJson(*truth);
  std::vector<AlignedPair> pairs = AlignLayers(ra.layers, rb.layers);
  std::vector<LayerDiff> diffs = CompareLayers(ra.layers, rb.layers, pairs, threshold);
  const int first = FirstDivergence(ma.graph, ra.layers, diffs);
  jp["aligned_layers"] = pairs.size();
  if (with_layers) {
    json layers = json::array();
    for (const LayerDiff& d : diffs) {
      json jl = {{"a", ra.layers[d.pair.a].trace.value}, {"b", rb.layers[d.pair.b].trace.value},
                 {"op", ra.layers[d.pair.a].op},         {"op_b", rb.layers[d.pair.b].op},
                 {"how", d.pair.how},                     {"layout", d.pair.layout == PairLayout::kBNhwc ? "b NHWC" : d.pair.layout == PairLayout::kANhwc ? "a NHWC" : "same"},
                 {"diverges", d.diverges}};
      if (d.error.empty()) jl["metrics"] = MetricsJson(d.metrics);
      else jl["error"] = d.error;
      layers.push_back(jl);
    }
    jp["layers"] = layers;
  }
  if (first < 0) {
    jp["verdict"] = "models differ";
    *text = la + " vs " + lb + ": models differ (" + (truth.ok() ? "outputs beyond the threshold" : truth.status().message()) +
            "), but no aligned layer diverges first (" + std::to_string(pairs.size()) + " layers aligned)";
    return jp;
  }
  const LayerDiff& d = diffs[static_cast<size_t>(first)];
  const Layer &x = ra.layers[d.pair.a], &y = rb.layers[d.pair.b];
  const Node &na = ma.graph.nodes[static_cast<size_t>(x.node)], &nb = mb.graph.nodes[static_cast<size_t>(y.node)];
  jp["verdict"] = "models differ at " + na.name + " / " + nb.name;
  std::snprintf(buf, sizeof buf, "%.3e", d.metrics.rel_l2);
  // A layer that absorbed constant epilogues names them: the difference may be in one of them.
  auto epilogues = [](const Graph& g, const Layer& l) {
    if (l.output_node == l.node) return std::string();
    const Node& n = g.nodes[static_cast<size_t>(l.output_node)];
    return " with constant epilogues up to " + n.op + " '" + n.name + "'";
  };
  std::string how = d.error.empty() ? std::string("rel L2 ") + buf : d.error;
  if (d.error.empty() && d.metrics.nan_mismatch)
    how = std::to_string(d.metrics.nan_mismatch) + " element(s) NaN on one side only";
  *text = la + " vs " + lb + ": models differ at node '" + na.name + "' (" + na.op + epilogues(ma.graph, x) + ", tensor '" +
          x.trace.value + "') / node '" + nb.name + "' (" + nb.op + epilogues(mb.graph, y) + ", tensor '" + y.trace.value +
          "'): " + how + "\n  attributes: " + la + ": {" + Attrs(na) + "}; " + lb + ": {" + Attrs(nb) + "}";
  jp["first_divergence"] = {{"a", {{"node", na.name}, {"op", na.op}, {"tensor", x.trace.value}, {"attributes", Attrs(na)}}},
                            {"b", {{"node", nb.name}, {"op", nb.op}, {"tensor", y.trace.value}, {"attributes", Attrs(nb)}}}};
  return jp;
}

std::string Sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", v);
  return b;
}

// "framework computing difference" or "same function" for two frameworks whose models compute the
// same function; `fa`/`fb` are each framework's distance from ref64 and `floor` the larger kernel
// noise floor of the two models.
json JudgeFrameworks(const Framework& a, const Metrics& fa, const Framework& b, const Metrics& fb, double floor,
                     double threshold, std::string* text) {
  std::string which;
  json jp = {{"a", a.label}, {"b", b.label}, {"kind", "frameworks"}};
  Result<Metrics> m = WorstOutput(a.outputs, b.outputs, &which);
  if (!m.ok()) {
    jp["verdict"] = "error";
    *text = a.label + " vs " + b.label + ": " + m.status().message();
    return jp;
  }
  jp["metrics"] = MetricsJson(*m);
  jp["a_vs_ref64"] = MetricsJson(fa);
  jp["b_vs_ref64"] = MetricsJson(fb);
  jp["kernel_noise_floor_rel_l2"] = floor;
  if (Within(*m, threshold)) {
    jp["verdict"] = "same function";
    *text = a.label + " vs " + b.label + ": same function (their outputs: rel L2 " + Sci(m->rel_l2) + ")";
    return jp;
  }
  jp["verdict"] = "framework computing difference";
  const double worst = std::max(fa.rel_l2, fb.rel_l2);
  *text = a.label + " vs " + b.label + ": framework computing difference: " +
          (m->nan_mismatch ? std::to_string(m->nan_mismatch) + " element(s) NaN on one side only, " : std::string()) + "rel L2 " +
          Sci(m->rel_l2) + ", max abs " + Sci(m->max_abs) + "; from ref64: " + a.label + " " + Sci(fa.rel_l2) + ", " + b.label + " " + Sci(fb.rel_l2) +
          " (" + (fa.rel_l2 > fb.rel_l2 ? a.label : b.label) + " is further from the truth)";
  if (floor > 0) {
    jp["ratio_to_floor"] = Num(worst / floor);
    *text += "; kernel noise floor " + Sci(floor) + ", the further one is " + Sci(worst / floor) + " times it" +
             (worst > 100 * floor ? ": worth a bug report" : "");
  }
  return jp;
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
    for (const json& f : m["frameworks"]) row(f["label"].get<std::string>() + " (framework)", f["metrics"]);
  }
  h += "</table><p>Kernel noise floor: how far tare's own backends are from ref64 on the same model (for a quantized "
       "model, its quantization error: the integer kernels against the float truth on ref64).</p>";
  for (const json& p : report["pairs"]) {
    h += "<h2>" + Esc(p["a"].get<std::string>()) + " vs " + Esc(p["b"].get<std::string>()) + "</h2><p class=\"v\">" +
         Esc(p["verdict"].get<std::string>()) + "</p>";
    if (p["kind"] == "frameworks" && p.contains("metrics")) {
      h += "<p>Their outputs differ by rel L2 " + num(p["metrics"]["rel_l2"]) + " (max abs " + num(p["metrics"]["max_abs"]) +
           "). Distance from ref64: " + Esc(p["a"].get<std::string>()) + " " + num(p["a_vs_ref64"]["rel_l2"]) + ", " +
           Esc(p["b"].get<std::string>()) + " " + num(p["b_vs_ref64"]["rel_l2"]) + "; kernel noise floor " +
           num(p["kernel_noise_floor_rel_l2"]) + ".</p>";
    }
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

// Index of the largest of row `row` (ties to the lower index) and its margin over the runner-up.
int64_t Argmax(const Tensor& t, int64_t row, int64_t classes, double* margin = nullptr) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c)
    if (ReadDouble(t, row * classes + c) > ReadDouble(t, row * classes + best)) best = c;
  if (margin) {
    double second = -INFINITY;
    for (int64_t c = 0; c < classes; ++c)
      if (c != best) second = std::max(second, ReadDouble(t, row * classes + c));
    *margin = classes > 1 ? ReadDouble(t, row * classes + best) - second : 0;
  }
  return best;
}

// Writes --html (the page `html` makes of the report) and --json, when given.
Status WriteReports(const CompareArgs& args, const json& report, std::string (*html)(const json&)) {
  if (!args.html.empty()) TARE_RETURN_IF_ERROR(WriteTextFile(args.html, html(report)));
  if (!args.json.empty()) TARE_RETURN_IF_ERROR(WriteTextFile(args.json, report.dump(2) + "\n"));
  return Status::Ok();
}

// Data-set mode's HTML page (no scripts, no network): accuracy of every run, and per pair of runs
// the flips by attribution and the first 50 flips.
std::string DataSetHtml(const json& report) {
  std::string h = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tare compare (data set)</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:2px 6px;font-size:13px}</style></head><body><h1>tare compare: " +
                  std::to_string(report["items"].get<int64_t>()) + " data-set items</h1><h2>Accuracy</h2><table><tr><th>run</th>"
                  "<th>model</th><th>kind</th><th>accuracy</th><th>correct</th><th>NaN items</th></tr>";
  for (const json& r : report["runs"]) {
    char acc[32];
    std::snprintf(acc, sizeof acc, "%.4f", r["accuracy"].get<double>());
    h += "<tr><td>" + Esc(r["run"].get<std::string>()) + "</td><td>" + Esc(r["model"].get<std::string>()) + "</td><td>" +
         Esc(r["kind"].get<std::string>()) + "</td><td>" + acc + "</td><td>" + std::to_string(r["correct"].get<int64_t>()) +
         "</td><td>" + std::to_string(r["nan_items"].get<int64_t>()) + "</td></tr>";
  }
  h += "</table><h2>Top-1 flips between runs</h2><table><tr><th>a</th><th>b</th><th>flips</th><th>attribution</th></tr>";
  for (const json& p : report["pairs"]) {
    std::string why;
    for (const auto& [reason, count] : p["by_attribution"].items())
      why += (why.empty() ? "" : "<br>") + std::to_string(count.get<int64_t>()) + " " + Esc(reason);
    h += "<tr><td>" + Esc(p["a"].get<std::string>()) + "</td><td>" + Esc(p["b"].get<std::string>()) + "</td><td>" +
         std::to_string(p["flips"].size()) + "</td><td>" + why + "</td></tr>";
  }
  h += "</table>";
  for (const json& p : report["pairs"]) {
    if (p["flips"].empty()) continue;
    h += "<h3>" + Esc(p["a"].get<std::string>()) + " vs " + Esc(p["b"].get<std::string>()) +
         "</h3><table><tr><th>item</th><th>label</th><th>a</th><th>b</th><th>attribution</th></tr>";
    size_t shown = 0;
    for (const json& f : p["flips"]) {
      if (++shown > 50) break;
      h += "<tr><td>" + std::to_string(f["item"].get<int64_t>()) + "</td><td>" + std::to_string(f["label"].get<int64_t>()) +
           "</td><td>" + std::to_string(f["a"].get<int64_t>()) + "</td><td>" + std::to_string(f["b"].get<int64_t>()) + "</td><td>" +
           Esc(f["attribution"].get<std::string>()) + "</td></tr>";
    }
    h += "</table>";
    if (p["flips"].size() > 50) h += "<p>... " + std::to_string(p["flips"].size() - 50) + " more in the JSON report</p>";
  }
  return h + "</body></html>\n";
}

// A model in data-set mode.
struct DsModel {
  std::string label;
  std::shared_ptr<Model> model;
  std::string input;
  int64_t batch = 1;
  Shape batch_shape;
};

// Items [start, start + batch) as one batch of `shape` (rows past the data set's end are zero).
Tensor MakeBatch(const DataSet& ds, int64_t start, const Shape& shape) {
  Tensor x = Tensor::Alloc(DType::kFloat32, shape).value();
  std::memset(x.data, 0, x.nbytes());
  const int64_t items = ds.items.shape[0], elems = ds.items.numel() / items;
  const int64_t take = std::max<int64_t>(0, std::min(shape[0], items - start));
  if (take > 0)
    std::memcpy(x.data, ds.items.as<float>() + start * elems, static_cast<size_t>(take * elems) * sizeof(float));
  return x;
}

// Data-set mode: accuracy of every run and, for every pair of runs, the inputs whose top-1
// prediction flips, each with its attribution: two runs of one model (or of two models that compute
// the same function on that item, checked on ref64 with every layer traced) flip by a kernel noise
// floor (tare's backends) or a framework computing difference (a framework involved); otherwise the
// models differ at the first diverging layer on that item.
int DataSetMode(const CompareArgs& args) {
  if (!args.inputs.empty()) return Fail("--input is not used with --dataset: the items come from the data set");
  Result<DataSet> dsr = LoadDataSet(args.dataset);
  if (!dsr.ok()) return Fail(dsr.status().message());
  DataSet ds = std::move(dsr).value();
  if (ds.items.shape[0] == 0) return Fail("the data set is empty");
  int64_t n = ds.items.shape[0];
  if (args.limit > 0) n = std::min<int64_t>(n, args.limit);
  Result<std::vector<std::vector<Framework>>> fws = ParseExpects(args);
  if (!fws.ok()) return Fail(fws.status().message());
  struct RunPred {
    std::string label, kind;  // kind: the backend, or "framework"
    size_t model = 0;
    std::vector<int64_t> pred;
    std::vector<double> margin;
  };
  std::vector<DsModel> models;
  std::vector<RunPred> runs;
  const std::vector<std::string> labels = ModelLabels(args.models);
  const bool progress = isatty(STDERR_FILENO);
  // Predictions of one row of [rows, classes] logits: -1 when the row holds a NaN.
  auto predict = [](RunPred& rp, const Tensor& y, int64_t row, int64_t classes) {
    double margin = 0;
    bool nan = false;
    for (int64_t c = 0; c < classes; ++c) nan = nan || std::isnan(ReadDouble(y, row * classes + c));
    rp.pred.push_back(nan ? -1 : Argmax(y, row, classes, &margin));
    rp.margin.push_back(nan ? NAN : margin);
  };
  // Every model and every --expect is read and checked before the first run.
  std::vector<std::vector<Tensor>> fw_logits(args.models.size());
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    Result<std::shared_ptr<Model>> m = LoadAnyModel(args.models[mi], args.from);
    if (!m.ok()) return Fail(m.status().message());
    DsModel dm;
    dm.model = *m;
    dm.label = labels[mi];
    const Graph& g = dm.model->graph;
    if (g.inputs.size() != 1 || g.outputs.empty()) return Fail(dm.label + ": data-set mode needs models with one input and an output");
    const Value& in = g.values[static_cast<size_t>(g.inputs[0])];
    dm.input = in.name;
    dm.batch = in.has_shape && !in.shape.empty() && in.shape[0] > 0 ? in.shape[0] : 1;
    dm.batch_shape = ds.items.shape;
    dm.batch_shape[0] = dm.batch;
    const std::string out_name = g.values[static_cast<size_t>(g.outputs[0])].name;
    for (Framework& f : (*fws)[mi]) {
      Result<Tensor> t = ReadNpy((fs::path(f.dir) / (SafeName(out_name) + ".npy")).string());
      if (!t.ok()) return Fail("--expect " + f.label + ": " + t.status().message());
      if (t->shape.size() != 2 || t->shape[0] < n || t->shape[1] < 2 || !DTypeIsFloat(t->dtype))
        return Fail("--expect " + f.label + ": " + SafeName(out_name) + ".npy must be floating-point [N, classes] with N >= " +
                    std::to_string(n) + " and at least 2 classes, got " + DTypeName(t->dtype) + " of rank " + std::to_string(t->shape.size()));
      fw_logits[mi].push_back(std::move(t).value());
    }
    models.push_back(std::move(dm));
  }
  for (size_t mi = 0; mi < models.size(); ++mi) {
    DsModel& dm = models[mi];
    const Graph& g = dm.model->graph;
    int64_t classes = -1;
    for (const std::string& backend : args.backends) {
      SessionOptions o;
      o.backends = {backend};
      Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(dm.model, &g), o);
      if (!s.ok()) return Fail(dm.label + " on " + backend + ": " + s.status().message());
      RunPred rp{dm.label + " " + backend, backend, mi, {}, {}};
      for (int64_t start = 0; start < n; start += dm.batch) {
        std::vector<NamedTensor> out;
        Status st = (*s)->Run({{dm.input, MakeBatch(ds, start, dm.batch_shape)}}, &out);
        if (!st.ok()) return Fail(dm.label + " on " + backend + ": " + st.message());
        const Tensor& y = out[0].tensor;
        if (!y.is_tensor() || y.shape.size() != 2 || y.shape[0] != dm.batch || y.shape[1] < 2 || !DTypeIsFloat(y.dtype))
          return Fail(dm.label + ": output '" + out[0].name + "' must be floating-point [batch, classes] with at least 2 classes, got " +
                      DTypeName(y.dtype) + " " + ShapeStr(y.shape));
        classes = y.shape[1];
        for (int64_t r = 0; r < dm.batch && start + r < n; ++r) predict(rp, y, r, classes);
        const int64_t done = std::min(n, start + dm.batch);
        if (progress && (done / 100 != start / 100 || done == n))
          std::fprintf(stderr, "\r  %s: %lld/%lld%s", rp.label.c_str(), static_cast<long long>(done), static_cast<long long>(n),
                       done == n ? "\n" : "");
      }
      runs.push_back(std::move(rp));
    }
    for (size_t fi = 0; fi < fw_logits[mi].size(); ++fi) {
      const Framework& f = (*fws)[mi][fi];
      const Tensor& t = fw_logits[mi][fi];
      if (t.shape[1] != classes)
        return Fail("--expect " + f.label + ": " + std::to_string(t.shape[1]) + " classes, the model's output has " + std::to_string(classes));
      RunPred rp{f.label, "framework", mi, {}, {}};
      for (int64_t r = 0; r < n; ++r) predict(rp, t, r, classes);
      runs.push_back(std::move(rp));
    }
  }
  // The attribution of a flip of item i between runs of models ma and mb.
  std::map<std::tuple<size_t, size_t, int64_t>, std::string> judged;
  auto attribute = [&](const RunPred& ra, const RunPred& rb, int64_t item) -> Result<std::string> {
    const bool framework = ra.kind == "framework" || rb.kind == "framework";
    const std::string same = framework ? "framework computing difference" : "kernel noise floor";
    if (ra.model == rb.model) return same;
    auto key = std::make_tuple(ra.model, rb.model, item);
    auto it = judged.find(key);
    if (it == judged.end()) {
      // Traced ref64 runs of both models on the item (not kept: a traced run holds every layer).
      Run r[2];
      for (int side = 0; side < 2; ++side) {
        DsModel& dm = models[side ? rb.model : ra.model];
        size_t traced_bytes = 0;
        TARE_ASSIGN_OR_RETURN(r[side], ModelRun(dm.model, "ref64", {{dm.input, MakeBatch(ds, item, dm.batch_shape)}}, true, &traced_bytes));
      }
      const DsModel &a = models[ra.model], &b = models[rb.model];
      std::string text;
      json jp = JudgeModels(a.label, *a.model, r[0], b.label, *b.model, r[1], args.threshold, false, &text);
      it = judged.emplace(key, jp["verdict"].get<std::string>()).first;
    }
    return it->second == "same function" ? same : it->second;
  };

  json report = {{"items", n}, {"threshold_rel_l2", args.threshold}, {"runs", json::array()}, {"pairs", json::array()}};
  for (const RunPred& r : runs) {
    int64_t correct = 0, nan = 0;
    for (int64_t i = 0; i < n; ++i) {
      correct += r.pred[static_cast<size_t>(i)] == ds.labels[static_cast<size_t>(i)];
      nan += r.pred[static_cast<size_t>(i)] < 0;
    }
    const double acc = static_cast<double>(correct) / static_cast<double>(n);
    std::printf("accuracy %-36s %.4f (%lld/%lld)%s\n", r.label.c_str(), acc, static_cast<long long>(correct), static_cast<long long>(n),
                nan ? (" (" + std::to_string(nan) + " items with NaN outputs, counted wrong, predicted class -1)").c_str() : "");
    report["runs"].push_back({{"run", r.label}, {"model", models[r.model].label}, {"kind", r.kind}, {"accuracy", acc},
                              {"correct", correct}, {"nan_items", nan}});
  }
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      json flips = json::array();
      std::map<std::string, int64_t> by_reason;
      std::vector<std::string> lines;
      for (int64_t i = 0; i < n; ++i) {
        const size_t k = static_cast<size_t>(i);
        if (runs[a].pred[k] == runs[b].pred[k]) continue;
        Result<std::string> why = attribute(runs[a], runs[b], i);
        if (!why.ok()) return Fail("attributing item " + std::to_string(i) + ": " + why.status().message());
        ++by_reason[*why];
        flips.push_back({{"item", i}, {"label", ds.labels[k]}, {"a", runs[a].pred[k]}, {"b", runs[b].pred[k]},
                         {"margin_a", Num(runs[a].margin[k])}, {"margin_b", Num(runs[b].margin[k])}, {"attribution", *why}});
        char buf[160];
        std::snprintf(buf, sizeof buf, "  item %lld (label %lld): %lld -> %lld (top-1 margins %.2e / %.2e), ", static_cast<long long>(i),
                      static_cast<long long>(ds.labels[k]), static_cast<long long>(runs[a].pred[k]),
                      static_cast<long long>(runs[b].pred[k]), runs[a].margin[k], runs[b].margin[k]);
        lines.push_back(buf + *why);
      }
      std::string summary;
      for (const auto& [why, count] : by_reason) summary += (summary.empty() ? " (" : ", ") + std::to_string(count) + " " + why;
      if (!summary.empty()) summary += ")";
      std::printf("flips %s vs %s: %zu%s\n", runs[a].label.c_str(), runs[b].label.c_str(), flips.size(), summary.c_str());
      const size_t shown = std::min<size_t>(lines.size(), 20);
      for (size_t l = 0; l < shown; ++l) std::printf("%s\n", lines[l].c_str());
      if (shown < lines.size())
        std::printf("  ... %zu more flips%s\n", lines.size() - shown, args.json.empty() ? " (--json lists them all)" : " in the JSON report");
      report["pairs"].push_back({{"a", runs[a].label}, {"b", runs[b].label}, {"flips", flips}, {"by_attribution", by_reason}});
    }
  }
  if (Status st = WriteReports(args, report, DataSetHtml); !st.ok()) return Fail(st.message());
  return 0;
}

}  // namespace

// Checks --json and --html before anything runs: each names a file in an existing directory, not
// a directory, not a model or input file, and the two differ.
Status CheckOutputPaths(const CompareArgs& args) {
  std::vector<std::string> inputs = args.models;
  for (const std::string& in : args.inputs) {
    const size_t eq = in.find('=');
    inputs.push_back(eq == std::string::npos || fs::exists(in) ? in : in.substr(eq + 1));
  }
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
    return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
  };
  const std::pair<const char*, const std::string*> outs[] = {{"--json", &args.json}, {"--html", &args.html}};
  for (const auto& [flag, path] : outs) {
    if (path->empty()) continue;
    TARE_RETURN_IF_ERROR(CheckOutputFile(flag, *path));
    for (const std::string& in : inputs)
      if (same(*path, in)) return Status::Error(std::string(flag) + " '" + *path + "' would overwrite the input '" + in + "'");
  }
  if (!args.json.empty() && !args.html.empty() && same(args.json, args.html)) return Status::Error("--json and --html name the same file");
  return Status::Ok();
}

int CmdCompare(const CompareArgs& args) {
  if (args.models.empty()) return Fail("compare needs at least one --model");
  if (args.backends.empty() || args.backends[0] != "ref64") return Fail("--backends must start with ref64 (the reference)");
  for (size_t i = 0; i < args.backends.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (args.backends[i] == args.backends[j]) return Fail("--backends names '" + args.backends[i] + "' twice");
  if (!std::isfinite(args.threshold) || args.threshold < 0) return Fail("--threshold must be a finite number >= 0");
  if (args.limit < 0) return Fail("--limit must be >= 0 (0: every item)");
  if (args.limit > 0 && args.dataset.empty()) return Fail("--limit applies to --dataset only");
  if (Status st = CheckOutputPaths(args); !st.ok()) return Fail(st.message());
  if (!args.dataset.empty()) return DataSetMode(args);
  Result<std::vector<std::vector<Framework>>> fws = ParseExpects(args);
  if (!fws.ok()) return Fail(fws.status().message());
  const std::vector<std::string> labels = ModelLabels(args.models);
  std::vector<ModelRuns> all;
  size_t traced_bytes = 0;
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    ModelRuns mr;
    mr.label = labels[mi];
    Result<std::shared_ptr<Model>> m = LoadAnyModel(args.models[mi], args.from);
    if (!m.ok()) return Fail(m.status().message());
    mr.model = *m;
    Result<std::vector<NamedTensor>> inputs = BindInputs(mr.model->graph, args.inputs);
    if (!inputs.ok()) return Fail(mr.label + ": " + inputs.status().message());
    for (const std::string& backend : args.backends) {
      // Only ref64's layers are compared across models: the other backends' runs are not traced.
      Result<Run> r = ModelRun(mr.model, backend, *inputs, mr.runs.empty(), &traced_bytes);
      if (!r.ok()) return Fail(mr.label + " on " + backend + ": " + r.status().message());
      mr.runs.push_back(std::move(r).value());
    }
    mr.frameworks = std::move((*fws)[mi]);
    Result<std::map<std::string, ValueQuant>> quant = QuantByName(mr.model->graph);
    if (!quant.ok()) return Fail(mr.label + ": " + quant.status().message());
    for (Framework& f : mr.frameworks) {
      for (const NamedTensor& o : mr.runs[0].outputs) {
        Result<Tensor> t = ReadNpy((fs::path(f.dir) / (SafeName(o.name) + ".npy")).string());
        if (!t.ok()) return Fail("--expect " + f.label + ": " + t.status().message());
        // A framework's codes of a quantized output, as real values (ref64 gives the float truth).
        if (Status st = ToReal(*quant, o.name, &*t); !st.ok()) return Fail("--expect " + f.label + ": " + st.message());
        if (DTypeIsFloat(t->dtype) != DTypeIsFloat(o.tensor.dtype) || t->shape != o.tensor.shape)
          return Fail("--expect " + f.label + ": " + SafeName(o.name) + ".npy is " + DTypeName(t->dtype) + " " + ShapeStr(t->shape) +
                      ", the model's output '" + o.name + "' is " + (DTypeIsFloat(o.tensor.dtype) ? "floating-point " : "integer ") +
                      ShapeStr(o.tensor.shape));
        f.outputs.push_back({o.name, std::move(t).value()});
      }
    }
    all.push_back(std::move(mr));
  }

  json report = {{"threshold_rel_l2", args.threshold}, {"models", json::array()}, {"pairs", json::array()}};
  std::printf("%-28s %-10s %-12s %-12s %-12s %-10s\n", "model / run", "vs", "rel_l2", "max_abs", "cosine", "max_ulp");
  auto row = [](const std::string& name, const Metrics& m) {
    std::printf("%-28s %-10s %-12.3e %-12.3e %-12.9f %-10llu\n", name.c_str(), "ref64", m.rel_l2, m.max_abs, m.cosine,
                static_cast<unsigned long long>(m.max_ulp));
  };
  std::map<std::string, Metrics> fw_vs_ref64;
  for (ModelRuns& mr : all) {
    json jm = {{"file", mr.label}, {"runs", json::array()}, {"frameworks", json::array()}};
    for (size_t r = 1; r < mr.runs.size(); ++r) {
      std::string which;
      Result<Metrics> m = WorstOutput(mr.runs[r].outputs, mr.runs[0].outputs, &which);
      if (!m.ok()) return Fail(m.status().message());
      mr.floor = std::max(mr.floor, m->rel_l2);
      row(mr.label + " " + mr.runs[r].backend, *m);
      jm["runs"].push_back({{"backend", mr.runs[r].backend}, {"vs", "ref64"}, {"worst_output", which}, {"metrics", MetricsJson(*m)}});
    }
    jm["kernel_noise_floor_rel_l2"] = mr.floor;
    for (const Framework& f : mr.frameworks) {
      std::string which;
      Result<Metrics> m = WorstOutput(f.outputs, mr.runs[0].outputs, &which);
      if (!m.ok()) return Fail(f.label + ": " + m.status().message());
      row(mr.label + " " + f.label, *m);
      fw_vs_ref64[f.label] = *m;
      jm["frameworks"].push_back({{"label", f.label}, {"vs", "ref64"}, {"worst_output", which}, {"metrics", MetricsJson(*m)}});
    }
    const bool quantized = HasTfliteQuantOps(mr.model->graph);
    jm["quantized"] = quantized;
    if (mr.runs.size() > 1 && quantized) {
      std::printf("quantization error of %s: rel L2 %.3e (tare's integer kernels against the float truth on ref64)\n",
                  mr.label.c_str(), mr.floor);
    } else if (mr.runs.size() > 1) {
      std::printf("kernel noise floor of %s: rel L2 %.3e (tare's backends against ref64)\n", mr.label.c_str(), mr.floor);
    } else {
      jm["kernel_noise_floor_rel_l2"] = nullptr;
      std::printf("kernel noise floor of %s: not measured (no backend besides ref64)\n", mr.label.c_str());
    }
    report["models"].push_back(jm);
  }

  // Model pairs (steps 1 and 2), then framework pairs (their models compute the same function, or
  // the difference is the models').
  std::vector<std::vector<std::string>> verdict(all.size(), std::vector<std::string>(all.size(), "same function"));
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      std::string text;
      json jp = JudgeModels(all[i].label, *all[i].model, all[i].runs[0], all[j].label, *all[j].model, all[j].runs[0],
                            args.threshold, true, &text);
      verdict[i][j] = verdict[j][i] = jp["verdict"].get<std::string>();
      std::printf("%s\n", text.c_str());
      report["pairs"].push_back(jp);
    }
  }
  std::vector<std::pair<size_t, const Framework*>> frameworks;
  for (size_t i = 0; i < all.size(); ++i)
    for (const Framework& f : all[i].frameworks) frameworks.push_back({i, &f});
  for (size_t x = 0; x < frameworks.size(); ++x) {
    for (size_t y = x + 1; y < frameworks.size(); ++y) {
      const auto [i, fa] = frameworks[x];
      const auto [j, fb] = frameworks[y];
      std::string text;
      json jp;
      if (verdict[i][j] != "same function") {
        jp = {{"a", fa->label}, {"b", fb->label}, {"kind", "frameworks"}, {"verdict", verdict[i][j]}};
        text = fa->label + " vs " + fb->label + ": " + verdict[i][j] + " (" + all[i].label + " / " + all[j].label + ")";
      } else {
        jp = JudgeFrameworks(*fa, fw_vs_ref64[fa->label], *fb, fw_vs_ref64[fb->label], std::max(all[i].floor, all[j].floor),
                             args.threshold, &text);
      }
      std::printf("%s\n", text.c_str());
      report["pairs"].push_back(jp);
    }
  }
  if (Status st = WriteReports(args, report, Html); !st.ok()) return Fail(st.message());
  return 0;
}

}  // namespace tare_cli
