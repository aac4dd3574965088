// Fuzz findings turned into assertions (the reproducers live in tests/fuzz/regressions/ and are
// also replayed through the fuzz entry points by ctest's fuzz.replay.* tests).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "converters/onnx/onnx_converter.h"
#include "converters/tflite/tflite_converter.h"

using namespace tare;

TEST_CASE("fuzz pb: a TensorProto whose dims claim far more elements than it carries is rejected before allocating") {
  // dims [2843738112 / 4 elements...] with six floats of data: formerly allocated 2.8 GB first.
  const std::filesystem::path dir = std::filesystem::path(TARE_SOURCE_DIR) / "tests/fuzz/regressions/pb";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("oom-", 0) != 0) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(!b.empty());
    Result<NamedTensor> r = ParseValueProto(b.data() + 1, b.size() - 1, "repro.pb", ValueKind::kTensor);
    REQUIRE(!r.ok());
    CHECK(r.status().message().find("needs") != std::string::npos);
    ++n;
  }
  CHECK(n >= 1);
}

TEST_CASE("tflite: a shape far larger than its buffer is rejected before allocating (new-user finding)") {
  // A filter dimension raised to 67108867 (2.4 GB of int8) with 108 bytes of data: formerly the
  // converter allocated and zeroed the tensor before comparing sizes.
  const std::filesystem::path dir = std::filesystem::path(TARE_SOURCE_DIR) / "tests/fuzz/regressions/tflite";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("huge-shape-", 0) != 0) continue;
    Result<std::shared_ptr<Model>> m = ConvertTfliteFile(e.path().string());
    REQUIRE(!m.ok());
    CHECK(m.status().message().find("bytes of data, expected") != std::string::npos);
    ++n;
  }
  CHECK(n >= 1);
}

TEST_CASE("tflite: an LSTM's zero initial states are not materialized from the declared batch (fuzz finding)") {
  // A 2.3 KB UNIDIRECTIONAL_SEQUENCE_LSTM whose input declares a batch of 16711682: formerly the
  // converter stored zero initial states of batch x hidden floats (a timeout zeroing them).
  const std::string path =
      std::string(TARE_SOURCE_DIR) + "/tests/fuzz/regressions/tflite/timeout-lstm-initial-state.tflite";
  Result<std::shared_ptr<Model>> m = ConvertTfliteFile(path);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  size_t largest = 0;
  for (const Value& v : (*m)->graph.values)
    if (v.is_constant) largest = std::max(largest, v.constant.nbytes());
  CHECK(largest < 4096);
}

TEST_CASE("tflite: an absent (-1) operator input is rejected, never read out of bounds (fuzz finding)") {
  // A CONV_2D whose filter index is -1 (the optional-input marker): formerly the converter read
  // the state of tensor -1 (UBSan: offset overflow in std::vector::operator[]).
  const std::string path = std::string(TARE_SOURCE_DIR) + "/tests/fuzz/regressions/tflite/ubsan-absent-conv-filter.tflite";
  Result<std::shared_ptr<Model>> m = ConvertTfliteFile(path);
  REQUIRE(!m.ok());
  CHECK(m.status().message().find("CONV_2D") != std::string::npos);
  CHECK(m.status().message().find("must have rank 4") != std::string::npos);
}

TEST_CASE("tflite: a Resize that grows one axis and shrinks another keeps its intermediates small (fuzz finding)") {
  // A 528-byte RESIZE_BILINEAR from [1,11269,7,3] to [1,9,16644,3]: formerly the last axis was
  // resized first, holding 1x3x11269x16644 floats (2.2 GB, 9.5 s) before the rows shrank to 9.
  // Shrinking axes now go first: every intermediate is at most the input or the output.
  const std::string path = std::string(TARE_SOURCE_DIR) + "/tests/fuzz/regressions/tflite/oom-resize-shrink-after-grow.tflite";
  Result<std::shared_ptr<Model>> m = ConvertTfliteFile(path);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  SessionOptions opts;
  opts.max_tensor_bytes = size_t(64) << 20;  // the Resize's own output is 1.8 MB
  std::shared_ptr<const Graph> g(*m, &(*m)->graph);
  Result<std::unique_ptr<Session>> s = Session::Create(g, opts);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  // A ramp along the input's rows in [0, 1): bilinear weights are >= 0 and sum to 1 per axis, so
  // every output lies in [0, 1] whatever the pass order (a wrong order of shapes or strides reads
  // outside the ramp's pattern or fails).
  Tensor x = Tensor::Alloc(DType::kFloat32, {1, 11269, 7, 3}).value();
  for (int64_t i = 0; i < x.numel(); ++i) x.as<float>()[i] = static_cast<float>(i / 21) / 11269.0f;
  std::vector<NamedTensor> out;
  Status st = (*s)->Run({{"input", x}}, &out);
  REQUIRE_MESSAGE(st.ok(), st.message());
  REQUIRE(out.size() == 1);
  CHECK(out[0].tensor.shape == Shape{1, 9, 16644, 3});
  for (int64_t i = 0; i < out[0].tensor.numel(); ++i) {
    const float v = out[0].tensor.as<float>()[i];
    REQUIRE(v >= 0.0f);
    REQUIRE(v <= 1.0f);
  }
}
