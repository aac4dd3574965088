// `tare fuzz` (issue 24): generated models (fuzz/generator.h) run on ref64, tare's backends and
// peers (fuzz/oracle.h) for a time budget; each new finding (a new Finding::Key) is reduced
// (fuzz/reducer.h) and written to a findings folder; duplicates of one key are counted. At the
// end: summary.json and index.html in the output folder.
// summary.json and index.html are rewritten as the run goes (after each new root cause and every
// 30 s), so a stopped run keeps its figures.
// Output folder layout (nothing from an earlier run is overwritten: a run needs an empty or new folder):
//   summary.json, index.html
//   running.txt while a model is checked: its index and seed (left behind when an engine crashes)
//   findings/NNN-ENGINE-KIND-OP/model.onnx, model.tare, <input>.npy per graph input, finding.txt
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fuzz/oracle.h"
#include "fuzz/reducer.h"

namespace tare::fuzz {

struct FuzzOptions {
  double seconds = 60;     ///< stop starting new models after this many seconds
  uint64_t seed = 1;       ///< model i of the run has seed Mix(seed, i)
  int64_t max_models = 0;  ///< stop after this many models (0: no limit)
  uint64_t model_seed = 0; ///< when not 0: check only the model of this seed (running.txt names it),
                           ///< written first to out/model/ (model.onnx, model.tare, inputs .npy)
  GenOptions gen;
  bool reduce = true;      ///< reduce each new finding
  /// Run the engines in a worker process (fuzz/child.h): a crash or a hang (no answer for
  /// hang_seconds) becomes a finding on the model and engine it happened in, and a new worker goes
  /// on with the next model. Off: one process; a crash ends the run (running.txt names the model).
  bool isolate = false;
  double hang_seconds = 120;
  std::string out;         ///< output folder ("": nothing written)
};

/// One root cause: its first finding (reduced) and how often its key came up.
struct Group {
  std::string key;
  Finding finding;
  int count = 0;
  uint64_t first_seed = 0;
  int nodes = 0;           ///< nodes of the reduced model
  int original_nodes = 0;  ///< nodes of the model it was found in
  bool reproduced = true;  ///< the finding showed again when reduction started
  std::string dir;         ///< its folder under out/findings ("" when nothing is written)
};

struct Summary {
  uint64_t seed = 0;
  uint64_t model_seed = 0;  ///< FuzzOptions::model_seed (0: the run's models)
  int max_nodes = 0;        ///< GenOptions::max_nodes: a model seed gives its model with this
  double seconds = 0;  ///< wall time of the run
  int64_t models = 0;   ///< models checked (ref64 ran them)
  int64_t skipped = 0;  ///< generated models ref64 did not run (see `skip_reasons`)
  int64_t findings = 0; ///< findings, duplicates included
  int64_t node_checks = 0;  ///< nodes checked alone against their budget, over all backends
  int64_t nodes = 0;        ///< nodes of the models checked
  std::vector<std::string> engines;
  std::map<std::string, int64_t> peer_models;  ///< per peer: models it ran (it may not take some)
  std::vector<Group> groups;  ///< by first appearance
  std::vector<std::string> skip_reasons;  ///< the first few
  /// Groups whose engine is one of tare's backends (not a peer).
  int TareGroups(const std::vector<std::string>& backends) const;
};

/// The seed of model i of a run seeded `seed` (splitmix64 of both).
uint64_t Mix(uint64_t seed, uint64_t i);

/// Runs the loop. `progress` (may be empty) is called after each model. Errors: the output folder
/// exists and is not empty, or cannot be written.
Result<Summary> RunFuzz(const FuzzOptions& options, const Engines& engines,
                        const std::function<void(const Summary&, double elapsed_s)>& progress = {});

/// Writes summary.json and index.html into `out` (RunFuzz does, after each new root cause, every
/// 30 s and at the end). Errors: a file that cannot be written.
Status WriteSummary(const std::string& out, const Summary& s);
/// The run's summary as JSON (the file summary.json holds).
std::string SummaryJson(const Summary& s);
/// A short self-contained HTML page of the findings (index.html).
std::string SummaryHtml(const Summary& s);

}  // namespace tare::fuzz
