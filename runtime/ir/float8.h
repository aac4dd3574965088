// The 8-bit float types of ONNX (Cast-19, QuantizeLinear-19/21; TensorProto FLOAT8E4M3FN = 17,
// FLOAT8E4M3FNUZ = 18, FLOAT8E5M2 = 19, FLOAT8E5M2FNUZ = 20) and the 4-bit integers (INT4 = 22,
// UINT4 = 21; Cast-21, QuantizeLinear-21). tare holds each such element in one byte: a float8 as its
// 8-bit code, an int4 / uint4 as its value in an int8 / uint8 (ONNX files pack two 4-bit elements
// per byte, the first in the low nibble: the converter unpacks them).
//
// Formats (sign, exponent bits, mantissa bits, bias; largest finite value; specials):
//   E4M3FN   1.4.3, bias 7:  448;   no inf; NaN = S.1111.111; -0 exists.
//   E4M3FNUZ 1.4.3, bias 8:  240;   no inf; NaN = 0x80 only; no -0 (FNUZ: "finite, no negative zero").
//   E5M2     1.5.2, bias 15: 57344; inf = S.11111.00, NaN = S.11111.mm (mm != 0); -0 exists.
//   E5M2FNUZ 1.5.2, bias 16: 57344; no inf; NaN = 0x80 only; no -0.
// Exponent field 0 encodes subnormals (m * 2^(1 - bias - mantissa bits)).
#pragma once
#include <cstdint>

#include "runtime/ir/dtype.h"

namespace tare {

/// True for the four float8 types.
inline bool DTypeIsFloat8(DType t) {
  return t == DType::kFloat8E4M3FN || t == DType::kFloat8E4M3FNUZ || t == DType::kFloat8E5M2 ||
         t == DType::kFloat8E5M2FNUZ;
}

/// The value of float8 code `c` of type t (NaN for the NaN codes, +-inf for E5M2's).
double Float8ToDouble(DType t, uint8_t c);

/// v rounded to nearest even to float8 type t, by the table of ONNX Cast-19/21: with saturate,
/// a rounded magnitude above the largest finite value gives +-that value, and so does +-inf (for
/// the FNUZ types too, where the table says NaN: ONNX's reference, np.clip then astype, and ONNX
/// Runtime both saturate); without saturate, an overflow or inf gives NaN (+-inf for E5M2). NaN
/// gives NaN; -0 gives 0 for the FNUZ types.
uint8_t DoubleToFloat8(DType t, double v, bool saturate);

/// The value range of a 4-bit integer type: [-8, 7] for int4, [0, 15] for uint4.
inline int64_t Int4Lo(DType t) { return t == DType::kInt4 ? -8 : 0; }
inline int64_t Int4Hi(DType t) { return t == DType::kInt4 ? 7 : 15; }
/// v's low four bits as an int4 (sign-extended) or uint4: ONNX's integer-to-integer rule ("discard
/// higher bits and reinterpret", Cast-21).
inline int64_t WrapInt4(DType t, int64_t v) {
  const int64_t low = v & 0xf;
  return t == DType::kInt4 && low > 7 ? low - 16 : low;
}

}  // namespace tare
