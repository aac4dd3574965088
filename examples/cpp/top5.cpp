// tare C++ example (tare/tare.hpp over the C API): the C example's job (../c/top5.c) with RAII
// handles and exceptions; it links the converter library too, so MODEL may be .onnx or .tflite.
// Usage: top5_cpp [-b BACKENDS] MODEL INPUT.npy [EXPECTED.npy]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <tare/tare.hpp>

#include "npy.h"

int main(int argc, char** argv) {
  std::string backends = "cpu,ref";
  int a = 1;
  if (argc > 2 && std::strcmp(argv[1], "-b") == 0) {
    backends = argv[2];
    a = 3;
  }
  if (argc - a < 2 || argc - a > 3) {
    std::fprintf(stderr, "usage: %s [-b BACKENDS] MODEL INPUT.npy [EXPECTED.npy]\n", argv[0]);
    return 2;
  }
  npy_array x;
  if (npy_read(argv[a + 1], &x) != 0) return 1;
  std::vector<float> pixels(x.data, x.data + x.count);
  std::free(x.data);
  try {
    tare::Model model = tare::Model::Load(argv[a]);
    tare::Session session(model, tare::Options().Backends(backends));
    const std::vector<int64_t> shape(x.dims, x.dims + x.rank);
    tare::Tensor input = tare::Tensor::View(pixels.data(), shape);
    session.Run({{model.Inputs()[0].name.c_str(), input}});
    tare::TensorView y = session.Output(0);
    const std::vector<int64_t> dims = y.Shape();
    const float* v = y.Data<float>();
    const size_t rows = dims.empty() ? 1 : static_cast<size_t>(dims[0]);
    const size_t cols = rows ? y.Size() / rows : 0;
    std::printf("tare %s, backends %s\n", tare_version(), backends.c_str());
    for (size_t r = 0; r < rows; ++r) {
      std::vector<size_t> order(cols);
      std::iota(order.begin(), order.end(), 0);
      const size_t k = std::min<size_t>(5, cols);
      std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                        [&](size_t i, size_t j) { return v[r * cols + i] > v[r * cols + j]; });
      std::printf("%s[%zu] top-5:", session.OutputName(0).c_str(), r);
      for (size_t i = 0; i < k; ++i) std::printf(" %zu (%.4f)", order[i], v[r * cols + order[i]]);
      std::printf("\n");
    }
    if (a + 2 < argc) {
      npy_array e;
      if (npy_read(argv[a + 2], &e) != 0) return 1;
      if (e.count != y.Size()) {
        std::fprintf(stderr, "expected %zu values, the output has %zu\n", e.count, y.Size());
        std::free(e.data);
        return 1;
      }
      double num = 0, den = 0;
      for (size_t i = 0; i < e.count; ++i) {
        num += (double(v[i]) - e.data[i]) * (double(v[i]) - e.data[i]);
        den += double(e.data[i]) * e.data[i];
      }
      std::free(e.data);
      const double rel = std::sqrt(num / (den > 0 ? den : 1));
      std::printf("rel L2 vs %s: %.3e\n", argv[a + 2], rel);
      if (!(rel <= 1e-4)) return 1;
    }
  } catch (const tare::Error& e) {
    std::fprintf(stderr, "tare error %s: %s\n", tare_status_name(e.code()), e.what());
    return 1;
  }
  return 0;
}
