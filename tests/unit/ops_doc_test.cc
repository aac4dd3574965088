// docs/OPS.md's inputs: runtime/ops/op_coverage.inc (opsets and dtypes, read by `tare ops`) must
// list exactly the ops of runtime/ops/op_list.inc, in the same order, each with well-formed cells.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "runtime/ops/op.h"

using namespace tare;

namespace {

struct Coverage {
  std::string domain, name, opsets, dtypes;
};

const std::vector<Coverage>& AllCoverage() {
  static const std::vector<Coverage> kCoverage = {
#define TARE_OP_COVERAGE(domain, name, opsets, dtypes) {domain, #name, opsets, dtypes},
#include "runtime/ops/op_coverage.inc"
#undef TARE_OP_COVERAGE
  };
  return kCoverage;
}

/// "1, 6, 13" -> {1, 6, 13}; empty on any malformed text.
std::vector<int> ParseOpsets(const std::string& s) {
  std::vector<int> v;
  size_t i = 0;
  while (i < s.size()) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return {};
    int n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) n = n * 10 + (s[i++] - '0');
    v.push_back(n);
    if (i == s.size()) break;
    if (s.compare(i, 2, ", ") != 0) return {};
    i += 2;
    if (i == s.size()) return {};
  }
  return v;
}

/// The version N of the first "<name>-N" in `doc` (name not preceded by a letter), or -1.
int CitedVersion(const std::string& doc, const std::string& name) {
  for (size_t p = doc.find(name + "-"); p != std::string::npos; p = doc.find(name + "-", p + 1)) {
    if (p > 0 && std::isalnum(static_cast<unsigned char>(doc[p - 1]))) continue;
    size_t i = p + name.size() + 1;
    if (i >= doc.size() || !std::isdigit(static_cast<unsigned char>(doc[i]))) continue;
    int n = 0;
    while (i < doc.size() && std::isdigit(static_cast<unsigned char>(doc[i]))) n = n * 10 + (doc[i++] - '0');
    return n;
  }
  return -1;
}

}  // namespace

TEST_CASE("op_coverage.inc lists the ops of op_list.inc in the same order") {
  const std::vector<OpSpec>& ops = AllOps();
  const std::vector<Coverage>& cov = AllCoverage();
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string op = std::string(ops[i].domain) + ":" + ops[i].name;
    const std::string where = "op_list.inc's " + op + " (run `python3 tools/op_versions.py --update`)";
    INFO(where);
    REQUIRE(i < cov.size());
    REQUIRE(cov[i].domain + ":" + cov[i].name == op);  // stop at the first difference
  }
  CHECK(cov.size() == ops.size());
}

TEST_CASE("op_coverage.inc: opsets are increasing ONNX versions, dtypes are filled in") {
  const std::vector<OpSpec>& ops = AllOps();
  const std::vector<Coverage>& cov = AllCoverage();
  for (const Coverage& c : cov) {
    const std::string where = c.domain + ":" + c.name + " opsets \"" + c.opsets + "\" dtypes \"" + c.dtypes + "\"";
    INFO(where);
    const std::vector<int> v = ParseOpsets(c.opsets);
    REQUIRE(!v.empty());
    for (size_t i = 0; i < v.size(); ++i) {
      CHECK(v[i] >= 1);
      if (c.domain.empty()) {
        CHECK(v[i] <= 23);  // converters/onnx accepts opsets 1..23
      }
      if (i > 0) {
        CHECK(v[i] > v[i - 1]);
      }
    }
    CHECK(!c.dtypes.empty());
    CHECK(c.dtypes.find('?') == std::string::npos);
    // The version op_list.inc cites ("ONNX Resize-13") is one of the op's since-versions.
    for (const OpSpec& s : ops) {
      if (c.domain != s.domain || c.name != s.name) continue;
      const int cited = CitedVersion(s.doc, s.name);
      const std::string cite = std::string("op_list.inc cites ") + s.name + "-" + std::to_string(cited);
      INFO(cite);
      if (cited >= 0) {
        CHECK(std::find(v.begin(), v.end(), cited) != v.end());
      }
    }
  }
}
