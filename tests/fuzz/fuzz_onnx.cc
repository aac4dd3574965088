// libFuzzer target: the ONNX converter (protobuf parse, tensors, attributes, subgraphs), then one
// run of what converts.
#include <cstring>

#include "converters/onnx/onnx_converter.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tare::Result<std::shared_ptr<tare::Model>> m = tare::ConvertOnnxBytes(data, size, "fuzz.onnx");
  if (m.ok()) tare::fuzz::RunOnce(*m);
  return 0;
}
