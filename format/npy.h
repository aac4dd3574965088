// NumPy .npy files (format versions 1.0, 2.0 and 3.0; little-endian, C order) for inputs and
// outputs of `tare run`.
#pragma once
#include <string>

#include "runtime/ir/tensor.h"

namespace tare {

/// Reads a .npy file. Supported dtypes: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 (and '='
/// byte order on this little-endian host). Errors (naming the file): bad magic or header,
/// Fortran order, big-endian or unsupported dtype, negative or huge shape, data shorter than the
/// shape requires.
Result<Tensor> ReadNpy(const std::string& path);
/// Parses .npy bytes (same checks; `name` is used in messages).
Result<Tensor> ParseNpy(const uint8_t* data, size_t size, const std::string& name);
/// Writes `t` as a version 1.0 .npy file (overwrites `path`); int4 / uint4 are written as |i1 / |u1
/// values, the float8 types as their |u1 codes, bfloat16 as its <u2 bit patterns (numpy has none of
/// these types). Errors: a sequence or optional, a string tensor, I/O.
Status WriteNpy(const std::string& path, const Tensor& t);
/// The file name (without ".npy") of a tensor's .npy file, from the tensor's name: every character
/// outside [A-Za-z0-9._-] becomes '_'; an empty name gives "output", "." and ".." give "_" (the
/// files of `tare run --out-dir` and `--trace-dir`, and of a framework's folder in `tare compare`).
std::string SafeName(const std::string& name);

}  // namespace tare
