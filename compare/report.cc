#include "compare/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tare {

using json = nlohmann::json;

namespace {

const char* LayoutName(PairLayout l) {
  return l == PairLayout::kBNhwc ? "b NHWC" : l == PairLayout::kANhwc ? "a NHWC" : l == PairLayout::kPermuted ? "permuted" : "same";
}

json LayerJson(const LayerRow& r) {
  json jl = {{"a", r.a}, {"b", r.b}, {"op", r.op}, {"op_b", r.op_b}, {"how", r.how}, {"layout", LayoutName(r.layout)},
             {"diverges", r.diverges}};
  if (r.metrics) jl["metrics"] = MetricsJson(*r.metrics);
  else jl["error"] = r.error;
  return jl;
}

json SideJson(const DivergenceSide& s) {
  return {{"node", s.node}, {"op", s.op}, {"tensor", s.tensor}, {"attributes", s.attributes}};
}

}  // namespace

json JsonNumber(double v) { return std::isfinite(v) ? json(v) : json(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")); }

json MetricsJson(const Metrics& m) {
  return {{"max_abs", JsonNumber(m.max_abs)}, {"max_rel", JsonNumber(m.max_rel)}, {"rel_l2", JsonNumber(m.rel_l2)},
          {"cosine", JsonNumber(m.cosine)},   {"max_ulp", m.max_ulp},             {"top1", m.top1},
          {"topk", m.topk},                   {"k", m.k},                         {"nan_mismatch", m.nan_mismatch}};
}

json ModelJson(const ModelSummary& s) {
  json jm = {{"file", s.label}, {"runs", json::array()}, {"frameworks", json::array()}};
  for (const VsRef64& r : s.runs)
    jm["runs"].push_back({{"backend", r.name}, {"vs", "ref64"}, {"worst_output", r.worst_output}, {"metrics", MetricsJson(r.metrics)}});
  for (const VsRef64& f : s.frameworks)
    jm["frameworks"].push_back({{"label", f.name}, {"vs", "ref64"}, {"worst_output", f.worst_output}, {"metrics", MetricsJson(f.metrics)}});
  jm["kernel_noise_floor_rel_l2"] = s.floor_measured ? json(s.floor) : json(nullptr);
  jm["quantized"] = s.quantized;
  return jm;
}

json PairJson(const PairVerdict& v) {
  json jp = {{"a", v.a}, {"b", v.b}, {"kind", v.kind}, {"verdict", v.verdict}};
  if (v.ref64) jp["ref64"] = MetricsJson(*v.ref64);
  if (v.aligned_layers) jp["aligned_layers"] = *v.aligned_layers;
  if (v.layers) {
    json layers = json::array();
    for (const LayerRow& r : *v.layers) layers.push_back(LayerJson(r));
    jp["layers"] = layers;
  }
  if (v.first_divergence) jp["first_divergence"] = {{"a", SideJson((*v.first_divergence)[0])}, {"b", SideJson((*v.first_divergence)[1])}};
  if (v.metrics) jp["metrics"] = MetricsJson(*v.metrics);
  if (v.a_vs_ref64) jp["a_vs_ref64"] = MetricsJson(*v.a_vs_ref64);
  if (v.b_vs_ref64) jp["b_vs_ref64"] = MetricsJson(*v.b_vs_ref64);
  if (v.floor) jp["kernel_noise_floor_rel_l2"] = *v.floor;
  if (v.ratio_to_floor) jp["ratio_to_floor"] = JsonNumber(*v.ratio_to_floor);
  return jp;
}

json LayersJson(const BackendLayers& l) {
  json jl = {{"backend", l.backend},       {"isolated_nodes", l.isolated}, {"over_budget", l.over_budget},
             {"worst_ratio", JsonNumber(l.worst_ratio)}, {"worst_node", l.worst_node}, {"nodes", json::array()}};
  for (const NodeDistance& d : l.nodes) {
    json jn = {{"index", d.node}, {"node", d.name}, {"op", d.op}, {"tensor", d.value}, {"placement", d.placement}};
    jn["chained"] = d.chained ? MetricsJson(*d.chained) : json(nullptr);
    jn["chained_error"] = d.chained_error;
    if (d.isolated && d.isolated->evaluated) {
      jn["isolated"] = {{"ratio", JsonNumber(d.isolated->ratio)},   {"k", d.isolated->k},
                        {"units", d.isolated->units},               {"worst_output", d.isolated->worst_output},
                        {"worst_index", d.isolated->worst_index},   {"placement", d.isolated_placement},
                        {"metrics", d.isolated_metrics ? MetricsJson(*d.isolated_metrics) : json(nullptr)}};
      jn["isolated_error"] = "";
    } else {
      jn["isolated"] = nullptr;
      jn["isolated_error"] = d.isolated ? d.isolated->why : d.isolated_error;
    }
    jl["nodes"].push_back(jn);
  }
  return jl;
}

json DepartureJson(const Departure& d) {
  json j = {{"peer", d.peer}, {"found", d.found}, {"compared", d.compared}, {"factor", kDepartureFactor}, {"text", d.text}};
  if (d.found)
    j.update({{"node", d.name}, {"op", d.op}, {"index", d.node}, {"rel_l2", JsonNumber(d.rel_l2)}, {"floor", d.floor},
              {"ratio", JsonNumber(d.ratio)}});
  else
    j.update({{"worst_node", d.worst_node}, {"ratio", JsonNumber(d.ratio)}});
  return j;
}

json BisectionJson(const Bisection& b, const std::string& reproducer) {
  json jb = {{"backend", b.backend},
             {"reference", b.reference},
             {"threshold_rel_l2", b.threshold},
             {"verdict", b.verdict},
             {"text", b.text},
             {"candidates", b.candidates},
             {"probes", b.probes},
             {"backend_vs_ref64", MetricsJson(b.backend_vs_ref64)},
             {"reference_vs_ref64", MetricsJson(b.reference_vs_ref64)}};
  if (b.verdict != "found") return jb;
  json shapes = json::array();
  for (const Shape& s : b.input_shapes) shapes.push_back(s);
  jb.update({{"node", b.name},
             {"op", b.op},
             {"index", b.node},
             {"attributes", b.attributes},
             {"input_shapes", shapes},
             {"with_node", MetricsJson(b.with_node)},
             {"before_node", MetricsJson(b.before_node)},
             {"isolated_ratio", b.isolated && b.isolated->evaluated ? JsonNumber(b.isolated->ratio) : json(nullptr)},
             {"reproducer", reproducer}});
  return jb;
}

json CompareReport(double threshold, const std::vector<ModelSummary>& models, const std::vector<PairVerdict>& pairs) {
  json report = {{"schema_version", kReportSchemaVersion},
                 {"kind", "single-input"},
                 {"threshold_rel_l2", threshold},
                 {"models", json::array()},
                 {"pairs", json::array()}};
  for (const ModelSummary& s : models) report["models"].push_back(ModelJson(s));
  for (const PairVerdict& v : pairs) report["pairs"].push_back(PairJson(v));
  return report;
}

json DataSetReport(int64_t n, double threshold, const std::vector<DsModel>& models, const std::vector<RunPred>& runs,
                   const std::vector<Accuracy>& accuracy, const std::vector<PairFlips>& pairs) {
  json report = {{"schema_version", kReportSchemaVersion}, {"kind", "dataset"}, {"items", n}, {"threshold_rel_l2", threshold},
                 {"runs", json::array()}, {"pairs", json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunPred& r = runs[i];
    report["runs"].push_back({{"run", r.label}, {"model", models[r.model].label}, {"kind", r.kind}, {"accuracy", accuracy[i].accuracy},
                              {"correct", accuracy[i].correct}, {"nan_items", accuracy[i].nan}});
  }
  for (const PairFlips& p : pairs) {
    json flips = json::array();
    for (const Flip& f : p.flips)
      flips.push_back({{"item", f.item}, {"label", f.label}, {"a", f.a}, {"b", f.b}, {"margin_a", JsonNumber(f.margin_a)},
                       {"margin_b", JsonNumber(f.margin_b)}, {"attribution", f.attribution}});
    report["pairs"].push_back({{"a", p.a}, {"b", p.b}, {"flips", flips}, {"by_attribution", p.by_attribution}});
  }
  return report;
}

}  // namespace tare
