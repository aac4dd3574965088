// Reference kernel of Einsum (semantics and summation order: runtime/ops/einsum.cc, which has
// validated the equation against the shapes). Each input dim gets a label id (letters 0..51 in
// ASCII order, "..." dims 52 + their right-aligned position); an input's stride for a label is
// the sum of the strides of its dims with that label (so a repeated label walks the diagonal)
// and 0 where the dim is 1 (broadcast). Per output element (row-major), acc = 0, then for the
// summed labels in row-major order: term = in0 * in1 * ... (left to right), acc = acc + term.
// float32 computes in T, float64 in double; integers wrap around (two's complement).
#include <algorithm>
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// The parsed equation for concrete input shapes.
struct Plan {
  std::vector<std::vector<int>> labels;  ///< per input, the label id of each dim
  std::vector<int> out;                  ///< label ids of the output dims
  std::vector<int> summed;               ///< summed label ids, by first appearance
  std::vector<int64_t> size;             ///< size of each label id
};

bool IsLetter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
int LetterId(char ch) { return ch >= 'a' ? 26 + (ch - 'a') : ch - 'A'; }

/// Label ids of a term for a tensor of rank r (e = number of "..." dims in the equation; -1 ids
/// never occur because shape inference checked the equation).
std::vector<int> TermLabels(const std::string& term, size_t r, int64_t e) {
  size_t letters = 0;
  for (char ch : term) letters += IsLetter(ch) ? 1 : 0;
  const int64_t ne = static_cast<int64_t>(r) - static_cast<int64_t>(letters);
  std::vector<int> ids;
  for (size_t i = 0; i < term.size(); ++i) {
    if (IsLetter(term[i])) {
      ids.push_back(LetterId(term[i]));
    } else if (term[i] == '.') {
      for (int64_t j = 0; j < ne; ++j) ids.push_back(static_cast<int>(52 + e - ne + j));
      i += 2;
    }
  }
  return ids;
}

/// Builds the plan (see the file comment) for the given input shapes.
Plan MakePlan(const std::string& raw, const std::vector<const Tensor*>& in) {
  std::string eq;
  for (char ch : raw)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> parts(1);
  for (char ch : lhs) {
    if (ch == ',') parts.emplace_back();
    else parts.back() += ch;
  }
  int64_t e = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    int64_t letters = 0;
    for (char ch : parts[i]) letters += IsLetter(ch) ? 1 : 0;
    e = std::max(e, static_cast<int64_t>(in[i]->shape.size()) - letters);
  }
  Plan p;
  p.size.assign(static_cast<size_t>(52 + e), 1);
  std::vector<int> count(p.size.size(), 0);
  std::vector<int> order;  // ids by first appearance
  for (size_t i = 0; i < parts.size(); ++i) {
    p.labels.push_back(TermLabels(parts[i], in[i]->shape.size(), e));
    for (size_t j = 0; j < p.labels[i].size(); ++j) {
      const int id = p.labels[i][j];
      if (count[id]++ == 0) order.push_back(id);
      if (in[i]->shape[j] != 1) p.size[id] = in[i]->shape[j];
    }
  }
  if (arrow != std::string::npos) {
    p.out = TermLabels(eq.substr(arrow + 2), static_cast<size_t>(e) + [&] {
      size_t n = 0;
      for (char ch : eq.substr(arrow + 2)) n += IsLetter(ch) ? 1 : 0;
      return n;
    }(), e);
  } else {
    for (int64_t j = 0; j < e; ++j) p.out.push_back(static_cast<int>(52 + j));
    for (int id = 0; id < 52; ++id)
      if (count[id] == 1) p.out.push_back(id);
  }
  std::vector<bool> in_out(p.size.size(), false);
  for (int id : p.out) in_out[id] = true;
  for (int id : order)
    if (!in_out[id]) p.summed.push_back(id);
  return p;
}

/// Arithmetic type of U: itself for floats; for integers unsigned (wrap-around) and at least as
/// wide as unsigned int (so narrow types never multiply as signed int).
template <class U, bool = std::is_integral_v<U>>
struct Arith { using type = U; };
template <class U>
struct Arith<U, true> {
  using type = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, std::make_unsigned_t<U>>;
};

/// Runs the plan on element type U.
template <class U>
void Contract(const Plan& p, const std::vector<const Tensor*>& in, Tensor& yt) {
  using A = typename Arith<U>::type;
  const size_t m = in.size();
  // Loop labels: output labels then summed ones; stride of each input per loop label.
  std::vector<int> loop = p.out;
  loop.insert(loop.end(), p.summed.begin(), p.summed.end());
  const size_t nl = loop.size(), no = p.out.size();
  std::vector<std::vector<int64_t>> stride(m, std::vector<int64_t>(nl, 0));
  for (size_t i = 0; i < m; ++i) {
    const Shape& sh = in[i]->shape;
    int64_t st = 1;
    for (size_t j = sh.size(); j-- > 0;) {
      if (sh[j] != 1)
        for (size_t l = 0; l < nl; ++l)
          if (loop[l] == p.labels[i][j]) stride[i][l] += st;
      st *= sh[j];
    }
  }
  std::vector<int64_t> dims(nl);
  int64_t inner = 1;
  for (size_t l = 0; l < nl; ++l) {
    dims[l] = p.size[static_cast<size_t>(loop[l])];
    if (l >= no) inner *= dims[l];
  }
  U* y = yt.as<U>();
  const int64_t n_out = yt.numel();
  std::vector<int64_t> pos(nl, 0), off(m, 0);
  for (int64_t o = 0; o < n_out; ++o) {
    A acc = 0;
    for (int64_t s = 0; s < inner; ++s) {
      A term = static_cast<A>(in[0]->as<U>()[off[0]]);
      for (size_t i = 1; i < m; ++i) term = static_cast<A>(term * static_cast<A>(in[i]->as<U>()[off[i]]));
      acc = static_cast<A>(acc + term);
      // Advance the odometer (summed labels, then output labels once they wrap).
      for (size_t l = nl; l-- > 0;) {
        for (size_t i = 0; i < m; ++i) off[i] += stride[i][l];
        if (++pos[l] < dims[l]) break;
        for (size_t i = 0; i < m; ++i) off[i] -= stride[i][l] * dims[l];
        pos[l] = 0;
        if (l == 0) break;
      }
    }
    y[o] = static_cast<U>(acc);
    if (inner == 0) {  // nothing summed: advance the output labels alone
      for (size_t l = no; l-- > 0;) {
        for (size_t i = 0; i < m; ++i) off[i] += stride[i][l];
        if (++pos[l] < dims[l]) break;
        for (size_t i = 0; i < m; ++i) off[i] -= stride[i][l] * dims[l];
        pos[l] = 0;
      }
    }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeEinsum(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string eq, node.GetString("equation", ""));
  const std::string where = node.Where();
  return KernelFn([eq, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Plan p = MakePlan(eq, in);
    Tensor& y = *out[0];
    switch (in[0]->dtype) {
      case DType::kFloat32: Contract<T>(p, in, y); break;
      case DType::kFloat64: Contract<double>(p, in, y); break;
      case DType::kInt8: Contract<int8_t>(p, in, y); break;
      case DType::kInt16: Contract<int16_t>(p, in, y); break;
      case DType::kInt32: Contract<int32_t>(p, in, y); break;
      case DType::kInt64: Contract<int64_t>(p, in, y); break;
      case DType::kUInt8: Contract<uint8_t>(p, in, y); break;
      case DType::kUInt16: Contract<uint16_t>(p, in, y); break;
      case DType::kUInt32: Contract<uint32_t>(p, in, y); break;
      case DType::kUInt64: Contract<uint64_t>(p, in, y); break;
      default: return Status::Error(where + ": unsupported dtype " + DTypeName(in[0]->dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Einsum)

}  // namespace tare
