// The oracle of `tare fuzz` (issue 24): ref64, tare's specification in double. A generated model
// runs on ref64 and on each engine under test; a finding is
//   "budget"   a node whose output, run alone on the engine from ref64's inputs rounded to float
//              (tare compare's isolated mode, compare/layers.h), is over its op's error budget;
//   "model"    the engine's whole-model outputs (fusions included) away from ref64's beyond what
//              its node-by-node run makes them: a NaN or inf where the other has none, or a
//              relative L2 distance over 1e-3 that its node-by-node run does not reach (a peer has
//              no node-by-node run: its outputs against ref64's, NaN pattern and rel L2 over 1e-3);
//   "error"    the engine refuses or fails on the valid model (ref64 ran it);
//   "crash"    the process died (a signal) while the engine ran the model, or
//   "hang"     it gave no answer within the time limit (both seen only with FuzzOptions::isolate,
//              which runs the engines in a child process: fuzz/child.h).
// A finding's key (engine, kind, op, attributes that matter) groups duplicates of one root cause.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fuzz/generator.h"

namespace tare::fuzz {

/// One finding on one model.
struct Finding {
  std::string engine;  ///< "cpu", "onednn", "ort", ...
  std::string kind;    ///< "budget", "model" or "error"
  std::string op;      ///< the op of the node over budget (kind "budget"; else empty until reduced)
  std::string node;    ///< its node name
  std::string attrs;   ///< its attributes, "name=value, ..."
  double ratio = 0;    ///< budget: the error over the budget; model: the rel L2
  std::string detail;  ///< one line: what was seen
  /// Duplicates share a key: engine, kind, op and the attributes' names (values left out, so
  /// one kernel's fault at several values groups), or the error's text up to its first digit
  /// with quoted names ('Conv_3') left out (also for a crash or a hang: the signal's name).
  std::string Key() const;
};

/// A peer framework: runs an ONNX model file on inputs and returns its outputs in graph order, or
/// an error (the CLI's ONNX Runtime and LiteRT.js runners, cli/peers.h). `name` labels findings.
struct Peer {
  std::string name;
  std::function<Result<std::vector<NamedTensor>>(const std::shared_ptr<Model>& model, const std::vector<NamedTensor>& inputs)> run;
  /// Why the peer cannot take this model ("" when it can; empty function: it takes every model),
  /// e.g. an op its format has no equivalent for: the peer is then not run (not a finding).
  std::function<std::string(const Model& model)> cannot_take;
};

/// The engines of one check: tare backends by name (ref, cpu, onednn, vulkan, or one registered for
/// a test) and peers.
struct Engines {
  std::vector<std::string> backends;
  std::vector<Peer> peers;
  /// Called by Check with "ref64", then each backend's and peer's name, before it runs (may be
  /// empty): a worker process tells its parent which engine it is in (fuzz/child.h).
  std::function<void(const std::string& engine)> on_engine;
};

/// What one check found. `ok` false when ref64 could not run the model (not a finding: the
/// generator's model is then skipped, with `skipped` saying why).
struct CheckResult {
  bool ok = true;
  std::string skipped;
  std::vector<Finding> findings;
  int64_t node_checks = 0;  ///< nodes checked alone against their budget, over all backends
  std::vector<std::string> peers_run;  ///< the peers that ran the model (Peer::cannot_take said "")
};

/// Runs `c` on ref64 and on every engine and returns the findings (see the file comment). Errors
/// of an engine are findings; nothing here throws or aborts on a bad model.
CheckResult Check(const FuzzCase& c, const Engines& engines);

}  // namespace tare::fuzz
