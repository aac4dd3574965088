#include "fuzz/fuzz.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "compare/report.h"
#include "converters/onnx/onnx_writer.h"
#include "format/npy.h"
#include "fuzz/child.h"

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

Status WriteGroup(const std::string& out, size_t i, const FuzzCase& c, int max_nodes, Group* g) {
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
  line += "seed " + std::to_string(g->first_seed) + " (tare fuzz --model-seed " + std::to_string(g->first_seed) + " --max-nodes " +
          std::to_string(max_nodes) + "), " + std::to_string(g->original_nodes) + " nodes reduced to " + std::to_string(g->nodes) +
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

namespace {

/// A run's state: the summary so far and its groups by key. A worker process starts with a copy
/// (fork) and reports what it adds (ModelDone); the parent applies it.
struct RunState {
  Summary s;
  std::map<std::string, size_t> by_key;
  size_t written_groups = 0;
  double written_at = 0;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double Elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

bool MoreModels(const FuzzOptions& o, const RunState& st, uint64_t i) {
  if (o.model_seed != 0) return i == 0;
  return st.Elapsed() < o.seconds && (o.max_models <= 0 || static_cast<int64_t>(i) < o.max_models);
}

uint64_t SeedOf(const FuzzOptions& o, uint64_t i) { return o.model_seed != 0 ? o.model_seed : Mix(o.seed, i); }

/// summary.json and index.html after each new root cause and every 30 s (`force`: now): a run
/// that is stopped keeps what it found.
Status MaybeWriteSummary(const FuzzOptions& o, RunState& st, bool force) {
  if (o.out.empty() || !(force || st.s.groups.size() != st.written_groups || st.Elapsed() - st.written_at > 30)) return Status::Ok();
  st.s.seconds = st.Elapsed();
  TARE_RETURN_IF_ERROR(WriteSummary(o.out, st.s));
  st.written_groups = st.s.groups.size();
  st.written_at = st.Elapsed();
  return Status::Ok();
}

/// Adds finding f of case c to the state: a duplicate counts, a new key is reduced (by `check`
/// when given) and written to its folder.
Status AddFinding(const FuzzOptions& o, const Engines& engines, const FuzzCase& c, const Finding& f, RunState& st, int max_checks = 300,
                  const CheckFn& check = {}) {
  ++st.s.findings;
  const std::string key = f.Key();
  if (auto it = st.by_key.find(key); it != st.by_key.end()) {
    ++st.s.groups[it->second].count;
    return Status::Ok();
  }
  Group g;
  g.key = key;
  g.count = 1;
  g.first_seed = c.seed;
  g.original_nodes = static_cast<int>(c.model->graph.nodes.size());
  FuzzCase shown = c;
  g.finding = f;
  if (o.reduce) {
    Reduced red = Reduce(c, f, engines, max_checks, check);
    g.reproduced = red.reproduced;
    if (red.reproduced) {
      shown = red.c;
      g.finding = red.finding;
    }
  }
  g.nodes = static_cast<int>(shown.model->graph.nodes.size());
  if (!o.out.empty()) TARE_RETURN_IF_ERROR(WriteGroup(o.out, st.s.groups.size(), shown, o.gen.max_nodes, &g));
  st.by_key[key] = st.s.groups.size();
  st.s.groups.push_back(g);
  return Status::Ok();
}

nlohmann::json GroupToJson(const Group& g);
Group GroupFromJson(const nlohmann::json& e);

/// Checks models from index `first` on while MoreModels; `send` (a worker's, may be empty) gets a
/// line {"begin": i} before each model and {"done": i, ...what it added...} after it.
Status RunModels(const FuzzOptions& o, const Engines& engines, uint64_t first, RunState& st,
                 const std::function<void(const Summary&, double)>& progress, const LineSender& send) {
  // out/running.txt names the model being checked, so that a crash or a hang of an engine
  // without isolation (which ends the run) leaves its seed behind.
  const std::string running = o.out.empty() ? "" : (fs::path(o.out) / "running.txt").string();
  for (uint64_t i = first; MoreModels(o, st, i); ++i) {
    const FuzzCase c = Generate(SeedOf(o, i), o.gen);
    if (send) send(nlohmann::json{{"begin", i}}.dump());
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
    if (!running.empty() && !send)
      TARE_RETURN_IF_ERROR(WriteText(running, "checking model " + std::to_string(i) + " of run seed " + std::to_string(o.seed) + ": model seed " +
                                                  std::to_string(c.seed) + " (tare fuzz --seed " + std::to_string(o.seed) + " --max-models " +
                                                  std::to_string(i + 1) + " ends with it)\n"));
    const size_t groups_before = st.s.groups.size();
    const CheckResult r = Check(c, engines);
    if (!r.ok) {
      ++st.s.skipped;
      if (st.s.skip_reasons.size() < 5) st.s.skip_reasons.push_back("seed " + std::to_string(c.seed) + ": " + r.skipped);
    } else {
      ++st.s.models;
      st.s.nodes += static_cast<int64_t>(c.model->graph.nodes.size());
      st.s.node_checks += r.node_checks;
    }
    for (const std::string& p : r.peers_run) ++st.s.peer_models[p];
    for (const Finding& f : r.findings) TARE_RETURN_IF_ERROR(AddFinding(o, engines, c, f, st));
    if (send) {
      nlohmann::json d{{"done", i},          {"models", st.s.models},           {"skipped", st.s.skipped},
                       {"findings", st.s.findings}, {"nodes", st.s.nodes}, {"node_checks", st.s.node_checks},
                       {"skip_reasons", st.s.skip_reasons}, {"peer_models", st.s.peer_models}};
      std::vector<int> counts;
      for (const Group& g : st.s.groups) counts.push_back(g.count);
      d["counts"] = counts;
      d["new"] = nlohmann::json::array();
      for (size_t k = groups_before; k < st.s.groups.size(); ++k) d["new"].push_back(GroupToJson(st.s.groups[k]));
      send(d.dump());
    } else {
      if (progress) progress(st.s, st.Elapsed());
      TARE_RETURN_IF_ERROR(MaybeWriteSummary(o, st, false));
    }
  }
  if (!running.empty() && !send) {
    std::error_code ec;
    fs::remove(running, ec);
  }
  return Status::Ok();
}

/// Check of c on `engines` in a child process: no findings when it ends normally (its findings
/// are not the question), a "crash" or "hang" finding when it dies or stops answering.
CheckResult CheckInChild(const FuzzCase& c, const Engines& engines, double timeout_s) {
  CheckResult res;
  Result<std::unique_ptr<Child>> child = Child::Start([&](const LineSender& send) {
    Engines e = engines;
    e.on_engine = [&](const std::string& name) { send("engine " + name); };
    Check(c, e);
    send("end");
  });
  if (!child.ok()) return res;
  std::string engine, line;
  for (;;) {
    const Child::Got got = (*child)->Next(timeout_s, &line);
    if (got == Child::Got::kLine) {
      if (line.rfind("engine ", 0) == 0) engine = line.substr(7);
      if (line == "end") return res;
      continue;
    }
    Finding f;
    f.engine = engine;
    if (got == Child::Got::kTimedOut) {
      (*child)->Kill();
      f.kind = "hang";
      f.detail = "no answer while " + engine + " ran the model";
    } else if ((*child)->Signal() != 0) {
      f.kind = "crash";
      f.detail = "the process died of " + SignalName((*child)->Signal()) + " while " + engine + " ran the model";
    } else {
      return res;  // it exited without its last line: not the fault looked for
    }
    res.findings.push_back(f);
    return res;
  }
}

/// Applies a worker's {"done": ...} line to the parent's state.
void ApplyDone(const nlohmann::json& d, RunState& st) {
  st.s.models = d.at("models").get<int64_t>();
  st.s.skipped = d.at("skipped").get<int64_t>();
  st.s.findings = d.at("findings").get<int64_t>();
  st.s.nodes = d.at("nodes").get<int64_t>();
  st.s.node_checks = d.at("node_checks").get<int64_t>();
  st.s.skip_reasons = d.at("skip_reasons").get<std::vector<std::string>>();
  st.s.peer_models = d.at("peer_models").get<std::map<std::string, int64_t>>();
  for (const nlohmann::json& e : d.at("new")) {
    Group g = GroupFromJson(e);
    st.by_key[g.key] = st.s.groups.size();
    st.s.groups.push_back(g);
  }
  const std::vector<int> counts = d.at("counts").get<std::vector<int>>();
  for (size_t k = 0; k < counts.size() && k < st.s.groups.size(); ++k) st.s.groups[k].count = counts[k];
}

/// The isolated run: a worker process checks models and reports each; when it dies or stops
/// answering, the model it was on becomes a crash or hang finding (reduced with each candidate in
/// a child of its own) and a new worker goes on from the next model.
Status Supervise(const FuzzOptions& o, const Engines& engines, RunState& st, const std::function<void(const Summary&, double)>& progress) {
  uint64_t next = 0;
  for (;;) {
    Result<std::unique_ptr<Child>> worker = Child::Start([&](const LineSender& send) {
      Engines e = engines;
      e.on_engine = [&](const std::string& name) { send("engine " + name); };
      const Status done = RunModels(o, e, next, st, {}, send);
      send(done.ok() ? "end" : "error " + done.message());
    });
    if (!worker.ok()) return worker.status();
    int64_t current = -1;
    std::string engine, line;
    for (;;) {
      const Child::Got got = (*worker)->Next(o.hang_seconds, &line);
      if (got == Child::Got::kLine) {
        if (line.rfind("engine ", 0) == 0) {
          engine = line.substr(7);
        } else if (line == "end") {
          return Status::Ok();
        } else if (line.rfind("error ", 0) == 0) {
          return Status::Error(line.substr(6));
        } else {
          const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_discarded()) return Status::Error("the fuzz worker sent an unreadable line: " + line.substr(0, 80));
          if (j.contains("begin")) {
            current = j["begin"].get<int64_t>();
            engine.clear();
          } else if (j.contains("done")) {
            ApplyDone(j, st);
            next = j["done"].get<uint64_t>() + 1;
            current = -1;
            if (progress) progress(st.s, st.Elapsed());
            TARE_RETURN_IF_ERROR(MaybeWriteSummary(o, st, false));
          }
        }
        continue;
      }
      const bool hung = got == Child::Got::kTimedOut;
      if (hung) (*worker)->Kill();
      if (current < 0)
        return Status::Error(std::string("the fuzz worker ") + (hung ? "stopped answering" : "died") + " between models" +
                             ((*worker)->Signal() ? " (" + SignalName((*worker)->Signal()) + ")" : ""));
      // The model it was on: a crash or hang finding, reduced in children of its own.
      const FuzzCase c = Generate(SeedOf(o, static_cast<uint64_t>(current)), o.gen);
      Finding f;
      f.engine = engine.empty() ? "ref64" : engine;
      f.kind = hung ? "hang" : "crash";
      f.detail = hung ? "no answer while " + f.engine + " ran the model"
                      : "the process died of " + SignalName((*worker)->Signal()) + " while " + f.engine + " ran the model";
      const double limit = hung ? std::min(o.hang_seconds, 10.0) : o.hang_seconds;
      ++st.s.models;
      st.s.nodes += static_cast<int64_t>(c.model->graph.nodes.size());
      TARE_RETURN_IF_ERROR(AddFinding(o, engines, c, f, st, hung ? 40 : 300,
                                      [limit](const FuzzCase& k, const Engines& e) { return CheckInChild(k, e, limit); }));
      if (progress) progress(st.s, st.Elapsed());
      TARE_RETURN_IF_ERROR(MaybeWriteSummary(o, st, true));
      next = static_cast<uint64_t>(current) + 1;
      break;
    }
  }
}

}  // namespace

Result<Summary> RunFuzz(const FuzzOptions& o, const Engines& engines, const std::function<void(const Summary&, double)>& progress) {
  if (!o.out.empty()) {
    std::error_code ec;
    if (fs::exists(o.out, ec) && !fs::is_empty(o.out, ec))
      return Status::Error("--out " + o.out + ": exists and is not empty (a fuzz run never overwrites earlier findings)");
    fs::create_directories(o.out, ec);
    if (ec) return Status::Error("--out " + o.out + ": " + ec.message());
  }
  RunState st;
  st.s.seed = o.seed;
  st.s.model_seed = o.model_seed;
  st.s.max_nodes = o.gen.max_nodes;
  st.s.engines = engines.backends;
  for (const Peer& p : engines.peers) st.s.engines.push_back(p.name);
  // The summary at once: an output folder that cannot be written fails the run before it starts.
  TARE_RETURN_IF_ERROR(MaybeWriteSummary(o, st, true));
  TARE_RETURN_IF_ERROR(o.isolate ? Supervise(o, engines, st, progress) : RunModels(o, engines, 0, st, progress, {}));
  st.s.seconds = st.Elapsed();
  TARE_RETURN_IF_ERROR(MaybeWriteSummary(o, st, true));
  return st.s;
}

namespace {

nlohmann::json GroupToJson(const Group& g) {
  nlohmann::json e;
  e["key"] = g.key;
  e["engine"] = g.finding.engine;
  e["kind"] = g.finding.kind;
  e["op"] = g.finding.op;
  e["node"] = g.finding.node;
  e["attributes"] = g.finding.attrs;
  e["ratio"] = std::isfinite(g.finding.ratio) ? nlohmann::json(g.finding.ratio) : nlohmann::json("inf");
  e["detail"] = g.finding.detail;
  e["count"] = g.count;
  e["first_seed"] = std::to_string(g.first_seed);  // a string: exact in every JSON reader (seeds exceed 2^53)
  e["nodes"] = g.nodes;
  e["original_nodes"] = g.original_nodes;
  e["reproduced"] = g.reproduced;
  e["dir"] = g.dir;
  return e;
}

Group GroupFromJson(const nlohmann::json& e) {
  Group g;
  g.key = e.value("key", "");
  g.finding.engine = e.value("engine", "");
  g.finding.kind = e.value("kind", "");
  g.finding.op = e.value("op", "");
  g.finding.node = e.value("node", "");
  g.finding.attrs = e.value("attributes", "");
  g.finding.ratio = e["ratio"].is_number() ? e["ratio"].get<double>() : INFINITY;
  g.finding.detail = e.value("detail", "");
  g.count = e.value("count", 0);
  g.first_seed = std::stoull(e.value("first_seed", std::string("0")));
  g.nodes = e.value("nodes", 0);
  g.original_nodes = e.value("original_nodes", 0);
  g.reproduced = e.value("reproduced", true);
  g.dir = e.value("dir", "");
  return g;
}

}  // namespace

std::string SummaryJson(const Summary& s) {
  nlohmann::json j;
  j["seed"] = s.seed;
  j["model_seed"] = std::to_string(s.model_seed);
  j["max_nodes"] = s.max_nodes;
  j["seconds"] = s.seconds;
  j["models"] = s.models;
  j["skipped"] = s.skipped;
  j["findings"] = s.findings;
  j["nodes"] = s.nodes;
  j["node_checks"] = s.node_checks;
  j["engines"] = s.engines;
  j["skip_reasons"] = s.skip_reasons;
  j["peer_models"] = s.peer_models;
  j["groups"] = nlohmann::json::array();
  for (const Group& g : s.groups) j["groups"].push_back(GroupToJson(g));
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
  h += ".";
  for (const auto& [peer, n] : s.peer_models) h += " " + HtmlEscape(peer) + " ran " + std::to_string(n) + " of the models.";
  h += "</p>\n";
  if (s.groups.empty()) {
    h += "<p class=\"ok\">No findings.</p>\n";
  } else {
    h += "<p class=\"bad\">" + std::to_string(s.groups.size()) + " groups (a key each: engine, kind, op and attribute names, or an error's text; one root cause can span several), " + std::to_string(s.findings) + " findings.</p>\n";
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
