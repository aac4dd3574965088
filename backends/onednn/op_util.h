// Helpers the onednn op files share (ops.cc, concat.cc): memory descriptors, the Conv's fused
// chain and the pooling primitive (both also used by a Concat that is not materialized).
#pragma once
#include <string>
#include <vector>

#include "backends/onednn/compiler.h"

namespace tare::onednn {

using dnnl::algorithm;
using dnnl::prop_kind;
using dt = memory::data_type;
using tag = memory::format_tag;

/// The dims of shape s (a scalar as {1}).
memory::dims Dims(const Shape& s);
/// A dense row-major float32 desc of `dims`.
memory::desc RowMajor(const memory::dims& dims);
/// A float32 desc of `dims` in the layout the primitive picks (format_tag::any).
memory::desc Any(const memory::dims& dims);
/// A view of m's bytes with another desc (same bytes, e.g. a 2-D view of a row-major tensor).
memory View(const Compiler& c, const memory& m, const memory::desc& d);
/// Element 0 of value v (known at plan time) as float.
float ReadScalar(const Compiler& c, int v);

/// A Conv's fused chain from its output y: weights w and bias b (M output channels) as floats, a
/// following BatchNormalization folded in, then eltwise post-ops and, when allow_sum, one Add as
/// a sum post-op (*sum_src: its other operand). Returns the chain's last value; *what names the
/// fused ops.
int ConvChain(Compiler& c, int w, int b, int64_t M, int y, bool allow_sum, std::vector<float>* wv, std::vector<float>* bv,
              dnnl::post_ops* po, int* sum_src, std::string* what);

/// A pooling node's window geometry in oneDNN's terms (ONNX semantics; spatial axes): kernel,
/// strides, dilations as oneDNN counts them (ONNX's minus 1), begin pads (auto_pad resolved) and
/// end pads (the ceil_mode tail included; may be negative). False when the case needs the
/// reference kernel (count_include_pad with a ceil_mode window past the end pad, a kernel_shape
/// rank other than the spatial rank). Errors: malformed attributes.
struct PoolGeom {
  memory::dims kernel, strides, dil, pl, pr;
  bool avg = false, include_pad = false;
};
Result<bool> PoolGeometry(const Node& n, const Shape& X, const Shape& Y, PoolGeom* out);

/// The pooling primitive of n (MaxPool, AveragePool, global pools; ONNX semantics) from a source
/// in desc src_md of shape X to a destination of shape Y in the layout it picks. False when the
/// case needs the reference kernel (count_include_pad with a ceil_mode window past the end pad, a
/// kernel_shape rank other than the spatial rank). Throws dnnl::error when oneDNN has no primitive
/// (the caller falls back to the reference kernel).
Result<bool> MakePoolPd(Compiler& c, const Node& n, const memory::desc& src_md, const Shape& X, const Shape& Y,
                        dnnl::pooling_v2_forward::primitive_desc* out);

/// Concat (concat.cc; claimed when every input is float32: AllInputsF32): it may be left
/// unmaterialized, written in place, or run on the reference kernel.
Status CompileConcat(Compiler& c, const Node& n);

/// fusions.cc (issue 23): at a Div, PyTorch's erf Gelu chain as eltwise_gelu_erf; at a Mul(x, x),
/// its tanh Gelu chain as eltwise_gelu_tanh (true when done: the chain's nodes absorbed); Erf on
/// its reference kernel inside the partition.
Result<bool> TryGelu(Compiler& c, const Node& div);
Result<bool> TryGeluTanh(Compiler& c, const Node& sq);
/// At a ReduceMean: PyTorch's LayerNorm decomposition (patterns::MatchLayerNorm) as oneDNN's
/// layer_normalization_forward; within the chain's budget (tests/backends/onednn_test.cc). True
/// when done (the chain absorbed), false when the nodes are not that chain.
Result<bool> TryLayerNorm(Compiler& c, const Node& mean);
/// ONNX LayerNormalization-17 (claimed by SupportsLayerNormalization, backends/common/table_backend.h).
Status CompileLayerNorm(Compiler& c, const Node& n);
/// own_ops.cc: the backend's own steps on the layouts oneDNN's primitives leave.
/// A 2-D MaxPool (no Indices output, no dilation) whose input is held channel-blocked (aBcd8b,
/// aBcd16b) or channels-last (acdb), where oneDNN's widest channel block is 8 (below AVX-512, the
/// case measured): an own step on that layout, its output in the same layout.
/// oneDNN 2.6's jit:avx2 max pooling ran SqueezeNet 1.1's three pools in 1.3 ms at 1 thread on Zen
/// 3, the own loop in about 0.3; and it keeps ONNX's NaN rule (the reference's: the first tap in
/// the input starts the max, a later one replaces it when greater or NaN, a NaN stays), so the
/// chain needs no NaN guard. False when the node or its input's layout is not that case.
Result<bool> TryOwnMaxPool(Compiler& c, const Node& n);
/// At a Mul of a channel-blocked x (aBcd8b/16b..., as a convolution left it) by a per-channel s
/// ([N or 1, C, 1, ...], a squeeze-and-excitation scale): the product on the blocked layout in an
/// own step (one pass; x * s per element, as the reference), where oneDNN 2.6 has only its
/// reference binary kernel for 8-channel blocks and the plain route costs two reorders. False when
/// the operands are not that case.
Result<bool> TryBlockedChannelScale(Compiler& c, const Node& n, int a, int b);
bool SupportsErf(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileErf(Compiler& c, const Node& n);

/// data_ops.cc (issue 23): Transpose and Slice as reorders, Gather on its reference kernel inside
/// the partition, ReduceMean as reduction_mean (docs/ONEDNN.md's table).
bool SupportsTranspose(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileTranspose(Compiler& c, const Node& n);
bool SupportsSlice(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileSlice(Compiler& c, const Node& n);
/// Split (claimed as cpu's: float data, known split sizes): a reorder per output.
Status CompileSplit(Compiler& c, const Node& n);
bool SupportsGather(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileGather(Compiler& c, const Node& n);
bool SupportsReduceMean(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileReduceMean(Compiler& c, const Node& n);

}  // namespace tare::onednn
