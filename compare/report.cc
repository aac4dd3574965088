#include "compare/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tare {

using json = nlohmann::json;

namespace {

const char* LayoutName(PairLayout l) { return l == PairLayout::kBNhwc ? "b NHWC" : l == PairLayout::kANhwc ? "a NHWC" : "same"; }

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

// A number of the report with 3 significant digits ("%.3e"), a string as it is, else "?".
std::string Num3(const json& v) {
  if (v.is_number()) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3e", v.get<double>());
    return std::string(b);
  }
  return v.is_string() ? v.get<std::string>() : std::string("?");
}

// The runs table of a single-input report.
std::string RunsTableHtml(const json& report) {
  std::string h = "<h2>Runs against ref64</h2><table><tr><th>model</th><th>run</th><th>rel L2</th><th>max abs</th><th>cosine</th><th>max ULP</th></tr>";
  for (const json& m : report["models"]) {
    auto row = [&](const std::string& run, const json& met) {
      h += "<tr><td>" + HtmlEscape(m["file"].get<std::string>()) + "</td><td>" + HtmlEscape(run) + "</td><td>" + Num3(met["rel_l2"]) +
           "</td><td>" + Num3(met["max_abs"]) + "</td><td>" + Num3(met["cosine"]) + "</td><td>" +
           std::to_string(met["max_ulp"].get<uint64_t>()) + "</td></tr>";
    };
    for (const json& r : m["runs"]) row(r["backend"].get<std::string>(), r["metrics"]);
    for (const json& f : m["frameworks"]) row(f["label"].get<std::string>() + " (framework)", f["metrics"]);
  }
  return h + "</table><p>Kernel noise floor: how far tare's own backends are from ref64 on the same model (for a quantized "
             "model, its quantization error: the integer kernels against the float truth on ref64).</p>";
}

// The relative L2 of every aligned layer of a pair, log10 from -18 to +2 (0 drawn at the bottom).
std::string LayerPlotSvg(const json& layers) {
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
           (l["diverges"].get<bool>() ? "#c00" : "#080") + "\"><title>" +
           HtmlEscape(l["op"].get<std::string>() + " " + l["a"].get<std::string>() + " / " + l["b"].get<std::string>()) + " rel L2 " +
           Num3(l.contains("metrics") ? l["metrics"]["rel_l2"] : json("error")) + "</title></circle>";
  }
  svg += "<polyline fill=\"none\" stroke=\"#888\" points=\"" + pts + "\"/><text x=\"" + std::to_string(L) + "\" y=\"" +
         std::to_string(H + B + 10) + "\" font-size=\"12\">aligned layers in graph order (red: diverges); y: relative L2 (log)</text></svg>";
  return svg;
}

// One pair's section of a single-input report: verdict, distances, first divergence, layer plot.
std::string PairHtml(const json& p) {
  std::string h = "<h2>" + HtmlEscape(p["a"].get<std::string>()) + " vs " + HtmlEscape(p["b"].get<std::string>()) +
                  "</h2><p class=\"v\">" + HtmlEscape(p["verdict"].get<std::string>()) + "</p>";
  if (p["kind"] == "frameworks" && p.contains("metrics")) {
    h += "<p>Their outputs differ by rel L2 " + Num3(p["metrics"]["rel_l2"]) + " (max abs " + Num3(p["metrics"]["max_abs"]) +
         "). Distance from ref64: " + HtmlEscape(p["a"].get<std::string>()) + " " + Num3(p["a_vs_ref64"]["rel_l2"]) + ", " +
         HtmlEscape(p["b"].get<std::string>()) + " " + Num3(p["b_vs_ref64"]["rel_l2"]) + "; kernel noise floor " +
         Num3(p["kernel_noise_floor_rel_l2"]) + ".</p>";
  }
  if (p.contains("first_divergence")) {
    const json& f = p["first_divergence"];
    for (const char* side : {"a", "b"})
      h += "<p>" + HtmlEscape(p[side].get<std::string>()) + ": node <b>" + HtmlEscape(f[side]["node"].get<std::string>()) + "</b> (" +
           HtmlEscape(f[side]["op"].get<std::string>()) + ", tensor " + HtmlEscape(f[side]["tensor"].get<std::string>()) + ") {" +
           HtmlEscape(f[side]["attributes"].get<std::string>()) + "}</p>";
  }
  if (p.contains("layers") && !p["layers"].empty()) h += LayerPlotSvg(p["layers"]);
  return h;
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

std::string HtmlEscape(const std::string& in) {
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

std::string CompareHtml(const json& report) {
  std::string h = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tare compare</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:2px 6px;font-size:13px}.v{font-size:18px;font-weight:bold}</style></head><body>"
                  "<h1>tare compare</h1>";
  h += RunsTableHtml(report);
  for (const json& p : report["pairs"]) h += PairHtml(p);
  return h + "</body></html>\n";
}

std::string DataSetHtml(const json& report) {
  std::string h = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tare compare (data set)</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:2px 6px;font-size:13px}</style></head><body><h1>tare compare: " +
                  std::to_string(report["items"].get<int64_t>()) + " data-set items</h1><h2>Accuracy</h2><table><tr><th>run</th>"
                  "<th>model</th><th>kind</th><th>accuracy</th><th>correct</th><th>NaN items</th></tr>";
  for (const json& r : report["runs"]) {
    char acc[32];
    std::snprintf(acc, sizeof acc, "%.4f", r["accuracy"].get<double>());
    h += "<tr><td>" + HtmlEscape(r["run"].get<std::string>()) + "</td><td>" + HtmlEscape(r["model"].get<std::string>()) + "</td><td>" +
         HtmlEscape(r["kind"].get<std::string>()) + "</td><td>" + acc + "</td><td>" + std::to_string(r["correct"].get<int64_t>()) +
         "</td><td>" + std::to_string(r["nan_items"].get<int64_t>()) + "</td></tr>";
  }
  h += "</table><h2>Top-1 flips between runs</h2><table><tr><th>a</th><th>b</th><th>flips</th><th>attribution</th></tr>";
  for (const json& p : report["pairs"]) {
    std::string why;
    for (const auto& [reason, count] : p["by_attribution"].items())
      why += (why.empty() ? "" : "<br>") + std::to_string(count.get<int64_t>()) + " " + HtmlEscape(reason);
    h += "<tr><td>" + HtmlEscape(p["a"].get<std::string>()) + "</td><td>" + HtmlEscape(p["b"].get<std::string>()) + "</td><td>" +
         std::to_string(p["flips"].size()) + "</td><td>" + why + "</td></tr>";
  }
  h += "</table>";
  for (const json& p : report["pairs"]) {
    if (p["flips"].empty()) continue;
    h += "<h3>" + HtmlEscape(p["a"].get<std::string>()) + " vs " + HtmlEscape(p["b"].get<std::string>()) +
         "</h3><table><tr><th>item</th><th>label</th><th>a</th><th>b</th><th>attribution</th></tr>";
    size_t shown = 0;
    for (const json& f : p["flips"]) {
      if (++shown > 50) break;
      h += "<tr><td>" + std::to_string(f["item"].get<int64_t>()) + "</td><td>" + std::to_string(f["label"].get<int64_t>()) +
           "</td><td>" + std::to_string(f["a"].get<int64_t>()) + "</td><td>" + std::to_string(f["b"].get<int64_t>()) + "</td><td>" +
           HtmlEscape(f["attribution"].get<std::string>()) + "</td></tr>";
    }
    h += "</table>";
    if (p["flips"].size() > 50) h += "<p>... " + std::to_string(p["flips"].size() - 50) + " more in the JSON report</p>";
  }
  return h + "</body></html>\n";
}

}  // namespace tare
