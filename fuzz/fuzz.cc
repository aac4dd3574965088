#include "fuzz/fuzz.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "compare/report.h"
#include "converters/onnx/onnx_writer.h"
#include "format/npy.h"

namespace tare::fuzz {
namespace {

namespace fs = std::filesystem;

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) return Status::Error("cannot write " + path);
  return Status::Ok();
}

/// A folder name part: letters, digits, '-' and '_' only.
std::string Clean(const std::string& s) {
  std::string out;
  for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_';
  return out.substr(0, 40);
}

std::string OneLine(const Group& g) {
  const Finding& f = g.finding;
  std::string s = f.engine + " " + f.kind + ": " + (f.op.empty() ? "" : f.op + (f.attrs.empty() ? "" : " (" + f.attrs + ")") + ": ") + f.detail;
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

/// The reproducer of group `g` (index i) under out/findings.
/// model.tare, model.onnx (*onnx: why not, when the ONNX writer cannot express it) and one .npy
/// per input of c into the existing folder dir.
Status WriteCaseFiles(const std::string& dir, const FuzzCase& c, Status* onnx) {
  const fs::path d(dir);
  TARE_RETURN_IF_ERROR(SaveModel(*c.model, (d / "model.tare").string()));
  *onnx = WriteOnnxModel(c.model->graph, (d / "model.onnx").string(), 17);
  for (const NamedTensor& in : c.inputs) TARE_RETURN_IF_ERROR(WriteNpy((d / (SafeName(in.name) + ".npy")).string(), in.tensor));
  return Status::Ok();
}

Status WriteGroup(const std::string& out, size_t i, const FuzzCase& c, Group* g) {
  char num[16];
  std::snprintf(num, sizeof num, "%03zu", i + 1);
  const fs::path dir = fs::path(out) / "findings" / (std::string(num) + "-" + Clean(g->finding.engine) + "-" + g->finding.kind +
                                                       (g->finding.op.empty() ? "" : "-" + Clean(g->finding.op)));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create " + dir.string() + ": " + ec.message());
  g->dir = fs::relative(dir, out, ec).string();
  Status onnx = Status::Ok();
  TARE_RETURN_IF_ERROR(WriteCaseFiles(dir.string(), c, &onnx));
  std::string line = OneLine(*g) + "\n";
  line += "seed " + std::to_string(g->first_seed) + ", " + std::to_string(g->original_nodes) + " nodes reduced to " + std::to_string(g->nodes) +
          (g->reproduced ? "" : " (did not reproduce when reduction started: not reduced)") + "\n";
  if (!onnx.ok()) line += "no model.onnx: " + onnx.message() + "\n";
  return WriteText((dir / "finding.txt").string(), line);
}

}  // namespace

Status WriteSummary(const std::string& out, const Summary& s) {
  TARE_RETURN_IF_ERROR(WriteText((fs::path(out) / "summary.json").string(), SummaryJson(s)));
  return WriteText((fs::path(out) / "index.html").string(), SummaryHtml(s));
}

uint64_t Mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int Summary::TareGroups(const std::vector<std::string>& backends) const {
  int n = 0;
  for (const Group& g : groups)
    for (const std::string& b : backends) n += g.finding.engine == b;
  return n;
}

Result<Summary> RunFuzz(const FuzzOptions& o, const Engines& engines, const std::function<void(const Summary&, double)>& progress) {
  if (!o.out.empty()) {
    std::error_code ec;
    if (fs::exists(o.out, ec) && !fs::is_empty(o.out, ec))
      return Status::Error("--out " + o.out + ": exists and is not empty (a fuzz run never overwrites earlier findings)");
    fs::create_directories(o.out, ec);
    if (ec) return Status::Error("--out " + o.out + ": " + ec.message());
  }
  Summary s;
  s.seed = o.seed;
  s.engines = engines.backends;
  for (const Peer& p : engines.peers) s.engines.push_back(p.name);
  std::map<std::string, size_t> by_key;
  size_t written_groups = 0;
  double written_at = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  // out/running.txt names the model being checked, so that a crash or a hang of an engine (which
  // ends the run) leaves its seed behind; removed when the run ends normally.
  const std::string running = o.out.empty() ? "" : (fs::path(o.out) / "running.txt").string();
  for (uint64_t i = 0; elapsed() < o.seconds && (o.max_models <= 0 || static_cast<int64_t>(i) < o.max_models); ++i) {
    if (o.model_seed != 0 && i > 0) break;
    const FuzzCase c = Generate(o.model_seed != 0 ? o.model_seed : Mix(o.seed, i), o.gen);
    if (o.model_seed != 0 && !o.out.empty()) {
      // The one model asked for, as files, before any engine runs it (a crash leaves them).
      const std::string dir = (fs::path(o.out) / "model").string();
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) return Status::Error("cannot create " + dir + ": " + ec.message());
      Status onnx = Status::Ok();
      TARE_RETURN_IF_ERROR(WriteCaseFiles(dir, c, &onnx));
      if (!onnx.ok()) TARE_RETURN_IF_ERROR(WriteText((fs::path(dir) / "no_onnx.txt").string(), onnx.message() + "\n"));
    }
    if (!running.empty())
      TARE_RETURN_IF_ERROR(WriteText(running, "checking model " + std::to_string(i) + " of run seed " + std::to_string(o.seed) + ": model seed " +
                                                  std::to_string(c.seed) + " (tare fuzz --seed " + std::to_string(o.seed) + " --max-models " +
                                                  std::to_string(i + 1) + " ends with it)\n"));
    const CheckResult r = Check(c, engines);
    if (!r.ok) {
      ++s.skipped;
      if (s.skip_reasons.size() < 5) s.skip_reasons.push_back("seed " + std::to_string(c.seed) + ": " + r.skipped);
    } else {
      ++s.models;
      s.nodes += static_cast<int64_t>(c.model->graph.nodes.size());
      s.node_checks += r.node_checks;
    }
    for (const Finding& f : r.findings) {
      ++s.findings;
      const std::string key = f.Key();
      if (auto it = by_key.find(key); it != by_key.end()) {
        ++s.groups[it->second].count;
        continue;
      }
      Group g;
      g.key = key;
      g.count = 1;
      g.first_seed = c.seed;
      g.original_nodes = static_cast<int>(c.model->graph.nodes.size());
      FuzzCase shown = c;
      g.finding = f;
      if (o.reduce) {
        Reduced red = Reduce(c, f, engines);
        g.reproduced = red.reproduced;
        if (red.reproduced) {
          shown = red.c;
          g.finding = red.finding;
        }
      }
      g.nodes = static_cast<int>(shown.model->graph.nodes.size());
      if (!o.out.empty()) TARE_RETURN_IF_ERROR(WriteGroup(o.out, s.groups.size(), shown, &g));
      by_key[key] = s.groups.size();
      s.groups.push_back(g);
    }
    if (progress) progress(s, elapsed());
    // The summary so far, after each new root cause and every 30 s: a run that is stopped (or
    // that an engine crashes) keeps what it found.
    if (!o.out.empty() && (s.groups.size() != written_groups || elapsed() - written_at > 30)) {
      s.seconds = elapsed();
      TARE_RETURN_IF_ERROR(WriteSummary(o.out, s));
      written_groups = s.groups.size();
      written_at = elapsed();
    }
  }
  s.seconds = elapsed();
  if (!o.out.empty()) {
    TARE_RETURN_IF_ERROR(WriteSummary(o.out, s));
    std::error_code ec;
    fs::remove(running, ec);
  }
  return s;
}

std::string SummaryJson(const Summary& s) {
  nlohmann::json j;
  j["seed"] = s.seed;
  j["seconds"] = s.seconds;
  j["models"] = s.models;
  j["skipped"] = s.skipped;
  j["findings"] = s.findings;
  j["nodes"] = s.nodes;
  j["node_checks"] = s.node_checks;
  j["engines"] = s.engines;
  j["skip_reasons"] = s.skip_reasons;
  j["groups"] = nlohmann::json::array();
  for (const Group& g : s.groups) {
    nlohmann::json e;
    e["key"] = g.key;
    e["engine"] = g.finding.engine;
    e["kind"] = g.finding.kind;
    e["op"] = g.finding.op;
    e["attributes"] = g.finding.attrs;
    e["ratio"] = std::isfinite(g.finding.ratio) ? nlohmann::json(g.finding.ratio) : nlohmann::json("inf");
    e["detail"] = g.finding.detail;
    e["count"] = g.count;
    e["first_seed"] = g.first_seed;
    e["nodes"] = g.nodes;
    e["original_nodes"] = g.original_nodes;
    e["reproduced"] = g.reproduced;
    e["dir"] = g.dir;
    j["groups"].push_back(e);
  }
  return j.dump(2) + "\n";
}

std::string SummaryHtml(const Summary& s) {
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tare fuzz</title><style>"
                  "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
                  "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eee}"
                  ".ok{color:#070}.bad{color:#b00}</style></head><body>\n<h1>tare fuzz</h1>\n";
  h += "<p>seed " + std::to_string(s.seed) + ", " + std::to_string(s.models) + " models in " + std::to_string(static_cast<int>(s.seconds)) +
       " s (" + std::to_string(s.nodes) + " nodes; " + std::to_string(s.node_checks) + " node runs checked alone against their budget; " +
       std::to_string(s.skipped) + " generated models ref64 did not run), engines: ";
  for (size_t i = 0; i < s.engines.size(); ++i) h += (i ? ", " : "") + HtmlEscape(s.engines[i]);
  h += ".</p>\n";
  if (s.groups.empty()) {
    h += "<p class=\"ok\">No findings.</p>\n";
  } else {
    h += "<p class=\"bad\">" + std::to_string(s.groups.size()) + " root causes, " + std::to_string(s.findings) + " findings.</p>\n";
    h += "<table><tr><th>#</th><th>engine</th><th>kind</th><th>op</th><th>what</th><th>count</th><th>nodes</th><th>reproducer</th></tr>\n";
    for (size_t i = 0; i < s.groups.size(); ++i) {
      const Group& g = s.groups[i];
      h += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + HtmlEscape(g.finding.engine) + "</td><td>" + HtmlEscape(g.finding.kind) + "</td><td>" +
           HtmlEscape(g.finding.op) + (g.finding.attrs.empty() ? "" : "<br><small>" + HtmlEscape(g.finding.attrs) + "</small>") + "</td><td>" +
           HtmlEscape(g.finding.detail) + "</td><td>" + std::to_string(g.count) + "</td><td>" + std::to_string(g.original_nodes) + " &rarr; " +
           std::to_string(g.nodes) + "</td><td>" + (g.dir.empty() ? "" : "<a href=\"" + HtmlEscape(g.dir) + "/finding.txt\">" + HtmlEscape(g.dir) + "</a>") +
           "</td></tr>\n";
    }
    h += "</table>\n";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace tare::fuzz
