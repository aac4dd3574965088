// Col2Im family: Col2Im (ONNX Col2Im-18; PyTorch's torch.nn.Fold generalized to n spatial dims).
// Inputs: input (float32; float16 and bfloat16 are computed in float) of shape [N, C * prod(B), L];
// image_shape (1-D integer, known at plan time) I = [I_1..I_n], n >= 1; block_shape (1-D integer,
// known at plan time) B = [B_1..B_n], the block before dilation. Attributes (n or 2n values):
// dilations=1..., strides=1... (each >= 1), pads=[b_1..b_n, e_1..e_n] (each >= 0, default 0).
// Along axis i there are L_i = floor((I_i + b_i + e_i - ((B_i - 1) * d_i + 1)) / s_i) + 1 >= 1 block
// positions, and L must equal prod(L_i). Blocks and block offsets are numbered in row-major
// (lexicographic) order: input column l = flat(l_1..l_n) over (L_1..L_n), row c * prod(B) + flat(k_1..k_n)
// over (B_1..B_n). Output: [N, C, I_1..I_n], zero-initialized; every input element
// x[n, c * prod(B) + flat(k), flat(l)] is added to y[n, c, p_1..p_n] with
// p_i = l_i * s_i - b_i + k_i * d_i, when every p_i lies in [0, I_i) (elements that land in the
// padding are dropped).
#include "runtime/ops/specs.h"

namespace tare {

Status InferCol2Im(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"input"}));
  const Shape& x = ctx.in[0].shape;
  if (x.size() != 3) return ctx.Error("input must have rank 3 [N, C * prod(block_shape), L], got shape " + ShapeStr(x));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> image, ctx.KnownInts(1, "image_shape"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.KnownInts(2, "block_shape"));
  if (ctx.in[1].shape.size() != 1 || ctx.in[2].shape.size() != 1)
    return ctx.Error("inputs 'image_shape' and 'block_shape' must be 1-D, got shapes " + ShapeStr(ctx.in[1].shape) +
                     " and " + ShapeStr(ctx.in[2].shape));
  const size_t n = image.size();
  if (n == 0 || block.size() != n)
    return ctx.Error("inputs 'image_shape' (" + std::to_string(n) + " values) and 'block_shape' (" +
                     std::to_string(block.size()) + " values) must have the same, non-zero length");
  const int64_t kMaxAttr = int64_t(1) << 30;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.IntsAttr("strides", n, 1, 1, kMaxAttr));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dil, ctx.IntsAttr("dilations", n, 1, 1, kMaxAttr));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.IntsAttr("pads", 2 * n, 0, 0, kMaxAttr));
  int64_t block_size = 1, blocks = 1;
  Shape y = {x[0], 0};
  for (size_t i = 0; i < n; ++i) {
    const std::string axis = "spatial axis " + std::to_string(i);
    if (image[i] < 1 || image[i] > kMaxAttr)
      return ctx.Error("image_shape[" + std::to_string(i) + "] = " + std::to_string(image[i]) + " must be in [1, 2^30]");
    if (block[i] < 1 || block[i] > kMaxAttr)
      return ctx.Error("block_shape[" + std::to_string(i) + "] = " + std::to_string(block[i]) + " must be in [1, 2^30]");
    const int64_t ek = (block[i] - 1) * dil[i] + 1;  // < 2^60: both factors <= 2^30
    const int64_t padded = image[i] + pads[i] + pads[n + i];
    if (padded < ek)
      return ctx.Error(axis + ": padded image size " + std::to_string(padded) + " is smaller than the dilated block extent " +
                       std::to_string(ek));
    const int64_t li = (padded - ek) / strides[i] + 1;
    if (block_size > kMaxElements / block[i] || blocks > kMaxElements / li)
      return ctx.Error("block_shape or the number of blocks is too large");
    block_size *= block[i];
    blocks *= li;
    y.push_back(image[i]);
  }
  if (x[1] % block_size != 0)
    return ctx.Error("input dim 1 (" + std::to_string(x[1]) + ") must be a multiple of prod(block_shape) = " +
                     std::to_string(block_size));
  if (x[2] != blocks)
    return ctx.Error("input dim 2 (L = " + std::to_string(x[2]) + ") must equal the number of blocks " +
                     std::to_string(blocks) + " that image_shape, block_shape, dilations, pads and strides give");
  y[1] = x[1] / block_size;
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
