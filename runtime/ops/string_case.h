// The UTF-8 case mapping of ONNX StringNormalizer-10 (its table: runtime/ops/string.cc), shared by
// shape inference and the reference kernel (kernels/ref/string.cc).
#pragma once
#include <string>

namespace tare {
/// Lower-cases (upper=false) or upper-cases UTF-8 text: ASCII letters, U+00C0-00DE / U+00E0-00FE
/// (Latin-1, not x and ÷), U+0391-03A9 / U+03B1-03C9 (Greek without accents or final sigma) and
/// U+0400-045F (Cyrillic); every other code point and byte, invalid UTF-8 included, is copied.
std::string StringCaseMap(const std::string& s, bool upper);
}  // namespace tare
