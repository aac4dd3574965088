// Layer by layer against ref64, for every backend of one model (docs/COMPARE.md):
//   chained    each backend runs the model on its own outputs, every node traced (a fused backend
//              splits its partitions at traced values, SessionOptions::trace_all); each node's
//              output is compared with ref64's (the error it made plus what it inherited)
//   isolated   each node runs alone on the backend (a one-node graph through a Session, so the
//              backend's real partition and compile path), fed ref64's values of its inputs
//              rounded to the types the backend holds them in; its outputs are checked against
//              ref64's on those same inputs, as a ratio of the op's error budget (compare/budget.h).
//              A backend may treat subnormal inputs as zero (XNNPACK runs with DAZ): a node over
//              budget is checked again against ref64 on its inputs with subnormals zeroed, and
//              the smaller ratio counts. A node over budget in isolated mode is a kernel bug.
//   bisection  for a backend whose outputs differ from ref64 beyond a threshold: the first node
//              that, run on that backend (SessionOptions::pins) with every node before it and the
//              rest on the reference backend, takes the outputs beyond the threshold; with a
//              one-node reproducer (OneNodeModel) to write out.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/attribution.h"
#include "compare/budget.h"

namespace tare {

/// One node of a backend's run against ref64's run of the same model.
struct NodeDistance {
  int node = -1;                   ///< index in the model's graph
  std::string name, op, value;     ///< the node, its op, its first output (the traced tensor)
  std::string placement;           ///< where the node ran in the chained run ("cpu", "ref", ...)
  std::optional<Metrics> chained;  ///< its first output against ref64's (absent: `chained_error`)
  std::string chained_error;
  /// Isolated mode: the node alone, ref64's inputs rounded to the backend's types.
  std::optional<BudgetCheck> isolated;  ///< absent when not run (see `isolated_error`)
  std::optional<Metrics> isolated_metrics;  ///< its worst output against ref64's on the same inputs
  std::string isolated_placement;  ///< where the one-node graph ran
  std::string isolated_error;      ///< why isolated mode did not run or failed, else empty
};

/// Every node of one backend's run, in graph order (nodes folded at plan time or unused left out).
struct BackendLayers {
  std::string backend;
  std::vector<NodeDistance> nodes;
  int over_budget = 0;      ///< nodes whose isolated ratio exceeds 1 (kernel bugs)
  int isolated = 0;         ///< nodes checked in isolated mode
  double worst_ratio = 0;   ///< the largest isolated ratio
  std::string worst_node;   ///< its node
};

/// Chained mode for one backend: the traced run `run` of `graph` (BackendRun::values;
/// `placement`: Session::Placement of that run) against ref64's (`ref64`), node by node.
BackendLayers ChainedLayers(const Graph& graph, const std::string& backend, const std::map<std::string, Tensor>& run,
                            const std::vector<std::pair<std::string, std::string>>& placement,
                            const std::map<std::string, Tensor>& ref64);

/// Where a framework's layers (ChainedLayers of its run, `--peer`) leave ref64 beyond tare's
/// per-layer noise floor.
struct Departure {
  std::string peer;
  bool found = false;
  int node = -1;             ///< the first such node's index in the graph (when found)
  std::string name, op;
  double rel_l2 = 0;         ///< the framework's rel L2 from ref64 there
  double floor = 0;          ///< the layer's noise floor there
  double ratio = 0;          ///< rel_l2 / floor; when not found, the largest over the compared layers
  std::string worst_node;    ///< when not found: where that largest ratio is
  int compared = 0;          ///< layers compared (the framework has the tensor, ref64 too)
  std::string text;          ///< the sentence for the terminal
};

/// A framework's values (by tensor name) keyed and laid out as tare's run `ref64` holds them, for
/// ChainedLayers: a value of the same name and shape as it is; of the same name in NHWC where tare
/// holds it in NCHW (the TFLite converter keeps a TFLite tensor's name on its NCHW value), transposed
/// to NCHW; tare's own "NAME/nhwc" (the converter's transpose back to the file's layout) takes the
/// framework's NAME of the same shape. A shape [N,C,C,C], which fits either layout, is read in the
/// order closer to ref64's values (the wrong order is about 1 rel L2 away; a framework whose values
/// are that far off is far off either way). Values that match nothing are left out. `*transposed` counts
/// the values read in NCHW order.
std::map<std::string, Tensor> PeerValuesInTareLayout(const std::map<std::string, Tensor>& peer,
                                                     const std::map<std::string, Tensor>& ref64, int* transposed);

/// How far above the per-layer noise floor a framework's layer must be to leave ref64.
constexpr double kDepartureFactor = 10;

/// The first node of `peer` whose chained rel L2 exceeds kDepartureFactor times that layer's noise
/// floor: the largest chained rel L2 at the node among `backends` (tare's runs other than ref64,
/// ChainedLayers), and at least 2^-24 (float32's unit roundoff). A NaN distance departs.
Departure FirstDeparture(const BackendLayers& peer, const std::vector<BackendLayers>& backends);

/// A one-node model and its run-time inputs.
struct OneNodeModel {
  std::shared_ptr<Graph> graph;      ///< the node alone: its known inputs as weights, the others graph inputs
  std::vector<NamedTensor> inputs;   ///< one per graph input
};

/// Node `node` of `graph` alone. Input values come from `values` (by tensor name), each converted
/// to the dtype `types` holds for that name (when it has it): the backend's types; inputs named in
/// `known` (weights, values folded at plan time) become weights of the one-node graph, the others
/// its inputs. `abs_inputs[i]` (PlanBudget) makes input i's float values absolute (1) or minus
/// their absolute values (2); `abs_attrs` the node's float attributes absolute. Errors: an input
/// value missing from `values`, a non-tensor input or output (sequences, optionals).
Result<OneNodeModel> MakeOneNodeModel(const Graph& graph, int node, const std::map<std::string, Tensor>& values,
                                      const std::map<std::string, Tensor>& types, const std::map<std::string, bool>& known,
                                      const std::vector<char>& abs_inputs = {}, bool abs_attrs = false);

/// Isolated mode for every node of `*layers` (ChainedLayers of the same run): `values64` are
/// ref64's values (BackendRun::values), `types` the backend's run's (for the dtypes), `known` the values
/// known at plan time. Fills each node's isolated fields and the totals of `*layers`. Nodes that
/// cannot run alone keep their reason in isolated_error (not an error of the whole comparison).
void IsolateNodes(const Graph& graph, const std::map<std::string, Tensor>& values64, const std::map<std::string, Tensor>& types,
                  const std::map<std::string, bool>& known, BackendLayers* layers);

/// Chained mode, then isolated mode unless `isolated` is false or the model is `quantized` (then
/// each node's isolated_error says why), for every run of `mr` after ref64 (RunForComparison with
/// trace_all), in run order.
std::vector<BackendLayers> ModelLayers(const ModelRuns& mr, bool quantized, bool isolated);

/// The names of every value of `graph` known at plan time: its weights and the outputs of nodes
/// `placement` (Session::Placement) reports as "folded".
std::map<std::string, bool> KnownValues(const Graph& graph, const std::vector<std::pair<std::string, std::string>>& placement);

/// One bisection of a backend against ref64 (BisectBackend).
struct Bisection {
  std::string backend;
  std::string reference;      ///< the backend the other nodes ran on ("ref")
  double threshold = 0;       ///< relative L2 of the outputs against ref64 above which they differ
  Metrics backend_vs_ref64;   ///< the whole model on the backend
  Metrics reference_vs_ref64; ///< the whole model on the reference backend
  int candidates = 0;         ///< nodes the backend ran (those that can be pinned)
  int probes = 0;             ///< model runs the search took
  std::string verdict;        ///< "within threshold", "reference beyond threshold", "found", "not found"
  std::string text;           ///< the sentence for the terminal
  // verdict "found":
  int node = -1;              ///< the node's index in the graph
  std::string name, op, attributes;  ///< NodeAttrs
  std::vector<Shape> input_shapes;
  Metrics with_node;          ///< the outputs with the nodes up to this one pinned (beyond the threshold)
  Metrics before_node;        ///< with the nodes before it pinned (within)
  std::optional<BudgetCheck> isolated;  ///< the node alone (OneNodeModel of ref64's inputs), on the backend
  std::optional<OneNodeModel> reproducer;  ///< that one-node model with its inputs
};

/// Bisects `backend` on `model` with `inputs`: `ref64` is ref64's run (outputs and traced values
/// by name, BackendRun::values), `placement` the backend's own (traced) run's Session::Placement and
/// `types` its values by name. Each probe runs the model on the reference backend of the
/// backend's precision with the first k of the nodes the backend ran pinned to it (binary search
/// over k: the first k whose outputs are beyond `threshold` names node k; this assumes that once
/// the outputs are beyond the threshold, pinning more nodes keeps them so). Errors: a run fails.
Result<Bisection> BisectBackend(const std::shared_ptr<Model>& model, const std::string& backend, const std::vector<NamedTensor>& inputs,
                                const std::vector<NamedTensor>& ref64_outputs, const std::map<std::string, Tensor>& values64,
                                const std::vector<std::pair<std::string, std::string>>& placement,
                                const std::map<std::string, Tensor>& types, double threshold);

}  // namespace tare
