#include "converters/tflite/builtin_ops.h"

namespace tare {
namespace tflite {
namespace {

/// Names by code.
const char* const kBuiltinNames[] = {
#define TARE_TFLITE_BUILTIN_NAME(name, code) #name,
    TARE_TFLITE_BUILTIN_OPERATORS(TARE_TFLITE_BUILTIN_NAME)
#undef TARE_TFLITE_BUILTIN_NAME
};

// The list must be in code order without gaps: kBuiltinNames is indexed by code.
constexpr int kCodes[] = {
#define TARE_TFLITE_BUILTIN_CODE(name, code) code,
    TARE_TFLITE_BUILTIN_OPERATORS(TARE_TFLITE_BUILTIN_CODE)
#undef TARE_TFLITE_BUILTIN_CODE
};
constexpr bool InCodeOrder() {
  for (int i = 0; i < static_cast<int>(sizeof(kCodes) / sizeof(kCodes[0])); ++i)
    if (kCodes[i] != i) return false;
  return true;
}
static_assert(InCodeOrder(), "TARE_TFLITE_BUILTIN_OPERATORS must list codes 0, 1, 2, ... in order");
static_assert(sizeof(kCodes) / sizeof(kCodes[0]) == sizeof(kBuiltinNames) / sizeof(kBuiltinNames[0]), "one name per code");

}  // namespace

std::string BuiltinName(int code) {
  if (code >= 0 && code < static_cast<int>(sizeof(kBuiltinNames) / sizeof(kBuiltinNames[0]))) return kBuiltinNames[code];
  return "BUILTIN_" + std::to_string(code);
}

}  // namespace tflite
}  // namespace tare
