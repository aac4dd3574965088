#include "compare/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "format/npy.h"

namespace tare {
namespace {

// A layer that absorbed constant epilogues names them: the difference may be in one of them.
std::string Epilogues(const Graph& g, const Layer& l) {
  if (l.output_node == l.node) return std::string();
  const Node& n = g.nodes[static_cast<size_t>(l.output_node)];
  return " with constant epilogues up to " + n.op + " '" + n.name + "'";
}

// Every aligned layer of a model pair as reported.
std::vector<LayerRow> LayerRows(const BackendRun& ra, const BackendRun& rb, const std::vector<LayerDiff>& diffs) {
  std::vector<LayerRow> rows;
  for (const LayerDiff& d : diffs) {
    LayerRow r;
    r.a = ra.layers[d.pair.a].trace.value;
    r.b = rb.layers[d.pair.b].trace.value;
    r.op = ra.layers[d.pair.a].op;
    r.op_b = rb.layers[d.pair.b].op;
    r.how = d.pair.how;
    r.layout = d.pair.layout;
    r.diverges = d.diverges;
    if (d.error.empty()) r.metrics = d.metrics;
    else r.error = d.error;
    rows.push_back(std::move(r));
  }
  return rows;
}

// The verdict "models differ at ..." of two models at their first divergence `d`.
void FirstDivergenceVerdict(const std::string& la, const Model& ma, const BackendRun& ra, const std::string& lb,
                            const Model& mb, const BackendRun& rb, const LayerDiff& d, PairVerdict* v) {
  const Layer &x = ra.layers[d.pair.a], &y = rb.layers[d.pair.b];
  const Node &na = ma.graph.nodes[static_cast<size_t>(x.node)], &nb = mb.graph.nodes[static_cast<size_t>(y.node)];
  v->verdict = "models differ at " + na.name + " / " + nb.name;
  std::string how = d.error.empty() ? "rel L2 " + Sci(d.metrics.rel_l2) : d.error;
  if (d.error.empty() && d.metrics.nan_mismatch)
    how = std::to_string(d.metrics.nan_mismatch) + " element(s) NaN on one side only";
  v->text = la + " vs " + lb + ": models differ at node '" + na.name + "' (" + na.op + Epilogues(ma.graph, x) + ", tensor '" +
            x.trace.value + "') / node '" + nb.name + "' (" + nb.op + Epilogues(mb.graph, y) + ", tensor '" + y.trace.value +
            "'): " + how + "\n  attributes: " + la + ": {" + NodeAttrs(na) + "}; " + lb + ": {" + NodeAttrs(nb) + "}";
  v->first_divergence = std::array<DivergenceSide, 2>{DivergenceSide{na.name, na.op, x.trace.value, NodeAttrs(na)},
                                                      DivergenceSide{nb.name, nb.op, y.trace.value, NodeAttrs(nb)}};
}

}  // namespace

size_t TraceBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2 : size_t(4) << 30;
}

Result<std::map<std::string, ValueQuant>> QuantByName(const Graph& g) {
  std::map<std::string, ValueQuant> out;
  if (!HasTfliteQuantOps(g)) return out;
  TARE_ASSIGN_OR_RETURN(auto q, QuantizedValues(g));
  for (const auto& [v, vq] : q) out[g.values[static_cast<size_t>(v)].name] = vq;
  return out;
}

Status ToReal(const std::map<std::string, ValueQuant>& quant, const std::string& name, Tensor* t) {
  auto it = quant.find(name);
  if (it == quant.end() || t->kind != ValueKind::kTensor || DTypeIsFloat(t->dtype)) return Status::Ok();
  TARE_ASSIGN_OR_RETURN(*t, DequantizeCodes(*t, it->second));
  return Status::Ok();
}

Result<BackendRun> RunModel(const std::shared_ptr<Model>& model, const std::string& backend,
                            const std::vector<NamedTensor>& inputs, bool trace, size_t* traced_bytes) {
  TARE_ASSIGN_OR_RETURN(auto quant, QuantByName(model->graph));
  SessionOptions o;
  o.backends = {backend};
  o.trace_all = trace;
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(std::shared_ptr<const Graph>(model, &model->graph), o));
  BackendRun r;
  r.backend = backend;
  TARE_RETURN_IF_ERROR(s->Run(inputs, &r.outputs));
  for (NamedTensor& o : r.outputs) TARE_RETURN_IF_ERROR(ToReal(quant, o.name, &o.tensor));
  if (trace) {
    std::vector<TraceEntry> t = s->Trace();
    for (TraceEntry& e : t) TARE_RETURN_IF_ERROR(ToReal(quant, e.value, &e.tensor));
    for (const TraceEntry& e : t) *traced_bytes += e.tensor.is_tensor() ? e.tensor.nbytes() : 0;
    if (*traced_bytes > TraceBudget())
      return Status::Error("the traced layers need " + std::to_string(*traced_bytes >> 20) + " MiB, over half of this machine's memory (" +
                           std::to_string(TraceBudget() >> 20) + " MiB): compare a smaller batch");
    r.layers = TracedLayers(model->graph, t);
    for (const NamedTensor& in : inputs) r.values[in.name] = in.tensor;
    for (const TraceEntry& e : t) r.values[e.value] = e.tensor;
    r.placement = s->Placement();
  }
  return r;
}

Status ReadFrameworkOutputs(const std::map<std::string, ValueQuant>& quant, const std::vector<NamedTensor>& ref64_outputs,
                            const std::vector<std::string>& files, Framework* f) {
  for (size_t i = 0; i < ref64_outputs.size(); ++i) {
    const NamedTensor& o = ref64_outputs[i];
    Result<Tensor> t = ReadNpy((std::filesystem::path(f->dir) / files[i]).string());
    if (!t.ok()) return Status::Error("--expect " + f->label + ": " + t.status().message());
    // A framework's codes of a quantized output, as real values (ref64 gives the float truth).
    if (Status st = ToReal(quant, o.name, &*t); !st.ok()) return Status::Error("--expect " + f->label + ": " + st.message());
    if (DTypeIsFloat(t->dtype) != DTypeIsFloat(o.tensor.dtype) || t->shape != o.tensor.shape)
      return Status::Error("--expect " + f->label + ": " + files[i] + " is " + DTypeName(t->dtype) + " " + ShapeStr(t->shape) +
                           ", the model's output '" + o.name + "' is " + (DTypeIsFloat(o.tensor.dtype) ? "floating-point " : "integer ") +
                           ShapeStr(o.tensor.shape));
    f->outputs.push_back({o.name, std::move(t).value()});
  }
  return Status::Ok();
}

std::vector<std::string> ModelLabels(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  std::map<std::string, int> count;
  for (const std::string& p : paths) ++count[std::filesystem::path(p).filename().string()];
  for (const std::string& p : paths) {
    const std::string file = std::filesystem::path(p).filename().string();
    out.push_back(count[file] > 1 ? p : file);
  }
  return out;
}

Status CheckCompareOptions(size_t n_models, const std::vector<std::string>& backends, double threshold) {
  if (n_models == 0) return Status::Error(StatusCode::kInvalidArgument, "compare needs at least one --model");
  if (backends.empty() || backends[0] != "ref64")
    return Status::Error(StatusCode::kInvalidArgument, "--backends must start with ref64 (the reference)");
  for (size_t i = 0; i < backends.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (backends[i] == backends[j]) return Status::Error(StatusCode::kInvalidArgument, "--backends names '" + backends[i] + "' twice");
  if (!std::isfinite(threshold) || threshold < 0)
    return Status::Error(StatusCode::kInvalidArgument, "--threshold must be a finite number >= 0");
  return Status::Ok();
}

Result<std::vector<std::vector<Framework>>> AssignFrameworks(const std::vector<std::string>& model_labels,
                                                             const std::vector<std::string>& backends,
                                                             std::vector<std::pair<size_t, Framework>> frameworks) {
  std::vector<std::vector<Framework>> out(model_labels.size());
  std::map<std::string, int> seen;
  for (const std::string& m : model_labels) {
    seen[m] = 1;
    for (const std::string& b : backends) seen[m + " " + b] = 1;
  }
  for (const std::string& b : backends) seen[b] = 1;
  for (auto& [mi, f] : frameworks) {
    if (f.label.empty() || f.dir.empty()) return Status::Error(StatusCode::kInvalidArgument, "an --expect needs a label and a folder");
    if (seen[f.label]++)
      return Status::Error(StatusCode::kInvalidArgument,
                           "--expect label '" + f.label + "' is given twice or names a model or a run of tare");
    if (mi >= out.size())
      return Status::Error(StatusCode::kInvalidArgument, "--expect " + f.label + ": there is no model " + std::to_string(mi) +
                                                             " (" + std::to_string(out.size()) + " models)");
    out[mi].push_back(std::move(f));
  }
  return out;
}

Result<ModelRuns> RunForComparison(std::shared_ptr<Model> model, const std::string& label, const std::vector<NamedTensor>& inputs,
                                   const std::vector<std::string>& backends, std::vector<Framework> frameworks, size_t* traced_bytes,
                                   bool trace_all) {
  if (backends.empty()) return Status::Error(StatusCode::kInvalidArgument, label + ": no backend to run");
  ModelRuns mr;
  mr.label = label;
  mr.model = std::move(model);
  for (const std::string& backend : backends) {
    // ref64's layers are compared across models, every backend's with ref64's (trace_all).
    Result<BackendRun> r = RunModel(mr.model, backend, inputs, mr.runs.empty() || trace_all, traced_bytes);
    if (!r.ok()) return r.status().With(label + " on " + backend);
    mr.runs.push_back(std::move(r).value());
  }
  mr.frameworks = std::move(frameworks);
  Result<std::map<std::string, ValueQuant>> quant = QuantByName(mr.model->graph);
  if (!quant.ok()) return quant.status().With(label);
  std::vector<std::string> files;
  for (const NamedTensor& o : mr.runs[0].outputs) files.push_back(SafeName(o.name) + ".npy");
  for (Framework& f : mr.frameworks) {
    // A model with one output takes a folder's only .npy whatever its name (the framework may name
    // the output otherwise: Keras by its last layer, PyTorch by the export's output_names).
    std::vector<std::string> fw_files = files;
    std::error_code ec;
    if (fw_files.size() == 1 && !std::filesystem::exists(std::filesystem::path(f.dir) / fw_files[0], ec)) {
      std::vector<std::string> npys;
      for (const auto& e : std::filesystem::directory_iterator(f.dir, ec))
        if (e.path().extension() == ".npy") npys.push_back(e.path().filename().string());
      if (npys.size() == 1) fw_files = npys;
    }
    TARE_RETURN_IF_ERROR(ReadFrameworkOutputs(*quant, mr.runs[0].outputs, fw_files, &f));
  }
  return mr;
}

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

std::string NodeAttrs(const Node& n) {
  std::string s;
  for (const auto& [name, a] : n.attrs) {
    if (name.rfind("tare.", 0) == 0) continue;
    s += (s.empty() ? "" : ", ") + name + "=";
    char b[32];
    switch (a.kind) {
      case Attr::Kind::kInt: s += std::to_string(a.i); break;
      case Attr::Kind::kFloat: std::snprintf(b, sizeof b, "%.9g", a.f); s += b; break;
      case Attr::Kind::kString: s += "'" + a.s + "'"; break;
      case Attr::Kind::kInts:
        s += "[";
        for (size_t i = 0; i < a.ints.size(); ++i) s += (i ? "," : "") + std::to_string(a.ints[i]);
        s += "]";
        break;
      case Attr::Kind::kFloats:
        s += "[";
        for (size_t i = 0; i < a.floats.size(); ++i) {
          std::snprintf(b, sizeof b, "%s%.9g", i ? "," : "", a.floats[i]);
          s += b;
        }
        s += "]";
        break;
      default: s += AttrKindName(a.kind); break;
    }
  }
  return s;
}

Status SummarizeModel(ModelRuns* mr, ModelSummary* out) {
  out->label = mr->label;
  for (size_t r = 1; r < mr->runs.size(); ++r) {
    std::string which;
    TARE_ASSIGN_OR_RETURN(Metrics m, WorstOutput(mr->runs[r].outputs, mr->runs[0].outputs, &which));
    mr->floor = std::max(mr->floor, m.rel_l2);
    out->runs.push_back({mr->runs[r].backend, which, m});
  }
  out->floor = mr->floor;
  for (const Framework& f : mr->frameworks) {
    std::string which;
    Result<Metrics> m = WorstOutput(f.outputs, mr->runs[0].outputs, &which);
    if (!m.ok()) return Status::Error(f.label + ": " + m.status().message());
    out->frameworks.push_back({f.label, which, *m});
  }
  out->quantized = HasTfliteQuantOps(mr->model->graph);
  out->floor_measured = mr->runs.size() > 1;
  return Status::Ok();
}

namespace {

// The start of a verdict on two models' runs: labels, kind and the outputs' distance (`*out`);
// true when they agree within `threshold` (`*v` is then "same function", `what` naming the outputs).
bool SameFunction(const std::string& la, const BackendRun& ra, const std::string& lb, const BackendRun& rb, double threshold,
                  const std::string& what, PairVerdict* v, Result<Metrics>* out) {
  std::string which;
  *out = WorstOutput(ra.outputs, rb.outputs, &which);
  v->a = la;
  v->b = lb;
  v->kind = "models";
  if (out->ok()) v->ref64 = **out;
  if (!out->ok() || !Within(**out, threshold)) return false;
  v->verdict = "same function";
  v->text = la + " vs " + lb + ": same function (" + what + ": rel L2 " + Sci((*out)->rel_l2) + ")";
  return true;
}

}  // namespace

PairVerdict JudgeModels(const std::string& la, const Model& ma, const BackendRun& ra, const std::string& lb,
                        const Model& mb, const BackendRun& rb, double threshold, bool with_layers) {
  PairVerdict v;
  Result<Metrics> truth = Status::Error("not compared");
  if (SameFunction(la, ra, lb, rb, threshold, "ref64 outputs", &v, &truth)) return v;
  std::vector<AlignedPair> pairs = AlignLayers(ra.layers, rb.layers);
  std::vector<LayerDiff> diffs = CompareLayers(ra.layers, rb.layers, pairs, threshold);
  const int first = FirstDivergence(ma.graph, ra.layers, diffs);
  v.aligned_layers = pairs.size();
  if (with_layers) v.layers = LayerRows(ra, rb, diffs);
  if (first < 0) {
    v.verdict = "models differ";
    v.text = la + " vs " + lb + ": models differ (" + (truth.ok() ? "outputs beyond the threshold" : truth.status().message()) +
             "), but no aligned layer diverges first (" + std::to_string(pairs.size()) + " layers aligned)";
    return v;
  }
  FirstDivergenceVerdict(la, ma, ra, lb, mb, rb, diffs[static_cast<size_t>(first)], &v);
  return v;
}

PairVerdict JudgeQuantization(const std::string& la, const Model& ma, const BackendRun& ra, const std::string& lb,
                              const Model& mb, const BackendRun& rb, double threshold) {
  PairVerdict v;
  Result<Metrics> out = Status::Error("not compared");
  if (SameFunction(la, ra, lb, rb, threshold, "outputs", &v, &out)) return v;
  std::vector<AlignedPair> pairs = AlignLayers(ra.layers, rb.layers);
  std::vector<LayerDiff> diffs = CompareLayers(ra.layers, rb.layers, pairs, threshold);
  v.aligned_layers = pairs.size();
  // The layer whose rel L2 rises most above every aligned layer before it (a NaN counts as infinite).
  double before = 0, best_rise = 0, best_before = 0;
  int best = -1;
  for (size_t k = 0; k < diffs.size(); ++k) {
    if (!diffs[k].error.empty()) continue;
    const double e = std::isnan(diffs[k].metrics.rel_l2) || diffs[k].metrics.nan_mismatch ? INFINITY : diffs[k].metrics.rel_l2;
    if (e - before > best_rise) best_rise = e - before, best_before = before, best = static_cast<int>(k);
    before = std::max(before, e);
  }
  v.verdict = "quantization error";
  v.text = la + " vs " + lb + ": quantization error (outputs: " + (out.ok() ? "rel L2 " + Sci(out->rel_l2) : out.status().message()) + ")";
  if (best < 0) {
    v.text += ", no aligned layer adds to it (" + std::to_string(pairs.size()) + " layers aligned)";
    return v;
  }
  const LayerDiff& d = diffs[static_cast<size_t>(best)];
  const Layer &x = ra.layers[d.pair.a], &y = rb.layers[d.pair.b];
  const Node &na = ma.graph.nodes[static_cast<size_t>(x.node)], &nb = mb.graph.nodes[static_cast<size_t>(y.node)];
  v.verdict += ", most added at " + (na.name == nb.name ? na.name : na.name + " / " + nb.name);
  v.text += ", most added at node '" + na.name + "' (" + na.op + ", tensor '" + x.trace.value + "') / node '" + nb.name + "' (" + nb.op +
            "): its rel L2 " + Sci(d.metrics.rel_l2) + ", " + Sci(best_before) + " at most before it";
  v.first_divergence = std::array<DivergenceSide, 2>{DivergenceSide{na.name, na.op, x.trace.value, NodeAttrs(na)},
                                                      DivergenceSide{nb.name, nb.op, y.trace.value, NodeAttrs(nb)}};
  return v;
}

PairVerdict JudgeFrameworks(const Framework& a, const Metrics& fa, const Framework& b, const Metrics& fb, double floor,
                            double threshold) {
  std::string which;
  PairVerdict v;
  v.a = a.label;
  v.b = b.label;
  v.kind = "frameworks";
  Result<Metrics> m = WorstOutput(a.outputs, b.outputs, &which);
  if (!m.ok()) {
    v.verdict = "error";
    v.text = a.label + " vs " + b.label + ": " + m.status().message();
    return v;
  }
  v.metrics = *m;
  v.a_vs_ref64 = fa;
  v.b_vs_ref64 = fb;
  v.floor = floor;
  if (Within(*m, threshold)) {
    v.verdict = "same function";
    v.text = a.label + " vs " + b.label + ": same function (their outputs: rel L2 " + Sci(m->rel_l2) + ")";
    return v;
  }
  v.verdict = "framework computing difference";
  const double worst = std::max(fa.rel_l2, fb.rel_l2);
  v.text = a.label + " vs " + b.label + ": framework computing difference: " +
           (m->nan_mismatch ? std::to_string(m->nan_mismatch) + " element(s) NaN on one side only, " : std::string()) + "rel L2 " +
           Sci(m->rel_l2) + ", max abs " + Sci(m->max_abs) + "; from ref64: " + a.label + " " + Sci(fa.rel_l2) + ", " + b.label +
           " " + Sci(fb.rel_l2) + " (" + (fa.rel_l2 > fb.rel_l2 ? a.label : b.label) + " is further from the truth)";
  if (floor > 0) {
    v.ratio_to_floor = worst / floor;
    v.text += "; kernel noise floor " + Sci(floor) + ", the further one is " + Sci(worst / floor) + " times it" +
              (worst > 100 * floor ? ": worth a bug report" : "");
  }
  return v;
}

std::vector<PairVerdict> JudgeAll(const std::vector<ModelRuns>& all, const std::vector<ModelSummary>& summaries,
                                  double threshold) {
  std::vector<PairVerdict> out;
  // Model pairs (steps 1 and 2), then framework pairs (their models compute the same function, or
  // the difference is the models').
  std::vector<std::vector<std::string>> verdict(all.size(), std::vector<std::string>(all.size(), "same function"));
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      out.push_back(JudgeModels(all[i].label, *all[i].model, all[i].runs[0], all[j].label, *all[j].model, all[j].runs[0],
                                threshold, true));
      verdict[i][j] = verdict[j][i] = out.back().verdict;
    }
  }
  std::map<std::string, Metrics> fw_vs_ref64;
  for (const ModelSummary& s : summaries)
    for (const VsRef64& f : s.frameworks) fw_vs_ref64[f.name] = f.metrics;
  std::vector<std::pair<size_t, const Framework*>> frameworks;
  for (size_t i = 0; i < all.size(); ++i)
    for (const Framework& f : all[i].frameworks) frameworks.push_back({i, &f});
  for (size_t x = 0; x < frameworks.size(); ++x) {
    for (size_t y = x + 1; y < frameworks.size(); ++y) {
      const auto [i, fa] = frameworks[x];
      const auto [j, fb] = frameworks[y];
      if (verdict[i][j] != "same function") {
        PairVerdict v;
        v.a = fa->label;
        v.b = fb->label;
        v.kind = "frameworks";
        v.verdict = verdict[i][j];
        v.text = fa->label + " vs " + fb->label + ": " + verdict[i][j] + " (" + all[i].label + " / " + all[j].label + ")";
        out.push_back(std::move(v));
      } else {
        out.push_back(JudgeFrameworks(*fa, fw_vs_ref64[fa->label], *fb, fw_vs_ref64[fb->label],
                                      std::max(all[i].floor, all[j].floor), threshold));
      }
    }
  }
  return out;
}

}  // namespace tare
