// Reference kernel of HannWindow, HammingWindow and BlackmanWindow (semantics:
// runtime/ops/window.cc). Each value is evaluated in double (angle 2 pi n / D, then
// a0 - a1 cos(angle) + a2 cos(2 angle) left to right) and rounded once to the output type
// (integer types truncate toward zero), so `ref` and `ref64` differ by that one rounding.
#include <cmath>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeWindow(const Node& node) {
  double a0 = 0, a1 = 0, a2 = 0;
  if (node.op == "HannWindow") {
    a0 = 0.5, a1 = 0.5;
  } else if (node.op == "HammingWindow") {
    a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;
  } else if (node.op == "BlackmanWindow") {
    a0 = 0.42, a1 = 0.5, a2 = 0.08;
  } else {
    return Status::Error(node.Where() + ": not a window op");
  }
  TARE_ASSIGN_OR_RETURN(int64_t periodic, node.GetInt("periodic", 1));
  return KernelFn([=](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    Tensor& y = *out[0];
    const int64_t n = y.shape[0];
    const int64_t d = periodic != 0 ? n : n - 1;
    const double pi = std::acos(-1.0);
    for (int64_t i = 0; i < n; ++i) {
      const double angle = d > 0 ? 2.0 * pi * static_cast<double>(i) / static_cast<double>(d) : 0.0;
      const double v = a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle);
      if (y.dtype == DType::kFloat16)
        y.as<uint16_t>()[i] = DoubleToHalf(v);
      else
        WriteDouble(y, i, v);
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Window)

}  // namespace tare
