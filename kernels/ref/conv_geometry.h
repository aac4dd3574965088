// Conv-11 geometry shared by the reference Conv, ConvInteger and QLinearConv kernels (and the
// vulkan backend; ConvTranspose-11's below, shared by its reference kernel and vulkan's): attributes
// parsed once, and per call the shapes padded to 3 spatial dims with the begin pads resolved
// (auto_pad SAME_*: total max(0, (O-1)s + (k-1)d + 1 - D), the odd element at the end for
// SAME_UPPER, at the beginning for SAME_LOWER). Shape inference (InferConvGeometry) has checked
// every attribute before these run.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// Conv attributes as given on the node (empty vectors = defaults).
struct ConvAttrs {
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;

  /// Reads group, strides, dilations, pads and auto_pad. Errors: wrong attribute kinds, group < 1.
  static Result<ConvAttrs> Parse(const Node& node) {
    ConvAttrs a;
    TARE_ASSIGN_OR_RETURN(a.group, node.GetInt("group", 1));
    if (a.group < 1) return Status::Error(node.Where() + ": attribute 'group' must be >= 1");
    TARE_ASSIGN_OR_RETURN(a.strides, node.GetInts("strides"));
    TARE_ASSIGN_OR_RETURN(a.dilations, node.GetInts("dilations"));
    TARE_ASSIGN_OR_RETURN(a.pads, node.GetInts("pads"));
    TARE_ASSIGN_OR_RETURN(a.auto_pad, node.GetString("auto_pad", "NOTSET"));
    return a;
  }
};

/// Geometry of one call, padded to 3 spatial dims (index 0 = depth, 1 = rows, 2 = columns).
struct ConvGeometry {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {0, 0, 0};

  /// From the shapes of X (N C D...), W (M C/g k...) and Y (N M O...).
  ConvGeometry(const ConvAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
    const size_t nsp = x.size() - 2;
    for (size_t i = 0; i < nsp; ++i) {
      const size_t j = 3 - nsp + i;
      in[j] = x[2 + i];
      out[j] = y[2 + i];
      k[j] = w[2 + i];
      s[j] = a.strides.empty() ? 1 : a.strides[i];
      d[j] = a.dilations.empty() ? 1 : a.dilations[i];
      if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
        const int64_t total = std::max<int64_t>(0, (out[j] - 1) * s[j] + (k[j] - 1) * d[j] + 1 - in[j]);
        pb[j] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      } else if (a.auto_pad != "VALID" && !a.pads.empty()) {
        pb[j] = a.pads[i];
      }
    }
  }

  /// Whether some output position's window reads no input element at all (only padding, e.g. a
  /// begin pad of at least the dilated kernel's extent): its value is the bias alone.
  bool HasWindowInPaddingOnly() const {
    for (int j = 0; j < 3; ++j)
      for (int64_t o = 0; o < out[j]; ++o) {
        bool reads = false;
        for (int64_t t = 0; t < k[j] && !reads; ++t) {
          const int64_t i = o * s[j] - pb[j] + t * d[j];
          reads = i >= 0 && i < in[j];
        }
        if (!reads) return true;
      }
    return false;
  }
};

/// ConvTranspose-11 attributes as given on the node (empty vectors = defaults).
struct ConvTAttrs : ConvAttrs {
  std::vector<int64_t> output_padding;
  bool has_output_shape = false;

  /// Reads ConvAttrs, output_padding and whether output_shape is given. Errors: as ConvAttrs.
  static Result<ConvTAttrs> Parse(const Node& node) {
    ConvTAttrs a;
    TARE_ASSIGN_OR_RETURN(static_cast<ConvAttrs&>(a), ConvAttrs::Parse(node));
    TARE_ASSIGN_OR_RETURN(a.output_padding, node.GetInts("output_padding"));
    a.has_output_shape = node.has("output_shape");
    return a;
  }
};

/// ConvTranspose-11 geometry of one call, padded to 3 spatial dims like ConvGeometry: output
/// index o = i * s + t * d - pb; the begin pads from pads, or from output_shape / auto_pad SAME_*
/// (total max(0, s (in - 1) + output_padding + (k - 1) d + 1 - out), the odd element at the end
/// for SAME_UPPER).
struct ConvTransposeGeometry {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {0, 0, 0};

  /// From the shapes of X (N C D...), W (C M/g k...) and Y (N M O...).
  ConvTransposeGeometry(const ConvTAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
    const size_t nsp = x.size() - 2;
    const bool same = a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER";
    for (size_t i = 0; i < nsp; ++i) {
      const size_t j = 3 - nsp + i;
      in[j] = x[2 + i];
      out[j] = y[2 + i];
      k[j] = w[2 + i];
      s[j] = a.strides.empty() ? 1 : a.strides[i];
      d[j] = a.dilations.empty() ? 1 : a.dilations[i];
      const int64_t op = a.output_padding.empty() ? 0 : a.output_padding[i];
      if (a.has_output_shape || same) {
        const int64_t full = s[j] * (in[j] - 1) + op + (k[j] - 1) * d[j] + 1;
        const int64_t total = std::max<int64_t>(0, full - out[j]);
        pb[j] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      } else if (a.auto_pad != "VALID" && !a.pads.empty()) {
        pb[j] = a.pads[i];
      }
    }
  }
};

}  // namespace tare
