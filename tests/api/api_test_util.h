// Helpers of the C API tests (c_api_test.cc, threads_test.cc): the committed fixtures converted
// with tare_convert, their inputs and PyTorch's outputs, and an assertion on a code and a message.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "examples/npy.h"
#include "include/tare/tare.h"

namespace api_test {

/// Asserts that a call returned `code` and that tare_last_error() contains `message`.
inline void Expect(tare_status got, tare_status code, const std::string& message) {
  CHECK_MESSAGE(got == code, tare_status_name(got), " (", tare_last_error(), ") instead of ", tare_status_name(code));
  const std::string last = tare_last_error();
  CHECK_MESSAGE(last.find(message) != std::string::npos, "'", last, "' does not contain '", message, "'");
}

/// A fresh folder of this process under the system's temporary directory.
inline std::filesystem::path TempDir() {
  static int n = 0;
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("tare_api_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  std::filesystem::create_directories(p);
  return p;
}

inline std::string ModelPath(const std::string& rel) { return std::string(TARE_SOURCE_DIR) + "/tests/models/" + rel; }

inline std::vector<float> ReadNpy(const std::string& path, std::vector<int64_t>* dims) {
  npy_array a;
  REQUIRE(npy_read(path.c_str(), &a) == 0);
  std::vector<float> out(a.data, a.data + a.count);
  if (dims) dims->assign(a.dims, a.dims + a.rank);
  std::free(a.data);
  return out;
}

/// tests/models/<name>: model.onnx converted to .tare (tare_convert), input.npy and PyTorch's
/// expected/logits.npy.
struct Fixture {
  explicit Fixture(const std::string& name) {
    tare = (TempDir() / (name + ".tare")).string();
    const std::string src = ModelPath(name + "/model.onnx");
    REQUIRE_MESSAGE(tare_convert(src.c_str(), tare.c_str()) == TARE_OK, tare_last_error());
    input = ReadNpy(ModelPath(name + "/input.npy"), &input_dims);
    const std::vector<float> e = ReadNpy(ModelPath(name + "/expected/logits.npy"), nullptr);
    expected.assign(e.begin(), e.end());
  }
  std::string tare;
  std::vector<float> input;
  std::vector<int64_t> input_dims;
  std::vector<double> expected;
};

/// Runs the fixture's input through `s` (input "input") and returns the status.
inline tare_status RunStatus(tare_session* s, const Fixture& fx) {
  tare_tensor* x = nullptr;
  tare_status st = tare_tensor_create(TARE_DTYPE_FLOAT32, fx.input_dims.data(), fx.input_dims.size(), fx.input.data(),
                                      fx.input.size() * sizeof(float), &x);
  if (st != TARE_OK) return st;
  const char* name = "input";
  const tare_tensor* in = x;
  st = tare_session_run(s, &name, &in, 1);
  tare_tensor_free(x);
  return st;
}

/// Runs the fixture and returns output 0 as doubles (float32, or float64 on ref64).
inline std::vector<double> RunFixture(tare_session* s, const Fixture& fx) {
  REQUIRE_MESSAGE(RunStatus(s, fx) == TARE_OK, tare_last_error());
  const tare_tensor* y = nullptr;
  REQUIRE(tare_session_output(s, 0, nullptr, &y) == TARE_OK);
  tare_dtype dt;
  const void* data = nullptr;
  size_t bytes = 0;
  REQUIRE(tare_tensor_info(y, &dt, nullptr, nullptr, &data, &bytes) == TARE_OK);
  if (dt == TARE_DTYPE_FLOAT64) {
    const double* d = static_cast<const double*>(data);
    return std::vector<double>(d, d + bytes / 8);
  }
  REQUIRE(dt == TARE_DTYPE_FLOAT32);
  const float* f = static_cast<const float*>(data);
  return std::vector<double>(f, f + bytes / 4);
}

/// ||a - b|| / ||b||; infinity when the sizes differ.
inline double RelL2(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || b.empty()) return INFINITY;
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace api_test
