// The IR: a graph of nodes over values. Activations keep ONNX's NCHW layout; op semantics are those
// of the ONNX operator of the same name at the newest opset tare implements (converters rewrite
// older forms, e.g. Squeeze-11's `axes` attribute becomes Squeeze-13's `axes` input).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ir/tensor.h"
#include "runtime/status.h"

namespace tare {

struct Graph;

/// A typed node attribute (the kinds of ONNX AttributeProto that tare stores). kType (ONNX
/// TYPE_PROTO, e.g. Optional's `type`) keeps the value kind in `s` ("tensor", "sequence") and
/// the element type code in `i`.
struct Attr {
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph, kType };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  Tensor tensor;
  std::shared_ptr<Graph> graph;
};
/// "int", "float", ... for messages.
const char* AttrKindName(Attr::Kind k);

/// Attributes of one kind, for code that builds nodes (converters, graph passes).
Attr IntAttr(int64_t v);
Attr IntsAttr(std::vector<int64_t> v);
Attr FloatAttr(float v);
Attr StrAttr(std::string v);

/// tare's own attribute of a Cast from float32 (int: 10 float16, 16 bfloat16; default 0, absent):
/// the Cast rounds each value to the nearest value of that type, ties to even, beyond its range
/// inf. To that type (`to` = the same code) it is stored narrow: for bfloat16 this rounds where
/// ONNX Cast-13's reference, which tare's Cast follows, truncates. To float32 (`to` = 1) the
/// rounded value stays float32: a narrow output rounded and widened again in one step. Set only on
/// the Casts a fast backend adds around a narrow node it computes in float32 (WidePartition,
/// backends/common/table_backend.h); the ONNX converter drops it from files.
inline constexpr const char* kCastRoundTo = "tare.round_to";

/// A node: one op applied to input values, producing output values.
struct Node {
  std::string name;    ///< source node name (may be empty in the source; converters fill one in)
  std::string op;      ///< op type, e.g. "Conv"
  std::string domain;  ///< "" for the ONNX default domain
  std::vector<int> inputs;   ///< value ids; -1 for an omitted optional input
  std::vector<int> outputs;  ///< value ids; -1 for an omitted optional output
  std::map<std::string, Attr> attrs;

  bool has(const std::string& a) const { return attrs.count(a) != 0; }
  /// Typed attribute getters with a default. Errors name the node and attribute when the stored
  /// attribute has another kind.
  Result<int64_t> GetInt(const std::string& a, int64_t dflt) const;
  Result<float> GetFloat(const std::string& a, float dflt) const;
  Result<std::string> GetString(const std::string& a, const std::string& dflt) const;
  Result<std::vector<int64_t>> GetInts(const std::string& a, std::vector<int64_t> dflt = {}) const;
  Result<std::vector<float>> GetFloats(const std::string& a, std::vector<float> dflt = {}) const;
  /// "node 'name' (Op)" for error messages.
  std::string Where() const;
  /// Number of inputs that are present (trailing -1 entries not counted).
  int NumInputs() const;
};

/// A value: a tensor flowing between nodes. `constant` is set for weights (initializers).
struct Value {
  std::string name;  ///< source tensor name (unique in the graph)
  DType dtype = DType::kUndefined;  ///< element type (of the tensor, or of a sequence's/optional's tensors)
  ValueKind kind = ValueKind::kTensor;  ///< tensor, sequence or optional (ONNX TypeProto)
  /// For kOptional: whether the contained value is a sequence (else a tensor).
  bool optional_of_sequence = false;
  Shape shape;              ///< declared shape; negative dims are unknown; empty+!has_shape = unknown rank
  bool has_shape = false;   ///< false when even the rank is unknown
  bool is_constant = false;
  Tensor constant;          ///< the data when is_constant
};

/// A dataflow graph. Nodes are kept in a topological order (checked by Validate).
struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   ///< value ids of the graph inputs (never constants)
  std::vector<int> outputs;  ///< value ids of the graph outputs

  /// Adds a value and returns its id.
  int AddValue(Value v);
  /// Id of the value called `name`, or -1.
  int FindValue(const std::string& name) const;
  /// Checks ids are in range, each value has at most one producer, nodes are in topological order
  /// (no node reads a value produced after it: cycles included), constants match their shapes.
  Status Validate() const;
};

/// Dead-node elimination: per node of `g` (topological order), whether a graph output or a value
/// marked in `keep` (per value id; may be shorter than g.values, missing ids count as unmarked)
/// depends on it. A node none of whose outputs is needed is dead; a live node needs its inputs.
std::vector<char> LiveNodes(const Graph& g, const std::vector<char>& keep = {});

}  // namespace tare
