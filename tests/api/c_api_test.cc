// The C API (include/tare/tare.h) as an application sees it: this binary links only libtare.so
// and libtare_converters.so, which export tare_* alone. Every error path of the header has a case
// asserting its code and its message; the fixtures' outputs are checked against PyTorch's
// (tests/models/<name>/expected, rel L2 <= 1e-4). The thread-safety test is threads_test.cc.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/api/api_test_util.h"

namespace fs = std::filesystem;
using api_test::Expect;
using api_test::Fixture;

namespace {

// A .tare image in 64-byte-aligned memory.
struct Aligned {
  explicit Aligned(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size = bytes.size();
    data = static_cast<char*>(std::aligned_alloc(64, (size + 64) / 64 * 64 + 64));
    std::memcpy(data, bytes.data(), size);
  }
  ~Aligned() { std::free(data); }
  char* data;
  size_t size;
};

}  // namespace

TEST_CASE("c_api.version_and_names") {
  CHECK(std::string(tare_version()) == TARE_VERSION);
  CHECK(tare_api_version() == TARE_API_VERSION);
  CHECK(std::string(tare_status_name(TARE_ERROR_SHAPE)) == "TARE_ERROR_SHAPE");
  CHECK(std::string(tare_status_name(static_cast<tare_status>(99))) == "TARE_ERROR_UNKNOWN");
  CHECK(tare_dtype_size(TARE_DTYPE_FLOAT64) == 8);
  CHECK(tare_dtype_size(TARE_DTYPE_STRING) == 0);
  CHECK(tare_dtype_size(static_cast<tare_dtype>(42)) == 0);
  CHECK(std::string(tare_backends()).rfind("ref64,ref", 0) == 0);
}

TEST_CASE("c_api.fixtures_match_pytorch") {
  for (const char* name : {"lenet5", "resnet20"}) {
    for (const char* backends : {"ref", "cpu,ref", "ref64"}) {
      if (std::string(backends) == "cpu,ref" && std::string(tare_backends()).find("cpu") == std::string::npos) continue;
      CAPTURE(name);
      CAPTURE(backends);
      const Fixture fx(name);
      tare_model* model = nullptr;
      REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
      tare_options* options = nullptr;
      REQUIRE(tare_options_create(&options) == TARE_OK);
      REQUIRE(tare_options_set_backends(options, backends) == TARE_OK);
      tare_session* session = nullptr;
      REQUIRE(tare_session_create(model, options, &session) == TARE_OK);
      tare_options_free(options);
      tare_model_free(model);  // the session keeps what it needs
      const std::vector<double> y = api_test::RunFixture(session, fx);
      CHECK(api_test::RelL2(y, fx.expected) <= 1e-4);
      tare_session_free(session);
    }
  }
}

TEST_CASE("c_api.model_load_errors") {
  tare_model* model = nullptr;
  Expect(tare_model_load(nullptr, &model), TARE_ERROR_INVALID_ARGUMENT, "tare_model_load: path and out must not be NULL");
  Expect(tare_model_load("x.tare", nullptr), TARE_ERROR_INVALID_ARGUMENT, "must not be NULL");
  Expect(tare_model_load("/nonexistent/m.tare", &model), TARE_ERROR_IO, "cannot open '/nonexistent/m.tare'");
  CHECK(model == nullptr);
  const fs::path dir = api_test::TempDir();
  Expect(tare_model_load(dir.c_str(), &model), TARE_ERROR_IO, "is not a regular file");
  const Fixture fx("lenet5");
  std::ifstream f(fx.tare, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x10;
  const std::string corrupt = (dir / "corrupt.tare").string();
  std::ofstream(corrupt, std::ios::binary) << flipped;
  Expect(tare_model_load(corrupt.c_str(), &model), TARE_ERROR_BAD_MODEL, "checksum mismatch");
  const std::string truncated = (dir / "truncated.tare").string();
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, 40);
  Expect(tare_model_load(truncated.c_str(), &model), TARE_ERROR_BAD_MODEL, "too short");
  const std::string onnx_named = (dir / "not_a_model.tare").string();
  std::ofstream(onnx_named, std::ios::binary) << "hello, this is not a model file at all, but it is long enough to have a header";
  Expect(tare_model_load(onnx_named.c_str(), &model), TARE_ERROR_BAD_MODEL, "bad magic");
}

TEST_CASE("c_api.converter_paths") {
  tare_model* model = nullptr;
  // With the converter library linked (this binary links it), .onnx loads directly.
  REQUIRE(tare_convert(api_test::ModelPath("lenet5/model.onnx").c_str(), (api_test::TempDir() / "c.tare").c_str()) == TARE_OK);
  REQUIRE(tare_model_load(api_test::ModelPath("lenet5/model.onnx").c_str(), &model) == TARE_OK);
  size_t n = 0;
  CHECK(tare_model_io_count(model, TARE_INPUT, &n) == TARE_OK);
  CHECK(n == 1);
  tare_model_free(model);
  model = nullptr;
  const std::string unsupported = std::string(TARE_SOURCE_DIR) + "/tests/api/unsupported_op.onnx";
  Expect(tare_model_load(unsupported.c_str(), &model), TARE_ERROR_UNSUPPORTED,
         "1 unsupported node(s): node 'FooBar_0' (FooBar, domain 'com.example', opset 1)");
  const fs::path dir = api_test::TempDir();
  Expect(tare_convert(unsupported.c_str(), (dir / "u.tare").c_str()), TARE_ERROR_UNSUPPORTED, "unsupported node(s)");
  CHECK(!fs::exists(dir / "u.tare"));
  Expect(tare_convert(nullptr, "x.tare"), TARE_ERROR_INVALID_ARGUMENT, "tare_convert: src and dst must not be NULL");
  Expect(tare_convert(unsupported.c_str(), "x.onnx"), TARE_ERROR_INVALID_ARGUMENT, "the output file must end in .tare, got 'x.onnx'");
  Expect(tare_convert(unsupported.c_str(), "/nonexistent/dir/x.tare"), TARE_ERROR_IO, "directory '/nonexistent/dir' of");
  Expect(tare_convert("/nonexistent/m.onnx", (dir / "m.tare").c_str()), TARE_ERROR_IO, "cannot open '/nonexistent/m.onnx'");
  const std::string same = (dir / "same.tare").string();
  std::ofstream(same) << "x";
  Expect(tare_convert(same.c_str(), same.c_str()), TARE_ERROR_INVALID_ARGUMENT, "refusing to overwrite the input");
  // Without a converter, .onnx and .tflite are refused with what to do.
  tare_set_converter(nullptr);
  Expect(tare_model_load(api_test::ModelPath("lenet5/model.onnx").c_str(), &model), TARE_ERROR_UNSUPPORTED,
         "is an ONNX model: link the converter library");
  Expect(tare_model_load("m.tflite", &model), TARE_ERROR_UNSUPPORTED, "is a TFLite model: link the converter library");
  // tare_convert plugs the converter in again.
  Expect(tare_convert(unsupported.c_str(), "x.onnx"), TARE_ERROR_INVALID_ARGUMENT, "must end in .tare");
  REQUIRE(tare_model_load(api_test::ModelPath("lenet5/model.onnx").c_str(), &model) == TARE_OK);
  tare_model_free(model);
}

TEST_CASE("c_api.model_buffer") {
  const Fixture fx("lenet5");
  Aligned image(fx.tare);
  tare_model* model = nullptr;
  Expect(tare_model_load_buffer(nullptr, 10, &model), TARE_ERROR_INVALID_ARGUMENT, "data and out must not be NULL");
  Expect(tare_model_load_buffer(image.data + 1, image.size, &model), TARE_ERROR_INVALID_ARGUMENT, "must be 64-byte aligned");
  Expect(tare_model_load_buffer(image.data, image.size - 100, &model), TARE_ERROR_BAD_MODEL, "checksum mismatch");
  Expect(tare_model_load_buffer(image.data, 10, &model), TARE_ERROR_BAD_MODEL, "too short");
  REQUIRE(tare_model_load_buffer(image.data, image.size, &model) == TARE_OK);
  tare_session* session = nullptr;
  REQUIRE(tare_session_create(model, nullptr, &session) == TARE_OK);
  CHECK(api_test::RelL2(api_test::RunFixture(session, fx), fx.expected) <= 1e-4);
  tare_session_free(session);
  tare_model_free(model);
}

TEST_CASE("c_api.metadata") {
  const Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  size_t n = 0;
  Expect(tare_model_io_count(nullptr, TARE_INPUT, &n), TARE_ERROR_INVALID_ARGUMENT, "model and count must not be NULL");
  Expect(tare_model_io_count(model, static_cast<tare_io>(5), &n), TARE_ERROR_INVALID_ARGUMENT, "io must be TARE_INPUT or TARE_OUTPUT");
  REQUIRE(tare_model_io_count(model, TARE_OUTPUT, &n) == TARE_OK);
  CHECK(n == 1);
  const char* name = nullptr;
  tare_dtype dtype = TARE_DTYPE_UNDEFINED;
  const int64_t* dims = nullptr;
  int64_t rank = 0;
  REQUIRE(tare_model_io(model, TARE_INPUT, 0, &name, &dtype, &dims, &rank) == TARE_OK);
  CHECK(std::string(name) == "input");
  CHECK(dtype == TARE_DTYPE_FLOAT32);
  REQUIRE(rank == 4);
  CHECK(std::vector<int64_t>(dims, dims + 4) == std::vector<int64_t>{2, 1, 28, 28});
  REQUIRE(tare_model_io(model, TARE_OUTPUT, 0, &name, nullptr, nullptr, nullptr) == TARE_OK);
  CHECK(std::string(name) == "logits");
  Expect(tare_model_io(model, TARE_INPUT, 1, &name, nullptr, nullptr, nullptr), TARE_ERROR_INVALID_ARGUMENT,
         "the model has 1 inputs, index 1 is out of range");
  Expect(tare_model_io(nullptr, TARE_INPUT, 0, &name, nullptr, nullptr, nullptr), TARE_ERROR_INVALID_ARGUMENT, "model must not be NULL");
  tare_model_free(model);
}

TEST_CASE("c_api.option_errors") {
  tare_options* o = nullptr;
  Expect(tare_options_create(nullptr), TARE_ERROR_INVALID_ARGUMENT, "out must not be NULL");
  REQUIRE(tare_options_create(&o) == TARE_OK);
  Expect(tare_options_set_backends(nullptr, "ref"), TARE_ERROR_INVALID_ARGUMENT, "options and backends must not be NULL");
  Expect(tare_options_set_backends(o, "gpu"), TARE_ERROR_INVALID_ARGUMENT, "unknown backend 'gpu' (available: ref64,ref");
  Expect(tare_options_set_backends(o, ""), TARE_ERROR_INVALID_ARGUMENT, "backend list '' has an empty name");
  Expect(tare_options_set_backends(o, "ref,,ref64"), TARE_ERROR_INVALID_ARGUMENT, "has an empty name");
  Expect(tare_options_set_backends(o, "ref,ref"), TARE_ERROR_INVALID_ARGUMENT, "names 'ref' twice");
  Expect(tare_options_set_backends(o, "REF"), TARE_ERROR_INVALID_ARGUMENT, "unknown backend 'REF'");
  Expect(tare_options_set_backends(o, "ref, "), TARE_ERROR_INVALID_ARGUMENT, "has an empty name");
  CHECK(tare_options_set_backends(o, " ref64 ") == TARE_OK);
  Expect(tare_options_set_backends(o, "ref64,ref"), TARE_ERROR_INVALID_ARGUMENT,
         "backend 'ref' cannot be mixed with 'ref64' (different precision)");
  // vulkan: refused by name when not built in (built in, it is accepted; a session without a
  // Vulkan device then fails with TARE_ERROR_UNSUPPORTED).
  if (std::string(tare_backends()).find("vulkan") == std::string::npos)
    Expect(tare_options_set_backends(o, "vulkan"), TARE_ERROR_INVALID_ARGUMENT, "backend 'vulkan' is not built into this library");
  else
    CHECK(tare_options_set_backends(o, "vulkan,ref") == TARE_OK);
  CHECK(tare_options_set_backends(o, "ref") == TARE_OK);
  Expect(tare_options_set_threads(o, 0), TARE_ERROR_INVALID_ARGUMENT, "threads must be 1 to 1024, got 0");
  Expect(tare_options_set_threads(nullptr, 2), TARE_ERROR_INVALID_ARGUMENT, "options must not be NULL");
  Expect(tare_options_set_max_tensor_bytes(o, 0), TARE_ERROR_INVALID_ARGUMENT, "max_tensor_bytes must be > 0");
  Expect(tare_options_set_max_arena_bytes(o, 0), TARE_ERROR_INVALID_ARGUMENT, "max_arena_bytes must be > 0");
  Expect(tare_options_add_trace(o, ""), TARE_ERROR_INVALID_ARGUMENT, "the value name is empty");
  Expect(tare_options_add_trace(o, nullptr), TARE_ERROR_INVALID_ARGUMENT, "options and value must not be NULL");
  // An unknown traced name fails the session, naming it.
  REQUIRE(tare_options_add_trace(o, "no_such_tensor") == TARE_OK);
  const Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  tare_session* s = nullptr;
  Expect(tare_session_create(model, o, &s), TARE_ERROR_INVALID_ARGUMENT,
         "cannot trace 'no_such_tensor': the model has no tensor of that name");
  CHECK(s == nullptr);
  Expect(tare_session_create(nullptr, o, &s), TARE_ERROR_INVALID_ARGUMENT, "model and out must not be NULL");
  tare_model_free(model);
  tare_options_free(o);
}

TEST_CASE("c_api.tensor_errors") {
  tare_tensor* t = nullptr;
  float buf[8] = {};
  const int64_t dims[2] = {2, 4};
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 2, buf, sizeof buf, nullptr), TARE_ERROR_INVALID_ARGUMENT, "out must not be NULL");
  Expect(tare_tensor_create(static_cast<tare_dtype>(99), dims, 2, buf, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT,
         "dtype 99 is not a numeric tare_dtype");
  Expect(tare_tensor_create(TARE_DTYPE_STRING, dims, 2, buf, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT, "dtype 8 is not a numeric");
  // A truncated buffer: 7 floats for 8 elements.
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 2, buf, 28, &t), TARE_ERROR_INVALID_ARGUMENT,
         "a float32 tensor of shape [2,4] takes 32 bytes, got 28");
  const int64_t neg[2] = {2, -1};
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, neg, 2, buf, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT, "dim 1 is -1 (dims must be >= 0)");
  const int64_t huge[3] = {1 << 20, 1 << 20, 1 << 20};
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, huge, 3, buf, sizeof buf, &t), TARE_ERROR_LIMIT_EXCEEDED, "more than 2^40 elements");
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 65, buf, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT, "rank 65 is over 64");
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, nullptr, 2, buf, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT, "dims is NULL with rank 2");
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 2, nullptr, sizeof buf, &t), TARE_ERROR_INVALID_ARGUMENT, "data is NULL");
  Expect(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 1, reinterpret_cast<char*>(buf) + 1, 8, &t), TARE_ERROR_INVALID_ARGUMENT,
         "not aligned to its 4-byte elements");
  Expect(tare_tensor_info(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr), TARE_ERROR_INVALID_ARGUMENT, "tensor must not be NULL");
  REQUIRE(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 2, buf, sizeof buf, &t) == TARE_OK);
  size_t bytes = 0, rank = 0;
  const void* data = nullptr;
  REQUIRE(tare_tensor_info(t, nullptr, nullptr, &rank, &data, &bytes) == TARE_OK);
  CHECK(bytes == 32);
  CHECK(rank == 2);
  CHECK(data == buf);
  tare_tensor_free(t);
}

TEST_CASE("c_api.run_errors") {
  const Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  tare_session* s = nullptr;
  REQUIRE(tare_session_create(model, nullptr, &s) == TARE_OK);
  tare_tensor* x = nullptr;
  REQUIRE(tare_tensor_create(TARE_DTYPE_FLOAT32, fx.input_dims.data(), fx.input_dims.size(), fx.input.data(),
                             fx.input.size() * sizeof(float), &x) == TARE_OK);
  const tare_tensor* out = nullptr;
  Expect(tare_session_output(s, 0, nullptr, &out), TARE_ERROR_INVALID_ARGUMENT, "tare_session_output: no successful run yet");
  float early[20];
  Expect(tare_session_output_copy(s, 0, early, sizeof early), TARE_ERROR_INVALID_ARGUMENT, "tare_session_output_copy: no successful run yet");
  const char* name = "input";
  Expect(tare_session_run(nullptr, &name, &x, 1), TARE_ERROR_INVALID_ARGUMENT, "tare_session_run: session must not be NULL");
  Expect(tare_session_run(s, nullptr, nullptr, 1), TARE_ERROR_INVALID_ARGUMENT, "names and inputs must not be NULL");
  Expect(tare_session_run(s, nullptr, nullptr, 0), TARE_ERROR_INVALID_ARGUMENT, "missing input 'input'");
  const char* wrong = "image";
  const tare_tensor* xs[2] = {x, x};
  Expect(tare_session_run(s, &wrong, xs, 1), TARE_ERROR_INVALID_ARGUMENT, "the model has no input named 'image' (inputs: input)");
  const char* twice[2] = {"input", "input"};
  Expect(tare_session_run(s, twice, xs, 2), TARE_ERROR_INVALID_ARGUMENT, "input 'input' is given twice");
  const char* null_name[1] = {nullptr};
  Expect(tare_session_run(s, null_name, xs, 1), TARE_ERROR_INVALID_ARGUMENT, "input 0 has a NULL name or tensor");
  // Wrong dtype: the same values as float64.
  std::vector<double> x64(fx.input.begin(), fx.input.end());
  tare_tensor* d = nullptr;
  REQUIRE(tare_tensor_create(TARE_DTYPE_FLOAT64, fx.input_dims.data(), 4, x64.data(), x64.size() * 8, &d) == TARE_OK);
  Expect(tare_session_run(s, &name, &d, 1), TARE_ERROR_INVALID_ARGUMENT, "input 'input' must be float32, got float64");
  // Wrong shape: [1, 1, 28, 28] for [2, 1, 28, 28].
  tare_tensor* half = nullptr;
  const int64_t one[4] = {1, 1, 28, 28};
  REQUIRE(tare_tensor_create(TARE_DTYPE_FLOAT32, one, 4, fx.input.data(), 28 * 28 * 4, &half) == TARE_OK);
  Expect(tare_session_run(s, &name, &half, 1), TARE_ERROR_SHAPE, "input 'input' must have shape [2,1,28,28], got [1,1,28,28]");
  Expect(tare_session_output(s, 0, nullptr, &out), TARE_ERROR_INVALID_ARGUMENT, "no successful run yet");
  // A good run, then the output accessors' errors.
  REQUIRE(tare_session_run(s, &name, &x, 1) == TARE_OK);
  const std::string before = tare_last_error();
  REQUIRE(tare_session_output(s, 0, nullptr, &out) == TARE_OK);
  CHECK(tare_last_error() == before);  // success leaves the message alone
  Expect(tare_session_output(s, 1, nullptr, &out), TARE_ERROR_INVALID_ARGUMENT, "the model has 1 outputs, index 1 is out of range");
  float small[19];
  Expect(tare_session_output_copy(s, 0, small, sizeof small), TARE_ERROR_INVALID_ARGUMENT, "output 'logits' needs 80 bytes, got 76");
  Expect(tare_session_output_copy(s, 0, nullptr, 80), TARE_ERROR_INVALID_ARGUMENT, "dst must not be NULL");
  float logits[20];
  REQUIRE(tare_session_output_copy(s, 0, logits, sizeof logits) == TARE_OK);
  CHECK(api_test::RelL2(std::vector<double>(logits, logits + 20), fx.expected) <= 1e-4);
  // A failed run leaves no output readable.
  Expect(tare_session_run(s, &name, &half, 1), TARE_ERROR_SHAPE, "must have shape");
  Expect(tare_session_output(s, 0, nullptr, &out), TARE_ERROR_INVALID_ARGUMENT, "no successful run yet");
  size_t count = 0;
  Expect(tare_session_output_count(nullptr, &count), TARE_ERROR_INVALID_ARGUMENT, "session and count must not be NULL");
  Expect(tare_session_trace(s, 0, nullptr, nullptr, nullptr, nullptr), TARE_ERROR_INVALID_ARGUMENT,
         "the last run traced 0 values, index 0 is out of range");
  uint64_t arena = 0;
  Expect(tare_session_arena_bytes(nullptr, &arena), TARE_ERROR_INVALID_ARGUMENT, "session and bytes must not be NULL");
  tare_tensor_free(half);
  tare_tensor_free(d);
  tare_tensor_free(x);
  tare_session_free(s);
  tare_model_free(model);
}

TEST_CASE("c_api.limits_and_runtime_errors") {
  const Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  tare_options* o = nullptr;
  REQUIRE(tare_options_create(&o) == TARE_OK);
  REQUIRE(tare_options_set_max_tensor_bytes(o, 1000) == TARE_OK);
  tare_session* s = nullptr;
  REQUIRE(tare_session_create(model, o, &s) == TARE_OK);
  Expect(api_test::RunStatus(s, fx), TARE_ERROR_LIMIT_EXCEEDED, "bytes, over the session limit of 1000");
  tare_session_free(s);
  tare_options_free(o);
  REQUIRE(tare_options_create(&o) == TARE_OK);
  REQUIRE(tare_options_set_max_arena_bytes(o, 4096) == TARE_OK);
  REQUIRE(tare_session_create(model, o, &s) == TARE_OK);
  Expect(api_test::RunStatus(s, fx), TARE_ERROR_LIMIT_EXCEEDED, "over the session limit of 4096");
  tare_session_free(s);
  tare_options_free(o);
  tare_model_free(model);

  // A kernel failing on the values: Gather of 4 elements at index 7.
  REQUIRE(tare_model_load((std::string(TARE_SOURCE_DIR) + "/tests/api/gather.onnx").c_str(), &model) == TARE_OK);
  REQUIRE(tare_session_create(model, nullptr, &s) == TARE_OK);
  int64_t idx[2] = {1, 7};
  const int64_t two = 2;
  tare_tensor* i = nullptr;
  REQUIRE(tare_tensor_create(TARE_DTYPE_INT64, &two, 1, idx, sizeof idx, &i) == TARE_OK);
  const char* name = "i";
  Expect(tare_session_run(s, &name, &i, 1), TARE_ERROR_RUNTIME, "out of range");
  idx[1] = 3;
  REQUIRE(tare_session_run(s, &name, &i, 1) == TARE_OK);
  float y[2];
  REQUIRE(tare_session_output_copy(s, 0, y, sizeof y) == TARE_OK);
  CHECK(y[0] == 2.0f);  // data = [1, 2, 3, 4]
  CHECK(y[1] == 4.0f);
  tare_tensor_free(i);
  tare_session_free(s);
  tare_model_free(model);
}

TEST_CASE("c_api.trace") {
  const Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  tare_options* o = nullptr;
  REQUIRE(tare_options_create(&o) == TARE_OK);
  REQUIRE(tare_options_add_trace(o, "*") == TARE_OK);
  tare_session* s = nullptr;
  REQUIRE(tare_session_create(model, o, &s) == TARE_OK);
  const std::vector<double> y = api_test::RunFixture(s, fx);
  size_t n = 0;
  REQUIRE(tare_session_trace_count(s, &n) == TARE_OK);
  CHECK(n >= 5);  // LeNet-5: conv, pools, gemms...
  const char *value = nullptr, *node = nullptr, *op = nullptr;
  const tare_tensor* t = nullptr;
  bool saw_conv = false, saw_logits = false;
  for (size_t k = 0; k < n; ++k) {
    REQUIRE(tare_session_trace(s, k, &value, &node, &op, &t) == TARE_OK);
    saw_conv |= std::string(op) == "Conv";
    if (std::string(value) == "logits") {
      saw_logits = true;
      const void* data = nullptr;
      size_t bytes = 0;
      REQUIRE(tare_tensor_info(t, nullptr, nullptr, nullptr, &data, &bytes) == TARE_OK);
      const float* f = static_cast<const float*>(data);
      CHECK(api_test::RelL2(std::vector<double>(f, f + bytes / 4), fx.expected) <= 1e-4);
    }
  }
  CHECK(saw_conv);
  CHECK(saw_logits);
  tare_session_free(s);
  tare_options_free(o);
  tare_model_free(model);
}

TEST_CASE("c_api.output_fed_back") {
  // A session's own output as the input of its next run (Relu: relu(relu(x)) = relu(x)).
  tare_model* model = nullptr;
  REQUIRE(tare_model_load((std::string(TARE_SOURCE_DIR) + "/tests/api/relu.onnx").c_str(), &model) == TARE_OK);
  tare_session* s = nullptr;
  REQUIRE(tare_session_create(model, nullptr, &s) == TARE_OK);
  float x[16];
  for (int k = 0; k < 16; ++k) x[k] = static_cast<float>(k - 8);
  const int64_t dims[2] = {1, 16};
  tare_tensor* t = nullptr;
  REQUIRE(tare_tensor_create(TARE_DTYPE_FLOAT32, dims, 2, x, sizeof x, &t) == TARE_OK);
  const char* name = "x";
  const tare_tensor* in = t;
  REQUIRE(tare_session_run(s, &name, &in, 1) == TARE_OK);
  for (int round = 0; round < 3; ++round) {
    const tare_tensor* y = nullptr;
    REQUIRE(tare_session_output(s, 0, nullptr, &y) == TARE_OK);
    in = y;
    REQUIRE_MESSAGE(tare_session_run(s, &name, &in, 1) == TARE_OK, tare_last_error());
  }
  float out[16];
  REQUIRE(tare_session_output_copy(s, 0, out, sizeof out) == TARE_OK);
  for (int k = 0; k < 16; ++k) CHECK(out[k] == (k > 8 ? static_cast<float>(k - 8) : 0.0f));
  tare_tensor_free(t);
  tare_session_free(s);
  tare_model_free(model);
}
