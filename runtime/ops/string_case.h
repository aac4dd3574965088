// The UTF-8 case mapping of ONNX StringNormalizer-10 (its table: runtime/ops/string.cc), shared by
// shape inference and the reference kernel (kernels/ref/string.cc).
#pragma once
#include <string>

namespace tare {
/// Lower-cases (upper=false) or upper-cases UTF-8 text: ASCII, Latin-1, Greek and Cyrillic letters
/// (two-byte sequences up to U+07FF); every other byte, including invalid UTF-8, is copied.
std::string StringCaseMap(const std::string& s, bool upper);
}  // namespace tare
