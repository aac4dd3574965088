// The HTML pages of tare compare's reports (compare/report.h): one self-contained file each (inline
// style, inline SVG and one inline script that sorts tables; nothing fetched). Everything is drawn
// here from the JSON report, so the page shows what the JSON holds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "compare/report.h"

namespace tare {

using json = nlohmann::json;

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:0.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}th{background:#f4f4f4}td.n{text-align:right;"
    "font-family:monospace}td.bad{background:#fcc}.v{font-size:18px;font-weight:bold}#verdicts li{margin:0.3em 0}"
    "#verdicts .bug{color:#b00;font-weight:bold}table.sortable th{cursor:pointer}svg text{font-family:sans-serif}";

// Sorts a table.sortable by the clicked column: by each cell's data-v when both are numbers, else
// by text; a second click reverses.
constexpr const char* kSortScript =
    "document.querySelectorAll('table.sortable').forEach(function(t){t.querySelectorAll('thead th').forEach("
    "function(th,i){th.title='click to sort';th.addEventListener('click',function(){var d=th.dataset.dir==='a'?-1:1;"
    "th.dataset.dir=d>0?'a':'d';var b=t.tBodies[0],r=Array.from(b.rows);r.sort(function(x,y){var p=parseFloat("
    "x.cells[i].dataset.v),q=parseFloat(y.cells[i].dataset.v);if(!isNaN(p)&&!isNaN(q))return d*(p-q);return d*"
    "x.cells[i].textContent.localeCompare(y.cells[i].textContent)});r.forEach(function(e){b.appendChild(e)})})})});";

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + HtmlEscape(title) + "</title><style>" + kStyle +
         "</style></head><body>" + body + "<script>" + kSortScript + "</script></body></html>\n";
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

// A report number as a double: "inf", "nan" and non-numbers as NaN.
double Val(const json& v) { return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN(); }

std::string Str(const json& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

std::string F(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// A numeric cell: its text, and data-v for sorting (non-numbers sort last).
std::string NumCell(const json& v, bool bad = false) {
  const double d = Val(v);
  return std::string("<td class=\"n") + (bad ? " bad" : "") + "\" data-v=\"" + (std::isfinite(d) ? Num3(v) : "1e308") + "\">" +
         HtmlEscape(v.is_null() ? "-" : Num3(v)) + "</td>";
}

// One line of a LogPlot: y per x position (NaN: no point), the hover text of each point.
struct Series {
  std::string name;
  std::vector<double> y;
  std::vector<std::string> tips;
};

// A line plot on a log y axis: one polyline per series (broken at missing points) with a circle per
// point whose <title> is its hover text, the legend, and `band` (a shaded range per x position;
// NaN: none) behind the lines. y values <= 0 are drawn at the bottom edge.
std::string LogPlot(const std::vector<Series>& series, size_t n, const std::vector<std::pair<double, double>>& band,
                    const std::string& band_name, const std::string& x_label, const std::string& y_label) {
  const double W = 900, H = 260, L = 60, T = 24, B = 36;
  double lo = 1e300, hi = -1e300;
  auto see = [&](double v) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  for (const Series& s : series)
    for (double v : s.y) see(v);
  for (const auto& [a, b] : band) see(a), see(b);
  if (lo > hi) lo = 1e-8, hi = 1;
  const double dmin = std::floor(std::log10(lo)) - (std::log10(hi) - std::log10(lo) < 1 ? 1 : 0), dmax = std::ceil(std::log10(hi));
  const double span = std::max(dmax - dmin, 1.0);
  auto ypos = [&](double v) {
    const double lg = v > 0 && std::isfinite(v) ? std::log10(v) : (std::isnan(v) ? dmax : dmin);
    return T + H * (dmax - std::min(dmax, std::max(dmin, lg))) / span;
  };
  auto xpos = [&](size_t i) { return L + (n > 1 ? W * static_cast<double>(i) / static_cast<double>(n - 1) : W / 2); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" + F(W + L + 20) + "\" height=\"" +
                    F(T + H + B) + "\">";
  const int step = span > 12 ? 3 : span > 6 ? 2 : 1;
  for (int d = static_cast<int>(dmin); d <= static_cast<int>(dmax); d += step) {
    const double y = ypos(std::pow(10.0, d));
    svg += "<line x1=\"" + F(L) + "\" x2=\"" + F(L + W) + "\" y1=\"" + F(y) + "\" y2=\"" + F(y) + "\" stroke=\"#e4e4e4\"/><text x=\"4\" y=\"" +
           F(y + 4) + "\" font-size=\"11\">1e" + std::to_string(d) + "</text>";
  }
  // The band: one polygon over the x positions that have it.
  std::string upper, lower;
  for (size_t i = 0; i < band.size() && i < n; ++i) {
    if (std::isnan(band[i].second)) continue;
    upper += F(xpos(i)) + "," + F(ypos(band[i].second)) + " ";
    lower = F(xpos(i)) + "," + F(ypos(std::max(band[i].first, 0.0))) + " " + lower;
  }
  if (!upper.empty())
    svg += "<polygon class=\"band\" points=\"" + upper + lower + "\" fill=\"#2ca02c\" fill-opacity=\"0.12\" stroke=\"none\"><title>" +
           HtmlEscape(band_name) + "</title></polygon>";
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const std::string color = kColors[k % (sizeof kColors / sizeof kColors[0])];
    std::string pts, dots;
    auto flush = [&]() {
      if (!pts.empty()) svg += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\"" + pts + "\"/>";
      pts.clear();
    };
    for (size_t i = 0; i < s.y.size() && i < n; ++i) {
      if (s.tips[i].empty()) {
        flush();
        continue;
      }
      const std::string xy = F(xpos(i)) + "," + F(ypos(s.y[i]));
      pts += xy + " ";
      dots += "<circle cx=\"" + F(xpos(i)) + "\" cy=\"" + F(ypos(s.y[i])) + "\" r=\"2.5\" fill=\"" + color + "\"><title>" +
              HtmlEscape(s.tips[i]) + "</title></circle>";
    }
    flush();
    svg += "<g class=\"series\" data-name=\"" + HtmlEscape(s.name) + "\">" + dots + "</g>";
    svg += "<rect x=\"" + F(L + 10 + 110 * static_cast<double>(k)) + "\" y=\"6\" width=\"12\" height=\"8\" fill=\"" + color +
           "\"/><text class=\"legend\" x=\"" + F(L + 26 + 110 * static_cast<double>(k)) + "\" y=\"14\" font-size=\"12\">" +
           HtmlEscape(s.name) + "</text>";
  }
  if (!upper.empty())
    svg += "<rect x=\"" + F(L + 10 + 110 * static_cast<double>(series.size())) +
           "\" y=\"6\" width=\"12\" height=\"8\" fill=\"#2ca02c\" fill-opacity=\"0.25\"/><text x=\"" +
           F(L + 26 + 110 * static_cast<double>(series.size())) + "\" y=\"14\" font-size=\"12\">" + HtmlEscape(band_name) + "</text>";
  svg += "<text x=\"" + F(L) + "\" y=\"" + F(T + H + 26) + "\" font-size=\"12\">" + HtmlEscape(x_label + "; y: " + y_label) + "</text></svg>";
  return svg;
}

// The runs table of a single-input report.
std::string RunsTableHtml(const json& report) {
  std::string h = "<h2>Runs against ref64</h2><table class=\"sortable\" id=\"runs\"><thead><tr><th>model</th><th>run</th>"
                  "<th>rel L2</th><th>max abs</th><th>cosine</th><th>max ULP</th></tr></thead><tbody>";
  for (const json& m : report["models"]) {
    auto row = [&](const std::string& run, const json& met) {
      h += "<tr><td>" + HtmlEscape(Str(m, "file")) + "</td><td>" + HtmlEscape(run) + "</td>" + NumCell(met["rel_l2"]) +
           NumCell(met["max_abs"]) + NumCell(met["cosine"]) + "<td class=\"n\" data-v=\"" + std::to_string(met["max_ulp"].get<uint64_t>()) +
           "\">" + std::to_string(met["max_ulp"].get<uint64_t>()) + "</td></tr>";
    };
    for (const json& r : m["runs"]) row(r["backend"].get<std::string>(), r["metrics"]);
    for (const json& f : m["frameworks"]) row(f["label"].get<std::string>() + " (framework)", f["metrics"]);
  }
  return h + "</tbody></table><p>Kernel noise floor: how far tare's own backends are from ref64 on the same model (for a "
             "quantized model, its quantization error: the integer kernels against the float truth on ref64).</p>";
}

// The verdicts of a single-input report, first on the page: per pair, then per model its kernel
// bugs (nodes over budget in isolated mode), each peer's departure and each bisection.
std::string VerdictsHtml(const json& report) {
  std::string h = "<section id=\"verdicts\"><h2>Verdicts</h2><ul>";
  for (const json& p : report["pairs"])
    h += "<li class=\"v\">" + HtmlEscape(Str(p, "a") + " vs " + Str(p, "b") + ": " + Str(p, "verdict")) + "</li>";
  for (const json& m : report["models"]) {
    const std::string file = Str(m, "file");
    if (m.contains("layers"))
      for (const json& l : m["layers"]) {
        if (l.value("peer", false)) {
          h += "<li>" + HtmlEscape(file + ": " + Str(l["departure"], "text")) + "</li>";
          continue;
        }
        const int over = l.value("over_budget", 0), iso = l.value("isolated_nodes", 0);
        if (over > 0) {
          for (const json& n : l["nodes"])
            if (n["isolated"].is_object() && Val(n["isolated"]["ratio"]) > 1)
              h += "<li class=\"bug\">kernel bug: " + HtmlEscape(file + " on " + Str(l, "backend") + ": node '" + Str(n, "node") + "' (" +
                                                                Str(n, "op") + ") is " + Num3(n["isolated"]["ratio"]) +
                                                                " times its error budget alone on ref64's inputs") + "</li>";
        } else if (iso > 0) {
          h += "<li>" + HtmlEscape(file + " on " + Str(l, "backend") + ": every one of " + std::to_string(iso) +
                                   " nodes within its error budget in isolated mode (worst " + Num3(l["worst_ratio"]) + " at '" +
                                   Str(l, "worst_node") + "')") + "</li>";
        }
      }
    if (m.contains("bisections"))
      for (const json& b : m["bisections"]) h += "<li>bisect " + HtmlEscape(file + " on " + Str(b, "text")) + "</li>";
  }
  return h + "</ul></section>";
}

// One model's layers: the chained plot (every run and peer, with tare's per-layer noise floor band
// up to the departure factor), the isolated plot (error / budget, the budget as the band up to 1)
// and the sortable table.
std::string ModelLayersHtml(const json& m) {
  const json& layers = m["layers"];
  std::map<int, std::pair<std::string, std::string>> nodes;  // index -> node, op
  for (const json& l : layers)
    for (const json& n : l["nodes"]) nodes[n["index"].get<int>()] = {Str(n, "node"), Str(n, "op")};
  std::map<int, size_t> pos;
  for (const auto& [index, _] : nodes) pos.emplace(index, pos.size());
  const size_t n = nodes.size();
  std::vector<Series> chained, isolated;
  std::vector<std::pair<double, double>> floor_band(n, {0, std::numeric_limits<double>::quiet_NaN()});
  std::vector<std::pair<double, double>> budget_band(n, {0, 1});
  double factor = 10;
  for (const json& l : layers) {
    const bool peer = l.value("peer", false);
    if (peer && l.contains("departure")) factor = Val(l["departure"]["factor"]);
    Series c{Str(l, "backend"), std::vector<double>(n, 0), std::vector<std::string>(n)};
    Series i{Str(l, "backend"), std::vector<double>(n, 0), std::vector<std::string>(n)};
    for (const json& nd : l["nodes"]) {
      const size_t x = pos[nd["index"].get<int>()];
      const std::string what = Str(nd, "node") + " (" + Str(nd, "op") + ") on " + c.name;
      if (nd["chained"].is_object()) {
        c.y[x] = Val(nd["chained"]["rel_l2"]);
        c.tips[x] = what + ": rel L2 " + Num3(nd["chained"]["rel_l2"]);
        if (!peer && std::isfinite(c.y[x]))
          floor_band[x].second = std::max(std::isnan(floor_band[x].second) ? 0.0 : floor_band[x].second, c.y[x]);
      }
      if (nd["isolated"].is_object()) {
        i.y[x] = Val(nd["isolated"]["ratio"]);
        i.tips[x] = what + ": " + Num3(nd["isolated"]["ratio"]) + " of its budget";
      }
    }
    chained.push_back(std::move(c));
    if (!peer) isolated.push_back(std::move(i));
  }
  bool any_peer = false;
  for (const json& l : layers) any_peer = any_peer || l.value("peer", false);
  for (auto& [a, b] : floor_band)
    if (!std::isnan(b)) b = std::max(b, 0x1p-24) * (any_peer ? factor : 1);
  const std::string file = Str(m, "file");
  std::string h = "<section class=\"layers\" data-model=\"" + HtmlEscape(file) + "\"><h2>Layers of " + HtmlEscape(file) + "</h2>";
  h += "<h3>Chained: each run on its own values, every layer's rel L2 from ref64</h3>";
  h += LogPlot(chained, n, floor_band,
               any_peer ? "tare's noise floor x " + F(factor) : std::string("tare's noise floor"),
               "nodes in graph order (hover: node, op, value)", "relative L2 from ref64 (log)");
  if (!isolated.empty()) {
    h += "<h3>Isolated: each node alone on ref64's inputs, its error as a ratio of the op's error budget</h3>";
    h += LogPlot(isolated, n, budget_band, "within budget (<= 1)", "nodes in graph order (hover: node, op, ratio)",
                 "error / budget (log; 0 at the bottom)");
  }
  h += "<table class=\"sortable layers\"><thead><tr><th>#</th><th>node</th><th>op</th>";
  for (const json& l : layers) h += "<th>" + HtmlEscape(Str(l, "backend")) + " chained rel L2</th>";
  for (const json& l : layers)
    if (!l.value("peer", false)) h += "<th>" + HtmlEscape(Str(l, "backend")) + " isolated / budget</th>";
  h += "</tr></thead><tbody>";
  std::vector<std::map<int, const json*>> by_index(layers.size());
  for (size_t k = 0; k < layers.size(); ++k)
    for (const json& nd : layers[k]["nodes"]) by_index[k][nd["index"].get<int>()] = &nd;
  for (const auto& [index, name_op] : nodes) {
    h += "<tr><td class=\"n\" data-v=\"" + std::to_string(index) + "\">" + std::to_string(index) + "</td><td>" +
         HtmlEscape(name_op.first) + "</td><td>" + HtmlEscape(name_op.second) + "</td>";
    for (size_t k = 0; k < layers.size(); ++k) {
      auto it = by_index[k].find(index);
      h += it != by_index[k].end() && (*it->second)["chained"].is_object() ? NumCell((*it->second)["chained"]["rel_l2"])
                                                                          : std::string("<td class=\"n\" data-v=\"1e308\">-</td>");
    }
    for (size_t k = 0; k < layers.size(); ++k) {
      if (layers[k].value("peer", false)) continue;
      auto it = by_index[k].find(index);
      if (it != by_index[k].end() && (*it->second)["isolated"].is_object()) {
        const json& r = (*it->second)["isolated"]["ratio"];
        h += NumCell(r, !(Val(r) <= 1));
      } else {
        h += "<td class=\"n\" data-v=\"1e308\">-</td>";
      }
    }
    h += "</tr>";
  }
  return h + "</tbody></table></section>";
}

// The relative L2 of every aligned layer of a pair on a log scale.
std::string PairPlotSvg(const json& p) {
  const json& layers = p["layers"];
  Series s{Str(p, "a") + " vs " + Str(p, "b"), {}, {}};
  for (const json& l : layers) {
    const bool ok = l.contains("metrics") && l["metrics"].is_object();
    s.y.push_back(ok ? Val(l["metrics"]["rel_l2"]) : std::numeric_limits<double>::quiet_NaN());
    s.tips.push_back(Str(l, "op") + " " + Str(l, "a") + " / " + Str(l, "b") + ": rel L2 " +
                     (ok ? Num3(l["metrics"]["rel_l2"]) : Str(l, "error")) + (l.value("diverges", false) ? " (diverges)" : ""));
  }
  return LogPlot({s}, layers.size(), {}, "", "aligned layers in graph order (hover: op, the two nodes)", "relative L2 (log)");
}

// One pair's section of a single-input report: verdict, distances, first divergence, layer plot.
std::string PairHtml(const json& p) {
  std::string h = "<section class=\"pair\"><h2>" + HtmlEscape(Str(p, "a")) + " vs " + HtmlEscape(Str(p, "b")) + "</h2><p class=\"v\">" +
                  HtmlEscape(Str(p, "verdict")) + "</p>";
  if (p["kind"] == "frameworks" && p.contains("metrics")) {
    h += "<p>Their outputs differ by rel L2 " + Num3(p["metrics"]["rel_l2"]) + " (max abs " + Num3(p["metrics"]["max_abs"]) +
         "). Distance from ref64: " + HtmlEscape(Str(p, "a")) + " " + Num3(p["a_vs_ref64"]["rel_l2"]) + ", " + HtmlEscape(Str(p, "b")) +
         " " + Num3(p["b_vs_ref64"]["rel_l2"]) + "; kernel noise floor " + Num3(p["kernel_noise_floor_rel_l2"]) + ".</p>";
  }
  if (p.contains("first_divergence")) {
    const json& f = p["first_divergence"];
    for (const char* side : {"a", "b"})
      h += "<p>" + HtmlEscape(Str(p, side)) + ": node <b>" + HtmlEscape(Str(f[side], "node")) + "</b> (" + HtmlEscape(Str(f[side], "op")) +
           ", tensor " + HtmlEscape(Str(f[side], "tensor")) + ") {" + HtmlEscape(Str(f[side], "attributes")) + "}</p>";
  }
  if (p.contains("layers") && !p["layers"].empty()) h += PairPlotSvg(p);
  return h + "</section>";
}

// Accuracy of every run of a data-set report as horizontal bars (0 to 1), the value at each bar.
std::string AccuracyChartSvg(const json& runs) {
  const double W = 600, L = 240, row = 22;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"accuracy\" width=\"" + F(L + W + 80) + "\" height=\"" +
                    F(row * static_cast<double>(runs.size()) + 30) + "\">";
  double y = 4;
  for (size_t k = 0; k < runs.size(); ++k, y += row) {
    const json& r = runs[k];
    const double a = std::max(0.0, std::min(1.0, Val(r["accuracy"])));
    char label[64];
    std::snprintf(label, sizeof label, "%.4f", Val(r["accuracy"]));
    svg += "<text x=\"4\" y=\"" + F(y + 14) + "\" font-size=\"12\">" + HtmlEscape(Str(r, "run")) + "</text><rect class=\"bar\" x=\"" + F(L) +
           "\" y=\"" + F(y + 3) + "\" width=\"" + F(W * a) + "\" height=\"" + F(row - 6) + "\" fill=\"" + kColors[k % 8] + "\"><title>" +
           HtmlEscape(Str(r, "run") + ": accuracy " + label + " (" + std::to_string(r["correct"].get<int64_t>()) + " correct)") +
           "</title></rect><text x=\"" + F(L + W * a + 4) + "\" y=\"" + F(y + 14) + "\" font-size=\"12\">" + label + "</text>";
  }
  svg += "<line x1=\"" + F(L) + "\" x2=\"" + F(L) + "\" y1=\"0\" y2=\"" + F(y) + "\" stroke=\"#444\"/><text x=\"" + F(L) + "\" y=\"" +
         F(y + 18) + "\" font-size=\"12\">top-1 accuracy (0 to 1)</text></svg>";
  return svg;
}

// The flip matrix: runs x runs, each cell the number of items whose top-1 prediction differs
// between the two runs (hover: by attribution).
std::string FlipMatrixHtml(const json& report) {
  std::vector<std::string> runs;
  for (const json& r : report["runs"]) runs.push_back(Str(r, "run"));
  std::map<std::pair<std::string, std::string>, const json*> pair;
  size_t most = 1;
  for (const json& p : report["pairs"]) {
    pair[{Str(p, "a"), Str(p, "b")}] = &p;
    pair[{Str(p, "b"), Str(p, "a")}] = &p;
    most = std::max(most, p["flips"].size());
  }
  std::string h = "<table class=\"flips\"><thead><tr><th></th>";
  for (const std::string& r : runs) h += "<th>" + HtmlEscape(r) + "</th>";
  h += "</tr></thead><tbody>";
  for (const std::string& a : runs) {
    h += "<tr><th>" + HtmlEscape(a) + "</th>";
    for (const std::string& b : runs) {
      auto it = pair.find({a, b});
      if (a == b || it == pair.end()) {
        h += "<td class=\"n\">-</td>";
        continue;
      }
      const json& p = *it->second;
      std::string why;
      for (const auto& [reason, count] : p["by_attribution"].items()) why += std::to_string(count.get<int64_t>()) + " " + reason + "; ";
      const size_t k = p["flips"].size();
      const int shade = 255 - static_cast<int>(120.0 * static_cast<double>(k) / static_cast<double>(most));
      h += "<td class=\"n\" style=\"background:rgb(255," + std::to_string(shade) + "," + std::to_string(shade) + ")\" title=\"" +
           HtmlEscape(why.empty() ? "no flips" : why) + "\">" + std::to_string(k) + "</td>";
    }
    h += "</tr>";
  }
  return h + "</tbody></table>";
}

}  // namespace

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
  std::string h = "<h1>tare compare</h1>" + VerdictsHtml(report) + RunsTableHtml(report);
  for (const json& m : report["models"])
    if (m.contains("layers") && !m["layers"].empty()) h += ModelLayersHtml(m);
  for (const json& p : report["pairs"]) h += PairHtml(p);
  return Page("tare compare", h);
}

std::string DataSetHtml(const json& report) {
  std::string h = "<h1>tare compare: " + std::to_string(report["items"].get<int64_t>()) + " data-set items</h1>";
  h += "<section id=\"verdicts\"><h2>Verdicts</h2><ul>";
  for (const json& p : report["pairs"]) {
    std::string why;
    for (const auto& [reason, count] : p["by_attribution"].items()) why += (why.empty() ? " (" : ", ") + std::to_string(count.get<int64_t>()) + " " + reason;
    h += "<li>" + HtmlEscape(Str(p, "a") + " vs " + Str(p, "b") + ": " + std::to_string(p["flips"].size()) + " flips" +
                             (why.empty() ? "" : why + ")")) + "</li>";
  }
  h += "</ul></section><h2>Accuracy</h2>" + AccuracyChartSvg(report["runs"]) +
       "<table class=\"sortable\" id=\"accuracy\"><thead><tr><th>run</th><th>model</th><th>kind</th><th>accuracy</th><th>correct</th>"
       "<th>NaN items</th></tr></thead><tbody>";
  for (const json& r : report["runs"]) {
    char acc[32];
    std::snprintf(acc, sizeof acc, "%.4f", r["accuracy"].get<double>());
    h += "<tr><td>" + HtmlEscape(Str(r, "run")) + "</td><td>" + HtmlEscape(Str(r, "model")) + "</td><td>" + HtmlEscape(Str(r, "kind")) +
         "</td><td class=\"n\" data-v=\"" + acc + "\">" + acc + "</td><td class=\"n\" data-v=\"" +
         std::to_string(r["correct"].get<int64_t>()) + "\">" + std::to_string(r["correct"].get<int64_t>()) + "</td><td class=\"n\" data-v=\"" +
         std::to_string(r["nan_items"].get<int64_t>()) + "\">" + std::to_string(r["nan_items"].get<int64_t>()) + "</td></tr>";
  }
  h += "</tbody></table><h2>Top-1 flips between runs</h2>" + FlipMatrixHtml(report);
  for (const json& p : report["pairs"]) {
    if (p["flips"].empty()) continue;
    h += "<h3>" + HtmlEscape(Str(p, "a")) + " vs " + HtmlEscape(Str(p, "b")) +
         "</h3><table class=\"sortable\"><thead><tr><th>item</th><th>label</th><th>a</th><th>b</th><th>attribution</th></tr></thead><tbody>";
    size_t shown = 0;
    for (const json& f : p["flips"]) {
      if (++shown > 50) break;
      auto cell = [](const json& v) { return "<td class=\"n\" data-v=\"" + std::to_string(v.get<int64_t>()) + "\">" + std::to_string(v.get<int64_t>()) + "</td>"; };
      h += "<tr>" + cell(f["item"]) + cell(f["label"]) + cell(f["a"]) + cell(f["b"]) + "<td>" + HtmlEscape(Str(f, "attribution")) + "</td></tr>";
    }
    h += "</tbody></table>";
    if (p["flips"].size() > 50) h += "<p>... " + std::to_string(p["flips"].size() - 50) + " more in the JSON report</p>";
  }
  return Page("tare compare (data set)", h);
}

}  // namespace tare
