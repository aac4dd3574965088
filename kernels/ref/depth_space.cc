// Reference kernels of DepthToSpace and SpaceToDepth (semantics: runtime/ops/depth_space.cc). Pure
// data movement (exact, any dtype): elements are copied as ES-byte blocks (memcpy of a constant
// size, which compiles to one load and store).
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Copies one element of ES bytes from element index si of src to element index di of dst.
template <size_t ES>
inline void Copy(char* dst, int64_t di, const char* src, int64_t si) {
  std::memcpy(dst + di * static_cast<int64_t>(ES), src + si * static_cast<int64_t>(ES), ES);
}

/// DepthToSpace: for each output row (n, c, h*b + i), the b source rows x[n, ch(i, j), h, :]
/// interleave into it: y[w*b + j] = src_j[w].
template <size_t ES>
void DepthToSpace(const Tensor& x, Tensor& y, int64_t b, bool crd) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3], Co = C / (b * b);
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < Co; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < b; ++i) {
          const int64_t row = ((n * Co + c) * H * b + h * b + i) * W * b;
          for (int64_t j = 0; j < b; ++j) {
            const int64_t ch = crd ? c * b * b + i * b + j : (i * b + j) * Co + c;
            const int64_t s = ((n * C + ch) * H + h) * W;
            for (int64_t w = 0; w < W; ++w) Copy<ES>(dst, row + w * b + j, src, s + w);
          }
        }
}

/// SpaceToDepth: y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j], one output row at a time.
template <size_t ES>
void SpaceToDepth(const Tensor& x, Tensor& y, int64_t b) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3], Ho = H / b, Wo = W / b;
  const char* src = static_cast<const char*>(x.data);
  char* dst = static_cast<char*>(y.data);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t h = 0; h < Ho; ++h) {
            const int64_t row = ((n * C * b * b + (i * b + j) * C + c) * Ho + h) * Wo;
            const int64_t s = ((n * C + c) * H + h * b + i) * W + j;
            for (int64_t w = 0; w < Wo; ++w) Copy<ES>(dst, row + w, src, s + w * b);
          }
}

/// Runs DepthToSpace (d2s) or SpaceToDepth on elements of ES bytes.
template <size_t ES>
void Run(const Tensor& x, Tensor& y, bool d2s, int64_t b, bool crd) {
  if (d2s) DepthToSpace<ES>(x, y, b, crd);
  else SpaceToDepth<ES>(x, y, b);
}

}  // namespace

template <class T>
Result<KernelFn> MakeDepthSpace(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t b, node.GetInt("blocksize", 0));
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "DCR"));
  const bool d2s = node.op == "DepthToSpace", crd = mode == "CRD";
  if (b < 1) return Status::Error(node.Where() + ": attribute 'blocksize' must be >= 1");
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (y.numel() == 0) return Status::Ok();
    switch (DTypeSize(x.dtype)) {
      case 1: Run<1>(x, y, d2s, b, crd); break;
      case 2: Run<2>(x, y, d2s, b, crd); break;
      case 4: Run<4>(x, y, d2s, b, crd); break;
      case 8: Run<8>(x, y, d2s, b, crd); break;
      default: return Status::Error("unsupported dtype " + DTypeName(x.dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(DepthSpace)

}  // namespace tare
