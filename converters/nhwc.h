// What the TensorFlow converters (TFLite, TF.js) share to carry TensorFlow's NHWC tensors as the
// IR's NCHW: the permutations, a tensor permuted at conversion, the graph writer with unique value
// names, and the two layout decisions both make the same way (a reduction's kept dims, a resize's
// coordinate mode).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// NHWC -> NCHW permutation (a Transpose's perm).
inline const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
/// NCHW -> NHWC permutation.
inline const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
/// Axis a (0..3) of an NHWC tensor in its NCHW form.
inline int64_t NhwcAxisToNchw(int64_t a) { return a == 0 ? 0 : a == 3 ? 1 : a + 1; }

/// t with its dims permuted: result dim i is t's dim perm[i] (any rank and dtype; perm must be a
/// permutation of t's dims).
Tensor PermuteTensor(const Tensor& t, const std::vector<int64_t>& perm);

/// Whether a reduction of an NHWC rank-4 tensor over `reduced` (NHWC axes) without keepdims leaves
/// its other dims in the same order when run on the NCHW form (then the NCHW form may be reduced).
bool KeptDimsInNchwOrder(const std::set<int64_t>& reduced);

/// ONNX Resize attributes for TensorFlow's ResizeBilinear / ResizeNearestNeighbor (and TFLite's
/// RESIZE_BILINEAR v3 / RESIZE_NEAREST_NEIGHBOR): bilinear in = out * scale (legacy), align_corners,
/// or half_pixel_centers = ONNX half_pixel; nearest floor(out * scale), round half away from zero
/// (align_corners), floor((out + 0.5) * scale) (half_pixel_centers).
std::map<std::string, Attr> TfResizeAttrs(bool bilinear, bool align_corners, bool half_pixel_centers);

/// Appends values and nodes to a Graph, giving each new value a name no other value of this writer
/// has (`name`, then `name/1`, `name/2`, ...).
class GraphWriter {
 public:
  explicit GraphWriter(Graph* g = nullptr) : g_(g) {}
  void Reset(Graph* g) { g_ = g; }
  int NewValue(const std::string& name, DType dt, const Shape* shape = nullptr);
  int Const(const std::string& name, const Tensor& t);
  void AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
               std::map<std::string, Attr> attrs = {});
  /// One-output node with a new output value named `out_name` of dtype dt.
  int Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name, DType dt,
            std::map<std::string, Attr> attrs = {});
  Graph* graph() const { return g_; }

 private:
  Graph* g_;
  std::set<std::string> names_;
};

}  // namespace tare
