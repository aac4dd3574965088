// libFuzzer target: the ONNX TensorProto / SequenceProto / OptionalProto input readers (.pb); the
// first byte picks the kind.
#include "converters/onnx/onnx_converter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const tare::ValueKind kinds[] = {tare::ValueKind::kTensor, tare::ValueKind::kSequence, tare::ValueKind::kOptional};
  (void)tare::ParseValueProto(data + 1, size - 1, "fuzz.pb", kinds[data[0] % 3]);
  return 0;
}
