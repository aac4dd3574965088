// Shape rules shared by the elementwise op families (binary, compare, logic, variadic, where, mod,
// bit_shift, math): dtype classes and the broadcast of A op B, including the limited broadcast of
// ONNX opsets 1-6 (attributes `broadcast` and `axis`, passed through unchanged by converters).
// Definitions: runtime/ops/binary.cc.
#pragma once
#include "runtime/ops/op.h"

namespace tare {

/// True for the signed and unsigned integer types (not bool).
bool DTypeIsInteger(DType t);
/// True for uint8, uint16, uint32, uint64.
bool DTypeIsUnsigned(DType t);

/// The legacy broadcast attributes of an ONNX opset 1-6 binary op.
///   No `broadcast` attribute (opset >= 7 forms): B takes part in numpy-style multidirectional
///     broadcasting with its own shape.
///   broadcast=0: no broadcasting; B's shape must equal A's.
///   broadcast=1: B is broadcast to A's shape. A B with one element acts as a scalar; otherwise B
///     behaves as if reshaped to [1]*axis + B.shape + [1]*(rank(A)-axis-rank(B)), each B dim equal
///     to A's dim there or 1. `axis` defaults to rank(A) - rank(B) (suffix matching); a negative
///     axis counts from rank(A).
struct LegacyBroadcast {
  bool present = false;  ///< the node has a `broadcast` attribute
  int64_t broadcast = 0;
  bool has_axis = false;
  int64_t axis = 0;

  /// Reads the attributes; errors name the attribute (broadcast must be 0 or 1).
  static Result<LegacyBroadcast> FromNode(const Node& node);
  /// B's shape as it enters a multidirectional broadcast with A (see above); error if B does not fit.
  Result<Shape> OperandShape(const Shape& a, const Shape& b) const;
};

/// Output shape of an elementwise op over inputs 0 (A) and 1 (B): the multidirectional broadcast of
/// A's shape and B's (legacy-adjusted) shape. Errors come prefixed by the node (ctx.Error).
Result<Shape> InferBroadcastAB(const InferContext& ctx);

}  // namespace tare
