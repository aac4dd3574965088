// libFuzzer target: the TFLite converter (identifier, verification, buffers, sparsity, ops), then
// one run of what converts.
#include <cstring>

#include "converters/tflite/tflite_converter.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tare::Result<std::shared_ptr<tare::Model>> m = tare::ConvertTfliteBytes(data, size, "fuzz.tflite");
  if (m.ok()) tare::fuzz::RunOnce(*m);
  return 0;
}
