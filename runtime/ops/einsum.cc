// Einsum (ONNX Einsum-12): out[output labels] = sum over the other labels of in0 * in1 * ...
// Attribute: equation (required): "term1,term2,...->out" (explicit) or "term1,term2,..." (implicit);
// spaces are ignored. A term is letters (a-z, A-Z; one label per dim) and at most one "...",
// which stands for the dims not covered by letters. Rules (those of numpy.einsum):
//   - a term without "..." has exactly one letter per dim; a letter repeated within a term takes
//     the diagonal (those dims must be equal);
//   - the "..." dims of all terms are broadcast together, aligned to the right (numpy rules);
//     across terms a letter's dims must be equal or 1 (a 1 broadcasts);
//   - explicit output: letters that appear in some input, each once, plus "..." (required when
//     the "..." dims of the inputs are not empty);
//   - implicit output: the "..." dims first, then the letters that appear exactly once in the
//     whole equation, in ASCII order (A-Z before a-z).
// Inputs: one or more tensors of one dtype: float32, float64, int8/16/32/64, uint8/16/32/64
// (integer products and sums wrap around, two's complement).
// Summation order (kernels/ref/einsum.cc): per output element, the summed labels ordered by first
// appearance in the inputs, iterated row-major (last label fastest); each term is the product of
// the inputs left to right; acc starts at 0 and adds the terms in that order.
#include <algorithm>
#include <string>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Label id of a letter: its ASCII order among A-Z, a-z (0..51); "..." dims use 52 + position.
int LetterId(char ch) { return ch >= 'a' ? 26 + (ch - 'a') : ch - 'A'; }
bool IsLetter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/// One term: its letters' ids before and after the "...", and whether it has "...".
struct Term {
  std::vector<int> pre, post;
  bool ellipsis = false;
};

/// Parses one term; false on a character that is not a letter or a lone/second ".".
bool ParseTerm(const std::string& s, Term* t) {
  for (size_t i = 0; i < s.size();) {
    if (IsLetter(s[i])) {
      (t->ellipsis ? t->post : t->pre).push_back(LetterId(s[i]));
      ++i;
    } else if (s.compare(i, 3, "...") == 0 && !t->ellipsis) {
      t->ellipsis = true;
      i += 3;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

Status InferEinsum(InferContext& ctx) {
  if (ctx.in.empty()) return ctx.Error("expects at least 1 input");
  for (size_t i = 0; i < ctx.in.size(); ++i)
    if (!ctx.in[i].present) return ctx.Error("input " + std::to_string(i) + " is missing");
  const DType dt = ctx.in[0].dtype;
  if (dt == DType::kFloat16 || dt == DType::kBool || DTypeSize(dt) == 0)
    return ctx.Error("input type " + DTypeName(dt) + " is not supported");
  for (const ValueInfo& v : ctx.in)
    if (v.dtype != dt) return ctx.Error("all inputs must have one dtype, got " + DTypeName(dt) + " and " + DTypeName(v.dtype));
  if (!ctx.node.has("equation")) return ctx.Error("attribute 'equation' is required");
  TARE_ASSIGN_OR_RETURN(std::string raw, ctx.node.GetString("equation", ""));
  std::string eq;
  for (char ch : raw)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const bool explicit_out = arrow != std::string::npos;
  const std::string lhs = eq.substr(0, arrow), rhs = explicit_out ? eq.substr(arrow + 2) : "";
  std::vector<std::string> parts(1);
  for (char ch : lhs) {
    if (ch == ',') parts.emplace_back();
    else parts.back() += ch;
  }
  if (parts.size() != ctx.in.size())
    return ctx.Error("equation '" + raw + "' has " + std::to_string(parts.size()) + " input terms for " +
                     std::to_string(ctx.in.size()) + " inputs");
  // Sizes of labels; -1 = not seen yet. Ellipsis dims: ids 52.. (E of them).
  std::vector<int64_t> size(52, -1);
  std::vector<int> count(52, 0);
  int64_t e_max = 0;
  std::vector<Term> terms(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!ParseTerm(parts[i], &terms[i])) return ctx.Error("equation term '" + parts[i] + "' is invalid");
    const Term& t = terms[i];
    const int64_t r = static_cast<int64_t>(ctx.in[i].shape.size());
    const int64_t letters = static_cast<int64_t>(t.pre.size() + t.post.size());
    if (letters > r || (!t.ellipsis && letters != r))
      return ctx.Error("equation term '" + parts[i] + "' does not match the rank " + std::to_string(r) + " of input " +
                       std::to_string(i));
    e_max = std::max(e_max, r - letters);
  }
  std::vector<int64_t> ell(static_cast<size_t>(e_max), 1);
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const Shape& sh = ctx.in[i].shape;
    const size_t ne = sh.size() - t.pre.size() - t.post.size();
    std::vector<int64_t> local(52, -1);  // within one term: repeated letters must be equal
    auto visit = [&](int id, int64_t d) -> Status {
      if (local[id] >= 0 && local[id] != d)
        return ctx.Error("repeated label in term '" + parts[i] + "' has dims " + std::to_string(local[id]) + " and " +
                         std::to_string(d) + " (a diagonal needs equal dims)");
      local[id] = d;
      ++count[id];
      if (size[id] < 0 || size[id] == 1) size[id] = d;
      else if (d != 1 && d != size[id])
        return ctx.Error("label dims " + std::to_string(size[id]) + " and " + std::to_string(d) + " do not match");
      return Status::Ok();
    };
    for (size_t j = 0; j < t.pre.size(); ++j) TARE_RETURN_IF_ERROR(visit(t.pre[j], sh[j]));
    for (size_t j = 0; j < t.post.size(); ++j) TARE_RETURN_IF_ERROR(visit(t.post[j], sh[t.pre.size() + ne + j]));
    for (size_t j = 0; j < ne; ++j) {
      int64_t& e = ell[static_cast<size_t>(e_max) - ne + j];
      const int64_t d = sh[t.pre.size() + j];
      if (e != 1 && d != 1 && d != e)
        return ctx.Error("the '...' dims of input " + std::to_string(i) + " " + ShapeStr(sh) + " do not broadcast");
      if (d != 1) e = d;
    }
  }
  Shape out;
  if (explicit_out) {
    Term t;
    if (!ParseTerm(rhs, &t)) return ctx.Error("output term '" + rhs + "' is invalid");
    if (!t.ellipsis && e_max > 0)
      return ctx.Error("the output term '" + rhs + "' needs '...' for the broadcast dims of the inputs");
    std::vector<bool> used(52, false);
    for (const std::vector<int>* part : {&t.pre, &t.post}) {
      if (part == &t.post) out.insert(out.end(), ell.begin(), ell.end());
      for (int id : *part) {
        if (count[id] == 0 || used[id])
          return ctx.Error("output term '" + rhs + "' has a label that is repeated or absent from the inputs");
        used[id] = true;
        out.push_back(size[id]);
      }
    }
  } else {
    out = ell;
    for (int id = 0; id < 52; ++id)
      if (count[id] == 1) out.push_back(size[id]);
  }
  ctx.SetOut(0, dt, out);
  return Status::Ok();
}

}  // namespace tare
