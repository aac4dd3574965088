#include "kernels/ref/einsum_plan.h"

#include <algorithm>

namespace tare {
namespace {

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

}  // namespace

EinsumPlan MakeEinsumPlan(const std::string& raw, const std::vector<Shape>& in) {
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
    e = std::max(e, static_cast<int64_t>(in[i].size()) - letters);
  }
  EinsumPlan p;
  p.size.assign(static_cast<size_t>(52 + e), 1);
  std::vector<int> count(p.size.size(), 0);
  std::vector<int> order;  // ids by first appearance
  for (size_t i = 0; i < parts.size(); ++i) {
    p.labels.push_back(TermLabels(parts[i], in[i].size(), e));
    for (size_t j = 0; j < p.labels[i].size(); ++j) {
      const int id = p.labels[i][j];
      if (count[id]++ == 0) order.push_back(id);
      if (in[i][j] != 1) p.size[id] = in[i][j];
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


}  // namespace tare
