#include "fuzz/oracle.h"

#include <cctype>
#include <cmath>

#include "compare/attribution.h"
#include "compare/layers.h"

namespace tare::fuzz {
namespace {

/// rel L2 of the whole-model outputs above which a run departs from ref64 (far above float32
/// rounding through a few dozen nodes of generated data, far below a wrong result).
constexpr double kModelThreshold = 1e-3;

/// The attribute names of "name=value, name=value" (NodeAttrs), values left out.
std::string AttrNames(const std::string& attrs) {
  std::string out;
  bool in_name = true;
  int depth = 0;
  for (char ch : attrs) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == '=' && depth == 0) in_name = false;
    if (ch == ',' && depth == 0) {
      in_name = true;
      out += ",";
      continue;
    }
    if (in_name && ch != ' ') out += ch;
  }
  return out;
}

Finding Error(const std::string& engine, const std::string& what) {
  Finding f;
  f.engine = engine;
  f.kind = "error";
  f.detail = what;
  return f;
}

}  // namespace

std::string Finding::Key() const {
  if (kind == "error" || kind == "crash" || kind == "hang") {
    // Up to the first digit, quoted names ('Conv_3') left out.
    std::string head;
    bool quoted = false;
    for (char ch : detail) {
      if (ch == '\'') quoted = !quoted;
      if (quoted || ch == '\'') continue;
      if (std::isdigit(static_cast<unsigned char>(ch))) break;
      head += ch;
    }
    return engine + "|" + kind + "|" + head;
  }
  return engine + "|" + kind + "|" + op + "|" + AttrNames(attrs);
}

CheckResult Check(const FuzzCase& c, const Engines& engines) {
  CheckResult res;
  size_t traced = 0;
  auto entering = [&](const std::string& engine) {
    if (engines.on_engine) engines.on_engine(engine);
  };
  entering("ref64");
  Result<BackendRun> ref64 = RunModel(c.model, "ref64", c.inputs, true, &traced);
  if (!ref64.ok()) {
    res.ok = false;
    res.skipped = "ref64: " + ref64.status().message();
    return res;
  }
  ModelRuns mr;
  mr.label = "fuzz";
  mr.model = c.model;
  mr.runs.push_back(*ref64);
  for (const std::string& b : engines.backends) {
    // Node by node (every value traced, so nothing is fused), then whole (fusions on).
    entering(b);
    Result<BackendRun> traced_run = RunModel(c.model, b, c.inputs, true, &traced);
    if (!traced_run.ok()) {
      res.findings.push_back(Error(b, traced_run.status().message()));
      continue;
    }
    Result<BackendRun> whole = RunModel(c.model, b, c.inputs, false, &traced);
    if (!whole.ok()) {
      res.findings.push_back(Error(b, "whole model: " + whole.status().message()));
    } else {
      std::string which;
      Result<Metrics> w = WorstOutput(whole->outputs, ref64->outputs, &which);
      Result<Metrics> t = WorstOutput(traced_run->outputs, ref64->outputs, &which);
      if (w.ok() && t.ok() && !Within(*w, kModelThreshold) && (Within(*t, kModelThreshold) || w->nan_mismatch > t->nan_mismatch)) {
        Finding f;
        f.engine = b;
        f.kind = "model";
        f.ratio = w->rel_l2;
        f.detail = "whole model: output " + which + " rel L2 " + std::to_string(w->rel_l2) + " (" + std::to_string(w->nan_mismatch) +
                   " NaN mismatches) against ref64; node by node " + std::to_string(t->rel_l2);
        res.findings.push_back(f);
      }
    }
    mr.runs.push_back(*traced_run);
  }
  // Isolated mode: every node alone on each backend, against its budget.
  {
    std::string all;  // which backend runs a node alone is not told apart: all of them
    for (const std::string& b : engines.backends) all += (all.empty() ? "" : ",") + b;
    if (!all.empty()) entering(all + " (nodes alone)");
  }
  const std::vector<BackendLayers> layers = ModelLayers(mr, false, true);
  for (const BackendLayers& bl : layers) {
    if (bl.backend == "ref64") continue;
    res.node_checks += bl.isolated;
    for (const NodeDistance& nd : bl.nodes) {
      const Node& node = c.model->graph.nodes[static_cast<size_t>(nd.node)];
      if (nd.isolated && nd.isolated->evaluated && nd.isolated->ratio > 1) {
        Finding f;
        f.engine = bl.backend;
        f.kind = "budget";
        f.op = nd.op;
        f.node = nd.name;
        f.attrs = NodeAttrs(node);
        f.ratio = nd.isolated->ratio;
        f.detail = nd.op + " " + nd.name + " alone on " + bl.backend + ": " + std::to_string(nd.isolated->ratio) + " times its error budget" +
                   (std::isinf(nd.isolated->ratio) ? " (NaN or inf on one side only)" : "");
        res.findings.push_back(f);
      }
    }
  }
  // Peers: their outputs against ref64's.
  for (const Peer& p : engines.peers) {
    if (p.cannot_take && !p.cannot_take(*c.model).empty()) continue;
    res.peers_run.push_back(p.name);
    entering(p.name);
    Result<std::vector<NamedTensor>> out = p.run(c.model, c.inputs);
    if (!out.ok()) {
      res.findings.push_back(Error(p.name, out.status().message()));
      continue;
    }
    std::string which;
    Result<Metrics> m = WorstOutput(*out, ref64->outputs, &which);
    if (!m.ok()) {
      res.findings.push_back(Error(p.name, "outputs: " + m.status().message()));
    } else if (!Within(*m, kModelThreshold)) {
      Finding f;
      f.engine = p.name;
      f.kind = "model";
      f.ratio = m->rel_l2;
      f.detail = "output " + which + " rel L2 " + std::to_string(m->rel_l2) + " (" + std::to_string(m->nan_mismatch) + " NaN mismatches) against ref64";
      res.findings.push_back(f);
    }
  }
  return res;
}

}  // namespace tare::fuzz
